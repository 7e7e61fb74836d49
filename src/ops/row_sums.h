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

// Over a block, x86 (and scalar) sums whole strips into two accumulators, even and odd strips,
// added at the block's end: one accumulator group is a chain of dependent FMAs, 4 cycles each,
// and held rmsnorm 256 x 2048 at ~0.75x clang's auto-vectorised C (which keeps four) on an
// AVX2 EPYC. RVV keeps one: an LMUL-4 group is already 4 to 16 registers deep, and its
// instruction budgets count every extra add.
inline constexpr bool kTwoAccumulators = VLAK_TARGET_ID != ::vlak::Target::kRvv;

// s1 = sum(v), s2 = sum(v * v) for v = load(tag, i) - shift, i < n: load(tag, i) gives the
// Lanes(tag) floats at i (a whole tag or a strip). The plain form loads x; the fused residual add
// loads x + r and stores it as it goes (add_norm), with the same sums in the same order.
template <class D, class Load>
void ShiftedSumsOf(D d, size_t n, float shift, double& s1, double& s2, Load&& load) {
  const size_t vl = Lanes(d);
  const size_t block = kSumBlockStrips * vl;
  s1 = 0;
  s2 = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto a1 = Zero(d);
    auto a2 = Zero(d);
    size_t head = 0;
    if constexpr (kTwoAccumulators) {
      auto c1 = Zero(d);
      auto c2 = Zero(d);
      for (; head + 2 * vl <= len; head += 2 * vl) {
        const auto v = Sub(d, load(d, b + head), shift);
        const auto w = Sub(d, load(d, b + head + vl), shift);
        a1 = Add(d, a1, v);
        a2 = MulAdd(d, v, v, a2);
        c1 = Add(d, c1, w);
        c2 = MulAdd(d, w, w, c2);
      }
      a1 = Add(d, a1, c1);
      a2 = Add(d, a2, c2);
    }
    ForEachStrip(d, len - head, [&](auto ds, size_t i) {
      const auto v = Sub(ds, load(ds, b + head + i), shift);
      a1 = AddTU(ds, a1, v);
      a2 = MulAddTU(ds, v, v, a2);
    });
    s1 += ReduceSum(d, a1);
    s2 += ReduceSum(d, a2);
  }
}

// sum(v * v) for v = load(tag, i), i < n (as ShiftedSumsOf).
template <class D, class Load>
double SumSquaresOf(D d, size_t n, Load&& load) {
  const size_t vl = Lanes(d);
  const size_t block = kSumBlockStrips * vl;
  double s = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto a = Zero(d);
    size_t head = 0;
    if constexpr (kTwoAccumulators) {
      auto c = Zero(d);
      for (; head + 2 * vl <= len; head += 2 * vl) {
        const auto v = load(d, b + head);
        const auto w = load(d, b + head + vl);
        a = MulAdd(d, v, v, a);
        c = MulAdd(d, w, w, c);
      }
      a = Add(d, a, c);
    }
    ForEachStrip(d, len - head, [&](auto ds, size_t i) {
      const auto v = load(ds, b + head + i);
      a = MulAddTU(ds, v, v, a);
    });
    s += ReduceSum(d, a);
  }
  return s;
}

// The plain forms: x itself.
template <class D>
void ShiftedSums(D d, const float* x, size_t n, float shift, double& s1, double& s2) {
  ShiftedSumsOf(d, n, shift, s1, s2, [x](auto t, size_t i) { return LoadU(t, x + i); });
}
template <class D>
double SumSquares(D d, const float* x, size_t n) {
  return SumSquaresOf(d, n, [x](auto t, size_t i) { return LoadU(t, x + i); });
}

// The fused residual add's loader: s[i..] = x[i..] + r[i..], stored, and returned.
struct AddAndStore {
  const float* x;
  const float* r;
  float* s;
  template <class T>
  auto operator()(T t, size_t i) const {
    const auto v = Add(t, LoadU(t, x + i), LoadU(t, r + i));
    StoreU(t, v, s + i);
    return v;
  }
};

}  // namespace row_sums
}  // namespace vlak::VLAK_NS
