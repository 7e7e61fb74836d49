// 1 / x on a known interval without a division: a polynomial seed and one Newton step, for the
// activations' denominators (sigmoid.h's and softplus.h's 1 + e and 2 + e, tanh.h's 1 + E).
//
// Why: the division was the dearest op of every activation on RVV. On the SpacemiT X60 model
//   (llvm-mca-22, VLEN 256, tools/qemu-icount/rvv-costs.tsv) vfdiv.vv e32m1 costs 40 cycles and
//   vfrdiv.vf 12, an FMA 1; on Zen 3 a 256-bit vdivps issues once per ~5 cycles, two FMAs per
//   cycle. RVV's vfrec7 (7 bits) and x86's rcpps (12 bits, its bits differ between Intel and AMD)
//   would give different results on each target; a seed from FMAs is the same on every target,
//   so that the exhaustive host check covers RVV too.
// Seed: the polynomial p of degree k with the least max |1 - x p(x)| on [a, b]: 1 - x p(x) =
//   T_{k+1}(L(x)) / T_{k+1}(L(0)), L mapping [a, b] onto [-1, 1] (Chebyshev's equioscillation;
//   the method of the classic Newton-Raphson division seeds, e.g. 48/17 - 32/17 x on [1/2, 1]),
//   relative error 1 / |T_{k+1}(L(0))|. Newton: r1 = r0 + r0 (1 - x r0), error e^2 plus r1's
//   rounding (2^-24). Seeds used (coefficients rounded to float, errors checked on 20001 floats
//   of each interval with the float arithmetic, the line's own method):
//     [1, 2]       degree 2: 1/99 = 2^-6.6, after Newton 1.02e-4 = 2^-13.3
//     [2, 3]       degree 1: 1/49 = 2^-5.6, after Newton 4.2e-4 = 2^-11.2
//     [1, 1.1354]  degree 1: 2.0e-3 = 2^-9.0, after Newton 4.1e-6 = 2^-17.9
// Callers then take r1's error out exactly as they took the division's: with g = 1 - r1 d
//   (FMAs), 1 / d = r1 (1 + g + g^2 + ...), of which they keep the terms above 2^-30.
#pragma once

#include "simd/simd.h"

namespace vlak::VLAK_NS::act {

// One Newton step on r0 ~ 1 / x: r0 + r0 (1 - x r0).
template <class D>
[[gnu::always_inline]] inline VFromD<D> RecipNewton(D d, VFromD<D> x, VFromD<D> r0, VFromD<D> one) {
  return MulAdd(d, r0, NegMulAdd(d, r0, x, one), r0);
}

// 1 / x for x in [1, 2] to 1.02e-4 relative (seed of degree 2).
template <class D>
[[gnu::always_inline]] inline VFromD<D> Recip1To2(D d, VFromD<D> x, VFromD<D> one) {
  const auto r0 = MulAdd(d, MulAdd(d, x, 0.323232323f, Set(d, -1.45454550f)), x, 2.12121201f);
  return RecipNewton(d, x, r0, one);
}

// 1 / x for x in [2, 3] to 4.2e-4 relative (seed of degree 1).
template <class D>
[[gnu::always_inline]] inline VFromD<D> Recip2To3(D d, VFromD<D> x, VFromD<D> one) {
  return RecipNewton(d, x, MulAdd(d, x, -0.163265303f, Set(d, 0.816326559f)), one);
}

// 1 / x for x in [1, 1.1354] to 4.1e-6 relative (seed of degree 1); finite on [1, 2].
template <class D>
[[gnu::always_inline]] inline VFromD<D> Recip1To1p1354(D d, VFromD<D> x, VFromD<D> one) {
  return RecipNewton(d, x, MulAdd(d, x, -0.878972769f, Set(d, 1.87695849f)), one);
}

}  // namespace vlak::VLAK_NS::act
