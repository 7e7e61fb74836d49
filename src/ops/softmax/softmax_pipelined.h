// The accurate three-pass softmax row on RVV, its loops scheduled for in-order cores: max;
// y = K exp(x - max) and its sum; y *= 1/sum (K = exp_softmax.h's scale, cancelled by the sum).
//   - exp + sum + store: LMUL 2, three strips in flight (a software pipeline: stage A loads and
//     reduces strip i + 2, stage B finishes the reduction and starts the polynomial of i + 1,
//     stage C ends strip i, stores and sums it), 13 vector FP instructions per strip (exp_softmax.h).
//   - max: LMUL 8, each strip's load issued one strip ahead of its vfmax.
//   - scale: LMUL 4, two strips per iteration, loads one iteration ahead of the stores.
// Cost: ~2.7 / 3.0 / 2.5 modelled cycles/element on X60 / X280 / P670, at ~4x the instructions of
// LMUL 8 strips. Why, the per-LMUL tables and what it replaced: docs/ops/softmax.md.
// Sums: per-lane f32 sums of at most kPipelineBlock x 3 strips, added into a block-sum vector,
// which goes to f64 every kPipelineFlush blocks.
// Include after simd/simd.h; defines into vlak::VLAK_NS::softmax_detail.
#pragma once

#include <cmath>

#include "math/exp_softmax.h"
#include "ops/softmax/softmax_three_pass.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace softmax_detail {

inline constexpr size_t kPipelineBlock = 5;  // loop iterations (3 strips each) per f32 block sum
inline constexpr size_t kPipelineFlush = 4;  // block sums per f64 addition

// max(x[0, n)), NaN lanes ignored (as RowMax): each load one strip ahead of its vfmax.
template <class D>
float RowMaxAhead(D d, const float* x, size_t n) {
  const size_t vl = Lanes(d);
  const size_t whole = n / vl;
  auto m = Set(d, -kInf);
  size_t i = 0;
  if (whole >= 2) {
    auto a = LoadU(d, x);
    for (i = 1; i < whole; ++i) {
      m = MaxAccumulate(d, m, a);
      a = LoadU(d, x + i * vl);
    }
    m = MaxAccumulate(d, m, a);
    i = whole;
  }
  i *= vl;
  ForEachStrip(d, n - i, [&](auto ds, size_t k) { m = MaxAccumulate(ds, m, LoadU(ds, x + i + k)); });
  return ReduceMax(d, m);
}

// y *= factor: two strips per iteration, their loads one iteration ahead of the stores.
template <class D>
void ScaleAhead(D d, float* y, size_t n, float factor) {
  const size_t vl = Lanes(d);
  size_t i = 0;
  if (n >= 2 * vl) {
    auto a = LoadU(d, y), b = LoadU(d, y + vl);
    // i <= n - 4 vl rather than i + 4 vl <= n: the counter itself is then the branch's operand
    // (scripts/rvv-cycles traces elements per iteration from it)
    for (const size_t stop = n - 4 * vl; n >= 4 * vl && i <= stop; i += 2 * vl) {
      const auto ya = Mul(d, a, factor);
      a = LoadU(d, y + i + 2 * vl);
      StoreU(d, ya, y + i);
      const auto yb = Mul(d, b, factor);
      b = LoadU(d, y + i + 3 * vl);
      StoreU(d, yb, y + i + vl);
    }
    StoreU(d, Mul(d, a, factor), y + i);
    StoreU(d, Mul(d, b, factor), y + i + vl);
    i += 2 * vl;
  }
  ForEachStrip(d, n - i, [&](auto ds, size_t k) { StoreU(ds, Mul(ds, LoadU(ds, y + i + k), factor), y + i + k); });
}

