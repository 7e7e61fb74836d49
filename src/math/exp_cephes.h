// exp(x), Cephes expf (Moshier): Cody-Waite reduction with two constants, degree-5 polynomial.
//
// Algorithm: n = round(x log2 e) (magic number, exp_common.h), clamped to n <= 127;
//   r = x - n C1 - n C2 with C1 = 0.693359375 (9 bits: n C1 is exact) and C2 = -2.12194440e-4;
//   e^r ~ 1 + r + r^2 P(r), P the Cephes degree-5 polynomial (max relative error 1.1e-9 on
//   [-ln2/2, ln2/2]); exp(x) = 2^n (1 + u), u = r + r^2 P(r), rounded once by an FMA.
// Cephes scales with ldexpf; here 2^n comes from the exponent field, valid for n in [-126, 127].
// x in (88.38, 88.72] would need n = 128, so n is clamped to 127 and r reaches ln 2 there: the
// polynomial, extrapolated beyond [-ln2/2, ln2/2], is then off by up to 2.8e-7 relative (the
// largest errors of this variant sit in that sliver). With n clamped, larger x overflow to +inf
// through the polynomial (positive coefficients, increasing), +inf included.
//
// Measured (every float of [-87.3, 88.7] against float64 exp, `vlak accuracy exp --exhaustive`):
//   max 4.073 ULP (at x = 88.699, in the clamped sliver), max relative error 2.486e-7, mean
//   5.68e-9; on [-87.3, 88.37] (n unclamped) the max is 1.010 ULP.
// Special values: all honoured: exp(-inf) = 0, exp(NaN) = NaN (through r), overflow -> +inf,
//   underflow -> 0: n = -126 still gives denormal results (rounded once) down to x = -87.68,
//   n = -127 gives 2^n = +0, and x < -88 is masked to 0 before the exponent field would wrap.
// Cost: 16 vector-layer ops: MulAdd, Min, shift, Sub, 2 NegMulAdd, Mul, 5 MulAdd, MulAdd (u),
//   MulAdd (2^n (1 + u)), Lt, IfThenZeroElse. AVX-512: 16 instructions (the select folds into
//   the last FMA; AVX2: 17); RVV: 16 + 6 splats (exp_common.h). ExpEval::kLean: u = (p r) r + r.
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS {

template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpCephes(D d, VFromD<D> x) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpCephes takes f32 tags");
  using namespace exp_detail;
  const auto tiny = Lt(d, x, -88.0f);  // first: x dies in r
  auto b = ScaleShift<kEval>(d, x, kLog2e, kMagic + 127.0f);
  b = Min(d, b, kMagic + 254.0f);
  const auto s = ExponentFromMagic(d, b);
  const auto n = Sub(d, b, kMagic + 127.0f);
  auto r = NegMulAdd(d, n, 0.693359375f, x);
  r = NegMulAdd(d, n, -2.12194440e-4f, r);
  auto p = HornerFirst<kEval>(d, r, 1.9875691500e-4f, 1.3981999507e-3f);
  p = HornerStep<kEval>(d, p, r, 8.3334519073e-3f);
  p = HornerStep<kEval>(d, p, r, 4.1665795894e-2f);
  p = HornerStep<kEval>(d, p, r, 1.6666665459e-1f);
  p = HornerStep<kEval>(d, p, r, 5.0000001201e-1f);
  VFromD<D> u;
  if constexpr (kEval == ExpEval::kFused) {
    u = MulAdd(d, p, Mul(d, r, r), r);
  } else {
    u = MulAdd(d, Mul(d, p, r), r, r);
  }
  return IfThenZeroElse(d, tiny, MulAdd(d, u, s, s));
}

}  // namespace vlak::VLAK_NS
