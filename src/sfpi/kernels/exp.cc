// exp kernels in SFPI (tt-llk's four exp algorithms). Compiled once per target.
//
// exp_accurate (fp32): z = x / ln2 through SFPMAD; z >= 128 -> +inf, z <= -127 -> 0, else k =
//   round-to-even(z) via the 1.5 * 2^23 magic, r = x - k ln2 with a two-constant Cody-Waite
//   (ln2_hi = 0.693115234375, ln2_lo = 3.19461832987e-5), p = degree-7 Taylor of e^r in Horner
//   form, exponent(p) += k. 2 compares + 12 SFPMADs + bit ops per lane-vector. Published: <= 1 ULP.
//   (tt-llk also tests exexp(z) == 255 for NaN; exexp is debiased, so that branch never fires and a
//   NaN takes the z >= 128 branch when its sign is clear: kept as written.)
// exp_bf16 (exp_21f, Moroz et al. 2022): y = x log2(e) + 127 clamped to [0, 255] (SFPSWAP), z =
//   its mantissa shifted by its exponent (a 9.23 fixed point), exponent = z's exponent field,
//   fraction = z's mantissa as an integer converted to float (nearest even), a quadratic in it,
//   setexp, then rounded to bf16 (nearest, ties away). Published: 1 bf16 ULP on [-87, 88.5].
// exp_approx: x >= 89 -> inf, x < -42 -> 0, else bits = (bits(x * 1.442695 + 192) + 0xbd3f0000) << 7
//   (a bf16 exponent trick with 3 fraction bits). Published: 720,000 ULP.
// exp_fast (Schraudolph): x clamped to >= -88.5, i = 369.329925537109375 x + 32500.818359375,
//   rounded to int16 (sign-magnitude, nearest), bits = |i| << 15 with i's sign. Valid to x = 0.72
//   (int16 saturates beyond). Published: 380,000 ULP.
#include <cmath>
#include <limits>

#include "sfpi/kernels/common.h"
#include "sfpi/kernels/kernels.h"

namespace vlak::VLAK_NS::sfpi_kernels {

vFloat ExpAccurate(const vFloat& val) {
  vFloat result = 0.0f;
  const vFloat z = val * 1.4426950408889634f;
  const vInt exp_bits = exexp(z);
  v_if (z >= 128.0f) {
    result = std::numeric_limits<float>::infinity();
  } v_elseif (z <= -127.0f) {
    result = 0.0f;
  } v_elseif (exp_bits == 255) {
    result = std::numeric_limits<float>::quiet_NaN();
  } v_else {
    const vFloat magic = FromBits(0x4b400000u);  // 1.5 * 2^23: adding it rounds to an integer
    const vFloat shifted = z + magic;
    const vFloat k = shifted - magic;
    const vInt k_int = reinterpret<vInt>(shifted) - reinterpret<vInt>(magic);
    const vFloat r_hi = k * -0.6931152343750000f + val;
    const vFloat r = k * -3.19461832987e-05f + r_hi;
    const vFloat p = Horner(r, {1.0f, 1.0f, 0.5f, 1.0f / 6.0f, 1.0f / 24.0f, 1.0f / 120.0f, 1.0f / 720.0f, 1.0f / 5040.0f});
    result = setexp(p, exexp_nodebias(p) + k_int);
  } v_endif;
  return result;
}

vFloat ExpBf16(const vFloat& val) {
  vFloat xlog2 = val * 1.4426950216293334961f + 127.0f;
  vFloat lo = 0.0f, hi = 255.0f;
  vec_min_max(lo, xlog2);
  vec_min_max(xlog2, hi);
  const vInt z = reinterpret<vInt>(shft(reinterpret<vUInt>(exman8(xlog2)), exexp(xlog2)));
  const vInt exponent = exexp_nodebias(reinterpret<vFloat>(z));
  const vInt fraction = exman9(reinterpret<vFloat>(z));
  vFloat frac = int32_to_float(fraction, RoundMode::Nearest);
  frac = Horner(frac, {1.0017248f, 7.839635491371155e-08f, 4.791750143340323e-15f});
  const vFloat y = setexp(frac, exponent);
  return float_to_fp16b(y, RoundMode::NearestAway);
}

void ExpApproxInit() {
  vConstFloatPrgm0 = 1.442695f;
  vConstFloatPrgm1 = sFloat16b(0x4340);  // 192.0
  vConstFloatPrgm2 = sFloat16b(0xbd3f);  // read as an integer: 0xbd3f0000
}
vFloat ExpApprox(const vFloat& in) {
  vFloat result = 0.0f;
  v_if (in >= 89.0f) {
    result = std::numeric_limits<float>::infinity();
  } v_elseif (in < -42.0f) {
    result = 0.0f;
  } v_else {
    const vFloat scaled = in * vConstFloatPrgm0 + vConstFloatPrgm1;
    vInt bits = vInt(vConstIntPrgm2) + reinterpret<vInt>(scaled);
    bits <<= 7;
    result = reinterpret<vFloat>(bits);
  } v_endif;
  return result;
}

void ExpFastInit() {
  vConstFloatPrgm0 = 369.329925537109375f;  // 2^8 / ln 2
  vConstFloatPrgm1 = 32500.818359375f;      // 127 * 2^8 - a shift that centres the error
  vConstFloatPrgm2 = -88.5f;
}
vFloat ExpFast(const vFloat& in) {
  vFloat x = in;
  vFloat floor = vConstFloatPrgm2;
  vec_min_max(floor, x);  // x = max(x, -88.5)
  const vFloat i = x * vConstFloatPrgm0 + vConstFloatPrgm1;
  const vInt r = float_to_int16(i, RoundMode::NearestAway);  // sign-magnitude
  const vInt shifted = r << 15;
  return setsgn(reinterpret<vFloat>(shifted), reinterpret<vFloat>(r));
}

void ExpAccurateBody() { EachRow([](const vFloat& x) { return ExpAccurate(x); }); }
void ExpBf16Body() { EachRow([](const vFloat& x) { return ExpBf16(x); }); }
void ExpApproxBody() { EachRow([](const vFloat& x) { return ExpApprox(x); }); }
void ExpFastBody() { EachRow([](const vFloat& x) { return ExpFast(x); }); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