// Which scaled exp the pipelined pass runs (math/exp_softmax.h): ExpSoftmaxScaled (the accurate
// softmax) or ExpBittrickSoftmaxScaled (VLAK_SOFTMAX_EXP_FAST). Each carries a constant factor
// that the sum cancels.
enum class PipeExp { kAccurate, kFast };
// What the pass does with e = K exp(x - m): store it and sum it (three-pass softmax); only sum it
// (log-softmax, two-pass's first pass); store e * factor and not sum (two-pass's second pass).
enum class PipeOut { kStoreSum, kSum, kStoreScaled };

template <PipeExp kE>
inline constexpr double kPipeScale = kE == PipeExp::kFast ? exp_detail::kBittrickSoftmaxScale : exp_detail::kSoftmaxK;

// One strip of the pass, the same instructions as the pipelined strips.
template <PipeExp kE, class D>
VFromD<D> PipeExpStrip(D d, VFromD<D> v) {
  if constexpr (kE == PipeExp::kFast) {
    return ExpBittrickSoftmaxScaled(d, v);
  } else {
    return ExpSoftmaxScaled(d, v);
  }
}

// The pass over the row, K exp(x - m) (K = kPipeScale): stored, summed or scaled as kOut says;
// returns the sum in f64 (0 for kStoreScaled). D: f32 at LMUL 2 (or 1, the lab's sweep). The
// factor is an argument of the kStoreScaled pass only: a constant 1.0f passed to the others cost
// the three-pass row 3 instructions per call (qemu-icount, VLEN 128 to 512).
template <PipeExp kE, PipeOut kOut, class D, class... Factor>
double ExpPipelined(D d, const float* x, float* y, size_t n, float m, Factor... factors) {
  static_assert(sizeof...(Factor) == (kOut == PipeOut::kStoreScaled ? 1 : 0), "a factor exactly for kStoreScaled");
  const float factor = (1.0f * ... * static_cast<float>(factors));
  using namespace exp_detail;
  constexpr bool kStore = kOut != PipeOut::kSum;
  constexpr bool kSumUp = kOut != PipeOut::kStoreScaled;
  const auto du = Rebind<uint32_t>(d);
  const size_t vl = Lanes(d);
  const size_t strips = n / vl;
  constexpr bool kFast = kE == PipeExp::kFast;
  // Five splats: the magic number and the four Horner addends after the first step (a .vf add),
  // p3 first.
  const auto magic = Set(d, kSoftmaxBias);
  const auto p3 = Set(d, kFast ? kBittrickSoftmaxK3 : kSoftmaxK4);
  const auto p2 = Set(d, kFast ? kBittrickSoftmaxK2 : kSoftmaxK3);
  const auto p1 = Set(d, kFast ? kBittrickSoftmaxK1 : kSoftmaxK2);
  const auto p0 = Set(d, kFast ? kBittrickSoftmaxK0 : kSoftmaxK);
  double total = 0;
  size_t done = 0;  // strips
  // The per-lane sum of the current block, then of the last strips: one vector, so the tail needs
  // no zero splat of its own (clang hoists such a splat and holds it in a register group across
  // the loop: with 5 polynomial splats, 9 strip values, acc and blocks it is the 17th group).
  auto acc = Zero(d);
  if (strips >= 2) {
    auto blocks = Zero(d);
    // Per strip in flight: t (x - m, then the reduced argument), b (b, n, then the polynomial),
    // s (2^n). Stage A: x -> t, b = n, s; B: t reduced, polynomial to k3; C: the rest, store, sum.
    // A sub-block runs A of strip a, B of the strip after c, C of strip c, interleaved. Macros,
    // not lambdas: clang kept lambda-referenced vector variables in memory (a spill per use).
#define VLAK_SOFTMAX_END(bC, c)                                       \
  if constexpr (kStore) StoreU(d, bC, y + (c) * vl);                  \
  if constexpr (kSumUp) acc = Add(d, acc, bC);
#define VLAK_SOFTMAX_LAST(bC, sC)                                     \
  if constexpr (kOut == PipeOut::kStoreScaled) bC = Mul(d, bC, factor); \
  bC = Mul(d, bC, sC);
    // The accurate exp: the order searched against the X60 model (see the header; searched again
    // with the sums' single accumulator: 92 -> 90 model cycles per three strips, clang 19).
#define VLAK_SOFTMAX_SUB(tA, bA, sA, tB, bB, tC, bC, sC, a, c)        \
  tA = LoadU(d, x + (a) * vl);                                        \
  tB = NegMulAdd(d, bB, kLn2Hi, tB);                                  \
  bC = MulAdd(d, bC, tC, p1);                                         \
  tA = Sub(d, tA, m);                                                 \
  tB = NegMulAdd(d, bB, kLn2Lo, tB);                                  \
  bA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampB));   \
  bC = MulAdd(d, bC, tC, p0);                                         \
  bB = Add(d, tB, kSoftmaxK5);                                        \
  bC = MulAdd(d, bC, tC, p0);                                         \
  tA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampT));   \
  bA = MulAdd(d, bA, kLog2e, magic);                                  \
  bB = MulAdd(d, bB, tB, p3);                                         \
  VLAK_SOFTMAX_LAST(bC, sC)                                           \
  sA = ExponentFromMagic(d, bA);                                      \
  bA = Sub(d, bA, kSoftmaxBias);                                      \
  if constexpr (kStore) StoreU(d, bC, y + (c) * vl);                  \
  bB = MulAdd(d, bB, tB, p2);                                         \
  if constexpr (kSumUp) acc = Add(d, acc, bC);
