// tanh(x), odd: computed on a = |x| and given x's sign bit.
//
// Algorithm: a < 1: tanh(a) = a + a^3 P(a^2), P of degree 6 (activation_coeffs.py: relative
//   minimax 5.3e-9 = 2^-27.5 on [0, 1]; P's own rounding is damped by a^2 / 3 <= 1/3). a >= 1:
//   tanh(a) = 1 - 2 e / (1 + e), e = e^-2a (2a exact) = 2^n (1 + u) (exp_parts.h), with nothing
//   compensated: E = RN(2^n (1 + u)), D = RN(1 + E), F = RN(E / D), y = RN(1 - 2F). F: x86 the
//   division; RISC-V r = 1 / D by recip.h (0.87897 (2.1354 - D) and a Newton step, 2^-17.9),
//   F0 = RN(E r), F = RN(F0 + r (E - F0 D)): r's error squared (2^-35.8) and F's rounding, as
//   the division's. Why 1:
//   F's errors (e's, E's, D's and the division's, about 3 x 2^-24 relative at most) reach y
//   times 2F <= 2 e^-2 / (1 + e^-2) = 0.24, so y is off by 0.71 ULP at most before its own
//   rounding, and less as a grows; the polynomial's reach to 1 is what that costs.
//   a is clamped at 9.5, where tanh rounds to 1 (beyond 9.01).
// Measured on every finite float (`vlak accuracy activations --exhaustive`, AVX2;
//   the x86 targets give the same bits): max 1.027 ULP (x = -1.0037, just past
//   the polynomial, where 2F is largest). RISC-V's division-free F (RVV and scalar the same bits;
//   checked on AVX2 built with -DVLAK_ACT_DIV_FREE=1): max 1.034 ULP (x = 1.0039). vlak.h's
//   bound: 2 ULP.
// Special values: NaN -> the same NaN; tanh(+-inf) = +-1; tanh(+-0) = +-0, and every x below
//   2^-12 gives x itself (as the correctly rounded value does).
// Cost: 35 vector-layer ops (|x|, clamp and 2a 3, exp_parts.h 13, E, D, F and y 4 with
//   one Div, the polynomial 9, select, sign and NaN 6); RISC-V: the Div becomes 7 ops and the
//   sign 3. RVV instruction and cycle counts: docs/ops/activation.md.
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
