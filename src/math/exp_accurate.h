// exp(x), accurate: <= 2 ULP on [-87.3, 88.7] (rr2 Cody-Waite reduction + minimax polynomial).
//
// Algorithm: n = round(x log2 e) by the magic number (exp_common.h), clamped to n <= 127;
//   t = x - n ln2_hi - n ln2_lo (two FMAs; n ln2_hi is exact, so t carries ~2^-26 absolute error);
//   e^t ~ 1 + t + t^2 (c2 + c3 t + ... + c6 t^4), relative minimax on [-ln2/2, ln2] with c0 = c1
//   = 1 exact (tools/remez/exp_coeffs.py; 4.3e-8 = 2^-24.5 max relative error);
//   exp(x) = 2^n (1 + u), u = t + t^2 q(t), rounded once by an FMA (2^n from the exponent field).
// Why [-ln2/2, ln2] and degree 6: the domain [-87.3, 88.7] needs n from -126 to 128, one more
// than the 254 normal exponents. Clamping n at 127 lets x in (88.38, 88.72] run with t up to ln 2,
// and the polynomial covers that one-sided range (a degree-5 one would be off by 1.5e-6 there).
// The clamp also makes overflow free: for x > 88.72 (and +inf) t > ln 2 and the polynomial, with
// positive coefficients, drives 2^127 (1 + u) to +inf.
//
// Measured (every float of the domain against float64 exp, `vlak accuracy exp --exhaustive`):
//   max 1.519 ULP (at x = 88.665, t near ln 2), max relative error 1.207e-7, mean 6.18e-9;
//   on [-87.3, 0] (softmax's range) the max is 1.508 ULP.
// Special values: all honoured: exp(-inf) = 0; exp(NaN) = NaN (through t); overflow -> +inf;
//   x in [-87.68, -87.34): denormal results, rounded once (n = -126); x in [-88, -87.68): 2^n = +0
//   (n = -127) gives 0; x < -88: masked to 0 before the exponent field would wrap.
// Cost: 15 vector-layer ops: MulAdd, Min, shift, Sub, 2 NegMulAdd, Mul, 4 MulAdd, MulAdd (u),
//   MulAdd (2^n (1 + u)), Lt, IfThenElse. AVX-512: 15 instructions (the select folds into the
//   last FMA; AVX2: 16); RVV: 15 + 12 splats (exp_common.h).
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS {

namespace exp_detail {
// e^t - 1 = t + t^2 q(t) for t in [-ln2/2, ln2]: the polynomial alone, kept apart from the
// range reduction so the two read separately.
template <class D>
VFromD<D> ExpAccurateExpm1Reduced(D d, VFromD<D> t) {
  const auto t2 = Mul(d, t, t);
  auto q = MulAdd(d, Set(d, 0.0016222039703279734f), t, Set(d, 0.008325754664838314f));
  q = MulAdd(d, q, t, Set(d, 0.041622526943683624f));
  q = MulAdd(d, q, t, Set(d, 0.1666700541973114f));
  q = MulAdd(d, q, t, Set(d, 0.5000020861625671f));
  return MulAdd(d, t2, q, t);
}
}  // namespace exp_detail

template <class D>
VFromD<D> ExpAccurate(D d, VFromD<D> x) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpAccurate takes f32 tags");
  using namespace exp_detail;
  auto b = MulAdd(d, x, Set(d, kLog2e), Set(d, kMagic + 127.0f));
  b = Min(d, b, Set(d, kMagic + 254.0f));
  const auto s = ExponentFromMagic(d, b);
  const auto n = Sub(d, b, Set(d, kMagic + 127.0f));
  auto t = NegMulAdd(d, n, Set(d, kLn2Hi), x);
  t = NegMulAdd(d, n, Set(d, kLn2Lo), t);
  const auto u = ExpAccurateExpm1Reduced(d, t);
  const auto y = MulAdd(d, u, s, s);
  return IfThenElse(d, Lt(d, x, Set(d, -88.0f)), Zero(d), y);
}

}  // namespace vlak::VLAK_NS