#define VLAK_SOFTMAX_STAGE_A(tA, bA, sA, a)                           \
  tA = Sub(d, LoadU(d, x + (a) * vl), m);                             \
  bA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampB));   \
  tA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampT));   \
  bA = MulAdd(d, bA, kLog2e, magic);                                  \
  sA = ExponentFromMagic(d, bA);                                      \
  bA = Sub(d, bA, kSoftmaxBias);
#define VLAK_SOFTMAX_STAGE_B(tB, bB)                                  \
  tB = NegMulAdd(d, bB, kLn2Hi, tB);                                  \
  tB = NegMulAdd(d, bB, kLn2Lo, tB);                                  \
  bB = Add(d, tB, kSoftmaxK5);                                        \
  bB = MulAdd(d, bB, tB, p3);                                         \
  bB = MulAdd(d, bB, tB, p2);
#define VLAK_SOFTMAX_STAGE_C(tC, bC, sC, c)                           \
  bC = MulAdd(d, bC, tC, p1);                                         \
  bC = MulAdd(d, bC, tC, p0);                                         \
  bC = MulAdd(d, bC, tC, p0);                                         \
  VLAK_SOFTMAX_LAST(bC, sC)                                           \
  VLAK_SOFTMAX_END(bC, c)
    // The fast exp (ExpBittrickSoftmaxScaled): 11 floating-point instructions per strip. Stage
    // A: x -> t, b = n, s; B: g = t log2e - n, polynomial to k3; C: k2 .. k0, 2^n, store, sum.
#define VLAK_SOFTMAX_FAST_SUB(tA, bA, sA, tB, bB, tC, bC, sC, a, c)   \
  tA = LoadU(d, x + (a) * vl);                                        \
  tB = MulSub(d, tB, kLog2e, bB);                                     \
  bC = MulAdd(d, bC, tC, p2);                                         \
  bB = Add(d, tB, kBittrickSoftmaxK4);                                \
  bC = MulAdd(d, bC, tC, p1);                                         \
  tA = Sub(d, tA, m);                                                 \
  bB = MulAdd(d, bB, tB, p3);                                         \
  bC = MulAdd(d, bC, tC, p0);                                         \
  bA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampB));   \
  tA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampT));   \
  bA = MulAdd(d, bA, kLog2e, magic);                                  \
  VLAK_SOFTMAX_LAST(bC, sC)                                           \
  sA = ExponentFromMagic(d, bA);                                      \
  bA = Sub(d, bA, kSoftmaxBias);                                      \
  VLAK_SOFTMAX_END(bC, c)
