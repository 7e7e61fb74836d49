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
#include "ops/softmax/softmax_three_pass.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

// LMUL per target. RVV: m8 retires the fewest instructions (scripts/rvv-hackathon-table: 10.2K
// at VLEN 128 vs 17.1K at m4, despite spills). x86: 2 registers per group; LMUL 1/2/4 measured
// within noise for the exp kernels on AVX-512, not re-measured for softmax.
#if defined(VLAK_SIMD_RVV)
constexpr int kPow2 = 3;
#elif defined(VLAK_SIMD_SCALAR)
constexpr int kPow2 = 0;
#else
constexpr int kPow2 = 1;
#endif
using DF = Simd<float, kPow2>;

constexpr float kInf = std::numeric_limits<float>::infinity();
using softmax_detail::ThreePass;

template <unsigned kExp, class D>
VFromD<D> ExpVariant(D d, VFromD<D> x) {
  if constexpr (kExp == VLAK_SOFTMAX_EXP_FAST) {
    return ExpBittrickP5(d, x);
  } else if constexpr (kExp == VLAK_SOFTMAX_EXP_PRECISE) {
    return ExpPrecise(d, x);
  } else {
    return ExpAccurate(d, x);
  }
}

// ---- two-pass -------------------------------------------------------------------------------
// Pass 1 walks the row in L1-sized blocks: the block's max m_b (reading x from memory), then
// s_b = sum exp(x - m_b) (re-reading the block from L1), merged into a running (M, S) with
// S = S * e^(M - M') + s_b * e^(m_b - M') once per block. Pass 2: y = exp(x - M) / S. Memory
// traffic is Dukhan & Ablavatski's 12 bytes/element; the rescaling is per block instead of their
// per-element extended-exponent sums, which measured ~2x the arithmetic of three-pass here and
// lost to it even at 16M elements (compute-bound on one core).
constexpr size_t kTwoPassBlock = 4096;  // 16 KiB of x: stays in L1 between the two block reads

// Returns false (nothing written) for rows with +inf, NaN or an all -inf block.
template <unsigned kExp>
bool TwoPass(const float* x, float* y, size_t n) {
  const DF d;
  const auto exp = [](auto dd, auto v) { return ExpVariant<kExp>(dd, v); };
  double sum = 0;
  float row_max = -kInf;
  for (size_t b = 0; b < n; b += kTwoPassBlock) {
    const size_t len = n - b < kTwoPassBlock ? n - b : kTwoPassBlock;
    // A block max of -inf may hide NaNs (Max skips them), +inf/NaN need the special rules:
    // three-pass handles all of these rows.
    const float m = softmax_detail::RowMax(d, x + b, len);
    if (!std::isfinite(m)) return false;
    const double s = softmax_detail::ExpSum(d, exp, x + b, nullptr, len, m);
    if (m > row_max) {
      sum = sum * std::exp(static_cast<double>(row_max) - m) + s;
      row_max = m;
    } else {
      sum += s * std::exp(static_cast<double>(m) - row_max);
    }
  }
  if (!std::isfinite(sum)) return false;  // a NaN next to finite values
  softmax_detail::ExpScale(d, exp, x, y, n, row_max, static_cast<float>(1.0 / sum));
  return true;
}

template <unsigned kExp>
void Row(const float* x, float* y, size_t n, unsigned flags, int algo) {
  // log-softmax reads x once more anyway (y = x - c), so it always takes the three-pass path.
  const bool two_pass_fits = (flags & VLAK_SOFTMAX_LOG) == 0;
  if (algo == static_cast<int>(SoftmaxAlgo::kTwoPass) && two_pass_fits && TwoPass<kExp>(x, y, n)) return;
  ThreePass(DF(), [](auto d, auto v) { return ExpVariant<kExp>(d, v); }, x, y, n, flags);
}

}  // namespace

// One row; algo is a SoftmaxAlgo other than kAuto.
void SoftmaxRowF32(const float* x, float* y, size_t n, unsigned flags, int algo) {
  switch (flags & VLAK_SOFTMAX_EXP_MASK) {
    case VLAK_SOFTMAX_EXP_FAST: return Row<VLAK_SOFTMAX_EXP_FAST>(x, y, n, flags, algo);
    case VLAK_SOFTMAX_EXP_PRECISE: return Row<VLAK_SOFTMAX_EXP_PRECISE>(x, y, n, flags, algo);
    default: return Row<VLAK_SOFTMAX_EXP_ACCURATE>(x, y, n, flags, algo);
  }
}

}  // namespace vlak::VLAK_NS
