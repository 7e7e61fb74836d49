// Rows of a row-wise operator split over OpenMP threads (internal, used by the API files).
//
// A thread is woken only when it gets at least kMinElementsPerThread elements: below that the
// wake-up costs more than it saves. The split is static and contiguous (thread t gets rows
// [rows * t / T, rows * (t + 1) / T)), so anything reduced per chunk in chunk order is the same
// bits for the same thread count.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "dispatch/dispatch.h"
#include "dispatch/threads.h"
#include "ops/thread_planner.h"
#include "vlak/vlak.h"

namespace vlak {

inline constexpr size_t kMinElementsPerThread = size_t{1} << 14;

// Threads for rows x cols elements of work: 1 .. NumThreads(), never more than rows.
inline int RowThreads(size_t rows, size_t cols) {
  if (rows < 2 || rows * cols < 2 * kMinElementsPerThread) return 1;
  int threads = NumThreads();
  const size_t by_work = rows * cols / kMinElementsPerThread;
  if (static_cast<size_t>(threads) > rows) threads = static_cast<int>(rows);
  if (static_cast<size_t>(threads) > by_work) threads = static_cast<int>(by_work);
  return threads < 1 ? 1 : threads;
}

// fn(chunk, begin, end) for chunk = 0 .. threads - 1, each on its own thread.
template <class F>
void ForEachRowChunk(int threads, size_t rows, F&& fn) {
  if (threads <= 1) {
    fn(0, size_t{0}, rows);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    fn(t, rows * static_cast<size_t>(t) / static_cast<size_t>(threads),
       rows * static_cast<size_t>(t + 1) / static_cast<size_t>(threads));
  }
}

// The timed run of a plan (parallel_rows.cc): chunk(ctx, t, begin, end) for each of plan.threads
// chunks, timed and recorded in the planner. Out of line, so that an operator's one-thread path
// is the code it was before the planner (RVV budgets) and the timing code exists once.
void RunPlannedChunks(ThreadPlanner& planner, const ThreadPlanner::Plan& plan, size_t rows,
                      void (*chunk)(void* ctx, int t, size_t begin, size_t end), void* ctx);

// ForEachRowChunk with the planner's choice: RowThreads' count when the planner expects it to be
// faster than one thread, else one; the call is timed so that the planner keeps learning.
// `plan` comes from PlanRows (resize sizes its scratch from plan.threads).
template <class F>
void ForEachRowChunk(ThreadPlanner& planner, const ThreadPlanner::Plan& plan, size_t rows, F&& fn) {
  if (!plan.timed) {
    ForEachRowChunk(plan.threads, rows, fn);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  RunPlannedChunks(
      planner, plan, rows, [](void* ctx, int t, size_t begin, size_t end) { (*static_cast<Fn*>(ctx))(t, begin, end); },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

// The planner's choice for rows x cols elements, between one thread and RowThreads' count.
inline ThreadPlanner::Plan PlanRows(ThreadPlanner& planner, size_t rows, size_t cols) {
  return planner.Choose(RowThreads(rows, cols), rows * cols);
}

// The common case: plan and run.
template <class F>
void ForEachRowChunk(ThreadPlanner& planner, size_t rows, size_t cols, F&& fn) {
  const int threads = RowThreads(rows, cols);
  if (threads <= 1) {  // the static rule's one thread: as cheap as before the planner
    fn(0, size_t{0}, rows);
    return;
  }
  ForEachRowChunk(planner, planner.Choose(threads, rows * cols), rows, fn);
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

// The per-core L2 size in bytes (sysconf, asked once; 1 MiB where the system does not say).
inline size_t L2CacheBytes() {
  static const size_t l2 = [] {
    long bytes = -1;
#if defined(_SC_LEVEL2_CACHE_SIZE)
    bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return bytes > 0 ? static_cast<size_t>(bytes) : size_t{1} << 20;
  }();
  return l2;
}

// Whether a row operator writes its output with non-temporal stores (output_strips.h): when the
// output is larger than the per-core L2, it leaves the core's caches before anyone reads it, so
// the read-for-ownership of each line is wasted bandwidth (measured: layernorm 1151 x 8192, one
// thread, 3.7 ms streamed against 5.3 ms; but at two threads the streamed writes wait on DRAM on
// a machine whose L3 would have held them). Only x86 has non-temporal stores in the vector layer
// (output_strips.h's kStreamStores).
inline bool StreamOutput(size_t output_bytes) {
#if !defined(__x86_64__)
  (void)output_bytes;
  return false;
#else
  return output_bytes > L2CacheBytes();
#endif
}

}  // namespace vlak
