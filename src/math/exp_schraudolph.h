// exp(x), Schraudolph (1999): the IEEE-754 bit trick with one constant correction.
//
// Algorithm: the float with bits 2^23 * (y + 127) for y = x log2(e) is 2^floor(y) * (1 + frac(y)),
//   a chord of 2^f. One fused multiply-add gives the bits as a float, NearestInt makes them an
//   integer: bits = round(x * 2^23 / ln2 + (127 * 2^23 - C)), C = 366393, the minimax shift of the
//   chord under the curve (tools/remez/exp_coeffs.py; 366400 once the constant is rounded to
//   float): a relative error within +-2.98%.
// Bound (vlak.h): max relative error 3.0e-2 on [-87.3, 88.7]. x in [-88.0, -87.31) gives denormal
//   results (bits < 2^23) with less relative accuracy; x < -88.0 gives +0.
// Special values: all honoured. exp(-inf) = +0 and underflow -> +0 (bits clamped at 0),
//   overflow and exp(+inf) = +inf (bits clamped at 0x7F800000), exp(NaN) = the quiet NaN
//   0x7FC00000 (NaN lanes OR it in).
// Cost: 7 vector-layer ops (MulAdd, Max, Min, NearestInt, IsNaN, Or, IfThenElse). RVV: one splat
//   (kB) under ExpEval::kFused, none under kLean. Schraudolph's own C, AVX-512's NearestInt and
//   the measurement: docs/ops/exp.md, "exp_schraudolph.h".
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
