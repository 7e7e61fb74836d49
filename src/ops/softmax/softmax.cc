// vlak_softmax_f32: argument checks, the algorithm choice, rows over threads.

#include <cstdint>


#include "dispatch/dispatch.h"
#include "dispatch/threads.h"
#include "ops/softmax/softmax.h"

namespace vlak {
// Returns VLAK_OK: a status, so that a one-row call ends in a tail call.
VLAK_PER_TARGET(kSoftmaxRow, vlak_status, SoftmaxRowF32, (const float* x, float* y, size_t n, unsigned flags, int algo))
VLAK_PER_TARGET(kSoftmaxVariantRow, bool, SoftmaxVariantRowF32,
                (int exp_variant, int lmul_pow2, const float* x, float* y, size_t n))

namespace {

constexpr unsigned kKnownFlags = VLAK_SOFTMAX_LOG | VLAK_SOFTMAX_SAFE | VLAK_SOFTMAX_EXP_MASK;

// Rows at least this long use the two-pass kernel. Measured on the 2-core AVX-512 machine, one
// thread (bench_softmax, vlak_avx512_3pass vs _2pass): three-pass is faster at every size up to
// 16M elements (28 vs 13 GB/s at 64K, 6.6 vs 6.0 at 16M): one core cannot compute the second exp
// as fast as memory delivers the bytes two-pass saves. So auto stays three-pass through the
// measured range; two-pass is kept for rows beyond it, where bandwidth per core only gets worse.
constexpr size_t kTwoPassMinCols = size_t{1} << 26;

// Parallelise only when each thread gets enough elements to pay for waking it.
constexpr size_t kMinElementsPerThread = size_t{1} << 14;

using RowFn = vlak_status(const float*, float*, size_t, unsigned, int);

// Several rows, split over threads when each gets enough work. Out of line, so that a one-row
// call (attention's common case) does not pay for this function's registers.
[[gnu::noinline]] vlak_status Rows(RowFn* row, size_t rows, size_t cols, const float* x, size_t x_stride, float* y,
                            size_t y_stride, unsigned flags, int algo_id) {
  // NumThreads is an OpenMP call: only asked when there is work for two.
  int threads = 1;
  if (rows * cols >= 2 * kMinElementsPerThread) {
    threads = NumThreads();
    const size_t by_work = rows * cols / kMinElementsPerThread;
    if (static_cast<size_t>(threads) > rows) threads = static_cast<int>(rows);
    if (static_cast<size_t>(threads) > by_work) threads = static_cast<int>(by_work);
  }
  if (threads <= 1) {
    for (size_t r = 0; r < rows; ++r) row(x + r * x_stride, y + r * y_stride, cols, flags, algo_id);
    return VLAK_OK;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t r = 0; r < rows; ++r) row(x + r * x_stride, y + r * y_stride, cols, flags, algo_id);
  return VLAK_OK;
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

  if (algo == SoftmaxAlgo::kAuto) algo = cols >= kTwoPassMinCols ? SoftmaxAlgo::kTwoPass : SoftmaxAlgo::kThreePass;
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
