// The default tier's sigmoid and silu on x86: fast.h's one-division form, and sigmoid.h's
// compensated form only in the lanes where the former exceeds 2 ULP.
//
// Algorithm: y = FastSigmoid / FastSilu (fast.h, about 18 ops); where x < -16, sigmoid.h's
//   Sigmoid / Silu instead, lane by lane (each lane's result depends on its own x only, so the
//   bits are the same on every x86 target and thread count), computed only for a vector with
//   such a lane. Below -16.3 (e^-x >= 2^24) the fast form's S + 2^-64 rounds, 2.44 ULP at worst,
//   and silu's results below FLT_MIN round twice there; above -16 its error is at most 1.70 ULP.
// Bound (vlak.h): 2 ULP, 2^-149 below FLT_MIN. Measured on every finite float: sigmoid 1.695
//   ULP, silu 1.698 (docs/ops/activation.md, "sigmoid_split.h").
// Special values: those of fast.h and sigmoid.h, which agree (NaN -> the same NaN; -inf takes
//   sigmoid.h's lanes).
// Cost: fast.h's ops, one compare and one test of the mask per vector; a vector with a lane below
//   -16 costs sigmoid.h's ops too. RISC-V keeps sigmoid.h alone (its division-free form: a
//   division there costs more than the compensation), and so does glu's gate everywhere (its
//   3 ULP bound on the product: activation_kernel.cc).
#pragma once

#include "ops/activation/fast.h"
#include "ops/activation/sigmoid.h"

namespace vlak::VLAK_NS::act {

inline constexpr float kSplitBelow = -16.0f;

template <bool kSilu, class D>
[[gnu::always_inline]] inline VFromD<D> SplitSigmoidImpl(D d, VFromD<D> x) {
  const auto y = kSilu ? FastSilu<4>(d, x) : FastSigmoid<4>(d, x);
  const auto tail = Lt(d, x, kSplitBelow);
  if (AllFalse(d, tail)) [[likely]] return y;
  return IfThenElse(d, tail, kSilu ? Silu(d, x) : Sigmoid(d, x), y);
}

template <class D>
VFromD<D> DefaultSigmoid(D d, VFromD<D> x) {
  if constexpr (kDivFree) return Sigmoid(d, x);
  else return SplitSigmoidImpl<false>(d, x);
}

template <class D>
VFromD<D> DefaultSilu(D d, VFromD<D> x) {
  if constexpr (kDivFree) return Silu(d, x);
  else return SplitSigmoidImpl<true>(d, x);
}

}  // namespace vlak::VLAK_NS::act
