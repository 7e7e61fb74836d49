// gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) = x sigmoid(2w),
// 2w = x (alpha + beta x^2), alpha = 2 sqrt(2/pi), beta = 0.044715 alpha (exact arithmetic).
//
// Algorithm: 2w as a double-float good to 2^-44 relative (x^2, beta p and x (alpha + beta p) with
//   their FMA errors, Fast2Sum): for x < 0 the result's relative error is 2w's absolute error, and
//   a float 2w would be off by up to 2^-18. Then x sigmoid(2w) by sigmoid.h's engine
//   (TimesSigmoid, whose exp reduction takes 2w's low half), rounded once.
// Bound (vlak.h): 2 ULP, 2^-149 below FLT_MIN.
// Special values: NaN -> the same NaN; gelu_tanh(+inf) = +inf, gelu_tanh(-inf) = -0 (|x| > 12:
//   x, or the zero of x's sign: |result| < 2^-170 below -12); gelu_tanh(-0) = -0.
// Cost: 68 vector-layer ops (2w 16, TimesSigmoid 42 with 2w's low half, limits, sign and NaN
//   10), one Div (RISC-V: none, sigmoid.h). The derivation, the measured maxima and RVV's counts:
//   docs/ops/activation.md, "gelu_tanh.h".
#pragma once

#include "ops/activation/sigmoid.h"

namespace vlak::VLAK_NS::act {

// 2w = x (alpha + beta x^2) = vh + vl for finite |x| <= 12, good to 2^-44 relative: x^2, beta
// x^2 and the products with their FMA errors, alpha + beta x^2 by Fast2Sum. 16 ops. Shared with
// the fast tier (fast.h), which needs 2w as exactly.
template <class D>
[[gnu::always_inline]] inline void GeluTanhArg(D d, VFromD<D> xc, VFromD<D>& vh, VFromD<D>& vl) {
  constexpr float kAlphaHi = 1.59576917f, kAlphaLo = -4.53406805e-08f;
  constexpr float kBetaHi = 0.0713548139f, kBetaLo = 2.39883247e-09f;
  const auto p = Mul(d, xc, xc);
  const auto pe = MulAdd(d, xc, xc, Neg(d, p));
  const auto gp = Mul(d, p, kBetaHi);
  const auto gpe = MulAdd(d, p, kBetaHi, Neg(d, gp));
  const auto hi = Max(d, gp, kAlphaHi);
  const auto lo = Min(d, gp, kAlphaHi);
  const auto gh = Add(d, hi, lo);
  auto gl = Add(d, Add(d, Sub(d, hi, gh), lo), gpe);
  gl = MulAdd(d, pe, kBetaHi, gl);
  gl = MulAdd(d, p, kBetaLo, Add(d, gl, kAlphaLo));
  vh = Mul(d, xc, gh);
  vl = MulAdd(d, xc, gl, MulAdd(d, xc, gh, Neg(d, vh)));
}

template <class D>
VFromD<D> GeluTanh(D d, VFromD<D> x) {
  const auto big = Gt(d, Abs(d, x), 12.0f);
  const auto xc = IfThenZeroElse(d, big, x);
  VFromD<D> vh, vl;
  GeluTanhArg(d, xc, vh, vl);
  const auto sign = SignOf(d, x);
  const auto y = Or(d, TimesSigmoid<false, true, (Pow2FromD<D> >= 1 ? 4 : 0)>(d, xc, vh, vl), sign);
  const auto limit = IfThenElse(d, Gt(d, x, 0.0f), x, sign);  // x < -12: -0
  return IfThenElse(d, IsNaN(d, x), x, IfThenElse(d, big, limit, y));
}

}  // namespace vlak::VLAK_NS::act
