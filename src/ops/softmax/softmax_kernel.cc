// Softmax row kernels, generic over the tag: compiled once per target.
//
// Three-pass (rows that fit in cache; softmax_three_pass.h): max; exp + sum + store; scale.
//   One exp per element, 20 bytes/element of memory traffic out of cache.
// Two-pass (rows beyond cache; TwoPass below): online max and rescaled sum per L1 block, then
//   exp * 1/sum: 12 bytes/element, one more exp per element than three-pass.
#include <cmath>
#include <limits>

#include "math/exp_accurate.h"
#include "math/exp_bittrick_p5.h"
#include "math/exp_precise.h"
#include "ops/softmax/softmax.h"
#include "ops/softmax/softmax_config.h"
#include "ops/softmax/softmax_kernels.h"
#include "ops/softmax/softmax_pipelined.h"
#include "ops/softmax/softmax_three_pass.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

// LMUL per target and exp: softmax_config.h (the measurements: docs/ops/softmax.md).
constexpr int kPow2 = kSoftmaxConfig.pow2;
constexpr int kPrecisePow2 = kSoftmaxConfig.precise_pow2;
template <unsigned kExp>
using DF = Simd<float, kExp == VLAK_SOFTMAX_EXP_PRECISE ? kPrecisePow2 : kPow2>;
// The accurate exp (ExpAccurateNonPositive) has no mask on RVV, so its sum keeps a whole group.
template <unsigned kExp>
constexpr bool kLaneSum = kExp != VLAK_SOFTMAX_EXP_ACCURATE && softmax_detail::kMaskedExpLaneSum<DF<kExp>>;

constexpr float kInf = std::numeric_limits<float>::infinity();
using softmax_detail::ThreePass;
// RVV: the accurate and the fast exp run softmax_pipelined.h's passes (three-pass, log-softmax,
// two-pass); the precise one keeps the generic passes.
template <unsigned kExp>
constexpr bool kPipe = VLAK_TARGET_ID == ::vlak::Target::kRvv && kExp != VLAK_SOFTMAX_EXP_PRECISE;
template <unsigned kExp>
constexpr auto kPipeExp = kExp == VLAK_SOFTMAX_EXP_FAST ? softmax_detail::PipeExp::kFast : softmax_detail::PipeExp::kAccurate;

template <unsigned kExp, class D>
VFromD<D> ExpVariant(D d, VFromD<D> x) {
  constexpr ExpEval kEval = softmax_detail::kExpEval<D>;
  if constexpr (kExp == VLAK_SOFTMAX_EXP_FAST) {
    return ExpBittrickP5<kEval>(d, x);
  } else if constexpr (kExp == VLAK_SOFTMAX_EXP_PRECISE) {
    return ExpPrecise<kEval>(d, x);
  } else {
    return ExpAccurateNonPositive<kEval>(d, x);  // x is row - max: <= 0 or NaN
  }
}
// ExpVariant<kExp> as a callable for the passes.
template <unsigned kExp>
constexpr auto kExpOf = [](auto d, auto v) { return ExpVariant<kExp>(d, v); };

// ---- two-pass -------------------------------------------------------------------------------
// Pass 1 walks the row in L1-sized blocks: the block's max m_b (reading x from memory), then
// s_b = sum exp(x - m_b) (re-reading the block from L1), merged into a running (M, S) with
// S = S * e^(M - M') + s_b * e^(m_b - M') once per block. Pass 2: y = exp(x - M) / S, y streamed
// (ExpScale). Memory traffic is Dukhan & Ablavatski's 12 bytes/element; the rescaling is per block instead of their
// per-element extended-exponent sums, which measured ~2x the arithmetic of three-pass here and
// lost to it even at 16M elements (compute-bound on one core).
constexpr size_t kTwoPassBlock = kSoftmaxConfig.two_pass_block;  // 16 KiB of x: stays in L1 between the reads

// One block's max m and sum of exp(x - m); false if the max is not finite. Out of line: the
// caller's block loop calls std::exp, across which no vector register survives, so the vector
// constants of these passes live here, not across that call (RVV spilled them otherwise).
template <unsigned kExp>
[[gnu::noinline]] bool BlockMaxSum(const float* x, size_t len, float& m, double& s, const float* next) {
  const DF<kExp> d;
  // A block max of -inf may hide NaNs (Max skips them), +inf/NaN need the special rules:
  // three-pass handles all of these rows.
#if defined(VLAK_SIMD_RVV)
  if constexpr (kPipe<kExp>) {
    // The three-pass row's max and exp passes (no prefetch: rv64gcv has none). s carries the
    // exp's factor K, as TwoPass's second pass does: it cancels.
    m = softmax_detail::RowMaxAhead(Simd<float, kSoftmaxConfig.pipe_max_pow2>(), x, len);
    if (!std::isfinite(m)) return false;
    s = softmax_detail::ExpPipelined<kPipeExp<kExp>, softmax_detail::PipeOut::kSum>(
        Simd<float, kSoftmaxConfig.pipe_exp_pow2>(), x, nullptr, len, m);
    return true;
  }
#endif
  m = softmax_detail::RowMax(d, x, len);
  if (!std::isfinite(m)) return false;
  s = softmax_detail::ExpSum<kLaneSum<kExp>>(d, kExpOf<kExp>, x, nullptr, len, m, next);
  return true;
}

