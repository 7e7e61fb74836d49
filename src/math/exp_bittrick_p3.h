// exp(x), the RISC-V hackathon softmax's bit trick, degree-3 fit: 2^y = 2^floor(y) * 2^f, y = x log2 e.
//
// The hackathon writes 2^f = 1 + f - delta(f) with delta(f) = f + 1 - 2^f on [0, 1] and fits delta by
// matching values and derivatives at both ends. For degree 3, delta(f) = f (s1 + s2 f + s3 f^2)
// (delta(0) = 0 fixes the constant term) and
//   delta'(0) = 1 - ln2           =>  s1 = 1 - ln2
//   delta(1)  = 0                 =>  s1 +   s2 +   s3 = 0
//   delta'(1) = 1 - 2 ln2         =>  s1 + 2 s2 + 3 s3 = 1 - 2 ln2
// Subtracting the middle line from the last: s2 + 2 s3 = 1 - 2 ln2; with s2 + s3 = ln2 - 1:
//   s3 = 2 - 3 ln2 = -0.0794415,  s2 = 4 ln2 - 3 = -0.2274113,  s1 = 0.3068528.
// So 2^f ~ 1 + ln2 f + (3 - 4 ln2) f^2 + (3 ln2 - 2) f^3 (the Hermite cubic; its own max relative
// error on [0, 1] is 6.1e-4). The kernel evaluates the same cubic at g = f - 1/2 (see
// exp_bittrick.h), re-expanded by tools/remez/exp_coeffs.py, and multiplies by 2^floor(y): the
// hackathon's code instead adds 127 in float and truncates to int: up to 2^-16 relative.
//
// Measured (every float of [-87.3, 88.7] against float64 exp, `vlak accuracy exp --exhaustive`):
//   max 7,238 ULP (at x = 88.383), max relative error 6.156e-4, mean 2.59e-5: the cubic's own
//   6.1e-4 dominates.
// Special values: all honoured: exp(-inf) = 0, exp(NaN) = NaN, overflow -> +inf, underflow -> 0
//   (flushed from x < -87.34, where 2^y leaves the normal range).
// Cost: 12 vector-layer ops: split 5 (MulAdd, Add, Min, Sub, Sub) + shift 1, 3 MulAdd, Mul,
//   Lt, IfThenZeroElse. AVX-512: 12 instructions (AVX2: 13); RVV: 12 + 4 splats under kFused (exp_common.h).
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
