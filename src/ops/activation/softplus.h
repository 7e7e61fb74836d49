// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|): two non-negative terms, no cancellation.
//
// Algorithm: e = e^-|x| = (a + b) s1 s2 (exp_dd.h), d = 1 + e = dh + dl (Fast2Sum, e <= 1).
//   log(dh + dl) = log(dh) + dl / dh: dh = 2^k m with k = [dh > sqrt 2], f = m - 1 exact
//   (Sterbenz) in [-0.293, 0.414], and log1p(f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f),
//   R the polynomial of musl's logf (fdlibm e_logf.c: Lg1..Lg4, |error| <= 2^-34.2 on |s| <=
//   0.1716). Every rounding that is not damped by |s (f^2/2 + R)| / |log1p f| <= 0.06 is kept:
//   f^2 by an FMA, f - f^2/2 and the sum with the correction by Fast2Sum. k ln2 is a double-float
//   constant added by Fast2Sum, then max(x, 0) by Fast2Sum (larger first), all lows summed into
//   one last rounding. dl / dh is log1p(g), g = 2^-k dl (1 - 2s + 2s^2), taken as g - g^2/2. For
//   e < 2^-10 the log1p series e - e^2/2 + e^3/3 on ea + eb replaces all that: there f is 0 or
//   a few ULPs of 1, and dl = RN(ea + eb) would carry a rounding of the result's own size.
// Measured on every finite float (`vlak accuracy activations --exhaustive`, AVX2, 2-core AMD EPYC
//   Zen 3, 2026-11-26; every target gives the same bits): max 0.798 ULP (x = -86.17, where the
//   result is e^x just above FLT_MIN and exp_dd.h's 2^-26 shows); below FLT_MIN at most
//   0.775 x 2^-149. vlak.h's bound: 2 ULP, 2^-149 below FLT_MIN.
// Special values: NaN -> the same NaN; softplus(-inf) = +0, softplus(+inf) = +inf (x > 20 gives
//   x: log1p(e^-x) < 2^-28 x there); results below FLT_MIN (x < -87.3) are e^x rounded once.
// Cost: 79 vector-layer ops (ExpDD 24, e and d 7, log1p 34 with one Div, the series 6, sums
//   and selects 8).
#pragma once

#include "ops/activation/exp_dd.h"

namespace vlak::VLAK_NS::act {

template <class D>
VFromD<D> Softplus(D d, VFromD<D> x) {
  VFromD<D> a, b, s1, s2;
  ExpDD(d, Max(d, Neg(d, Abs(d, x)), -120.0f), Zero(d), a, b, s1, s2);
  const auto ea = Mul(d, Mul(d, a, s1), s2);
  const auto eb = Mul(d, Mul(d, b, s1), s2);
  const auto one = Set(d, 1.0f);
  const auto dh = Add(d, one, ea);
  const auto dl = Add(d, Add(d, Sub(d, one, dh), ea), eb);
  const auto k1 = Gt(d, dh, 1.41421354f);
  const auto f = Sub(d, IfThenElse(d, k1, Mul(d, dh, 0.5f), dh), 1.0f);
  const auto fl = IfThenElse(d, k1, Mul(d, dl, 0.5f), dl);
  // log1p(f) = f - hfsq + s (hfsq + R) as lh + ll.
  const auto ff = Mul(d, f, f);
  const auto hfsq = Mul(d, ff, 0.5f);
  const auto hfsq_l = Mul(d, MulAdd(d, f, f, Neg(d, ff)), 0.5f);
  const auto a1 = Sub(d, f, hfsq);
  const auto e1 = Sub(d, Sub(d, f, a1), hfsq);
  const auto s = Div(d, f, Add(d, f, 2.0f));
  const auto z = Mul(d, s, s);
  const auto w = Mul(d, z, z);
  // R's and the series' steps as a product and a sum with a scalar addend: they are corrections
  // (|s (hfsq + R)| <= 0.06 log1p f), so the extra rounding is damped, and RVV keeps no splat
  // (scripts/rvv-spill-check: glu's loop spilled with them).
  const auto t1 = Mul(d, w, Add(d, Mul(d, w, 0.24279078841f), 0.40000972152f));
  const auto t2 = Mul(d, z, Add(d, Mul(d, w, 0.28498786688f), 0.66666662693f));
  const auto corr = Mul(d, s, Add(d, hfsq, Add(d, t2, t1)));
  const auto lh = Add(d, a1, corr);
  auto ll = Add(d, Sub(d, a1, lh), corr);
  ll = Add(d, ll, Sub(d, e1, hfsq_l));
  // + log1p(g), g = fl / (1 + f) = fl (1 - s) / (1 + s) ~ fl (1 - 2s + 2s^2) (2 s^3 <= 1%): g - g^2/2.
  const auto g = Mul(d, fl, MulAdd(d, Add(d, s, s), Sub(d, s, 1.0f), Set(d, 1.0f)));
  ll = Add(d, ll, MulAdd(d, Mul(d, g, -0.5f), g, g));
  // + k ln2 (ln2 = 0.693145751953125 + 1.42860677e-6, exp_common.h's split).
  const auto k = IfThenElseZero(d, k1, one);
  const auto kh = Mul(d, k, kLn2Hi);
  const auto kl = Mul(d, k, kLn2Lo);
  auto sh = Add(d, kh, lh);
  auto low = Add(d, Add(d, Add(d, Sub(d, kh, sh), lh), ll), kl);
  // e < 2^-10: log1p(e) = e - e^2/2 + e^3/3 (e^4/4 < 2^-32 e), on ea + eb directly: dl above is
  // ea + eb rounded, whose error would reach the result at full weight when f is 0 or tiny.
  const auto small = Lt(d, ea, 0.0009765625f);
  const auto c = Mul(d, Mul(d, ea, ea), Sub(d, Mul(d, ea, 0.333333343f), 0.5f));
  sh = IfThenElse(d, small, ea, sh);
  low = IfThenElse(d, small, Add(d, eb, c), low);
  // + max(x, 0).
  const auto xp = Max(d, x, 0.0f);
  const auto hi = Max(d, xp, sh);
  const auto lo = Min(d, xp, sh);
  const auto yh = Add(d, hi, lo);
  const auto y = Add(d, yh, Add(d, Add(d, Sub(d, hi, yh), lo), low));
  return IfThenElse(d, IsNaN(d, x), x, IfThenElse(d, Gt(d, x, 20.0f), x, y));
}

}  // namespace vlak::VLAK_NS::act
