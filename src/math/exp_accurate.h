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
//   MulAdd (2^n (1 + u)), Lt, IfThenZeroElse. AVX-512: 15 instructions (the select folds into
//   the last FMA; AVX2: 16); RVV: 15 + 5 splats (b's addend and the 4 Horner addends).
// ExpEval::kLean (softmax on RVV at LMUL 8, exp_common.h): u = (q t) t + t, Horner steps
//   rounded twice; 16 ops on RVV (+1 splat), three register groups. Its accuracy is measured by
//   tests/math/exp_test.cc (ExpLean) over [-87.3, 0].
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS {

namespace exp_detail {
// e^t - 1 = t + t^2 q(t) for t in [-ln2/2, ln2]: the polynomial alone, kept apart from the
// range reduction so the two read separately.
template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpAccurateExpm1Reduced(D d, VFromD<D> t) {
  auto q = HornerFirst<kEval>(d, t, 0.0016222039703279734f, 0.008325754664838314f);
  q = HornerStep<kEval>(d, q, t, 0.041622526943683624f);
  q = HornerStep<kEval>(d, q, t, 0.1666700541973114f);
  q = HornerStep<kEval>(d, q, t, 0.5000020861625671f);
  if constexpr (kEval == ExpEval::kFused) {
    return MulAdd(d, Mul(d, t, t), q, t);
  } else {
    return MulAdd(d, Mul(d, q, t), t, t);
  }
}
}  // namespace exp_detail

template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpAccurate(D d, VFromD<D> x) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpAccurate takes f32 tags");
  using namespace exp_detail;
  const auto tiny = Lt(d, x, -88.0f);  // first: x dies in t
  auto b = ScaleShift<kEval>(d, x, kLog2e, kMagic + 127.0f);
  b = Min(d, b, kMagic + 254.0f);
  const auto s = ExponentFromMagic(d, b);
  const auto n = Sub(d, b, kMagic + 127.0f);
  auto t = NegMulAdd(d, n, kLn2Hi, x);
  t = NegMulAdd(d, n, kLn2Lo, t);
  const auto u = ExpAccurateExpm1Reduced<kEval>(d, t);
  return IfThenZeroElse(d, tiny, MulAdd(d, u, s, s));
}

// exp(v) for v <= 0 or NaN, where v is the result of a floating-point operation: softmax's
// exp(x - max). ExpAccurate's reduction and polynomial without its overflow clamp (n <= 0 here,
// so t stays in [-ln2/2, ln2/2] and 2^n <= 1), and a cheaper underflow rule on RVV:
//   v < -88 must give 0 (below, 2^n's exponent field would wrap). On RVV v is clamped at -88 by
//   an unsigned minimum on its bits: the bits of -0 .. -88 are 0x80000000 .. 0xC2B00000, every
//   v < -88 (-inf included) lies above, +0 is 0, and a NaN produced by a RISC-V floating-point
//   instruction is the canonical 0x7FC00000, below: it passes through and poisons t. exp(-88)
//   then comes out as +0 (n = -127). One vminu.vx instead of a compare and a merge, and no mask
//   register, which LMUL 8 needs for its fourth group. Elsewhere (x86 keeps a NaN operand's
//   sign, so a NaN may have the top bit set) it is ExpAccurate's compare and select.
// Accuracy: max 1.42 ULP (kFused) / 1.51 ULP (kLean) on 1M samples of [-87.3, 0]
//   (tests/math/exp_test.cc, ExpSoftmaxEvaluations, bound 2 ULP).
// Cost on RVV (kLean): 18 instructions, no splats: vminu, 2 for b, shift, sub, 2 for t, 10 for
//   u, 1 for 2^n (1 + u) (the softmax exp pass adds load, sub, store and the sum).
template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpAccurateNonPositive(D d, VFromD<D> v) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpAccurateNonPositive takes f32 tags");
  using namespace exp_detail;
  constexpr bool kClampBits = VLAK_TARGET_ID == ::vlak::Target::kRvv;
  MFromD<D> tiny;
  if constexpr (kClampBits) {
    const auto du = Rebind<uint32_t>(d);
    v = BitCast(d, du, Min(du, BitCast(du, d, v), 0xC2B00000u));  // bits of -88.0f
  } else {
    tiny = Lt(d, v, -88.0f);
  }
  auto b = ScaleShift<kEval>(d, v, kLog2e, kMagic + 127.0f);
  const auto s = ExponentFromMagic(d, b);
  const auto n = Sub(d, b, kMagic + 127.0f);
  auto t = NegMulAdd(d, n, kLn2Hi, v);
  t = NegMulAdd(d, n, kLn2Lo, t);
  const auto y = MulAdd(d, ExpAccurateExpm1Reduced<kEval>(d, t), s, s);
  if constexpr (kClampBits) {
    return y;
  } else {
    return IfThenZeroElse(d, tiny, y);
  }
}

}  // namespace vlak::VLAK_NS
