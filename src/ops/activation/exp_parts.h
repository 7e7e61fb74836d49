// e^z for z <= 0 as 2^n (1 + t + v): the scale, the reduced argument and the polynomial's
// higher terms kept apart, so that the activations (sigmoid.h, tanh.h, softplus.h, gelu_tanh.h)
// round 2^n (1 + t + v) only where they need to and carry t and v into their one last rounding.
//
// Algorithm: n = round(z log2 e) by the magic number (exp_common.h), t = z - n ln2_hi - n ln2_lo
//   (with zl added when the argument comes as z + zl: gelu_tanh's); v = t^2 q(t), q of degree 4
//   (exp_precise.h's, 3.2e-9 = 2^-28.2 relative on [-ln2/2, ln2/2]); u = RN(t + v).
// Error, relative to e^z: 2^-25.2 at worst (t's rounding, the polynomial's, v's rounding); u adds
//   2^-26 of 1 + u: callers use u where e's error is damped and t and v where it is not.
// Scale: S = 2^(n + kScale) from the exponent field, normal for n + kScale in [-126, 127]:
//   kScale = 64 keeps it normal down to z = -120, so that a result below FLT_MIN is rounded once,
//   when the caller takes its 2^-64 off at the end.
// Cost: 13 vector-layer ops, 14 with zl. The derivation, the ops one by one and what was not
//   taken: docs/ops/activation.md, "exp_parts.h".
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS::act {

using exp_detail::kLn2Hi;
using exp_detail::kLn2Lo;
using exp_detail::kLog2e;
using exp_detail::kMagic;

// x's sign bit alone (-0 or +0), and -|x|. On RVV by shifts and sign ops: an And or Or with -0
// needs the mask as a vector register held through the loop, which at LMUL 2 the activations
// have none to spare for. x86: the one op with the mask. The same bits.
template <class D>
[[gnu::always_inline]] inline VFromD<D> SignOf(D d, VFromD<D> x) {
  if constexpr (VLAK_TARGET_ID == ::vlak::Target::kRvv) {
    const auto di = Rebind<int32_t>(d);
    return BitCast(d, di, ShiftLeft<31>(di, ShiftRight<31>(di, BitCast(di, d, x))));
  } else {
    return And(d, x, Set(d, -0.0f));
  }
}

template <class D>
[[gnu::always_inline]] inline VFromD<D> NegAbs(D d, VFromD<D> x) {
  if constexpr (VLAK_TARGET_ID == ::vlak::Target::kRvv) return Neg(d, Abs(d, x));
  else return Or(d, x, Set(d, -0.0f));
}

// The splat of c, made where it is used when kHere. On RVV clang hoists a constant's splat out of
// the loop and holds it in a vector register (two at LMUL 2) for the whole loop; with more of them
// than free registers it spills some and reloads each per iteration (a whole-register load and
// its stack address). The empty asm volatile on the scalar keeps the splat in the loop body, one
// vfmv.v.f per use instead. Elsewhere, and when !kHere, it is Set; the value is the same.
template <bool kHere, class D>
[[gnu::always_inline]] inline VFromD<D> SetAt(D d, float c) {
#if defined(VLAK_SIMD_RVV)
  if constexpr (kHere) asm volatile("" : "+f"(c));
#endif
  return Set(d, c);
}

// e^(z + zl) = S 2^-kScale (1 + t + v), u = RN(t + v). z in [-120, 0] (callers clamp); kLow:
// zl is read (|zl| <= 2^-16), else it is not. kHere: the last kHere of the polynomial's 4
// addends are splat in the loop (SetAt).
template <int kScale, bool kLow = false, int kHere = 0, class D>
[[gnu::always_inline]] inline void ExpParts(D d, VFromD<D> z, VFromD<D> zl, VFromD<D>& s, VFromD<D>& t,
                                             VFromD<D>& v, VFromD<D>& u) {
  static_assert(kScale >= 0 && kScale <= 100, "2^(n + kScale) normal for n in [-174, 0]");
  const auto di = Rebind<int32_t>(d);
  constexpr float kBias = kMagic + static_cast<float>(127 + kScale);
  const auto bias = MulAdd(d, z, kLog2e, Set(d, kBias));
  const auto n = Sub(d, bias, kBias);
  const auto th = NegMulAdd(d, n, kLn2Hi, z);
  if constexpr (kLow) {
    t = Add(d, th, NegMulAdd(d, n, kLn2Lo, zl));
  } else {
    (void)zl;
    t = NegMulAdd(d, n, kLn2Lo, th);
  }
  auto q = MulAdd(d, t, 0.0013814542908221483f, SetAt<(kHere >= 4)>(d, 0.00836870539933443f));
  q = MulAdd(d, q, t, SetAt<(kHere >= 3)>(d, 0.041668329387903214f));
  q = MulAdd(d, q, t, SetAt<(kHere >= 2)>(d, 0.1666652113199234f));
  q = MulAdd(d, q, t, SetAt<(kHere >= 1)>(d, 0.4999999403953552f));
  v = Mul(d, Mul(d, t, t), q);
  u = Add(d, t, v);
  // bits(bias) = bits(kMagic) + n + 127 + kScale; bits(kMagic) is even and vanishes under << 23.
  s = BitCast(d, di, ShiftLeft<23>(di, BitCast(di, d, bias)));
}

}  // namespace vlak::VLAK_NS::act