#define VLAK_SOFTMAX_FAST_B(tB, bB)                                   \
  tB = MulSub(d, tB, kLog2e, bB);                                     \
  bB = Add(d, tB, kBittrickSoftmaxK4);                                \
  bB = MulAdd(d, bB, tB, p3);
#define VLAK_SOFTMAX_FAST_C(tC, bC, sC, c)                            \
  bC = MulAdd(d, bC, tC, p2);                                         \
  bC = MulAdd(d, bC, tC, p1);                                         \
  bC = MulAdd(d, bC, tC, p0);                                         \
  VLAK_SOFTMAX_LAST(bC, sC)                                           \
  VLAK_SOFTMAX_END(bC, c)
#define VLAK_SOFTMAX_PIPELINE(SUB, B, C)                              \
  VLAK_SOFTMAX_STAGE_A(t0, b0, s0, 0)                                 \
  B(t0, b0)                                                           \
  VLAK_SOFTMAX_STAGE_A(t1, b1, s1, 1)                                 \
  /* Iteration r: strips 3r (set 0, at C), 3r + 1 (set 1), 3r + 2 .. 3r + 4 (loaded). */ \
  const size_t iterations = strips >= 5 ? (strips - 5) / 3 + 1 : 0;  \
  size_t r = 0, block = 0;                                            \
  while (r < iterations) {                                            \
    const size_t end = iterations - r < kPipelineBlock ? iterations : r + kPipelineBlock; \
    for (; r < end; ++r) {                                            \
      const size_t c = 3 * r;                                         \
      SUB(t2, b2, s2, t1, b1, t0, b0, s0, c + 2, c)                   \
      SUB(t0, b0, s0, t2, b2, t1, b1, s1, c + 3, c + 1)               \
      SUB(t1, b1, s1, t0, b0, t2, b2, s2, c + 4, c + 2)               \
    }                                                                 \
    if constexpr (kSumUp) {                                           \
      /* acc - acc rather than Zero(d), for the register count above: \
         acc is finite (3 kPipelineBlock values per lane, each at most \
         about kPipeScale), and a NaN in it has reached blocks. */     \
      blocks = Add(d, blocks, acc);                                   \
      acc = Sub(d, acc, acc);                                         \
      if (++block == kPipelineFlush) {                                \
        total += ReduceSum(d, blocks);                                \
        blocks = Sub(d, blocks, blocks);                              \
        block = 0;                                                    \
      }                                                               \
    }                                                                 \
  }                                                                   \
  done = 3 * iterations + 2;                                          \
  C(t0, b0, s0, done - 2)                                             \
  B(t1, b1)                                                           \
  C(t1, b1, s1, done - 1)
    VFromD<D> t0, b0, s0, t1, b1, s1, t2, b2, s2;
    if constexpr (kFast) {
      VLAK_SOFTMAX_PIPELINE(VLAK_SOFTMAX_FAST_SUB, VLAK_SOFTMAX_FAST_B, VLAK_SOFTMAX_FAST_C)
    } else {
      VLAK_SOFTMAX_PIPELINE(VLAK_SOFTMAX_SUB, VLAK_SOFTMAX_STAGE_B, VLAK_SOFTMAX_STAGE_C)
    }
#undef VLAK_SOFTMAX_PIPELINE
#undef VLAK_SOFTMAX_FAST_SUB
#undef VLAK_SOFTMAX_FAST_B
#undef VLAK_SOFTMAX_FAST_C
#undef VLAK_SOFTMAX_SUB
#undef VLAK_SOFTMAX_STAGE_A
#undef VLAK_SOFTMAX_STAGE_B
#undef VLAK_SOFTMAX_STAGE_C
#undef VLAK_SOFTMAX_LAST
#undef VLAK_SOFTMAX_END
    if constexpr (kSumUp) acc = Add(d, blocks, acc);
  }
  // The last strips (at most 4 whole ones and a partial one): the same instructions, one strip at
  // a time.
  const size_t i = done * vl;
  ForEachStrip(d, n - i, [&](auto ds, size_t k) {
    auto e = PipeExpStrip<kE>(ds, Sub(ds, LoadU(ds, x + i + k), m));
    if constexpr (kOut == PipeOut::kStoreScaled) e = Mul(ds, e, factor);
    if constexpr (kStore) StoreU(ds, e, y + i + k);
    if constexpr (kSumUp) acc = AddTU(ds, acc, e);
  });
  if constexpr (kSumUp) total += ReduceSum(d, acc);
  return total;
}


