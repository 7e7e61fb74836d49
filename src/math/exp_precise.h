// exp(x), precise: <= 1 ULP on every float, denormal results kept (SLEEF u10 class).
//
// Algorithm: n = round(x log2 e) by the magic number (exp_common.h), clamped to n <= 128;
//   t = x - n ln2_hi - n ln2_lo in [-ln2/2, ln2/2] (two FMAs, n ln2_hi exact);
//   e^t ~ 1 + t + t^2 (c2 + ... + c6 t^4), relative minimax with c0 = c1 = 1 exact
//   (tools/remez/exp_coeffs.py; 3.2e-9 = 2^-28.2 max relative error, so rounding dominates);
//   y = (2^n1 (1 + u)) * 2^n2, n1 = floor(n/2), n2 = n - n1, both factors normal for every n in
//   [-252, 254]: the FMA rounds to 24 bits, the last multiply is exact for normal results and
//   rounds once into the denormal range.
// Bound (vlak.h): max 0.88 ULP (<= 1) over every finite float.
// Special values: all honoured: exp(-inf) = 0, exp(NaN) = NaN (through t), overflow -> +inf,
//   results down to the smallest denormal 2^-149 (x >= -103.97), 0 below.
// Cost: 21 vector-layer ops; AVX-512: 20 instructions (AVX2: 21); RVV: 21 + 5 splats
//   (exp_common.h). The exponents' bits, the overflow path, the ops one by one, ExpEval::kLean
//   and the measurement: docs/ops/exp.md, "exp_precise.h".
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS {

template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpPrecise(D d, VFromD<D> x) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpPrecise takes f32 tags");
  using namespace exp_detail;
  const auto di = Rebind<int32_t>(d);
  constexpr float kBias = kMagic + 254.0f;
  const auto tiny = Lt(d, x, -104.0f);  // first: x dies in th
  auto b = ScaleShift<kEval>(d, x, kLog2e, kBias);
  b = Min(d, b, kBias + 128.0f);
  const auto n = Sub(d, b, kBias);
  // t = th + m exactly up to 1e-11: th is exact, m = -n ln2_lo is tiny. The polynomial takes t
  // rounded, but u adds th last, so t's rounding error (2^-26, ~0.2 ULP) never reaches u.
  const auto th = NegMulAdd(d, n, kLn2Hi, x);
  const auto m = Mul(d, n, -kLn2Lo);
  const auto t = Add(d, th, m);
  auto q = HornerFirst<kEval>(d, t, 0.0013814542908221483f, 0.00836870539933443f);
  q = HornerStep<kEval>(d, q, t, 0.041668329387903214f);
  q = HornerStep<kEval>(d, q, t, 0.1666652113199234f);
  q = HornerStep<kEval>(d, q, t, 0.4999999403953552f);
  const auto u = Add(d, th, MulAdd(d, Mul(d, t, t), q, m));  // e^t - 1, rounded once
  // bits(b) = bits(kMagic) + n + 254; bits(kMagic) is even and its bits vanish under << 23.
  const auto bits = BitCast(di, d, b);
  const auto k1 = ShiftRight<1>(di, bits);
  const auto k2 = Sub(di, bits, k1);
  const auto s1 = BitCast(d, di, ShiftLeft<23>(di, k1));
  const auto s2 = BitCast(d, di, ShiftLeft<23>(di, k2));
  const auto y = Mul(d, MulAdd(d, u, s1, s1), s2);
  return IfThenZeroElse(d, tiny, y);
}

}  // namespace vlak::VLAK_NS
