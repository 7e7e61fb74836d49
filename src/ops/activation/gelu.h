// gelu(x) = x Phi(x) = 0.5 x erfc(-x / sqrt 2), in float32 with two-float terms where they
// count, rounded once.
//
// Algorithm: a = |x|, Q(a) = Phi(-a): x Phi(x) = max(x, 0) - a Q(a), a Q(a) = e^{-a^2/2} a t R(t),
//   t = 1 / (1 + 0.4 a) (Abramowitz and Stegun 26.2.17's substitution), R of degree 10 in tau =
//   t - 0.5735 (activation_coeffs.py, gelu_r: 6.6e-9 = 2^-27.2 relative). t, a t, R's last two
//   steps and the exp (exp_parts.h, -a^2/2 exact as z + zl) carry their low parts, so that every
//   factor is good to about 2^-25 of a Q(a) down to x = -14.3; the terms are summed the largest
//   last; y = -T S 2^-64 (x < 0) or x - T 2^n by an FMA (x >= 0), the one rounding.
// Bound (vlak.h): 2 ULP, 2^-149 below FLT_MIN; every target gives the same bits.
// Special values: NaN -> the same NaN; gelu(+inf) = +inf and gelu(x) = x for x > 14.5, gelu(-inf)
//   = -0 (a is clamped at 14.5), gelu(-0) = -0; denormal results for x in (-14.3, -13.2).
// Cost: 67 vector-layer ops with one Div, no widening; RVV keeps the vfdiv (1 + 0.4a spans [1,
//   6.8], too wide for recip.h's seeds). The derivation, the float64 kernel it replaced, the
//   measured maxima, the ops term by term and the speed: docs/ops/activation.md, "gelu.h".
#pragma once

#include "ops/activation/exp_parts.h"

