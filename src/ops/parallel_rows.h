// Rows of a row-wise operator split over OpenMP threads (internal, used by the API files).
//
// A thread is woken only when it gets at least kMinElementsPerThread elements: below that the
// wake-up costs more than it saves. The split is static and contiguous (thread t gets rows
// [rows * t / T, rows * (t + 1) / T)), so anything reduced per chunk in chunk order is the same
// bits for the same thread count.
#pragma once

#include <cstddef>

#include "dispatch/threads.h"

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

// Checks shared by the row-wise operators: the extent of `rows` rows of `cols` elements at
// `stride` must be addressable in bytes.
inline bool RowsExtentOverflows(size_t rows, size_t cols, size_t stride) {
  if (cols > SIZE_MAX / sizeof(float)) return true;
  return rows > 1 && (rows - 1) > (SIZE_MAX / sizeof(float) - cols) / stride;
}

}  // namespace vlak
