// K exp(v) for v <= 0 or NaN, K = 723.8725: the accurate softmax's exp on RVV, where the cycles
// of the exp + sum + store pass are those of its vector floating-point instructions.
//
// Why scaled: softmax divides by the sum, so any constant factor K cancels. A monic polynomial
//   K e^t ~ t^6 + k5 t^5 + ... + K t + K starts its Horner evaluation with t + k5 (one .vf), where
//   e^t's own starts with c6 t + c5 and needs c5 splatted into a register group.
// Algorithm (ExpAccurateNonPositive's reduction, exp_accurate.h): v clamped at -88; n = round(v
//   log2e) by the magic number, 2^n from its bits (exp_common.h); t = v - n ln2_hi - n ln2_lo in
//   [-ln2/2, ln2/2]; K e^t by the polynomial (tools/remez/exp_coeffs.py, "softmax": 3.4e-9 =
//   2^-28.1 relative); y = p 2^n, p in [511.8, 1023.8], normal down to n = -126. On RVV the clamp
//   is two unsigned minima on v's bits.
// Bound: 2 ULP against K exp(v) in float64 (vlak.h's accurate exp). Special values: NaN -> NaN;
//   v < -87.68 and -inf -> +0; 0 -> K.
// Cost: 11 vector floating-point instructions (13 per strip in softmax's pass), 3 integer (2
//   vminu, vsll); no splat inside the loop. More: docs/ops/exp.md, "exp_softmax.h".
#pragma once

#include "math/exp_bittrick_p5.h"
#include "math/exp_common.h"

namespace vlak::VLAK_NS {

namespace exp_detail {
// K and the monic polynomial's coefficients (tools/remez/exp_coeffs.py, "softmax").
inline constexpr float kSoftmaxK = 723.8724975585938f;   // 0x4434F7D7
inline constexpr float kSoftmaxK5 = 6.058085918426514f;  // 0x40C1DBD7
inline constexpr float kSoftmaxK4 = 30.16275978088379f;  // 0x41F14D55
inline constexpr float kSoftmaxK3 = 120.64434814453125f; // 0x42F149E8
inline constexpr float kSoftmaxK2 = 361.9361877441406f;  // 0x43B4F7D5
// Bits of -88.0f (b's clamp) and of the float one ulp closer to 0 (t's clamp).
inline constexpr uint32_t kSoftmaxClampB = 0xC2B00000u;
inline constexpr uint32_t kSoftmaxClampT = kSoftmaxClampB - 1;
inline constexpr float kSoftmaxBias = kMagic + 127.0f;
// The fast softmax's exp (VLAK_SOFTMAX_EXP_FAST, exp_bittrick_p5.h's quintic) in the same
// scaled, monic form: P(g) = c5 (g^5 + k4 g^4 + ... + k0), k_i = c_i / c5 rounded to float
// (2^-24 relative each, against the quintic's own 2.4e-6).
inline constexpr float kBittrickSoftmaxK4 = kBittrickP5C4 / kBittrickP5C5;
inline constexpr float kBittrickSoftmaxK3 = kBittrickP5C3 / kBittrickP5C5;
inline constexpr float kBittrickSoftmaxK2 = kBittrickP5C2 / kBittrickP5C5;
inline constexpr float kBittrickSoftmaxK1 = kBittrickP5C1 / kBittrickP5C5;
inline constexpr float kBittrickSoftmaxK0 = kBittrickP5C0 / kBittrickP5C5;
// The factor K' the fast form carries (below): log-softmax takes log(sum / K').
inline constexpr double kBittrickSoftmaxScale = 1.4142135623730951 / kBittrickP5C5;
}  // namespace exp_detail

// One strip, from v = x - max to K exp(v). The pipelined pass (ops/softmax/softmax_pipelined.h)
// runs the same instructions in another order, so both give the same bits.
template <class D>
VFromD<D> ExpSoftmaxScaled(D d, VFromD<D> v) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpSoftmaxScaled takes f32 tags");
  using namespace exp_detail;
  constexpr bool kClampBits = VLAK_TARGET_ID == ::vlak::Target::kRvv;
  VFromD<D> vb, vt;
  MFromD<D> tiny;
  if constexpr (kClampBits) {
    const auto du = Rebind<uint32_t>(d);
    vb = BitCast(d, du, Min(du, BitCast(du, d, v), kSoftmaxClampB));
    vt = BitCast(d, du, Min(du, BitCast(du, d, v), kSoftmaxClampT));
  } else {
    tiny = Lt(d, v, -88.0f);
    vb = vt = v;
  }
  const auto b = MulAdd(d, vb, kLog2e, Set(d, kSoftmaxBias));
  const auto s = ExponentFromMagic(d, b);
  const auto n = Sub(d, b, kSoftmaxBias);
  auto t = NegMulAdd(d, n, kLn2Hi, vt);
  t = NegMulAdd(d, n, kLn2Lo, t);
  auto q = Add(d, t, kSoftmaxK5);
  q = MulAdd(d, q, t, Set(d, kSoftmaxK4));
  q = MulAdd(d, q, t, Set(d, kSoftmaxK3));
  q = MulAdd(d, q, t, Set(d, kSoftmaxK2));
  q = MulAdd(d, q, t, Set(d, kSoftmaxK));
  q = MulAdd(d, q, t, Set(d, kSoftmaxK));
  const auto y = Mul(d, q, s);
  if constexpr (kClampBits) {
    return y;
  } else {
    return IfThenZeroElse(d, tiny, y);
  }
}

