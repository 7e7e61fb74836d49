// exp(x), the RISC-V hackathon softmax's bit trick, degree-3 fit: 2^y = 2^floor(y) * 2^f, y = x log2 e.
//
// Algorithm: 2^floor(y) from the exponent field (exp_bittrick.h's split); 2^f ~ 1 + ln2 f +
//   (3 - 4 ln2) f^2 + (3 ln2 - 2) f^3, the Hermite cubic (the hackathon's fit of f + 1 - 2^f by
//   values and derivatives at 0 and 1; its own max relative error on [0, 1] is 6.1e-4), evaluated
//   at g = f - 1/2, re-expanded by tools/remez/exp_coeffs.py.
// Bound (vlak.h): max relative error 6.2e-4 on [-87.3, 88.7]: the cubic's own error dominates.
// Special values: all honoured: exp(-inf) = 0, exp(NaN) = NaN, overflow -> +inf, underflow -> 0
//   (flushed from x < -87.34, where 2^y leaves the normal range).
// Cost: 12 vector-layer ops: split 5 (MulAdd, Add, Min, Sub, Sub) + shift 1, 3 MulAdd, Mul,
//   Lt, IfThenZeroElse. AVX-512: 12 instructions (AVX2: 13); RVV: 12 + 4 splats under kFused
//   (exp_common.h).
// The cubic's derivation, the hackathon's own rounding and the measurement: docs/ops/exp.md,
//   "exp_bittrick_p3.h".
#pragma once

#include "math/exp_bittrick.h"

namespace vlak::VLAK_NS {

template <ExpEval kEval = ExpEval::kFused, class D>
VFromD<D> ExpBittrickP3(D d, VFromD<D> x) {
  static_assert(std::is_same_v<TFromD<D>, float>, "ExpBittrickP3 takes f32 tags");
  using namespace exp_detail;
  const auto tiny = Lt(d, x, kBitTrickCutoff);  // first: x dies in the split
  VFromD<D> g, b;
  BitTrickSplit<kEval>(d, x, g, b);
  // 1 + ln2 f + (3 - 4 ln2) f^2 + (3 ln2 - 2) f^3 at f = g + 1/2.
  auto r = HornerFirst<kEval>(d, g, 0.07944153994321823f, 0.3465735912322998f);
  r = HornerStep<kEval>(d, r, g, 0.9801396131515503f);
  r = HornerStep<kEval>(d, r, g, 1.4133566617965698f);
  return IfThenZeroElse(d, tiny, Mul(d, r, ExponentFromMagic(d, b)));
}

}  // namespace vlak::VLAK_NS
