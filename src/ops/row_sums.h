// Sums over a row for the normalisation kernels: lanes accumulate in f32 over blocks of
// kSumBlockStrips strips, each block's lane total is added in f64. A lane then sees at most 16
// terms before the f64 add, so a row of 10^6 elements keeps the ~1e-7 relative error of a short
// f32 sum (a plain f32 lane sum would lose ~n/lanes ulps). Include after simd/simd.h.
#pragma once

#include <cstddef>

#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace row_sums {

inline constexpr size_t kSumBlockStrips = 16;

// s1 = sum(v), s2 = sum(v * v) for v = x[i] - shift, i < n.
template <class D>
void ShiftedSums(D d, const float* x, size_t n, float shift, double& s1, double& s2) {
  const size_t block = kSumBlockStrips * Lanes(d);
  s1 = 0;
  s2 = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto a1 = Zero(d);
    auto a2 = Zero(d);
    ForEachStrip(d, len, [&](auto ds, size_t i) {
      const auto v = Sub(ds, LoadU(ds, x + b + i), shift);
      a1 = AddTU(ds, a1, v);
      a2 = MulAddTU(ds, v, v, a2);
    });
    s1 += ReduceSum(d, a1);
    s2 += ReduceSum(d, a2);
  }
}

// sum(x * x), i < n.
template <class D>
double SumSquares(D d, const float* x, size_t n) {
  const size_t block = kSumBlockStrips * Lanes(d);
  double s = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto a = Zero(d);
    ForEachStrip(d, len, [&](auto ds, size_t i) {
      const auto v = LoadU(ds, x + b + i);
      a = MulAddTU(ds, v, v, a);
    });
    s += ReduceSum(d, a);
  }
  return s;
}

}  // namespace row_sums
}  // namespace vlak::VLAK_NS
