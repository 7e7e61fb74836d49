// Pieces shared by the f32 exp family (exp_<variant>.h): constants and the exponent-field trick.
//
// Every variant reduces exp(x) = 2^n * e^t and builds 2^n without a float->int conversion:
// adding kMagic = 1.5 * 2^23 to a float v with |v| < 2^22 rounds v to an integer (nearest even)
// that lands in the low mantissa bits of the sum, and the magic's own bits all sit at bit 22 and
// above. So if b = kMagic + n + bias, then bits(b) << 23 is (n + bias) << 23 (mod 2^32): with
// bias 127 and n + 127 in [1, 254] that is the float 2^n, with n + 127 = 0 it is +0. One shift
// replaces Round + ConvertTo + Add + Shift, and b - (kMagic + bias) gives n back as a float.
//
// Instruction counts in the variants' comments are per vector, from the disassembly of clang 19
// (AVX-512 and AVX2 at LMUL 1). Constants are scalar operands (Mul(d, v, c), MulAdd(d, v, c, w),
// ...): on RVV those are .vf instructions with the constant in an f register. What still needs a
// splat on RVV is a constant used as the addend of a vector product (the polynomial's Horner
// steps): one vfmv.v.f per step and strip, see ExpEval.
#pragma once

#include "simd/simd.h"

namespace vlak::VLAK_NS {

// How a variant evaluates its polynomial: a template parameter of every Exp* function.
//   kFused (the default): Horner steps p * t + c are MulAdd, one rounding each. On RVV the
//     coefficient is splatted into a register group of its own (vfmv.v.f + vfmacc.vv).
//   kLean: every step updates its operand in place, so no value needs a register group beyond
//     the reduced argument, the exponent and the polynomial (three groups, plus a mask in v0),
//     and nothing is splatted: Horner steps are Add(Mul(p, t), c) with c a scalar operand
//     (vfmul.vv + vfadd.vf), the first one Add(Mul(t, c1), c0) (.vf both), and t^2 is never
//     formed (u = (q t) t + t instead of t^2 q + t). Same RVV instruction count; two roundings
//     per step instead of one, which each variant's comment measures. No splats matters beyond
//     the count: clang hoists a loop-invariant splat out of the strip loop and, short of
//     registers, spills it there and reloads it every strip.
// Why: RVV at LMUL 8 has four register groups. A softmax strip holds the exp's values plus a
// mask (v0) and a sum: with kFused they need five groups and clang spills whole groups in the
// loop; with kLean they fit. vlak_exp_f32 uses kFused on every target (its results are
// bit-identical across targets); softmax picks kLean where registers are the limit.
enum class ExpEval { kFused, kLean };

namespace exp_detail {

inline constexpr float kLog2e = 1.44269502163f;  // 0x3FB8AA3B, log2(e) rounded to float
inline constexpr float kMagic = 12582912.0f;     // 1.5 * 2^23
// Cody-Waite split of ln 2 (tools/remez/exp_coeffs.py): kLn2Hi has 16 significant bits, so
// n * kLn2Hi is exact for |n| < 256 and x - n * kLn2Hi is exact in one FMA; kLn2Lo is the rest.
inline constexpr float kLn2Hi = 0.693145751953125f;      // 0x3F317200
inline constexpr float kLn2Lo = 1.428606765330187e-06f;  // 0x35BFBE8E


// p * t + c, one Horner step.
template <ExpEval kEval, class D>
VFromD<D> HornerStep(D d, VFromD<D> p, VFromD<D> t, float c) {
  if constexpr (kEval == ExpEval::kFused) {
    return MulAdd(d, p, t, c);
  } else {
    return Add(d, Mul(d, p, t), c);
  }
}
// c1 * t + c0, the first step.
template <ExpEval kEval, class D>
VFromD<D> HornerFirst(D d, VFromD<D> t, float c1, float c0) {
  if constexpr (kEval == ExpEval::kFused) {
    return MulAdd(d, t, c1, Set(d, c0));
  } else {
    return Add(d, Mul(d, t, c1), c0);
  }
}
// x * c1 + c0 for the range reduction (x log2 e + magic), same policy.
template <ExpEval kEval, class D>
VFromD<D> ScaleShift(D d, VFromD<D> x, float c1, float c0) { return HornerFirst<kEval>(d, x, c1, c0); }

// bits(b) << 23 reinterpreted as float: 2^(k - 127) for k = (bits(b) & 0x1FF) in [1, 254].
template <class D>
VFromD<D> ExponentFromMagic(D d, VFromD<D> b) {
  const auto di = Rebind<int32_t>(d);
  return BitCast(d, di, ShiftLeft<23>(di, BitCast(di, d, b)));
}

}  // namespace exp_detail
}  // namespace vlak::VLAK_NS
