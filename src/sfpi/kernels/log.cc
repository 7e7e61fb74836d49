// natural log in SFPI (tt-llk's algorithm): setexp(x, 127), a cubic series, + exponent * ln2 (fp16).
// Compiled once per target.
//
// x = m 2^e with m = setexp(x, 127) in [1, 2) and e = exponent field - 127. u = m - 1 (exact);
// ln(m) ~ p(u) = u (c1 + u (c2 + u c3)) in Horner form; ln x = e * L + p(u) with L = ln 2 as the
// fp16 0x398b = 0.69287109375 (ln 2 truncated to fp16: the spec's 0.692871, loaded into vConstFloatPrgm0). The cubic is
// vlak's own fit: absolute minimax (Remez) of ln(1 + u) on [0, 1] under p(0) = 0 (ln 1 = 0
// exactly) and p(1) = c1 + c2 + c3 = L (so e L + p is continuous where m wraps from 2 to 1, and
// ln(x) -> 0 as x -> 1 from below too): c1 = 0.98544776, c2 = -0.40026274, c3 = 0.10768607; max
// |p(u) - ln(1 + u)| = 6.6e-4, relative error 1.6% as u -> 0 (p'(0) = c1).
// e as a float: int32_to_float(exponent field) - 127, both exact (the field is 0..255 and the
// SFPCAST input is sign-magnitude, so converting the unbiased exponent would need a v_if to
// negate it; subtracting 127 after the conversion needs none).
// Special values (chosen here; tt-llk only tests x == 0): exponent field 0 (+-0, and denormals,
// which the SFPU reads as zero) -> -inf; x < 0 (sign set, -inf and negative NaN included) -> NaN
// (0x7fc00000); +inf -> +inf; +NaN -> itself.
// Cost: 6 SFPMADs (u, 3 Horner, - 127, e L + p) + setexp, exexp, SFPCAST, 3 compares (v_if chain,
// depth 3) per lane-vector.
// Measured (`vlak accuracy sfpi`: every bf16 + 2^24 strided fp32 inputs, wh = bh): max absolute
//   error 0.0357 (x near 2^+-127: 127 (ln 2 - L) = 0.0351, plus p's 6.6e-4); all x > 0: max
//   relative error 0.0167 (x near 1, from either side: p's slope there, |2 p'(1) - 1| = 1.6% below,
//   c1 - 1 above), 4.0 bf16 ULP; x >= 2: 1.19e-3 (x = 2.21). Not in the sample: x = 1 - 2^-24
//   gives 0 (p(u) rounds to L), a relative error of 1. Published: none.
#include <limits>

#include "sfpi/kernels/common.h"
#include "sfpi/kernels/kernels.h"

namespace vlak::VLAK_NS::sfpi_kernels {

void LogInit() { vConstFloatPrgm0 = sFloat16a(0x398b);  // ln 2 = 0.69287109375 in fp16 (truncated)
}

vFloat Log(const vFloat& in) {
  const vFloat m = setexp(in, 127);
  const vFloat u = m - vFloat(vConst1);
  vFloat p = Horner(u, {0.98544776439666748f, -0.40026274323463440f, 0.10768607258796692f});
  p = p * u;
  const vInt field = exexp_nodebias(in);
  const vFloat e = int32_to_float(field, RoundMode::Nearest) - 127.0f;
  vFloat result = e * vConstFloatPrgm0 + p;
  v_if (field == 0) {
    result = -std::numeric_limits<float>::infinity();
  } v_elseif (in < 0.0f) {
    result = std::numeric_limits<float>::quiet_NaN();
  } v_elseif (field == 255) {
    result = in;
  } v_endif;
  return result;
}

void LogBody() { EachRow([](const vFloat& x) { return Log(x); }); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
