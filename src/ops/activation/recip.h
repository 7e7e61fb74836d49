// 1 / x on a known interval without a division: a linear seed and one Newton step, for the
// activations' denominators (sigmoid.h's and softplus.h's 1 + e and 2 + e, tanh.h's 1 + E).
//
// Why: vfdiv is the dearest op of every activation on RVV (40 cycles at LMUL 1 on the SpacemiT
//   X60 model, an FMA 1), and a seed from IEEE ops gives the same bits on any target, so an x86
//   build of the same code checks RVV's results on all 2^32 floats (kDivFree below).
// Seed: p = c (a + b - x), c = 8 / ((a + b)^2 + 4 a b), the line with the least max |1 - x p(x)|
//   on [a, b]: two ops with scalar operands. Newton: r1 = r0 + r0 (1 - x r0), error e^2 plus r1's
//   rounding (2^-24). After Newton: [1, 2] 8/17 (3 - x) 2^-8.2, [2, 3] 8/49 (5 - x) 2^-11.2,
//   [1, 1.1354] 0.87897 (2.1354 - x) 2^-17.9.
// Callers then take r1's error out exactly as they took the division's: with g = 1 - r1 d
//   (FMAs), 1 / d = r1 (1 + g + g^2 + ...), of which they keep the terms above 2^-30.
// The seed's derivation, the seeds' errors and the X60 costs: docs/ops/activation.md, "recip.h".
#pragma once

#include "simd/simd.h"

namespace vlak::VLAK_NS::act {

// Division-free in RISC-V builds, every target there (RVV and scalar give the same bits), and in
// any build with -DVLAK_ACT_DIV_FREE=1: how the host checks these numerics on all 2^32 floats
// (`vlak accuracy activations --exhaustive` from such a build; the same IEEE ops, so the same
// bits as RVV). x86 builds keep the division and its bits: Zen 3 runs vdivps on its own unit
// beside the FMA pipes these loops fill, and the six FMA-class ops in its place made sigmoid about
// 20 % slower there (docs/ops/activation.md).
#if defined(__riscv) || (defined(VLAK_ACT_DIV_FREE) && VLAK_ACT_DIV_FREE)
inline constexpr bool kDivFree = true;
#else
inline constexpr bool kDivFree = false;
#endif

// c (s - x) as (x - s) (-c) (a splat of s for s - x is what clang made of the other order), then
// one Newton step: r0 + r0 (1 - x r0).
template <class D>
[[gnu::always_inline]] inline VFromD<D> RecipNewton(D d, VFromD<D> x, float s, float c,
                                                     VFromD<D> one) {
  const auto r0 = Mul(d, Sub(d, x, s), -c);
  return MulAdd(d, r0, NegMulAdd(d, r0, x, one), r0);
}

// 1 / x for x in [1, 2] to 3.46e-3 relative.
template <class D>
[[gnu::always_inline]] inline VFromD<D> Recip1To2(D d, VFromD<D> x, VFromD<D> one) {
  return RecipNewton(d, x, 3.0f, 0.470588237f, one);
}

// 1 / x for x in [2, 3] to 4.2e-4 relative.
template <class D>
[[gnu::always_inline]] inline VFromD<D> Recip2To3(D d, VFromD<D> x, VFromD<D> one) {
  return RecipNewton(d, x, 5.0f, 0.163265303f, one);
}

// 1 / x for x in [1, 1.1354] to 4.1e-6 relative; finite on [1, 2].
template <class D>
[[gnu::always_inline]] inline VFromD<D> Recip1To1p1354(D d, VFromD<D> x, VFromD<D> one) {
  return RecipNewton(d, x, 2.13540006f, 0.878972769f, one);
}

}  // namespace vlak::VLAK_NS::act
