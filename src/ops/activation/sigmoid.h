// sigmoid(x) = 1 / (1 + e^-x) and silu(x) = x sigmoid(x), and the engine they share with
// gelu_tanh.h: p * sigmoid(v) for v given as a double-float vh + vl.
//
// Algorithm (TimesSigmoid): e = e^-|v| = (a + b) s1 s2 (exp_dd.h), d = 1 + e = dh + dl (Fast2Sum:
//   e <= 1, so (1 - dh) + e is exact), 1 / d = R (1 + g) (RecipDD). Then, with N = 1 for v >= 0
//   and N = (a + b) s1 for v < 0 (sigmoid(v) = e / (1 + e), its 2^n's second factor s2 applied
//   last): X + Xe = N R (product error kept by an FMA), Y + Ye = p X (likewise), and
//   p sigmoid(v) = Y + (Ye + p (Xe + X g)), rounded once; for v < 0 that sum is made with s1
//   only and the final multiply by s2 is exact or, for a denormal result, the one rounding.
//   sigmoid skips the p products (p = 1).
// Measured on every finite float (`vlak accuracy activations --exhaustive`, AVX2, 2-core AMD EPYC
//   Zen 3, 2026-11-26; every target gives the same bits): sigmoid max 0.677 ULP (x = -27.35),
//   silu max 0.710 ULP (x = -5.17); below FLT_MIN at most 0.775 / 0.828 x 2^-149. vlak.h's
//   bound: 2 ULP, 2^-149 below FLT_MIN.
// Special values: NaN -> the same NaN; sigmoid(-inf) = +0, sigmoid(+inf) = 1, sigmoid(-0) = 0.5;
//   silu(+inf) = +inf, silu(-inf) = -0, silu(-0) = -0 (p = -0 times 0.5); |v| > 120 takes e = 0:
//   sigmoid 0 or 1, silu x or the zero of x's sign (silu(-120) = -9e-51 rounds to -0).
// Cost: sigmoid 51 vector-layer ops (|v| and clamp 6, ExpDD 24, e and d 7, RecipDD 3 with one
//   Div, N and the products 7, scale and NaN 4); silu 59 (the p products, the |x| > 120 rule and
//   the sign).
#pragma once

#include "ops/activation/exp_dd.h"

namespace vlak::VLAK_NS::act {

// p * sigmoid(vh + vl). kOne: p is 1 (sigmoid) and not read. Finite v and p only: |vh| > 120
// is reduced to e = e^-120 here (callers give the exact limits), NaN is the caller's.
template <bool kOne, class D>
[[gnu::always_inline]] inline VFromD<D> TimesSigmoid(D d, VFromD<D> p, VFromD<D> vh, VFromD<D> vl) {
  const auto neg = Lt(d, vh, 0.0f);
  const auto zh = Max(d, Neg(d, Abs(d, vh)), -120.0f);
  const auto zl = IfThenElse(d, neg, vl, Neg(d, vl));
  VFromD<D> a, b, s1, s2;
  ExpDD(d, zh, zl, a, b, s1, s2);
  const auto a1 = Mul(d, a, s1);
  const auto b1 = Mul(d, b, s1);
  const auto ea = Mul(d, a1, s2);
  const auto one = Set(d, 1.0f);
  const auto dh = Add(d, one, ea);
  const auto dl = MulAdd(d, b1, s2, Add(d, Sub(d, one, dh), ea));
  VFromD<D> r, g;
  RecipDD(d, dh, dl, r, g);
  const auto nh = IfThenElse(d, neg, a1, one);
  const auto nl = IfThenElseZero(d, neg, b1);
  const auto x = Mul(d, nh, r);
  const auto xe = MulAdd(d, nl, r, MulAdd(d, nh, r, Neg(d, x)));
  VFromD<D> y;
  if constexpr (kOne) {
    (void)p;
    y = Add(d, x, MulAdd(d, x, g, xe));
  } else {
    const auto yh = Mul(d, p, x);
    const auto ye = MulAdd(d, p, x, Neg(d, yh));
    y = Add(d, yh, MulAdd(d, p, MulAdd(d, x, g, xe), ye));
  }
  return Mul(d, y, IfThenElse(d, neg, s2, one));
}

template <class D>
VFromD<D> Sigmoid(D d, VFromD<D> x) {
  const auto y = TimesSigmoid<true>(d, x, x, Zero(d));
  return IfThenElse(d, IsNaN(d, x), x, y);
}

template <class D>
VFromD<D> Silu(D d, VFromD<D> x) {
  // |x| > 120: x (sigmoid is 1 to 2^-173) or the zero of x's sign; p stays finite inside.
  const auto big = Gt(d, Abs(d, x), 120.0f);
  const auto xc = IfThenElse(d, big, Zero(d), x);
  // x's sign bit: silu(-0) = -0 (the compensated sum gives +0 there).
  const auto y = Or(d, TimesSigmoid<false>(d, xc, xc, Zero(d)), And(d, x, Set(d, -0.0f)));
  const auto limit = IfThenElse(d, Gt(d, x, 0.0f), x, Set(d, -0.0f));
  return IfThenElse(d, IsNaN(d, x), x, IfThenElse(d, big, limit, y));
}

}  // namespace vlak::VLAK_NS::act
