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

// RVV at LMUL 8 has four register groups; LMUL 4 eight. The exp evaluates kLean there
// (exp_common.h), which needs three groups and no splats: kFused's splatted Horner addends are
// hoisted out of the loop by clang and then spilled, at LMUL 4 as at 8.
// The running sum is a whole group (AddTU) everywhere it fits. An exp with an underflow mask
// (v0) at LMUL 8 leaves no fourth group for it: then the sum goes into lane 0 of an LMUL-1
// register (ReduceSumInto: one vfredusum per strip, beside the mask), at some cost in accuracy:
// each block's kBlockStrips x VLMAX terms then meet in one f32 lane (measured ~2e-6 relative at
// VLEN 256, against ~1e-7 for per-lane sums), so the accurate softmax uses an exp without a mask
// (ExpAccurateNonPositive) and a whole-group sum. On x86 a horizontal reduction per strip would
// cost ~10 instructions: always a group there.
template <class D>
inline constexpr bool kTightRegisters = VLAK_TARGET_ID == ::vlak::Target::kRvv && Pow2FromD<D> >= 2;
template <class D>
inline constexpr ExpEval kExpEval = kTightRegisters<D> ? ExpEval::kLean : ExpEval::kFused;
// RVV at LMUL 8 with a whole-group sum: the first strip of a block starts the sum. A zero splat
// would be loop-invariant, and clang hoists it out of the block loop and, with all four groups
// taken in the strip loop, spills it. (Elsewhere the peeled copy of the exp would only add code:
// at LMUL 1-4 it made clang hoist and spill kFused's splats instead.)
template <class D>
inline constexpr bool kPeelFirstStrip = VLAK_TARGET_ID == ::vlak::Target::kRvv && Pow2FromD<D> == 3;
// Sum in lane 0 for an exp that uses a mask register.
template <class D>
inline constexpr bool kMaskedExpLaneSum = VLAK_TARGET_ID == ::vlak::Target::kRvv && Pow2FromD<D> == 3;

template <class D>
float RowMax(D d, const float* x, size_t n) {
  auto m = Set(d, -kInf);
  ForEachStrip<2>(d, n, [&](auto ds, size_t i) { m = MaxAccumulate(ds, m, LoadU(ds, x + i)); });
  return ReduceMax(d, m);  // NaN lanes are ignored here; they poison the sum instead
}

// Sum of exp(x - m), storing the exps to y unless y is null (log-softmax needs only the sum).
// kLaneSum: sum in lane 0 of an LMUL-1 register (above). prefetch: if not null, prefetch[0, n)
// is prefetched a cache line at a time as the strips go (two-pass: the next block, while this
// one's exps run from L1).
template <bool kLaneSum, class D, class Exp>
double ExpSum(D d, Exp exp, const float* x, float* y, size_t n, float m, const float* prefetch = nullptr) {
  const size_t block = kBlockStrips * Lanes(d);
  double total = 0;
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    const auto strip_exp = [&](auto ds, size_t i) {
      if (prefetch != nullptr) {
        for (size_t k = 0; k < Lanes(ds); k += 64 / sizeof(float)) __builtin_prefetch(prefetch + b + i + k);
      }
      const auto e = exp(ds, Sub(ds, LoadU(ds, x + b + i), m));
      if (y != nullptr) StoreU(ds, e, y + b + i);
      return e;
    };
    if constexpr (kLaneSum) {
      const Simd<float, 0> d1;
      auto acc = Zero(d1);
      ForEachStrip(d, len, [&](auto ds, size_t i) { acc = ReduceSumInto(ds, strip_exp(ds, i), acc); });
      total += GetLane(d1, acc);
    } else if (kPeelFirstStrip<D> && len <= Lanes(d)) {
      const auto ds = Strip(d, len);
      total += ReduceSum(ds, strip_exp(ds, 0));
    } else if (kPeelFirstStrip<D>) {
      const size_t first = Lanes(d);
      auto acc = strip_exp(d, 0);
      ForEachStrip(d, len - first, [&](auto ds, size_t i) { acc = AddTU(ds, acc, strip_exp(ds, first + i)); });
      total += ReduceSum(d, acc);
    } else {
      auto acc = Zero(d);
      ForEachStrip(d, len, [&](auto ds, size_t i) { acc = AddTU(ds, acc, strip_exp(ds, i)); });
      total += ReduceSum(d, acc);
    }
  }
  return total;
}

