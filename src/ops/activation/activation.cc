// vlak_activation_f32 and vlak_glu_f32: argument checks, blocks or rows over threads.
#include <cstdint>

#include "dispatch/dispatch.h"
#include "ops/activation/activation.h"
#include "ops/activation/activation_kernels.h"
#include "ops/parallel_rows.h"
#include "parallel/parallel.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_ACTIVATION_KERNELS)

namespace {

// Elements per work item when a call splits: 16 KiB of floats, microseconds of work per item.
constexpr size_t kBlock = 4096;
// One-thread time per element in ns, the parallel layer's cost estimate (ThreadsForNs): about 40 %
// of the times measured on a loaded Zen 3, AVX2 (docs/ops/activation.md); a lower
// estimate splits less, and AVX-512 cores are faster still, so these only err toward fewer threads.
// Indexed by kernel op code (activation_kernels.h): the fast kernels after the six. sigmoid and silu
// take their fast kernels' figures: x86 runs those forms from -16 up (sigmoid_split.h).
constexpr double kNsPerElement[kNumActKernels] = {0.35, 0.6, 0.8, 0.8, 0.4, 1.1, 0.35, 0.35, 0.4, 0.5, 0.45};
// Below this many elements nothing is measured or woken: at >= 0.5 ns per element, 16K elements
// are ~8 us, the work the parallel layer's floor (kNeverSplitBytes) stands for.
constexpr size_t kNeverSplitElements = size_t{1} << 14;

// Outputs of this many elements (32 MiB; with x, 64 MiB) or more are streamed past the caches: no read for
// ownership of y's lines (x86). Below, y may still be in the L3 for the next operator to read.
constexpr size_t kStreamElements = size_t{1} << 23;

int Threads(int op, size_t elements, size_t items) {
  if (elements < kNeverSplitElements || items < 2 || NumThreads() <= 1) return 1;
  return ThreadsForNs(static_cast<double>(elements) * kNsPerElement[op], items);
}

}  // namespace

extern "C" vlak_status vlak_activation_f32(size_t n, const float* x, float* y, vlak_activation op) {
  const int k = ActivationKernelOp(op);
  if (k < 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (n > 0 && (x == nullptr || y == nullptr)) return VLAK_ERROR_NULL_POINTER;
  if (n > SIZE_MAX / sizeof(float)) return VLAK_ERROR_OVERFLOW;
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  if (n == 0) return VLAK_OK;
  if (n < kNeverSplitElements) {  // one thread, cached output: straight to the kernel
    Dispatch(kActivationF32)(k, x, y, n);
    return VLAK_OK;
  }
  auto* const kernel = n >= kStreamElements ? Dispatch(kActivationStreamF32) : Dispatch(kActivationF32);
  const size_t blocks = (n + kBlock - 1) / kBlock;
  const int threads = Threads(k, n, blocks);
  if (threads <= 1) {
    kernel(k, x, y, n);
    return VLAK_OK;
  }
  ParallelFor(PlanChunks(blocks, threads), [&](int, size_t begin, size_t end) {
    const size_t i = begin * kBlock, j = end * kBlock < n ? end * kBlock : n;
    kernel(k, x + i, y + i, j - i);
  });
  return VLAK_OK;
}

extern "C" vlak_status vlak_glu_f32(size_t rows, size_t cols, const float* gate, size_t gate_stride, const float* up,
                                    size_t up_stride, float* y, size_t y_stride, vlak_activation op) {
  const int k = ActivationKernelOp(op);
  if (k < 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (rows == 0 || cols == 0) return VLAK_OK;
  if (gate == nullptr || up == nullptr || y == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (gate_stride < cols || up_stride < cols || y_stride < cols) return VLAK_ERROR_INVALID_ARGUMENT;
  size_t max_stride = gate_stride > up_stride ? gate_stride : up_stride;
  if (y_stride > max_stride) max_stride = y_stride;
  if (RowsExtentOverflows(rows, cols, max_stride)) return VLAK_ERROR_OVERFLOW;
  if ((y == gate && y_stride != gate_stride) || (y == up && y_stride != up_stride)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  auto* const kernel = Dispatch(kGluF32);
  // Work items: whole rows when a row is at most one block, else blocks of a row (so one long
  // row splits too). rows * cols cannot overflow: the extent check above bounds it.
  const size_t per_row = (cols + kBlock - 1) / kBlock;
  const size_t items = rows > SIZE_MAX / per_row ? SIZE_MAX : rows * per_row;
  const int threads = Threads(k, rows * cols, items);
  if (threads <= 1) {
    kernel(k, rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    return VLAK_OK;
  }
  ParallelFor(PlanChunks(items, threads), [&](int, size_t begin, size_t end) {
    if (per_row == 1) {
      kernel(k, end - begin, cols, gate + begin * gate_stride, gate_stride, up + begin * up_stride, up_stride,
             y + begin * y_stride, y_stride);
      return;
    }
    for (size_t item = begin; item < end; ++item) {
      const size_t r = item / per_row, c = item % per_row * kBlock;
      const size_t w = cols - c < kBlock ? cols - c : kBlock;
      kernel(k, 1, w, gate + r * gate_stride + c, gate_stride, up + r * up_stride + c, up_stride,
             y + r * y_stride + c, y_stride);
    }
  });
  return VLAK_OK;
}

}  // namespace vlak