// y = (x - m) - log_sum (log-softmax's output, two subtractions: SubtractMaxAndLogSum says
// why): two strips per iteration, their loads one iteration ahead of the stores, as ScaleAhead.
template <class D>
void SubtractAhead(D d, const float* x, float* y, size_t n, float m, float log_sum) {
  const size_t vl = Lanes(d);
  size_t i = 0;
  if (n >= 2 * vl) {
    auto a = LoadU(d, x), b = LoadU(d, x + vl);
    for (const size_t stop = n - 4 * vl; n >= 4 * vl && i <= stop; i += 2 * vl) {
      const auto ya = Sub(d, Sub(d, a, m), log_sum);
      a = LoadU(d, x + i + 2 * vl);
      StoreU(d, ya, y + i);
      const auto yb = Sub(d, Sub(d, b, m), log_sum);
      b = LoadU(d, x + i + 3 * vl);
      StoreU(d, yb, y + i + vl);
    }
    StoreU(d, Sub(d, Sub(d, a, m), log_sum), y + i);
    StoreU(d, Sub(d, Sub(d, b, m), log_sum), y + i + vl);
    i += 2 * vl;
  }
  ForEachStrip(d, n - i, [&](auto ds, size_t k) {
    StoreU(ds, Sub(ds, Sub(ds, LoadU(ds, x + i + k), m), log_sum), y + i + k);
  });
}

// log-softmax after the max: the exp pass sums only (no store), then y = x - m - log(sum / K).
// Out of line (it calls log): the softmax path keeps no callee-saved registers.
template <PipeExp kE, int kExp, int kSub>
[[gnu::noinline]] void LogSoftmaxPipelined(const float* x, float* y, size_t n, float m) {
  const double s = ExpPipelined<kE, PipeOut::kSum>(Simd<float, kExp>(), x, nullptr, n, m);  // >= K: exp(0) is in it
  if (std::isnan(s)) return FillNaN(y, n);
  SubtractAhead(Simd<float, kSub>(), x, y, n, m, static_cast<float>(std::log(s / kPipeScale<kE>)));
}

// ThreePass (softmax_three_pass.h) with the passes above, on RVV for the accurate and the fast
// exp, softmax (kLog false) and log-softmax (kLog true: the caller tests VLAK_SOFTMAX_LOG once,
// before the max pass, so the softmax row keeps no flag test after it); LMUL 2^kMax, 2^kExp,
// 2^kScale per pass (the lab's LMUL sweep runs all three at one LMUL).
template <PipeExp kE = PipeExp::kAccurate, bool kLog = false, int kMax = 3, int kExp = 1, int kScale = 2>
void ThreePassPipelined(const float* x, float* y, size_t n, unsigned flags) {
  const float m = RowMaxAhead(Simd<float, kMax>(), x, n);
  if (!std::isfinite(m)) return SpecialRow(x, y, n, m, flags);
  // With a finite max, a NaN sum can only come from a NaN input (RowMaxAhead skips NaN).
  if constexpr (kLog) return LogSoftmaxPipelined<kE, kExp, kScale>(x, y, n, m);
  const double s = ExpPipelined<kE, PipeOut::kStoreSum>(Simd<float, kExp>(), x, y, n, m);
  if (std::isnan(s)) return FillNaN(y, n);
  ScaleAhead(Simd<float, kScale>(), y, n, static_cast<float>(1.0 / s));
}

}  // namespace softmax_detail
}  // namespace vlak::VLAK_NS
