// vlak_softmax_f32: argument checks, the algorithm choice, rows over threads.

#include <cstdint>

#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "ops/softmax/softmax.h"
#include "ops/softmax/softmax_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_SOFTMAX_KERNELS)

namespace {

constexpr unsigned kKnownFlags = VLAK_SOFTMAX_LOG | VLAK_SOFTMAX_SAFE | VLAK_SOFTMAX_EXP_MASK;

// Three-pass or two-pass (softmax_kernel.cc). Three-pass computes one exp per element and reads
// y back; two-pass computes two but moves 12 bytes per element (y streamed) instead of 24, so
// two-pass wins once x and y no longer fit the per-core L2. The rule: two-pass when 8 * cols
// bytes exceed the L2 cache (sysconf; 1 MB where unknown); rows below 64K elements never ask
// (every such row fits any L2 this targets). Crossover measured on a 2 MB-L2 Xeon (AVX-512,
// docs/ops/softmax.md).
constexpr size_t kTwoPassNeverBelow = size_t{1} << 16;
size_t TwoPassMinCols() { return L2CacheBytes() / (2 * sizeof(float)) + 1; }

using RowFn = vlak_status(const float*, float*, size_t, unsigned, int);

// Several rows, split over threads when each gets enough work. Out of line, so that a one-row
// call (attention's common case) does not pay for this function's registers.
[[gnu::noinline]] vlak_status Rows(RowFn* row, size_t rows, size_t cols, const float* x, size_t x_stride, float* y,
                            size_t y_stride, unsigned flags, int algo_id) {
  ForEachRowChunk(rows, cols, [&](int, size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) row(x + r * x_stride, y + r * y_stride, cols, flags, algo_id);
  });
  return VLAK_OK;
}

[[gnu::noinline]] vlak_status SoftmaxF32LongRows(size_t rows, size_t cols, const float* x, size_t x_stride, float* y,
                                                 size_t y_stride, unsigned flags) {
  const SoftmaxAlgo algo = cols >= TwoPassMinCols() ? SoftmaxAlgo::kTwoPass : SoftmaxAlgo::kThreePass;
  return SoftmaxF32(rows, cols, x, x_stride, y, y_stride, flags, algo);
}

[[gnu::noinline, gnu::cold]] vlak_status SoftmaxF32AfterInit(size_t rows, size_t cols, const float* x, size_t x_stride,
                                                             float* y, size_t y_stride, unsigned flags, SoftmaxAlgo algo) {
  detail::InitSelection();
  return SoftmaxF32(rows, cols, x, x_stride, y, y_stride, flags, algo);
}

}  // namespace

vlak_status SoftmaxF32(size_t rows, size_t cols, const float* x, size_t x_stride, float* y,
                       size_t y_stride, unsigned flags, SoftmaxAlgo algo) {
  if ((flags & ~kKnownFlags) != 0 || (flags & VLAK_SOFTMAX_EXP_MASK) == VLAK_SOFTMAX_EXP_MASK) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if (rows == 0 || cols == 0) return VLAK_OK;
  if (x == nullptr || y == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (x_stride < cols || y_stride < cols) return VLAK_ERROR_INVALID_ARGUMENT;
  // The last row ends at (rows - 1) * stride + cols elements: that many bytes must be addressable.
  const size_t max_stride = x_stride > y_stride ? x_stride : y_stride;
  if (cols > SIZE_MAX / sizeof(float) ||
      (rows > 1 && (rows - 1) > (SIZE_MAX / sizeof(float) - cols) / max_stride)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (x == y && x_stride != y_stride) return VLAK_ERROR_INVALID_ARGUMENT;
  // The target selection: one load. Its one-time initialisation is a tail call to a function
  // that initialises and comes back, so this path keeps no registers across a call and a
  // one-row softmax ends in a tail call to the row kernel (~50 instructions less per call).
  const unsigned selection = detail::g_selection.load(std::memory_order_relaxed);
  if (selection == detail::kUnsetSelection) return SoftmaxF32AfterInit(rows, cols, x, x_stride, y, y_stride, flags, algo);
  if (const auto error = static_cast<vlak_status>(selection >> 8); error != VLAK_OK) return error;

  if (algo == SoftmaxAlgo::kAuto) {
    // Long rows ask the cache size in a function of their own (a tail call: see above).
    if (cols >= kTwoPassNeverBelow) return SoftmaxF32LongRows(rows, cols, x, x_stride, y, y_stride, flags);
    algo = SoftmaxAlgo::kThreePass;
  }
  auto* const row = Dispatch(kSoftmaxRow, static_cast<Target>(selection & 0xFF));
  const int algo_id = static_cast<int>(algo);
  if (rows == 1) return row(x, y, cols, flags, algo_id);
  return Rows(row, rows, cols, x, x_stride, y, y_stride, flags, algo_id);
}

bool SoftmaxVariantRow(vlak_exp_variant variant, int lmul_pow2, const float* x, float* y, size_t n) {
  if (TargetError() != VLAK_OK || x == nullptr || y == nullptr) return false;
  return Dispatch(kSoftmaxVariantRow)(static_cast<int>(variant), lmul_pow2, x, y, n);
}

}  // namespace vlak

extern "C" vlak_status vlak_softmax_f32(size_t rows, size_t cols, const float* x, size_t x_stride,
                                        float* y, size_t y_stride, unsigned flags) {
  return vlak::SoftmaxF32(rows, cols, x, x_stride, y, y_stride, flags, vlak::SoftmaxAlgo::kAuto);
}
