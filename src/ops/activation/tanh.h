// tanh(x), odd: computed on a = |x| and given x's sign bit.
//
// Algorithm: a < 0.5: tanh(a) = a + a^3 P(a^2), P of degree 4 (activation_coeffs.py: relative
//   minimax, 4e-10; P's own rounding is damped by a^2 / 3 <= 0.083). a >= 0.5: tanh(a) =
//   1 - 2 f with f = e / (1 + e), e = e^-2a (2a exact): f = X + fl from exp_dd.h's pieces as in
//   sigmoid.h (X = RN(e R), fl its correction), then yh = RN(1 - 2X) and its exact remainder
//   (1 - yh) - 2X (Fast2Sum: 2X <= 1), and tanh(a) = yh + (((1 - yh) - 2X) - 2 fl), rounded
//   once. Why 0.5: f carries e's relative error (2^-26, exp_dd.h) times 1 / (1 + e), so 1 - 2f
//   is off by 2^-26 2f / (1 + e) absolute: 0.2 ULP of tanh at a = 0.5, 0.5 ULP at a = 0.25.
//   a is clamped at 9.5, where tanh rounds to 1 (beyond 9.01).
// Measured on every finite float (`vlak accuracy activations --exhaustive`, AVX2, 2-core AMD EPYC
//   Zen 3, 2026-11-26; every target gives the same bits): max 0.628 ULP (x = -0.504, just past the
//   polynomial). vlak.h's bound: 2 ULP.
// Special values: NaN -> the same NaN; tanh(+-inf) = +-1; tanh(+-0) = +-0, and every x below
//   2^-12 gives x itself (as the correctly rounded value does).
// Cost: 47 vector-layer ops (ExpDD 24, d and RecipDD 7, f 5, 1 - 2f 6, polynomial 7, clamp,
//   select, sign and NaN 5), one Div.
#pragma once

#include "ops/activation/exp_dd.h"

namespace vlak::VLAK_NS::act {

template <class D>
VFromD<D> Tanh(D d, VFromD<D> x) {
  const auto sign = Set(d, -0.0f);
  const auto a = Min(d, Abs(d, x), 9.5f);
  VFromD<D> ea, eb, s1, s2;
  ExpDD(d, Mul(d, a, -2.0f), Zero(d), ea, eb, s1, s2);
  const auto s = Mul(d, s1, s2);  // e >= e^-19: 2^n is normal
  ea = Mul(d, ea, s);
  eb = Mul(d, eb, s);
  const auto one = Set(d, 1.0f);
  const auto dh = Add(d, one, ea);
  const auto dl = Add(d, Add(d, Sub(d, one, dh), ea), eb);
  VFromD<D> r, g;
  RecipDD(d, dh, dl, r, g);
  const auto f = Mul(d, ea, r);
  const auto fl = MulAdd(d, f, g, MulAdd(d, eb, r, MulAdd(d, ea, r, Neg(d, f))));
  const auto f2 = Add(d, f, f);
  const auto yh = Sub(d, one, f2);
  const auto y_exp = Add(d, yh, Sub(d, Sub(d, Sub(d, one, yh), f2), Add(d, fl, fl)));
  const auto a2 = Mul(d, a, a);
  auto p = MulAdd(d, a2, -0.00668255985f, Set(d, 0.0213206429f));
  p = MulAdd(d, p, a2, -0.0539043434f);
  p = MulAdd(d, p, a2, 0.133330122f);
  p = MulAdd(d, p, a2, -0.333333284f);
  const auto y_poly = MulAdd(d, Mul(d, a2, a), p, a);
  const auto y = IfThenElse(d, Lt(d, a, 0.5f), y_poly, y_exp);
  return IfThenElse(d, IsNaN(d, x), x, Or(d, y, And(d, x, sign)));
}

}  // namespace vlak::VLAK_NS::act
