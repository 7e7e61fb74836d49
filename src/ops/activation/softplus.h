// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|): two non-negative terms, no cancellation.
//
// Algorithm: e = e^-|x| = 2^n (1 + t + v) (exp_parts.h); log1p(e) = 2 atanh(sg), sg = e / (2 + e)
//   in [0, 1/3], 2 atanh(sg) = 2sg (1 + w R2(w)), w = (2sg)^2, R2 of degree 3 (4.6e-9 = 2^-27.7
//   absolute on w R2): one division and no logarithm. d = 2 + e as dh + dl, exact up to e's own
//   error; 1 / d = r (1 + G), r by the division (x86) or recip.h's seed and a Newton step
//   (RISC-V); log1p(e) = Q (1 + K), Q = 2 s r exact, t and v unrounded in K. x < 0: one FMA, then
//   the 2^-64 (exact, or below FLT_MIN the rounding); x >= 0: x + Q (1 + K) by a 2Sum, rounded
//   once. About half a ULP of error before the last rounding.
// Bound (vlak.h): 2 ULP, 2^-149 below FLT_MIN.
// Special values: NaN -> the same NaN; softplus(-inf) = +0, softplus(+inf) = +inf (x > 20 gives
//   x); results below FLT_MIN (x < -87.3) are e^x rounded once.
// Cost: 52 vector-layer ops with one Div; RISC-V: the Div becomes 4 ops, G and U 2 more. The
//   derivation, the measured maxima, the ops term by term: docs/ops/activation.md, "softplus.h".
#pragma once

#include "ops/activation/exp_parts.h"
#include "ops/activation/recip.h"

namespace vlak::VLAK_NS::act {

template <class D>
VFromD<D> Softplus(D d, VFromD<D> x) {
  constexpr float kTwoM64 = 5.42101086242752217e-20f, kTwoM65 = 2.71050543121376109e-20f;
  VFromD<D> S, t, v, u;
  ExpParts<65, false, (Pow2FromD<D> >= 1 ? 3 : 0)>(d, Max(d, NegAbs(d, x), -120.0f), x, S, t, v, u);
  const auto s = Mul(d, S, kTwoM65);
  const auto E = MulAdd(d, s, u, s);
  const auto two = Set(d, 2.0f);
  const auto dh = Add(d, two, E);
  const auto dl = Add(d, Add(d, Sub(d, two, dh), E), MulAdd(d, s, u, Sub(d, s, E)));
  const auto one = Set(d, 1.0f);
  // 1 / d = r (1 + g + g^2 + ...): r to 2^-11.2 without a division (recip.h), g = 1 - r dh - r dl,
  // G = g + g^2, leaving g^3 < 2^-33.
  // With the division (x86, recip.h): r = RN(1 / dh), G = g (2^-24), U = 1 + u, Q1 = RN(Q (1 + u)).
  const auto u1 = Add(d, u, 1.0f);
  VFromD<D> r, G, U;
  if constexpr (kDivFree) {
    r = Recip2To3(d, dh, one);
    const auto g = NegMulAdd(d, r, dl, NegMulAdd(d, r, dh, one));
    G = MulAdd(d, g, g, g);
    U = MulAdd(d, G, u1, u1);
  } else {
    r = Div(d, one, dh);
    G = NegMulAdd(d, r, dl, NegMulAdd(d, r, dh, one));
    U = u1;
  }
  const auto Qs = Mul(d, S, r);  // 2^64 Q
  const auto Q = Mul(d, Qs, kTwoM64);
  // 2sg = Q U, U = (1 + u)(1 + G), to 2^-23: only w is made of it.
  const auto Q1 = kDivFree ? Mul(d, Q, U) : MulAdd(d, Q, u, Q);
  const auto w = Mul(d, Q1, Q1);
  auto R = MulAdd(d, w, 0.000547449803f, Set(d, 0.00218736031f));
  R = MulAdd(d, R, w, 0.012506797f);
  R = MulAdd(d, R, w, 0.0833330154f);
  // (1 + t + v)(1 + G)(1 + w R) = 1 + K, K = t + (v + G (1 + u) + w R U): one rounding of weight
  // ~|t| (t and v enter unrounded; U's rounding is damped by w R <= 0.04). G w R is kept: G
  // reaches 2^-11.2 (recip.h), G w R 2^-15.8.
  const auto K = Add(d, t, MulAdd(d, Mul(d, w, R), U, MulAdd(d, G, u, Add(d, v, G))));
  const auto y_neg = Mul(d, MulAdd(d, Qs, K, Qs), kTwoM64);
  // x + Q by 2Sum (Knuth): either may be the larger.
  const auto B = Add(d, x, Q);
  const auto bq = Sub(d, B, x);
  const auto b = Add(d, Sub(d, x, Sub(d, B, bq)), Sub(d, Q, bq));
  const auto y_pos = Add(d, B, MulAdd(d, Q, K, b));
  const auto y = IfThenElse(d, Lt(d, x, 0.0f), y_neg, y_pos);
  // x > 20 and NaN in one ordered compare: both give x.
  return IfThenElse(d, Le(d, x, 20.0f), y, x);
}

}  // namespace vlak::VLAK_NS::act
