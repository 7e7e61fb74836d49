// exp(x), Cephes expf (Moshier): Cody-Waite reduction with two constants, degree-5 polynomial.
//
// Algorithm: n = round(x log2 e) (magic number, exp_common.h), clamped to n <= 127;
//   r = x - n C1 - n C2 with C1 = 0.693359375 (9 bits: n C1 is exact) and C2 = -2.12194440e-4;
//   e^r ~ 1 + r + r^2 P(r), P the Cephes degree-5 polynomial (max relative error 1.1e-9 on
//   [-ln2/2, ln2/2]); exp(x) = 2^n (1 + u), u = r + r^2 P(r), rounded once by an FMA, 2^n from the
//   exponent field. For x in (88.38, 88.72] the clamp lets r reach ln 2, where the polynomial is
//   off by up to 2.8e-7 relative: the largest errors sit there.
// Bound (vlak.h): max 4.08 ULP on [-87.3, 88.7].
// Special values: all honoured: exp(-inf) = 0, exp(NaN) = NaN (through r), overflow -> +inf,
//   underflow -> 0, with denormal results (rounded once) down to x = -87.68.
// Cost: 16 vector-layer ops; AVX-512: 16 instructions (AVX2: 17); RVV: 16 + 6 splats
//   (exp_common.h). ExpEval::kLean: u = (p r) r + r.
// The clamp and the underflow path, the ops one by one and the measurement: docs/ops/exp.md,
//   "exp_cephes.h".
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
