// gelu(x) = x Phi(x) = 0.5 x erfc(-x / sqrt 2), evaluated in float64 and rounded once.
//
// Algorithm: with a = |x| and Q(a) = Phi(-a) = phi(a) M(a) (M: Mills' ratio), x Phi(x) =
//   max(x, 0) - a Q(a) for either sign. M(a) ~ P5(a) / Q6(a), a near-minimax rational on [0, 15]
//   (activation_coeffs.py, relative error 3.2e-9: M is smooth, ~1/a at infinity, which a
//   polynomial in a cannot follow and a rational does), phi(a) = e^{-a^2/2} / sqrt(2 pi) with
//   -a^2/2 exact in float64, n = round(-a^2/2 log2 e) and 2^n = s1 s2 built in float (two
//   halves of the exponent, as exp_precise.h splits it; the vector layer has no 64-bit shifts)
//   then widened, t = -a^2/2 - n ln2 (fdlibm's float64 ln2 split), e^t by its Taylor polynomial
//   of degree 8 (2e-10 on |t| <= 0.347).
//   Every term is float64: the result before its one rounding to float is within 1e-8
//   relative (0.2 ULP at most; a Q(a) <= a/2 when it is subtracted) down to a = 15, where it
//   is below 2^-160. Why float64 and not a float double-float chain: the tail a Q(a) must be
//   relative to 2^-25 over a in [1, 14.2], and float polynomials of that reach need several
//   intervals (erfc's usual split: Cephes, SLEEF) and compensated products at each step.
// Measured on every finite float (`vlak accuracy activations --exhaustive`, AVX2, 2-core AMD EPYC
//   Zen 3, 2026-11-26; every target gives the same bits): max 0.553 ULP (x = -1.5e-5: the final
//   rounding and little else); below FLT_MIN at most 0.518 x 2^-149. vlak.h's bound: 2 ULP,
//   2^-149 below FLT_MIN.
// Special values: NaN -> the same NaN; gelu(+inf) = +inf, gelu(-inf) = -0 (x Phi(x) < 0 for
//   x < 0), gelu(-0) = -0; denormal results (x in (-14.2, -13.2)) rounded once.
// Cost: 12 float ops and per half of the lanes 49 float64 ops with one float64 Div, 4 widenings
//   and 1 narrowing (AVX2: each float64 op is two instructions per 8 floats).
#pragma once

#include <initializer_list>

#include "ops/activation/exp_parts.h"

namespace vlak::VLAK_NS::act {

template <class D>
VFromD<D> Gelu(D d, VFromD<D> x) {
  static_assert(Pow2FromD<D> <= 2, "Gelu widens to float64: at most LMUL 4");
  const auto dd = Rebind<double>(d);
  const auto di = Rebind<int32_t>(d);
  constexpr float kBias = kMagic + 254.0f;
  const auto a = Min(d, Abs(d, x), 15.0f);
  const auto bias = MulAdd(d, Mul(d, a, a), -0.5f * kLog2e, Set(d, kBias));
  const auto n = Sub(d, bias, kBias);
  const auto bits = BitCast(di, d, bias);
  const auto k1 = ShiftRight<1>(di, bits);
  const auto s1 = BitCast(d, di, ShiftLeft<23>(di, k1));
  const auto s2 = BitCast(d, di, ShiftLeft<23>(di, Sub(di, bits, k1)));

  const auto A = PromoteTo(dd, d, a);
  const auto N = PromoteTo(dd, d, n);
  const auto z = Mul(dd, Mul(dd, A, A), -0.5);
  auto t = NegMulAdd(dd, N, 6.93147180369123816490e-01, z);
  t = NegMulAdd(dd, N, 1.90821492927058770002e-10, t);
  // Horner steps as a product and a sum with a scalar addend, not an FMA: in float64 the extra
  // rounding (2^-53) is far below what the result keeps, and RVV then needs no splat of the 19
  // coefficients (a float64 group is two registers at the float's LMUL 1: hoisted splats of the
  // fused form filled the register file and spilled in the loop, scripts/rvv-spill-check). Zen 3
  // runs the products and sums on separate pipes: the same throughput as the FMAs.
  const auto horner = [&](auto v, double c) { return Add(dd, Mul(dd, v, t), c); };
  auto e = Add(dd, Mul(dd, t, 1.0 / 40320), 1.0 / 5040);
  for (double c : {1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0}) e = horner(e, c);
  // c0 P5(a) with c0 = 1 / sqrt(2 pi) folded in, and Q6(a).
  constexpr double kC0 = 0.39894228040143267794;
  const auto step = [&](auto v, double c) { return Add(dd, Mul(dd, v, A), c); };
  auto p = Add(dd, Mul(dd, A, kC0 * -0.00031633812246540321), kC0 * 0.0061987390230702748);
  for (double c : {kC0 * 0.080788674805817515, kC0 * 0.40438533962254047, kC0 * 1.0304782871309657,
                   kC0 * 1.2533141412960618}) {
    p = step(p, c);
  }
  auto q = Add(dd, Mul(dd, A, -0.00031632727608623665), 0.0061980424311524895);
  for (double c : {0.080491858900883853, 0.41026594934635596, 1.1152928143394258, 1.6200875123017551, 1.0}) {
    q = step(q, c);
  }
  const auto scale = Mul(dd, PromoteTo(dd, d, s1), PromoteTo(dd, d, s2));
  const auto tail = Div(dd, Mul(dd, Mul(dd, Mul(dd, A, e), scale), p), q);  // a Q(a)
  const auto X = PromoteTo(dd, d, x);
  const auto y = DemoteTo(d, dd, Sub(dd, Max(dd, X, 0.0), tail));
  // x's sign bit: gelu(-0) = -0 (max(-0, 0) - 0 is +0); every other result already has it.
  return IfThenElse(d, IsNaN(d, x), x, Or(d, y, And(d, x, Set(d, -0.0f))));
}

}  // namespace vlak::VLAK_NS::act
