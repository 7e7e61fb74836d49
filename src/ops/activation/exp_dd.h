// e^z for z <= 0 as an unevaluated sum (a + b) * s1 * s2, and 1 / (dh + dl) as R (1 + g): the
// two building blocks the activations (sigmoid.h, tanh.h, softplus.h, gelu_tanh.h) round once
// at their end, so that no intermediate rounding reaches their results at full weight.
//
// ExpDD: z = zh + zl (zh in [-120, 0], |zl| <= 2^-16), reduced as exp_precise.h does:
//   n = round(zh log2 e) by the magic number, th = zh - n ln2_hi (exact), m = zl - n ln2_lo,
//   t = th + m; e^t ~ 1 + t + t^2 q(t), exp_precise.h's relative minimax (3.2e-9 = 2^-28.2 on
//   [-ln2/2, ln2/2]); then 1 + u is kept as a + b: a0 = RN(1 + th), b0 = ((1 - a0) + th) + w
//   with w = t^2 q + m (Fast2Sum, |th| < 1: (1 - a0) + th is exact), renormalised by Fast2Sum
//   into a = RN(a0 + b0) and |b| <= ulp(a) / 2. What remains are the polynomial's 3.2e-9 and
//   the roundings of t^2, q and w (each ~2^-24 of a term <= 0.07): measured on every float z in
//   [-120, 0], (a + b) s1 s2 = e^z (1 + 1.5e-8) at most (2^-26.0, at z = -27.34, the point where
//   exp_precise.h's own maximum lies): a quarter of a float's half ULP.
//   2^n = s1 * s2, both normal for n in [-174, 0] (exp_precise.h's split of the exponent field).
// RecipDD: R = RN(1 / dh), rho = 1 - R dh (exact: R is correctly rounded), g = rho - R dl; then
//   1 / (dh + dl) = R (1 + g) within 2^-46 relative for dh in [1, 2], |dl| <= 2^-23.
// Cost: ExpDD 24 vector-layer ops (MulAdd, Sub, 2 NegMulAdd, Add, Mul, 4 Horner MulAdd, MulAdd,
//   Add, Sub, 2 Add, Add, Sub, Add, ShiftRight, Sub, 2 ShiftLeft; the casts are free); RecipDD 3 (Div, 2 NegMulAdd).
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS::act {

using exp_detail::kLn2Hi;
using exp_detail::kLn2Lo;
using exp_detail::kLog2e;
using exp_detail::kMagic;

// e^(zh + zl) = (a + b) * s1 * s2, see above. zh must lie in [-120, 0] (callers clamp).
template <class D>
[[gnu::always_inline]] inline void ExpDD(D d, VFromD<D> zh, VFromD<D> zl, VFromD<D>& a, VFromD<D>& b, VFromD<D>& s1,
                                         VFromD<D>& s2) {
  const auto di = Rebind<int32_t>(d);
  constexpr float kBias = kMagic + 254.0f;
  const auto bias = MulAdd(d, zh, kLog2e, Set(d, kBias));
  const auto n = Sub(d, bias, kBias);
  const auto th = NegMulAdd(d, n, kLn2Hi, zh);
  const auto m = NegMulAdd(d, n, kLn2Lo, zl);
  const auto t = Add(d, th, m);
  auto q = MulAdd(d, t, 0.0013814542908221483f, Set(d, 0.00836870539933443f));
  q = MulAdd(d, q, t, 0.041668329387903214f);
  q = MulAdd(d, q, t, 0.1666652113199234f);
  q = MulAdd(d, q, t, 0.4999999403953552f);
  const auto w = MulAdd(d, Mul(d, t, t), q, m);
  const auto one = Set(d, 1.0f);
  const auto a0 = Add(d, one, th);
  const auto b0 = Add(d, Add(d, Sub(d, one, a0), th), w);
  a = Add(d, a0, b0);  // renormalised (Fast2Sum, |b0| <= 0.07 < a0): |b| <= ulp(a) / 2
  b = Add(d, Sub(d, a0, a), b0);
  // bits(bias) = bits(kMagic) + n + 254; bits(kMagic) is even and vanishes under << 23.
  const auto bits = BitCast(di, d, bias);
  const auto k1 = ShiftRight<1>(di, bits);
  const auto k2 = Sub(di, bits, k1);
  s1 = BitCast(d, di, ShiftLeft<23>(di, k1));
  s2 = BitCast(d, di, ShiftLeft<23>(di, k2));
}

// 1 / (dh + dl) = r (1 + g), see above.
template <class D>
[[gnu::always_inline]] inline void RecipDD(D d, VFromD<D> dh, VFromD<D> dl, VFromD<D>& r, VFromD<D>& g) {
  const auto one = Set(d, 1.0f);
  r = Div(d, one, dh);
  g = NegMulAdd(d, r, dl, NegMulAdd(d, r, dh, one));
}

}  // namespace vlak::VLAK_NS::act