namespace vlak::VLAK_NS::act {

// The Mills-ratio factor R(t) = Q(a) e^{a^2/2} (1 + p a), t = 1 / (1 + p a), as a polynomial in
// tau = t - kTc (activation_coeffs.py, gelu_r).
// r0 and r1 as two floats each (hi + lo), r2..r10 floats.
inline constexpr float kGeluP = 0.4f, kGeluTc = 0.573529422f;
inline constexpr float kGeluR0 = 0.309300959f, kGeluR0Lo = 5.16298782e-09f;
inline constexpr float kGeluR1 = 0.37736702f, kGeluR1Lo = -1.0757371e-08f;
inline constexpr float kGeluR[] = {0.201364875f, -0.0588159561f, -0.092599757f, 0.044403594f, 0.0421538539f,
                                   -0.0473594181f, -0.00626056176f, 0.0318846218f, -0.00950676948f};

// The argument's parts (sizeless RVV vectors cannot be a struct's members: out-parameters, as
// ExpParts): a = min(|x|, 14.5), th = RN(1 / (1 + p a)) and g with t = 1 / (1 + p a) =
// th (1 + g): 1 + p a = dh + dl (1 - dh is exact for dh in [1, 2^24]), g = 1 - th dh - th dl (the
// first FMA exact); tau = th - tc, exact by Sterbenz for th >= tc / 2 (else |tc| > |th|).
template <class D>
[[gnu::always_inline]] inline void GeluArgs(D d, VFromD<D> x, VFromD<D>& one, VFromD<D>& a, VFromD<D>& th,
                                            VFromD<D>& g, VFromD<D>& tau) {
  one = Set(d, 1.0f);
  a = Min(d, Abs(d, x), 14.5f);
  const auto dh = MulAdd(d, a, kGeluP, one);
  const auto dl = MulAdd(d, a, kGeluP, Sub(d, one, dh));
  th = Div(d, one, dh);
  g = NegMulAdd(d, th, dl, NegMulAdd(d, th, dh, one));
  tau = Sub(d, th, kGeluTc);
}
// R2(tau) = sum_k kGeluR[k] tau^k by Horner, its constants splat where they are used on RVV (SetAt).
template <class D>
[[gnu::always_inline]] inline VFromD<D> GeluR2(D d, VFromD<D> tau) {
  constexpr int kDeg = static_cast<int>(sizeof(kGeluR) / sizeof(kGeluR[0])) - 1;
  auto r2 = SetAt<true>(d, kGeluR[kDeg]);
  for (int k = kDeg - 1; k >= 0; --k) r2 = MulAdd(d, r2, tau, SetAt<true>(d, kGeluR[k]));
  return r2;
}

// y from T = a Q(a) 2^64 / S (S = 2^(n + 64)). x < 0: y = -T S 2^-64, rounded once (below
// FLT_MIN the 2^-64 rounds again). x >= 0: y = x - T 2^n by one FMA (T's rounding weighs T / y =
// Q / (1 - Q) < 1 there); x = -0 gives -0 - 0 = -0. x > 14.5 (a Q(a) < 2^-150: y = x) and NaN: x.
template <class D>
[[gnu::always_inline]] inline VFromD<D> GeluResult(D d, VFromD<D> x, VFromD<D> T, VFromD<D> S) {
  constexpr float kTwoM64 = 5.42101086242752217e-20f;
  const auto yn = Mul(d, Mul(d, T, S), -kTwoM64);
  const auto yp = NegMulAdd(d, T, Mul(d, S, kTwoM64), x);
  return IfThenElse(d, Le(d, x, 14.5f), IfThenElse(d, Lt(d, x, 0.0f), yn, yp), x);
}

template <class D>
VFromD<D> Gelu(D d, VFromD<D> x) {
  // RVV (LMUL 2): R2's 9 constants and 2 of the exp's are splat where they are used (exp_parts.h's
  // SetAt), the rest held: with all held the loop spilled 11 registers, with the exp's 4 held 2
  // (scripts/rvv-spill-check); splatting every constant cost 8 % more X60 cycles.
  VFromD<D> one, a, th, g, tau;
  GeluArgs(d, x, one, a, th, g, tau);
  // t's low part th g beside tau's rounding error (tau = th - tc by Fast2Sum).
  const auto lo = MulAdd(d, th, g, Sub(d, th, Add(d, tau, kGeluTc)));
  // R = r0 + tau (r1 + tau R2): R2 by Horner, then the last two steps in two floats (the
  // roundings of r1 + tau R2 and of r0 + tau R1 are each up to 2^-24 of R: FMAs give them
  // exactly, r1 - R1h and r0 - Rv being exact by Sterbenz), with r0's and r1's low halves and
  // the first-order term of tau's low part, lo R1.
  const auto r2 = GeluR2(d, tau);
  const auto r1h = MulAdd(d, tau, r2, Set(d, kGeluR1));
  const auto r1l = Add(d, MulAdd(d, tau, r2, Sub(d, Set(d, kGeluR1), r1h)), kGeluR1Lo);
  const auto rv = MulAdd(d, tau, r1h, Set(d, kGeluR0));
  const auto re = Add(d, MulAdd(d, tau, r1h, Sub(d, Set(d, kGeluR0), rv)), kGeluR0Lo);
  const auto rl = MulAdd(d, lo, r1h, MulAdd(d, tau, r1l, re));
  // a t = Ah + Al (th's part), Y = RN(Ah Rv) and its error. The error terms here are carried
  // negated (-Al, -ye, -a^2's, then -L and -c): c - a b is one op (NegMulAdd), a b - c two on RVV
  // (clang emits a vfsgnjn for the -c); RN(-z) = -RN(z), so the bits are the same.
  const auto ah = Mul(d, a, th);
  const auto nal = NegMulAdd(d, a, th, ah);
  const auto Y = Mul(d, ah, rv);
  const auto nye = NegMulAdd(d, ah, rv, Y);
  // e^{-a^2/2} = S 2^-64 (1 + te + v), -a^2/2 = z + zl exactly.
  const auto s = Mul(d, a, a);
  const auto nse = NegMulAdd(d, a, a, s);
  VFromD<D> S, te, v, u;
  ExpParts<64, true, 2>(d, Mul(d, s, -0.5f), Mul(d, nse, 0.5f), S, te, v, u);
  // a Q(a) 2^64 / S = (Y + L)(1 + te + v), L = ye + Al Rv + Ah Rl + Y g (the low part of
  // a t (1 + g) R), = Y + c, c = L (1 + u) + Y v + Y te, the largest term last (u = RN(te + v):
  // L's cross terms are 2^-24 of Y, each taken to 2^-24 of itself).
  auto nl = MulAdd(d, nal, rv, nye);
  nl = NegMulAdd(d, ah, rl, nl);
  nl = NegMulAdd(d, Y, g, nl);
  auto nc = MulAdd(d, nl, u, nl);
  nc = NegMulAdd(d, Y, v, nc);
  nc = NegMulAdd(d, Y, te, nc);
  // T = RN(Y + c) = a Q(a) 2^64 / S.
  return GeluResult(d, x, Sub(d, Y, nc), S);
}

}  // namespace vlak::VLAK_NS::act
