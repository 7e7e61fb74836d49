// exp(x), Schraudolph (1999): the IEEE-754 bit trick with one constant correction.
//
// Algorithm: the float with bits 2^23 * (y + 127) for y = x log2(e) is 2^floor(y) * (1 + frac(y)):
// the exponent field takes floor(y) and the mantissa is linear in the fraction, a chord of 2^f.
// One fused multiply-add gives the bits as a float, NearestInt makes them an integer:
//   bits = round(x * 2^23 / ln2 + (127 * 2^23 - C)).
// C shifts the chord under the curve. Schraudolph chose C for the least RMS relative error
// (C = 60801 * 8 for floats); we take the minimax one, C = 366393 (tools/remez/exp_coeffs.py;
// 366400 once the constant is rounded to float), which gives a relative error within +-2.98%
// instead of [-3.9%, +2.0%].
//
// Measured (every float of [-87.3, 88.7] against float64 exp, `vlak accuracy exp --exhaustive`):
//   max relative error 2.983e-2, mean 2.145e-2; max 366,462 ULP (a relative error of 3% is
//   ~250,000 ULP: the ULP count only says how far from float precision the trick is).
//   Results for x in [-88.0, -87.31) are denormal (bits < 2^23) and lose relative accuracy;
//   x < -88.0 gives +0.
// Special values: all honoured. exp(-inf) = +0 and underflow -> +0 (bits clamped at 0),
//   overflow and exp(+inf) = +inf (bits clamped at 0x7F800000), exp(NaN) = the quiet NaN
//   0x7FC00000 (the clamp drops NaN to bits 0; NaN lanes OR in the quiet NaN: 3 of the 7 ops).
// Cost: 7 vector-layer ops (MulAdd, Max, Min, NearestInt, IsNaN, Or, IfThenElse). On AVX-512 the
//   contract's NearestInt (saturating, NaN -> 0) is vcvtps2dq plus fix-up ops although the clamp
//   already makes them no-ops. RVV: the constants are scalar operands (.vf/.vx), one splat (kB)
//   under ExpEval::kFused, none under kLean.
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS {

// kEval: kLean rounds x * kA before adding kB (exp_common.h).
template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpSchraudolph(D d, VFromD<D> x) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpSchraudolph takes f32 tags");
  constexpr float kA = 12102203.0f;       // 2^23 / ln 2
  constexpr float kB = 1064986816.0f;     // 127 * 2^23 - 366393, rounded to float
  constexpr float kInfBits = 2139095040.0f;  // 0x7F800000 as a number
  const auto di = Rebind<int32_t>(d);
  const auto nan = IsNaN(d, x);  // first: x dies in w
  auto w = exp_detail::ScaleShift<kEval>(d, x, kA, kB);
  w = Min(d, Max(d, w, 0.0f), kInfBits);
  // NaN lanes get the quiet NaN's bits ORed in (w is 0 there: the clamp drops NaN), so x need
  // not stay live to the end (at RVV's LMUL 8 it would not fit).
  const auto bits = NearestInt(d, w);
  return IfThenElse(d, nan, BitCast(d, di, Or(di, bits, 0x7FC00000)), BitCast(d, di, bits));
}

}  // namespace vlak::VLAK_NS