// K' exp(v) for v <= 0 or NaN with exp_bittrick_p5.h's quintic, K' = sqrt(2) / c5 = 743.6: the
// fast softmax's exp on RVV (softmax_pipelined.h runs the same instructions three strips at a
// time). Softmax divides by the sum, so K' cancels, as K does above.
//   ExpBittrickP5 takes n = floor(y), y = v log2 e, and evaluates the quintic P(g) ~ 2^(g + 1/2)
//   at g = y - 1/2 - n in [-1/2, 1/2]. Here n = round(y) (the magic number's rounding, with no
//   1/2 to subtract first), g = y - n is again in [-1/2, 1/2], and 2^n P(g) ~ sqrt(2) 2^y: the
//   same polynomial on the same interval, so the same 2.4e-6 maximum relative error; g is
//   v log2e - n with one rounding (fused), where ExpBittrickP5 rounds y - 1/2 first (up to 2^-17
//   absolute at |y| near 127).
//   Monic (t + k4 first): one splat fewer, as in ExpSoftmaxScaled. No overflow clamp (v <= 0);
//   the underflow clamp is ExpSoftmaxScaled's unsigned minimum on v's bits: v < -88 computes as
//   -88, whose n = -127 gives 2^n = +0 (so does every v < -87.68; ExpBittrickP5 flushes from
//   -87.34, where its floor reaches -127).
// Cost: 8 vector floating-point instructions (11 per strip in softmax's pass, with x - max, the
// sum and 2^n's product), 3 integer (2 vminu, vsll); splats: the magic number and k3 .. k0.
template <class D>
VFromD<D> ExpBittrickSoftmaxScaled(D d, VFromD<D> v) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpBittrickSoftmaxScaled takes f32 tags");
  static_assert(VLAK_TARGET_ID == ::vlak::Target::kRvv && sizeof(D) != 0, "RVV only (MulSub, the clamp on bits)");
  using namespace exp_detail;
  const auto du = Rebind<uint32_t>(d);
  auto b = BitCast(d, du, Min(du, BitCast(du, d, v), kSoftmaxClampB));
  auto t = BitCast(d, du, Min(du, BitCast(du, d, v), kSoftmaxClampT));
  b = MulAdd(d, b, kLog2e, Set(d, kSoftmaxBias));
  const auto s = ExponentFromMagic(d, b);
  b = Sub(d, b, kSoftmaxBias);        // n
  t = MulSub(d, t, kLog2e, b);        // g = v log2e - n
  auto q = Add(d, t, kBittrickSoftmaxK4);
  q = MulAdd(d, q, t, Set(d, kBittrickSoftmaxK3));
  q = MulAdd(d, q, t, Set(d, kBittrickSoftmaxK2));
  q = MulAdd(d, q, t, Set(d, kBittrickSoftmaxK1));
  q = MulAdd(d, q, t, Set(d, kBittrickSoftmaxK0));
  return Mul(d, q, s);
}

}  // namespace vlak::VLAK_NS
