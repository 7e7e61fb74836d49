// Three-pass softmax of one row, generic over the tag and the exp: m = max(x);
// y = exp(x - m) and s = sum(y); y *= 1/s (log-softmax: s only, then y = x - m - log s).
// One exp per element; y is written, then read and written again (20 bytes/element out of
// cache). Include inside namespace-free code after simd/simd.h; defines into vlak::VLAK_NS.
//
// Sums: lanes accumulate blocks of kBlockStrips strips in f32, each block's total is added in
// f64, so a row of 10^7 elements keeps ~1e-7 relative error (the f32 part sees <= 16*lanes terms).
// Special rows (max not finite, or NaN present) follow vlak_softmax_f32's contract.
#pragma once

#include <cmath>
#include <limits>

#include "math/exp_common.h"
#include "simd/simd.h"
#include "vlak/vlak.h"

namespace vlak::VLAK_NS {
namespace softmax_detail {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr size_t kBlockStrips = 16;

// RVV at LMUL 8 has four register groups, and the exp pass needs a mask (v0), the exp's values
// and the running sum. There the sum goes into lane 0 of an LMUL-1 register (ReduceSumInto: one
// vfredusum per strip, beside the mask) and the exp evaluates kLean (exp_common.h), which leaves
// the exp three groups: spill-free (scripts/rvv-spill-check). LMUL 4 (eight groups) has room
// for the values but not for the splatted Horner addends of kFused, which clang hoists out of
// the loop and then spills: it takes the same path. Everywhere else the sum is a whole group (a
// horizontal reduction per strip would cost ~10 instructions on x86) and the exp is fused.
template <class D>
inline constexpr bool kTightRegisters = VLAK_TARGET_ID == ::vlak::Target::kRvv && Pow2FromD<D> >= 2;
template <class D>
inline constexpr ExpEval kExpEval = kTightRegisters<D> ? ExpEval::kLean : ExpEval::kFused;

template <class D>
float RowMax(D d, const float* x, size_t n) {
  auto m = Set(d, -kInf);
  ForEachStrip<2>(d, n, [&](auto ds, size_t i) { m = MaxTU(ds, m, LoadU(ds, x + i)); });
  return ReduceMax(d, m);  // NaN lanes are ignored here; they poison the sum instead
}

// Sum of exp(x - m), storing the exps to y unless y is null (log-softmax needs only the sum).
template <class D, class Exp>
double ExpSum(D d, Exp exp, const float* x, float* y, size_t n, float m) {
  const size_t block = kBlockStrips * Lanes(d);
  double total = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    const auto strip_exp = [&](auto ds, size_t i) {
      const auto e = exp(ds, Sub(ds, LoadU(ds, x + b + i), m));
      if (y != nullptr) StoreU(ds, e, y + b + i);
      return e;
    };
    if constexpr (kTightRegisters<D>) {
      const Simd<float, 0> d1;
      auto acc = Zero(d1);
      ForEachStrip(d, len, [&](auto ds, size_t i) { acc = ReduceSumInto(ds, strip_exp(ds, i), acc); });
      total += GetLane(d1, acc);
    } else {
      auto acc = Zero(d);
      ForEachStrip(d, len, [&](auto ds, size_t i) { acc = AddTU(ds, acc, strip_exp(ds, i)); });
      total += ReduceSum(d, acc);
    }
  }
  return total;
}

// y = exp(x - m) * factor: the second pass of the two-pass kernel.
template <class D, class Exp>
void ExpScale(D d, Exp exp, const float* x, float* y, size_t n, float m, float factor) {
  ForEachStrip(d, n, [&](auto ds, size_t i) {
    StoreU(ds, Mul(ds, exp(ds, Sub(ds, LoadU(ds, x + i), m)), factor), y + i);
  });
}

template <class D>
void Scale(D d, float* y, size_t n, float factor) {
  ForEachStrip<2>(d, n, [&](auto ds, size_t i) { StoreU(ds, Mul(ds, LoadU(ds, y + i), factor), y + i); });
}

template <class D>
void AddConstant(D d, const float* x, float* y, size_t n, float c) {
  ForEachStrip<2>(d, n, [&](auto ds, size_t i) { StoreU(ds, Add(ds, LoadU(ds, x + i), c), y + i); });
}

// Rows whose max is not finite: NaN (all lanes NaN), +inf or -inf. Rare; plain loops, out of
// line so that the kernels' hot functions do not carry their registers.
[[gnu::noinline, gnu::cold]] inline void SpecialRow(const float* x, float* y, size_t n, float m, unsigned flags) {
  const bool log_mode = flags & VLAK_SOFTMAX_LOG;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  bool has_nan = std::isnan(m);
  size_t pos_inf = 0;
  for (size_t i = 0; i < n; ++i) {
    has_nan = has_nan || std::isnan(x[i]);
    pos_inf += x[i] == kInf;
  }
  float in_value, out_value;  // for +inf entries / the others
  if (has_nan) {
    in_value = out_value = nan;
  } else if (m == -kInf) {
    in_value = out_value = (flags & VLAK_SOFTMAX_SAFE) ? (log_mode ? -kInf : 0.0f) : nan;
  } else {
    const float share = 1.0f / static_cast<float>(pos_inf);
    in_value = log_mode ? -std::log(static_cast<float>(pos_inf)) : share;
    out_value = log_mode ? -kInf : 0.0f;
  }
  for (size_t i = 0; i < n; ++i) y[i] = x[i] == kInf ? in_value : out_value;
}

[[gnu::noinline, gnu::cold]] inline void FillNaN(float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = std::numeric_limits<float>::quiet_NaN();
}

// log-softmax after the max: y = x - m - log(sum). Out of line (it calls log), so that the
// softmax path below makes no call but tail calls and keeps no callee-saved registers.
template <class D, class Exp>
[[gnu::noinline]] void LogSoftmaxFromMax(D d, Exp exp, const float* x, float* y, size_t n, float m) {
  const double s = ExpSum(d, exp, x, nullptr, n, m);  // s >= 1: the max contributes exp(0)
  if (std::isnan(s)) return FillNaN(y, n);
  AddConstant(d, x, y, n, static_cast<float>(-(static_cast<double>(m) + std::log(s))));
}

template <class D, class Exp>
void ThreePass(D d, Exp exp, const float* x, float* y, size_t n, unsigned flags) {
  const float m = RowMax(d, x, n);
  if (!std::isfinite(m)) return SpecialRow(x, y, n, m, flags);
  // With a finite max, a NaN sum can only come from a NaN input (RowMax skips NaN).
  if (flags & VLAK_SOFTMAX_LOG) return LogSoftmaxFromMax(d, exp, x, y, n, m);
  const double s = ExpSum(d, exp, x, y, n, m);
  if (std::isnan(s)) return FillNaN(y, n);
  Scale(d, y, n, static_cast<float>(1.0 / s));
}

}  // namespace softmax_detail
}  // namespace vlak::VLAK_NS