// y = exp(x - m) * factor: the second pass of the two-pass kernel, for rows beyond the caches.
// y is streamed (Stream: non-temporal stores on x86, so no read-for-ownership of y's lines: the
// two passes move 12 bytes per element instead of 16); its head up to the first kAlignment
// boundary and its last, short strip are ordinary stores.
inline constexpr size_t kPrefetchAhead = 512;  // elements
template <class D, class Exp>
void ExpScale(D d, Exp exp, const float* x, float* y, size_t n, float m, float factor) {
  const auto scaled = [&](auto ds, size_t i) { return Mul(ds, exp(ds, Sub(ds, LoadU(ds, x + i), m)), factor); };
  const uintptr_t address = reinterpret_cast<uintptr_t>(y);
  size_t head = n;  // a y that is not even float-aligned is not streamed
  if (address % sizeof(float) == 0) head = (kAlignment - address % kAlignment) % kAlignment / sizeof(float);
  if (head > n) head = n;
  ForEachStrip(d, head, [&](auto ds, size_t i) { StoreU(ds, scaled(ds, i), y + i); });
  float* const ya = y + head;
  const float* const xa = x + head;
  ForEachStrip(d, n - head, [&](auto ds, size_t i) {
    // Software prefetch kPrefetchAhead elements ahead, one per cache line, within the row.
    // Two-pass at 16M on the Xeon, one thread: 17.4 ms plain, 15.6 with y streamed, 13.9 with
    // the next-block prefetch of pass 1 (softmax_kernel.cc), 11.4-13.4 with this as well (256
    // ahead: 12.8, 1024: 14.1, 2048: 13.1; a loaded machine, so +-1 ms).
    if (i + kPrefetchAhead < n - head) {
      for (size_t k = 0; k < Lanes(ds); k += 64 / sizeof(float)) __builtin_prefetch(xa + i + k + kPrefetchAhead);
    }
    const auto v = Mul(ds, exp(ds, Sub(ds, LoadU(ds, xa + i), m)), factor);
    if constexpr (decltype(ds)::kIsStrip) {
      StoreU(ds, v, ya + i);
    } else {
      Stream(ds, v, ya + i);
    }
  });
  StreamFence();
}

template <class D>
void Scale(D d, float* y, size_t n, float factor) {
  ForEachStrip<2>(d, n, [&](auto ds, size_t i) { StoreU(ds, Mul(ds, LoadU(ds, y + i), factor), y + i); });
}

// Log-softmax's output y = (x - m) - log_sum, two subtractions. One constant -(m + log_sum)
// would round at m's scale: with m = 1e4 its float error (up to 2^-11) is ~7e-5 of a y of -6.7,
// beyond the 1e-5 bound (the fuzz target found it). x - m is exact for x in [m/2, 2m] (Sterbenz),
// so y is off by at most ~2 roundings of its own size plus log_sum's.
template <class D>
void SubtractMaxAndLogSum(D d, const float* x, float* y, size_t n, float m, float log_sum) {
  ForEachStrip<2>(d, n, [&](auto ds, size_t i) { StoreU(ds, Sub(ds, Sub(ds, LoadU(ds, x + i), m), log_sum), y + i); });
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
template <bool kLaneSum, class D, class Exp>
[[gnu::noinline]] void LogSoftmaxFromMax(D d, Exp exp, const float* x, float* y, size_t n, float m) {
  const double s = ExpSum<kLaneSum>(d, exp, x, nullptr, n, m);  // s >= 1: the max contributes exp(0)
  if (std::isnan(s)) return FillNaN(y, n);
  SubtractMaxAndLogSum(d, x, y, n, m, static_cast<float>(std::log(s)));
}

// kLaneSum: where the exp pass sums (see kMaskedExpLaneSum).
template <bool kLaneSum, class D, class Exp>
void ThreePass(D d, Exp exp, const float* x, float* y, size_t n, unsigned flags) {
  const float m = RowMax(d, x, n);
  if (!std::isfinite(m)) return SpecialRow(x, y, n, m, flags);
  // With a finite max, a NaN sum can only come from a NaN input (RowMax skips NaN).
  if (flags & VLAK_SOFTMAX_LOG) return LogSoftmaxFromMax<kLaneSum>(d, exp, x, y, n, m);
  const double s = ExpSum<kLaneSum>(d, exp, x, y, n, m);
  if (std::isnan(s)) return FillNaN(y, n);
  Scale(d, y, n, static_cast<float>(1.0 / s));
}

}  // namespace softmax_detail
}  // namespace vlak::VLAK_NS
