// sigmoid in SFPI: the 6-segment lut2 (fp16 coefficients, mode 0: breakpoints 0.5, 1, 1.5, 2, 4),
// sign retained, + 0.5 (tt-llk's algorithm). Compiled once per target.
//
// sigmoid(x) - 0.5 = tanh(x / 2) / 2 is odd, so a LUT on |x| that keeps x's sign (lut2, SGN_RETAIN)
// gives it for both signs, and sigmoid(x) = that + 0.5. Fit (vlak's own): per segment the minimax line of sigmoid(t) - 0.5 (t = |x|), rounded to
// fp16; segment 0 through the origin (B = 0) so sigmoid(0) = 0.5 and the two signs meet there;
// segment 5 is the limit (A = 0, B = 0.5); 0 x inf is NaN, so two integer compares pin
// sigmoid(+-inf) = 1 / 0; NaN stays NaN.
//   segment     A (fp16)                 B (fp16)                 max |error| of sigmoid - 0.5
//   [0, 0.5)    0x33e1 = 0.2462158203    0 (0x7c00)               6.5e-4
//   [0.5, 1)    0x32f3 = 0.2171630859    0x23b7 = 0.0150680542    1.24e-3
//   [1, 1.5)    0x3189 = 0.1729736328    0x2b9e = 0.0595092773    1.57e-3
//   [1.5, 2)    0x300c = 0.1264648438    0x3023 = 0.1292724609    1.41e-3
//   [2, 4)      0x2a7a = 0.0505981445    0x34a5 = 0.2902832031    1.08e-2
//   [4, inf)    0 (0x7c00)               0x3800 = 0.5             1.80e-2 (at |x| = 4)
// (fp16 0x0000 is not 0 in the LUT format, 2^-15: zero is exponent field 31, 0x7c00.) A minimax
// constant on [4, inf) (0.491) would cut the last row to 9e-3 but leave sigmoid(+inf) = 0.991.
// Cost: 1 SFPLUTFP32 + 1 SFPMAD (+ 0.5) + 2 compares (v_if chain, depth 2) per lane-vector, 6
// register loads of coefficients.
// Measured (`vlak accuracy sfpi`: every bf16 + 2^24 strided fp32 inputs, wh and bh identical):
//   max absolute error 0.0180 (at |x| = 4, the step to the limit: sigmoid(4) = 0.982 -> 1.0);
//   x >= 0: max relative error 0.0183 (x = 4), 4.6 bf16 ULP, 3.0e5 fp32 ULP; all x: relative
//   error 1 (x <= -4 gives 0: 0.5 - 0.5, the +0.5 form cannot carry the tail).
//   Published (the older 3-segment 8-bit path, tt-metal #53258): about 0.12 absolute.
#include "sfpi/kernels/common.h"
#include "sfpi/kernels/kernels.h"

namespace vlak::VLAK_NS::sfpi_kernels {

vFloat SigmoidLut2(const vFloat& x) {
  // Each register: segment 2k in the low half, 2k + 1 in the high half.
  const vUInt a01 = 0x32f333e1u;
  const vUInt a23 = 0x300c3189u;
  const vUInt a45 = 0x7c002a7au;
  const vUInt b01 = 0x23b77c00u;
  const vUInt b23 = 0x30232b9eu;
  const vUInt b45 = 0x380034a5u;
  vFloat r = lut2(x, a01, a23, a45, b01, b23, b45, 0) + 0.5f;
  // Segment 5 is 0 |x| + 0.5, NaN at |x| = inf (0 x inf): pin the two limits. Integer equality on
  // the bits, not a float compare: SFPI's float compares test the sign of x - c, so a NaN would
  // pass `x >= 4` (and every finite |x| >= 4 gets exactly 1 or 0 from the LUT already).
  const vInt bits = reinterpret<vInt>(x);
  v_if (bits == 0x7f800000) {
    r = 1.0f;
  } v_elseif (bits == static_cast<int32_t>(0xff800000u)) {
    r = 0.0f;
  } v_endif;
  return r;
}

void SigmoidBody() { EachRow([](const vFloat& x) { return SigmoidLut2(x); }); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
