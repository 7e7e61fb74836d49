// sigmoid(x) = 1 / (1 + e^-x) and silu(x) = x sigmoid(x), and the engine they share with
// gelu_tanh.h: p * sigmoid(v) for v given as vh (+ vl).
//
// Algorithm (TimesSigmoid): e = e^-|v| = 2^n (1 + t + v') (exp_parts.h, degree 6, 2^n carried as
//   S = 2^(n+64)); d = 1 + e as dh + dl (Fast2Sum), exact up to e's own error; 1 / d = r (1 + G),
//   r = RN(1 / dh), the one division, on x86; on RISC-V r from recip.h's seed and a Newton step.
//   sigmoid(v) = N r (1 + W), N a power of two, t and v' unrounded in W; p sigmoid(v) by FMAs, the
//   largest term last. One FMA rounds; the 2^-64 after it is exact, or below FLT_MIN the rounding.
// Bound (vlak.h): 2 ULP, 2^-149 below FLT_MIN; about 0.5 ULP of error before the last rounding.
// Special values: NaN -> the same NaN; sigmoid(-inf) = +0, sigmoid(+inf) = 1, sigmoid(-0) = 0.5;
//   silu(+inf) = +inf, silu(-inf) = -0, silu(-0) = -0; v is clamped at -120 (sigmoid rounds to 0
//   below -103.9); silu(x) = x for x > 20.
// Cost: sigmoid 36 vector-layer ops with one Div, silu 42; RISC-V: the Div becomes 6 FMA-class
//   ops and G 2 more, -|v| 2, N r 3. The derivation, the measured maxima, the ops term by term and
//   RVV's counts: docs/ops/activation.md, "sigmoid.h".
#pragma once

#include "ops/activation/exp_parts.h"
#include "ops/activation/recip.h"

namespace vlak::VLAK_NS::act {

// p * sigmoid(vh + vl). kOne: p is 1 (sigmoid) and not read. kLow: vl is read (|vl| <= 2^-16),
// else it is not read. Finite v and p only: v below -120 is taken as -120 (callers give the exact
// limits), NaN is the caller's; p N r must not overflow (|p| <= 2^60).
template <bool kOne, bool kLow = false, int kHere = 0, class D>
[[gnu::always_inline]] inline VFromD<D> TimesSigmoid(D d, VFromD<D> p, VFromD<D> vh, VFromD<D> vl) {
  constexpr float kTwo64 = 18446744073709551616.0f, kTwoM64 = 5.42101086242752217e-20f;
  const auto neg = Lt(d, vh, 0.0f);
  const auto z = Max(d, NegAbs(d, vh), -120.0f);
  VFromD<D> zl = vl;
  if constexpr (kLow) zl = IfThenElse(d, neg, vl, Neg(d, vl));
  VFromD<D> S, t, v, u;
  ExpParts<64, kLow, kHere>(d, z, zl, S, t, v, u);
  // 1 + e = dh + dl from S's scaled e: E = RN(S (1 + u)), dh = RN(1 + 2^-64 E), dl =
  // ((1 - dh) + 2^-64 E) + 2^-64 (S (1 + u) - E), each step one FMA.
  const auto E = MulAdd(d, S, u, S);
  const auto one = Set(d, 1.0f);
  const auto dh = MulAdd(d, E, kTwoM64, one);
  const auto dl = MulAdd(d, MulAdd(d, S, u, Sub(d, S, E)), kTwoM64, MulAdd(d, E, kTwoM64, Sub(d, one, dh)));
  // 1 / d = r (1 + g + g^2 + ...): r to 2^-8.2 without a division (recip.h), g = 1 - r dh - r dl
  // (the first FMA's rounding is 2^-24 of g), G = g + g^2 + g^3, leaving g^4 < 2^-32.
  // With the division (x86, recip.h), r = RN(1 / dh) and G = g.
  VFromD<D> r, G;
  if constexpr (kDivFree) {
    r = Recip1To2(d, dh, one);
    const auto g = NegMulAdd(d, r, dl, NegMulAdd(d, r, dh, one));
    G = MulAdd(d, MulAdd(d, g, g, g), g, g);
  } else {
    r = Div(d, one, dh);
    G = NegMulAdd(d, r, dl, NegMulAdd(d, r, dh, one));
  }
  // N r. On RVV two products and a select: a select of S and 2^64 first needs 2^64 as a vector
  // register held through the loop (X60 model, sigmoid: as many instructions, 1.6 % fewer
  // cycles). x86: the select first, one op fewer. The same bits.
  constexpr bool kTwoProducts = VLAK_TARGET_ID == ::vlak::Target::kRvv;
  const auto P = kTwoProducts ? IfThenElse(d, neg, Mul(d, S, r), Mul(d, r, kTwo64))
                              : Mul(d, IfThenElse(d, neg, S, Set(d, kTwo64)), r);
  VFromD<D> y;
  if constexpr (kOne) {
    (void)p;
    // 1 + W: 1 + G for v >= 0, (1 + t + v)(1 + G) = 1 + t + (v + G (1 + u)) for v < 0, with t
    // and v unrounded.
    const auto W = IfThenElse(d, neg, Add(d, t, Add(d, v, MulAdd(d, G, u, G))), G);
    y = MulAdd(d, P, W, P);
  } else {
    // Y + (pP - Y) + Y (g1 + v + t), g1 = G (1 + u) (v < 0; G, v >= 0), as Y - ((((Y - pP) - Y g1)
    // - Y v) - Y t): one rounding of weight ~|t| Y before the last, and -0 stays -0 for p = -0.
    const auto tn = IfThenElseZero(d, neg, t);
    const auto vn = IfThenElseZero(d, neg, v);
    const auto g1 = MulAdd(d, G, IfThenElseZero(d, neg, u), G);
    const auto Y = Mul(d, p, P);
    auto c = NegMulAdd(d, Y, g1, NegMulAdd(d, p, P, Y));
    c = NegMulAdd(d, Y, tn, NegMulAdd(d, Y, vn, c));
    y = Sub(d, Y, c);
  }
  return Mul(d, y, kTwoM64);
}

template <class D>
VFromD<D> Sigmoid(D d, VFromD<D> x) {
  const auto y = TimesSigmoid<true>(d, x, x, x);
  return IfThenElse(d, IsNaN(d, x), x, y);
}

template <class D>
VFromD<D> Silu(D d, VFromD<D> x) {
  // x < -120: -120 (the result rounds to -0 either way); NaN gives -120 here (Max ignores it).
  const auto p = Max(d, x, -120.0f);
  // At LMUL 2 (RVV) two of the exp's constants are splat in the loop, which keeps it from spilling.
  const auto y = TimesSigmoid<false, false, (Pow2FromD<D> >= 1 ? 2 : 0)>(d, p, p, p);
  // x > 20 and NaN in one ordered compare: both give x.
  return IfThenElse(d, Le(d, x, 20.0f), y, x);
}

}  // namespace vlak::VLAK_NS::act
