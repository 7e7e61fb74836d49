// exp(x), the RISC-V hackathon softmax's bit trick, degree-5 fit: 2^y = 2^floor(y) * 2^f, y = x log2 e.
//
// Algorithm: 2^floor(y) from the exponent field (exp_bittrick.h's split); 2^f = 1 + f - delta(f),
//   delta(f) = f (s1 + s2 f + s3 f^2 + s4 f^3 + s5 f^4) fitted by value, first and second
//   derivative at f = 0 and f = 1 (the hackathon's, after Perini 2018; the quintic's own max
//   relative error for 2^f on [0, 1] is 2.4e-6), evaluated at g = f - 1/2, re-expanded by
//   tools/remez/exp_coeffs.py. y = x log2(e) is rounded once (no Cody-Waite split): for |y| near
//   128 that alone is up to 5e-6 relative in the result.
// Bound (vlak.h): max relative error 6.3e-6 (75 ULP) on [-87.3, 88.7].
// Special values: all honoured: exp(-inf) = 0, exp(NaN) = NaN, overflow -> +inf, underflow -> 0
//   (flushed from x < -87.34, where 2^y leaves the normal range).
// Cost: 14 vector-layer ops: split 5 (MulAdd, Add, Min, Sub, Sub) + shift 1, 5 MulAdd, Mul,
//   Lt, IfThenZeroElse. AVX-512: 14 instructions (AVX2: 15); RVV: 14 + 6 splats under kFused
//   (exp_common.h). The coefficients, the hackathon's own rounding and the measurement:
//   docs/ops/exp.md, "exp_bittrick_p5.h".
#pragma once

#include "math/exp_bittrick.h"

namespace vlak::VLAK_NS {

namespace exp_detail {
// The quintic's coefficients at g = f - 1/2, highest degree first (tools/remez/exp_coeffs.py).
inline constexpr float kBittrickP5C5 = 0.001901881885714829f;
inline constexpr float kBittrickP5C4 = 0.013766170479357243f;
inline constexpr float kBittrickP5C3 = 0.07849059998989105f;
inline constexpr float kBittrickP5C2 = 0.33969050645828247f;
inline constexpr float kBittrickP5C1 = 0.9802584648132324f;
inline constexpr float kBittrickP5C0 = 1.4142169952392578f;
}  // namespace exp_detail

template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpBittrickP5(D d, VFromD<D> x) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpBittrickP5 takes f32 tags");
  using namespace exp_detail;
  const auto tiny = Lt(d, x, kBitTrickCutoff);  // first: x dies in the split
  VFromD<D> g, b;
  BitTrickSplit<kEval>(d, x, g, b);
  // 1 - s1 f - ... = 1 + (1 - s1) f - s2 f^2 - s3 f^3 - s4 f^4 - s5 f^5 at f = g + 1/2.
  auto r = HornerFirst<kEval>(d, g, kBittrickP5C5, kBittrickP5C4);
  r = HornerStep<kEval>(d, r, g, kBittrickP5C3);
  r = HornerStep<kEval>(d, r, g, kBittrickP5C2);
  r = HornerStep<kEval>(d, r, g, kBittrickP5C1);
  r = HornerStep<kEval>(d, r, g, kBittrickP5C0);
  return IfThenZeroElse(d, tiny, Mul(d, r, ExponentFromMagic(d, b)));
}

}  // namespace vlak::VLAK_NS
