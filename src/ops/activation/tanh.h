// tanh(x), odd: computed on a = |x| and given x's sign bit.
//
// Algorithm: a < 1: tanh(a) = a + a^3 P(a^2), P of degree 6 (activation_coeffs.py: relative
//   minimax 5.3e-9 = 2^-27.5 on [0, 1]). a >= 1: tanh(a) = 1 - 2 e / (1 + e), e = e^-2a = 2^n (1 +
//   u) (exp_parts.h), nothing compensated: E = RN(2^n (1 + u)), D = RN(1 + E), F = RN(E / D), y =
//   RN(1 - 2F); F by the division (x86) or by recip.h's seed, a Newton step and a remainder step
//   (RISC-V). F's errors reach y times 2F <= 0.24: y is off by 0.71 ULP at most before its own
//   rounding. a is clamped at 9.5, where tanh rounds to 1 (beyond 9.01).
// Bound (vlak.h): 2 ULP.
// Special values: NaN -> the same NaN; tanh(+-inf) = +-1; tanh(+-0) = +-0, and every x below
//   2^-12 gives x itself (as the correctly rounded value does).
// Cost: 35 vector-layer ops with one Div; RISC-V: the Div becomes 7 ops and the sign 3.
//   The derivation, the measured maxima, the ops term by term and RVV's counts:
//   docs/ops/activation.md, "tanh.h".
#pragma once

#include "ops/activation/exp_parts.h"
#include "ops/activation/recip.h"

namespace vlak::VLAK_NS::act {

template <class D>
VFromD<D> Tanh(D d, VFromD<D> x) {
  const auto a = Min(d, Abs(d, x), 9.5f);
  VFromD<D> s, t, v, u;
  ExpParts<0, false, (Pow2FromD<D> >= 1 ? 2 : 0)>(d, Mul(d, a, -2.0f), a, s, t, v, u);
  const auto one = Set(d, 1.0f);
  const auto E = MulAdd(d, s, u, s);
  // F = E / den without a division: r = 1 / den to 2^-17.9 (recip.h; den <= 1 + e^-2 where y_exp is
  // taken), F0 = E r, and one correction by the residual E - F0 den (one FMA, Markstein's): F's
  // error is then r's squared (2^-35.8) and its own rounding, as the division's.
  // x86: the division (recip.h).
  const auto den = Add(d, one, E);
  VFromD<D> F;
  if constexpr (kDivFree) {
    const auto r = Recip1To1p1354(d, den, one);
    const auto F0 = Mul(d, E, r);
    F = MulAdd(d, r, NegMulAdd(d, F0, den, E), F0);
  } else {
    F = Div(d, E, den);
  }
  const auto y_exp = NegMulAdd(d, F, 2.0f, one);
  const auto a2 = Mul(d, a, a);
  auto p = MulAdd(d, a2, -0.00036264371f, Set(d, 0.00231519551f));
  p = MulAdd(d, p, a2, -0.00796406716f);
  p = MulAdd(d, p, a2, 0.0214982592f);
  p = MulAdd(d, p, a2, -0.0538836494f);
  p = MulAdd(d, p, a2, 0.133324042f);
  p = MulAdd(d, p, a2, -0.333332986f);
  const auto y_poly = MulAdd(d, Mul(d, a2, a), p, a);
  const auto y = IfThenElse(d, Lt(d, a, 1.0f), y_poly, y_exp);
  return IfThenElse(d, IsNaN(d, x), x, Or(d, y, SignOf(d, x)));
}

}  // namespace vlak::VLAK_NS::act
