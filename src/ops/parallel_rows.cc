// The planner's timed runs (parallel_rows.h).
#include "ops/parallel_rows.h"

#include <atomic>
#include <cstdint>

namespace vlak {

void RunPlannedChunks(ThreadPlanner& planner, const ThreadPlanner::Plan& plan, size_t rows,
                      void (*chunk)(void* ctx, int t, size_t begin, size_t end), void* ctx) {
  const int threads = plan.threads;
  const int64_t start = ThreadPlanner::NowNs();
  if (threads <= 1) {
    chunk(ctx, 0, size_t{0}, rows);
    const int64_t wall = ThreadPlanner::NowNs() - start;
    planner.Record(plan, wall, wall);
    return;
  }
  std::atomic<int64_t> longest{0};
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const int64_t t0 = ThreadPlanner::NowNs();
    chunk(ctx, t, rows * static_cast<size_t>(t) / static_cast<size_t>(threads),
          rows * static_cast<size_t>(t + 1) / static_cast<size_t>(threads));
    const int64_t took = ThreadPlanner::NowNs() - t0;
    int64_t seen = longest.load(std::memory_order_relaxed);
    while (took > seen && !longest.compare_exchange_weak(seen, took, std::memory_order_relaxed)) {
    }
  }
  planner.Record(plan, ThreadPlanner::NowNs() - start, longest.load(std::memory_order_relaxed));
}

}  // namespace vlak
