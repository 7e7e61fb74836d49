// gelu in SFPI (tt-llk's algorithms): approximate (0.5 x + a 6-segment LUT) and accurate
// (x CDF(x) with a degree-4 polynomial). Compiled once per target.
//
// gelu-approx: gelu(x) = 0.5 x + g(x), g(x) = 0.5 x erf(x / sqrt 2) = |x| (Phi(|x|) - 0.5), which
//   is EVEN in x. The LUT evaluates A |x| + B, an even function of x already; lut2 (SGN_RETAIN)
//   would give it x's sign and make it odd (gelu(-3) would be -3 instead of 0), so the kernel
//   uses lut2_sign, which keeps the computed sign (A t + B >= 0 on every segment here). Mode 1:
//   breakpoints 0.5, 1, 1.5, 2, 3. Fit (vlak's own): minimax line of g on each segment, fp16;
//   segment 0 through the origin (gelu(0) = 0, and gelu(x) ~ x (0.5 + A) keeps x's sign near 0),
//   segment 5 the asymptote A = 0.5, B = 0 (gelu(x) = x for x >= 3, exactly 0 for x <= -3).
//     segment     A (fp16)                 B (fp16)                  max |error| of g
//     [0, 0.5)    0x311a = 0.1594238281    0 (0x7c00)                1.60e-2 (at |x| = 0.5)
//     [0.5, 1)    0x37dc = 0.4912109375    0xb103 = -0.1566162109    6.84e-3
//     [1, 1.5)    0x38ef = 0.6166992188    0xb46e = -0.2768554688    1.60e-3
//     [1.5, 2)    0x38e0 = 0.609375        0xb435 = -0.2629394531    1.44e-3
//     [2, 3)      0x3855 = 0.5415039063    0xafeb = -0.1237182617    4.84e-3
//     [3, inf)    0x3800 = 0.5             0 (0x7c00)                4.05e-3 (at |x| = 3)
//   Cost: 1 SFPLUTFP32 + 1 SFPMAD (x * 0.5 + lut) + 1 compare (gelu(-inf) = 0) per lane-vector.
//   Measured (`vlak accuracy sfpi`: every bf16 + 2^24 strided fp32 inputs, wh = bh): max absolute
//   error 0.0160 (|x| = 0.5 -); x >= 0: max relative error 0.319 (x -> 0+: 2 A, the line through
//   the origin stands in for 0.4 x^2; 81.6 bf16 ULP); all x: relative error 1.2 (x < 0: 0.5 x + g
//   cancels, and the result is 0 for x <= -3).
// gelu-accurate: gelu(x) = x CDF(x): x >= 2.5 -> x (CDF = 1), x <= -2.5 -> 0 (CDF = 0), else
//   q = P(|x|) ~ Phi(|x|) - 0.5 with P(t) = t (c1 + t (c2 + t (c3 + t c4))), the minimax
//   (absolute, Remez, vlak's own) polynomial with P(0) = 0 on [0, 2.5]: max |P - (Phi - 0.5)| =
//   8.7e-4. Phi(x) - 0.5 is odd: q takes x's sign (setsgn), then gelu = x q + 0.5 x.
//   c1 = 0.40769190, c2 = -0.024827339, c3 = -0.054740526, c4 = 0.012439671.
//   Cost: 2 compares (x <= -2.5 is two tests; x < 2.5 one) + 6 SFPMADs + setsgn x2 per lane-vector.
//   Measured (same inputs, wh = bh): max absolute error 0.0155 (|x| = 2.5, the cut: Phi(2.5) =
//   0.99379); x >= 0: max relative error 6.25e-3 (x = 2.5), 0.99 bf16 ULP; all x: relative error 1
//   (x <= -2.5 gives 0; just above -2.5 the polynomial's 8.7e-4 against Phi = 0.0062 is 14%).
// Published: "see tt-eltwise-accuracy-report" (no single figure).
#include "sfpi/kernels/common.h"
#include "sfpi/kernels/kernels.h"

namespace vlak::VLAK_NS::sfpi_kernels {

vFloat GeluApprox(const vFloat& x) {
  const vUInt a01 = 0x37dc311au;
  const vUInt a23 = 0x38e038efu;
  const vUInt a45 = 0x38003855u;
  const vUInt b01 = 0xb1037c00u;
  const vUInt b23 = 0xb435b46eu;
  const vUInt b45 = 0x7c00afebu;
  const vFloat g = lut2_sign(x, a01, a23, a45, b01, b23, b45, 1);
  vFloat r = x * 0.5f + g;
  // x <= -3 gives 0.5 x + 0.5 |x| = 0 exactly, except -inf (-inf + inf = NaN): pin it, by its
  // bits (an SFPI float compare tests the sign of x - c, which a negative NaN would pass).
  v_if (reinterpret<vInt>(x) == static_cast<int32_t>(0xff800000u)) {
    r = 0.0f;
  } v_endif;
  return r;
}

vFloat GeluAccurate(const vFloat& x) {
  vFloat result = x;  // x >= 2.5: CDF = 1
  v_if (x <= -2.5f) {
    result = 0.0f;
  } v_elseif (x < 2.5f) {
    const vFloat t = setsgn(x, 0);  // |x|
    vFloat q = Horner(t, {0.40769189596f, -0.024827338755f, -0.054740525782f, 0.012439670972f});
    q = q * t;
    q = setsgn(q, x);  // Phi(x) - 0.5
    const vFloat half_x = x * 0.5f;
    result = x * q + half_x;
  } v_endif;
  return result;
}

void GeluApproxBody() { EachRow([](const vFloat& x) { return GeluApprox(x); }); }
void GeluAccurateBody() { EachRow([](const vFloat& x) { return GeluAccurate(x); }); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
