// sqrt in SFPI (tt-llk's algorithm): a magic-constant inverse-square-root seed, Newton steps, and one
// correction of the square root itself. Compiled once per target.
//
// y0 = bits(0x5f375a86 - (bits(x) >> 1)) ~ 1/sqrt(x) (the 0x5f37 constant family; this one is
// Lomont's, max relative error 3.4e-2); two Newton steps on y, t = x y, r = 1 - t y, y = y + (0.5 y) r
// (relative error 1.75e-3, then 4.6e-6); s = x y and the same step on s: r = 1 - s y, s = s +
// (0.5 s) r, which removes y's error to second order and halves the rounding error of x y, so the
// result is within about 1 ULP. Every step is the residual form: r is near 0 and t y near 1, so
// nothing underflows at any normal x (the textbook y (1.5 - 0.5 x y^2) underflows: 0.5 x for x
// below 2^-125, y^2 for x above 2^126; x - s^2 for x below 2^-103).
// Special values: exponent field 0 (+-0, denormals read as zero) -> +-0; x < 0 (-inf, negative
// NaN included) -> NaN (0x7fc00000); +inf -> +inf; +NaN -> itself.
// Cost: 12 SFPMADs (3 steps of 4: t, r, half, add) + a shift and an integer subtract for the seed
// + 3 compares (v_if chain, depth 3) per lane-vector.
// Measured (`vlak accuracy sfpi`: every bf16 + 2^24 strided fp32 inputs, wh = bh): max 0.862 ULP
//   (fp32), max relative error 9.5e-8. Published: about 1 ULP (tt-llk PR #230).
#include <limits>

#include "sfpi/kernels/common.h"
#include "sfpi/kernels/kernels.h"

namespace vlak::VLAK_NS::sfpi_kernels {

void SqrtInit() {
  vConstIntPrgm0 = 0x5f375a86;
  vConstFloatPrgm1 = 0.5f;  // the Newton step's half
}

vFloat Sqrt(const vFloat& x) {
  vFloat y = reinterpret<vFloat>(vInt(vConstIntPrgm0) - reinterpret<vInt>(reinterpret<vUInt>(x) >> 1));
  // Two Newton steps on y ~ 1/sqrt(x), then one on s ~ sqrt(x), all in the residual form.
  for (int i = 0; i < 2; ++i) {
    const vFloat t = x * y;
    const vFloat r = vFloat(vConst1) - t * y;
    const vFloat half_y = y * vConstFloatPrgm1;
    y = y + half_y * r;
  }
  vFloat s = x * y;
  const vFloat r = vFloat(vConst1) - s * y;
  const vFloat half_s = s * vConstFloatPrgm1;
  s = s + half_s * r;
  const vInt field = exexp_nodebias(x);
  v_if (field == 0) {
    s = setman(x, 0);
  } v_elseif (x < 0.0f) {
    s = std::numeric_limits<float>::quiet_NaN();
  } v_elseif (field == 255) {
    s = x;
  } v_endif;
  return s;
}

void SqrtBody() { EachRow([](const vFloat& x) { return Sqrt(x); }); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
