// Shared reduction of the bit-trick exps (exp_bittrick_p3.h, _p5.h), the RISC-V hackathon softmax's:
//   e^x = 2^y, y = x log2(e) = floor(y) + f,  2^y = 2^floor(y) * 2^f,  f in [0, 1),
// 2^floor(y) from the exponent field, 2^f from a polynomial.
#pragma once

#include "math/exp_common.h"

namespace vlak::VLAK_NS {
namespace exp_detail {

// Splits x into g = f - 1/2 in [-1/2, 1/2] (y = x log2(e)) and b, which holds floor(y) for
// ExponentFromMagic (exp_common.h) to turn into 2^floor(y); 5 ops. floor(y) is taken as
// round(y - 1/2) by the magic number (a Floor op costs 5 instructions on RVV, which has no float
// rounding instruction), so the polynomial is evaluated at g = f - 1/2, and
// g = (y - 1/2) - round(y - 1/2) is exact. floor(y) is clamped at 128, whose 2^floor(y) is +inf
// (overflow: g then grows and the polynomial, positive and increasing, keeps the product +inf,
// x = +inf included); NaN passes through g. floor(y) = -127 gives +0; below, the caller masks.
// Callers shift b only after their polynomial: keeping b rather than 2^floor(y) live avoids a
// spill on RVV with clang 19 at LMUL 4.
template <ExpEval kEval, class D>
void BitTrickSplit(D d, VFromD<D> x, VFromD<D>& g, VFromD<D>& b) {
  const auto h = ScaleShift<kEval>(d, x, kLog2e, -0.5f);  // y - 1/2
  b = Min(d, Add(d, h, kMagic + 127.0f), kMagic + 255.0f);
  g = Sub(d, h, Sub(d, b, kMagic + 127.0f));
}

// Below this, floor(y) <= -128 and the exponent field would wrap: the result is +0 (from -87.34
// on, where 2^y < 2^-126, 2^floor(y) is already +0: the bit trick has no denormals).
inline constexpr float kBitTrickCutoff = -88.0f;

}  // namespace exp_detail
}  // namespace vlak::VLAK_NS
