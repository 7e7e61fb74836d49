// Rows of a row-wise operator over the parallel layer (src/parallel/parallel.h), and the argument
// checks and cache rules the row operators share (internal, used by the API files).
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/dispatch.h"
#include "parallel/parallel.h"
#include "vlak/vlak.h"

namespace vlak {

// fn(worker, begin, end) over chunks of `rows` rows of `elements_per_row` elements each: the
// parallel layer's cost model decides how many threads, counting 8 bytes moved per element (a
// float read and one written; a byte element costs about what a float one does in the int8
// operators: table reads, gathers).
// Inline, and in this order, so that a call below the floor pays a multiply and a compare, and a
// one-thread call a load more (RVV instruction budgets).
// (A product that wraps around only misjudges the size of a call: PlanRows saturates.)
inline bool OneThreadRows(size_t rows, size_t elements_per_row) {
  return rows < 2 || rows * elements_per_row < kNeverSplitBytes / 8 || NumThreads() <= 1;
}
inline ParallelPlan PlanRowElements(size_t rows, size_t elements_per_row) {
  if (OneThreadRows(rows, elements_per_row)) return OneThreadPlan(rows);
  return PlanRows(rows, elements_per_row > SIZE_MAX / 8 ? SIZE_MAX : 8 * elements_per_row);
}
template <class F>
void ForEachRowChunk(size_t rows, size_t elements_per_row, F&& fn) {
  if (OneThreadRows(rows, elements_per_row)) {
    fn(0, size_t{0}, rows);
    return;
  }
  ParallelFor(PlanRows(rows, elements_per_row > SIZE_MAX / 8 ? SIZE_MAX : 8 * elements_per_row), fn);
}

// Checks shared by the row-wise operators: the extent of `rows` rows of `cols` elements at
// `stride` must be addressable in bytes.
inline bool RowsExtentOverflows(size_t rows, size_t cols, size_t stride) {
  if (cols > SIZE_MAX / sizeof(float)) return true;
  return rows > 1 && (rows - 1) > (SIZE_MAX / sizeof(float) - cols) / stride;
}

// The argument checks of a normalisation over rows (layernorm, rmsnorm): VLAK_OK with *empty set
// when there is nothing to do, an error status (nothing may be written), or VLAK_OK to run.
inline vlak_status CheckNormRows(size_t rows, size_t cols, const float* x, size_t x_stride, const float* y,
                                 size_t y_stride, float eps, bool* empty) {
  *empty = false;
  if (!(eps >= 0.0f)) return VLAK_ERROR_INVALID_ARGUMENT;  // negative or NaN
  if (rows == 0 || cols == 0) {
    *empty = true;
    return VLAK_OK;
  }
  if (x == nullptr || y == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (x_stride < cols || y_stride < cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (RowsExtentOverflows(rows, cols, x_stride > y_stride ? x_stride : y_stride)) return VLAK_ERROR_OVERFLOW;
  if (x == y && x_stride != y_stride) return VLAK_ERROR_INVALID_ARGUMENT;
  return TargetError();
}

// Whether a row operator writes its output with non-temporal stores (output_strips.h), and
// prefetches its next row: when the output is more than 8 times the per-core L2, it leaves the
// caches before anyone reads it, so the read-for-ownership of each line is wasted bandwidth.
// Below that the L3 holds it, and streamed writes go to DRAM for nothing (measured on Zen 3,
// docs/ops/parallel.md). sysconf's L3 size is not used: VMs report the host's. Only x86 has
// non-temporal stores in the vector layer (output_strips.h's kStreamStores). output_bytes: the
// call's output, or one thread's share of it (ForEachRowChunkStreaming).
inline bool StreamOutput(size_t output_bytes) {
#if !defined(__x86_64__)
  (void)output_bytes;
  return false;
#else
  return output_bytes / 8 > L2CacheBytes();
#endif
}

// fn(worker, begin, end, stream) over ForEachRowChunk's chunks, stream saying whether y is
// written with non-temporal stores: StreamOutput of each planned thread's share of output_bytes
// (x86: an output that the L3 keeps when two cores write it is streamed by one alone). For
// kernels whose streamed pass stores the same values and prefetches nothing (rope): the bits do
// not depend on it. x86 only: elsewhere nothing streams.
#if defined(__x86_64__)
template <class F>
void ForEachRowChunkStreaming(size_t rows, size_t elements_per_row, size_t output_bytes, F&& fn) {
  const ParallelPlan plan = PlanRowElements(rows, elements_per_row);
  const bool stream = StreamOutput(output_bytes / static_cast<size_t>(plan.threads > 1 ? plan.threads : 1));
  ParallelFor(plan, [&fn, stream](int worker, size_t begin, size_t end) { fn(worker, begin, end, stream); });
}
#endif

// A normalisation over rows (layernorm, rmsnorm) from its API function: CheckNormRows, then the
// kernel of `table` for the active target, run(kernel, begin, end, stream) over chunks of the rows
// on the threads (ForEachRowChunk), stream saying whether y is written with non-temporal stores
// (StreamOutput of the whole output: the norms' streamed passes also prefetch the next row, which
// layernorm's rows from the L3 need; docs/ops/parallel.md). The status for the caller.
template <class Fn, class Run>
vlak_status NormRows(const PerTarget<Fn>& table, size_t rows, size_t cols, const float* x, size_t x_stride,
                     const float* y, size_t y_stride, float eps, Run&& run) {
  bool empty;
  if (const vlak_status st = CheckNormRows(rows, cols, x, x_stride, y, y_stride, eps, &empty); st != VLAK_OK || empty) {
    return st;
  }
  auto* const kernel = Dispatch(table);
  const bool stream = StreamOutput(rows * cols * sizeof(float));
  // kernel and stream by value: by reference the closure cost rmsnorm 4 more instructions a call
  // on RVV than the loop it replaced (icount budget test).
  ForEachRowChunk(rows, cols, [kernel, stream, &run](int, size_t begin, size_t end) { run(kernel, begin, end, stream); });
  return VLAK_OK;
}

}  // namespace vlak
