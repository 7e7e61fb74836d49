// The accurate three-pass softmax row on RVV, its loops scheduled for in-order cores: max;
// y = K exp(x - max) and its sum; y *= 1/sum (K = exp_softmax.h's scale, cancelled by the sum).
//
// Why: on an in-order core (SpacemiT X60; llvm-mca-22's spacemit-x60 model, VLEN 256) a loop
// whose strips each run one dependent chain waits on every latency. The kernel of
// softmax_three_pass.h (LMUL 8, the lean exp) measured 3.9 loop-body cycles per element there
// (scripts/rvv-cycles softmax): 2.9 of them the exp pass, whose 18 vector floating-point
// instructions per strip (a lean Horner step is two) take 8 cycles each at LMUL 8.
//   - exp + sum + store: LMUL 2, three strips in flight (a software pipeline: stage A loads and
//     reduces strip i + 2, stage B finishes the reduction and starts the polynomial of i + 1,
//     stage C ends strip i, stores and sums it), 13 vector FP instructions per strip
//     (exp_softmax.h). LMUL 2 is the largest whose 16 register groups hold the polynomial's 5
//     splats, the 3 strips' 3 values and the sum; at LMUL 4 or 8 the splats spill or become
//     two-instruction steps. The stages' instructions interleave so that the floating-point
//     unit gets an independent instruction every issue slot; the order was searched against the
//     model (moves of one statement, keeping dependences; llvm-mca on clang's output).
//   - max: LMUL 8, each strip's load issued one strip ahead of its vfmax.
//   - scale: LMUL 4, two strips per iteration, loads one iteration ahead of the stores.
// Cycles per element of each pass's loop body by LMUL, llvm-mca-22 (22.1.8) on clang 19's code,
// models spacemit-x60 (VLEN 256) / sifive-x280 (512) / sifive-p670 (128), 2026-11-26 (loops
// compiled alone with these functions; scripts/rvv-cycles --cpu all softmax for the ones used):
//   pass (X60 / X280 / P670)     m1                m2                m4                m8
//   exp+sum+store, one strip     8.50/7.44/2.64    4.31/3.91/2.08    3.03/2.33/2.03    5.64/2.42/2.14 spills
//   exp+sum+store, 3 in flight   3.67/3.67/2.11    1.92/2.55/2.02    5.13/3.11/2.00 spills  6.47/2.40/2.50 spills
//   old: lean exp, one strip     -                 -                 -                 2.92/2.66/2.51
//   max, load one strip ahead    0.50/0.31/0.52    0.31/0.16/0.26    0.28/0.14/0.25    0.27/0.13/0.25
//   max, two strips (old)        0.69/0.41/0.51    0.38/0.24/0.26    0.33/0.18/0.25    0.31/0.15/0.25
//   scale, loads ahead           1.06/0.78/0.43    0.63/0.39/0.26    0.58/0.20/0.25    0.61/0.13/0.25
//   scale, two strips (old)      1.25/0.97/0.34    0.75/0.49/0.26    0.66/0.24/0.26    0.67/0.13/0.25
// Chosen by the X60: exp m2 pipelined, max m8 ahead, scale m4 ahead: 0.27 + 1.92 + 0.58 = 2.76
// cycles/element (was 3.91); X280 0.13 + 2.55 + 0.20 = 2.88 (was 2.94); P670 0.25 + 2.02 + 0.25 =
// 2.52 (was 3.01). It costs instructions: m2 strips retire 4x the m8 ones (qemu-icount, n = 2048:
// 7142 / 3703 / 1975 at VLEN 128 / 256 / 512, against 2516 / 1342 / 755 at LMUL 8).
//
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

// y = K exp(x - m) for the row; returns sum(y) in f64. D: f32 at LMUL 2.
template <class D>
double ExpStoreSumPipelined(D d, const float* x, float* y, size_t n, float m) {
  using namespace exp_detail;
  const auto du = Rebind<uint32_t>(d);
  const size_t vl = Lanes(d);
  const size_t strips = n / vl;
  const auto magic = Set(d, kSoftmaxBias);
  const auto k4 = Set(d, kSoftmaxK4), k3 = Set(d, kSoftmaxK3), k2 = Set(d, kSoftmaxK2), kk = Set(d, kSoftmaxK);
  double total = 0;
  size_t done = 0;  // strips
  if (strips >= 2) {
    auto acc = Zero(d), blocks = Zero(d);
    // Per strip in flight: t (x - m, then the reduced argument), b (b, n, then the polynomial),
    // s (2^n). Stage A: x -> t, b = n, s; B: t reduced, polynomial to k3; C: the rest, store, sum.
    // A sub-block runs A of strip a, B of the strip after c, C of strip c, interleaved. Macros,
    // not lambdas: clang kept lambda-referenced vector variables in memory (a spill per use).
    VFromD<D> t0, b0, s0, t1, b1, s1, t2, b2, s2;
#define VLAK_SOFTMAX_SUB(tA, bA, sA, tB, bB, tC, bC, sC, a, c)        \
  tA = LoadU(d, x + (a) * vl);                                        \
  tB = NegMulAdd(d, bB, kLn2Hi, tB);                                  \
  bC = MulAdd(d, bC, tC, k2);                                         \
  tB = NegMulAdd(d, bB, kLn2Lo, tB);                                  \
  bC = MulAdd(d, bC, tC, kk);                                         \
  tA = Sub(d, tA, m);                                                 \
  bB = Add(d, tB, kSoftmaxK5);                                        \
  bC = MulAdd(d, bC, tC, kk);                                         \
  bB = MulAdd(d, bB, tB, k4);                                         \
  bA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampB));   \
  bC = Mul(d, bC, sC);                                                \
  bA = MulAdd(d, bA, kLog2e, magic);                                  \
  tA = BitCast(d, du, Min(du, BitCast(du, d, tA), kSoftmaxClampT));   \
  StoreU(d, bC, y + (c) * vl);                                        \
  bB = MulAdd(d, bB, tB, k3);                                         \
  sA = ExponentFromMagic(d, bA);                                      \
  bA = Sub(d, bA, kSoftmaxBias);                                      \
  acc = Add(d, acc, bC);
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
  bB = MulAdd(d, bB, tB, k4);                                         \
  bB = MulAdd(d, bB, tB, k3);