// Returns false (nothing written) for rows with +inf, NaN or an all -inf block.
template <unsigned kExp>
[[gnu::noinline]] bool TwoPass(const float* x, float* y, size_t n) {
  double sum = 0;
  float row_max = -kInf;
  for (size_t b = 0; b < n; b += kTwoPassBlock) {
    const size_t len = n - b < kTwoPassBlock ? n - b : kTwoPassBlock;
    float m;
    double s;
    // While this block's exps run from L1, the next block is prefetched: its max pass then
    // reads from cache instead of waiting for memory with nothing to compute.
    const float* next = n - b - len >= kTwoPassBlock ? x + b + len : nullptr;
    if (!BlockMaxSum<kExp>(x + b, len, m, s, next)) return false;
    if (m > row_max) {
      sum = sum * std::exp(static_cast<double>(row_max) - m) + s;
      row_max = m;
    } else {
      sum += s * std::exp(static_cast<double>(m) - row_max);
    }
  }
  if (!std::isfinite(sum)) return false;  // a NaN next to finite values
#if defined(VLAK_SIMD_RVV)
  if constexpr (kPipe<kExp>) {
    softmax_detail::ExpPipelined<kPipeExp<kExp>, softmax_detail::PipeOut::kStoreScaled>(
        Simd<float, kSoftmaxConfig.pipe_exp_pow2>(), x, y, n, row_max, static_cast<float>(1.0 / sum));
    return true;
  }
#endif
  softmax_detail::ExpScale(DF<kExp>(), kExpOf<kExp>, x, y, n, row_max, static_cast<float>(1.0 / sum));
  return true;
}

// One function per exp variant (inlined into one, every call would save and load all three
// variants' registers), and the three-pass row apart from the two-pass attempt: its only calls
// are then tail calls to the rare paths, so it keeps no callee-saved registers (qemu-icount:
// ~50 instructions per call less on RVV).
template <unsigned kExp>
[[gnu::noinline]] vlak_status ThreePassRow(const float* x, float* y, size_t n, unsigned flags) {
#if defined(VLAK_SIMD_RVV)
  // The accurate and the fast softmax and log-softmax on RVV: softmax_pipelined.h.
  if constexpr (kPipe<kExp>) {
    if (flags & VLAK_SOFTMAX_LOG) {
      softmax_detail::ThreePassPipelined<kPipeExp<kExp>, true, kSoftmaxConfig.pipe_max_pow2,
                                         kSoftmaxConfig.pipe_exp_pow2, kSoftmaxConfig.pipe_scale_pow2>(x, y, n, flags);
    } else {
      softmax_detail::ThreePassPipelined<kPipeExp<kExp>, false, kSoftmaxConfig.pipe_max_pow2,
                                         kSoftmaxConfig.pipe_exp_pow2, kSoftmaxConfig.pipe_scale_pow2>(x, y, n, flags);
    }
    return VLAK_OK;
  }
#endif
  ThreePass<kLaneSum<kExp>>(DF<kExp>(), kExpOf<kExp>, x, y, n, flags);
  return VLAK_OK;
}

// Two-pass, or three-pass for the rows two-pass hands back (special values).
template <unsigned kExp>
[[gnu::noinline]] vlak_status TwoPassRow(const float* x, float* y, size_t n, unsigned flags) {
  return TwoPass<kExp>(x, y, n) ? VLAK_OK : ThreePassRow<kExp>(x, y, n, flags);
}

// Only tail calls, so the dispatch costs no registers.
template <unsigned kExp>
vlak_status Row(const float* x, float* y, size_t n, unsigned flags, int algo) {
  // log-softmax reads x once more anyway (y = x - c), so it always takes the three-pass path.
  const bool two_pass_fits = (flags & VLAK_SOFTMAX_LOG) == 0;
  if (algo == static_cast<int>(SoftmaxAlgo::kTwoPass) && two_pass_fits) return TwoPassRow<kExp>(x, y, n, flags);
  return ThreePassRow<kExp>(x, y, n, flags);
}

}  // namespace

// One row; algo is a SoftmaxAlgo other than kAuto. Returns VLAK_OK.
vlak_status SoftmaxRowF32(const float* x, float* y, size_t n, unsigned flags, int algo) {
  switch (flags & VLAK_SOFTMAX_EXP_MASK) {
    case VLAK_SOFTMAX_EXP_FAST: return Row<VLAK_SOFTMAX_EXP_FAST>(x, y, n, flags, algo);
    case VLAK_SOFTMAX_EXP_PRECISE: return Row<VLAK_SOFTMAX_EXP_PRECISE>(x, y, n, flags, algo);
    default: return Row<VLAK_SOFTMAX_EXP_ACCURATE>(x, y, n, flags, algo);
  }
}

VLAK_KERNELS_DEFINED(VLAK_SOFTMAX_KERNELS)

}  // namespace vlak::VLAK_NS