#define VLAK_SOFTMAX_STAGE_C(tC, bC, sC, c)                           \
  bC = MulAdd(d, bC, tC, k2);                                         \
  bC = MulAdd(d, bC, tC, kk);                                         \
  bC = MulAdd(d, bC, tC, kk);                                         \
  bC = Mul(d, bC, sC);                                                \
  StoreU(d, bC, y + (c) * vl);                                        \
  acc = Add(d, acc, bC);
    VLAK_SOFTMAX_STAGE_A(t0, b0, s0, 0)
    VLAK_SOFTMAX_STAGE_B(t0, b0)
    VLAK_SOFTMAX_STAGE_A(t1, b1, s1, 1)
    // Iteration r: strips 3r (set 0, at C), 3r + 1 (set 1), 3r + 2 .. 3r + 4 (loaded).
    const size_t iterations = strips >= 5 ? (strips - 5) / 3 + 1 : 0;
    size_t r = 0, block = 0;
    while (r < iterations) {
      const size_t end = iterations - r < kPipelineBlock ? iterations : r + kPipelineBlock;
      for (; r < end; ++r) {
        const size_t c = 3 * r;
        VLAK_SOFTMAX_SUB(t2, b2, s2, t1, b1, t0, b0, s0, c + 2, c)
        VLAK_SOFTMAX_SUB(t0, b0, s0, t2, b2, t1, b1, s1, c + 3, c + 1)
        VLAK_SOFTMAX_SUB(t1, b1, s1, t0, b0, t2, b2, s2, c + 4, c + 2)
      }
      blocks = Add(d, blocks, acc);
      acc = Zero(d);
      if (++block == kPipelineFlush) {
        total += ReduceSum(d, blocks);
        blocks = Zero(d);
        block = 0;
      }
    }
    done = 3 * iterations + 2;
    VLAK_SOFTMAX_STAGE_C(t0, b0, s0, done - 2)
    VLAK_SOFTMAX_STAGE_B(t1, b1)
    VLAK_SOFTMAX_STAGE_C(t1, b1, s1, done - 1)
#undef VLAK_SOFTMAX_SUB
#undef VLAK_SOFTMAX_STAGE_A
#undef VLAK_SOFTMAX_STAGE_B
#undef VLAK_SOFTMAX_STAGE_C
    total += ReduceSum(d, Add(d, blocks, acc));
  }
  // The last strips (at most 4 whole ones and a partial one): the same instructions, one strip at
  // a time.
  const size_t i = done * vl;
  auto acc = Zero(d);
  ForEachStrip(d, n - i, [&](auto ds, size_t k) {
    const auto e = ExpSoftmaxScaled(ds, Sub(ds, LoadU(ds, x + i + k), m));
    StoreU(ds, e, y + i + k);
    acc = AddTU(ds, acc, e);
  });
  return total + ReduceSum(d, acc);
}

// ThreePass (softmax_three_pass.h) with the passes above, for the accurate exp on RVV; LMUL
// 2^kMax, 2^kExp, 2^kScale per pass (the lab's LMUL sweep runs all three at one LMUL).
template <int kMax = 3, int kExp = 1, int kScale = 2>
void ThreePassPipelined(const float* x, float* y, size_t n, unsigned flags) {
  const float m = RowMaxAhead(Simd<float, kMax>(), x, n);
  if (!std::isfinite(m)) return SpecialRow(x, y, n, m, flags);
  const double s = ExpStoreSumPipelined(Simd<float, kExp>(), x, y, n, m);
  if (std::isnan(s)) return FillNaN(y, n);
  ScaleAhead(Simd<float, kScale>(), y, n, static_cast<float>(1.0 / s));
}

}  // namespace softmax_detail
}  // namespace vlak::VLAK_NS
