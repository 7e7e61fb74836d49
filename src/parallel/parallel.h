// The parallel layer: how every vlak operator splits a call over threads (internal).
//
// Rules, in the order a call meets them:
//  1. Thread count. vlak_set_num_threads(n) sets the maximum; by default it is VLAK_NUM_THREADS,
//     else OMP_NUM_THREADS, else the CPUs in the process's affinity mask capped by its cgroup's
//     CPU quota (NumThreads, cpu_count.cc). Never nproc: a container or `taskset` sees fewer.
//  2. A static cost model picks how many of them a call uses (ThreadsFor*): each thread must get
//     at least kWorkPerWake times the pool's measured wake-up cost of work, estimated as one
//     core's time for the call's bytes at its measured copy rate (or, for matmul, its FMAs at the
//     measured rate of its own kernel). Both rates are measured once per process, on the first
//     call large enough to split, and rounded to a power of two, so the same call with the same
//     thread count always splits the same way. No timing of later calls feeds back: a slow first
//     call or a loaded machine cannot lock a shape on one thread, whatever the shape or the
//     thread count. Below kNeverSplitBytes nothing is measured and nothing is woken.
//  3. The split (ParallelPlan): the items (rows, tiles) are cut into equal chunks of `chunk` items
//     (aligned to the operator's grain: rows, register tiles), and the chunks into `threads`
//     contiguous parts, one per thread: part t holds chunks [C t / T, C (t + 1) / T), so no thread
//     owns more than ceil(C / T) chunks, at most ceil(items / T) + one chunk of items.
//  4. Running it (ParallelRun): the caller is participant 0 and starts on part 0 at once; woken
//     workers join as they arrive. Each participant takes chunks from its own part first, then
//     from the others' (an atomic counter per part), so a worker that the OS has not scheduled
//     yet delays nothing: its chunks are taken by whoever is running. The caller waits only for
//     chunks that were started. Which thread runs a chunk never changes a result: operators
//     reduce per chunk, in chunk order, or not at all, and chunks depend only on the plan.
//  5. The pool (parallel.cc): NumThreads() - 1 workers, started at the first split call. After a
//     job a worker spins for at most kSpinNs (0.2 ms: calls in a burst find it awake), then
//     sleeps on a futex: an idle process burns no CPU. One job at a time: a call that finds the
//     pool busy (another thread's call), or that is made from inside a job, runs on its own
//     thread. An embedding runtime can take the pool's place (vlak_set_parallel_runner).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace vlak {

inline constexpr int kMaxThreads = 256;
// Calls smaller than this (bytes read + written; 32K float elements of a row operator) never
// split and never measure anything: ~8 us of one core at 32 B/ns, against wake-ups of 0.5-5 us
// measured so far; the 8x rule below would split few of them anyway.
inline constexpr size_t kNeverSplitBytes = size_t{1} << 18;
// A thread is worth waking for this many times the wake-up cost of work.
inline constexpr double kWorkPerWake = 8.0;
// How long an idle worker spins before it sleeps.
inline constexpr int64_t kSpinNs = 200000;

// The default thread count (what n = 0 restores): environment, affinity mask and cgroup quota.
int DefaultNumThreads();
// vlak_set_num_threads's value (0: the default).
inline constinit std::atomic<int> g_num_threads{0};
// vlak_get_num_threads(): the thread count calls may split over (>= 1). Inline: a one-thread
// call's whole cost of the parallel layer is this load and a compare (RVV instruction budgets).
inline int NumThreads() {
  const int n = g_num_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : DefaultNumThreads();
}

// The per-core L2 size in bytes (sysconf, asked once; 1 MiB where the system does not say).
size_t L2CacheBytes();
// CLOCK_MONOTONIC in nanoseconds.
int64_t MonotonicNs();
// The largest power of two <= x (at least 2^-12): measured rates rounded so that a repeated
// measurement on the same machine gives the same split.
double PowerOfTwoAtMost(double x);

// Costs measured once per process (the first call asks; the pool starts then).
struct ParallelCosts {
  double wake_ns;            // the pool's wake-up, a job published to its first helper's work: first
                             // quartile of 15 jobs, workers awake, rounded down to a power of 2
  double copy_bytes_per_ns;  // one core's memcpy rate over an L2-sized buffer, power of 2
};
const ParallelCosts& MeasuredParallelCosts();
// The least work (ns of one core) a thread is woken for: kWorkPerWake * wake_ns.
double MinNsPerThread();

// Threads for a call whose one-thread time is estimated as `ns`, at most max_parts (the call's
// chunks of work) and NumThreads(). 1 when ns is below MinNsPerThread() twice.
int ThreadsForNs(double ns, size_t max_parts);
// Threads for a memory-bound call moving `bytes` (read + written): ThreadsForNs at the measured
// copy rate; 1 without measuring anything below kNeverSplitBytes or with one thread allowed.
int ThreadsForBytes(size_t bytes, size_t max_parts);

// items split into chunks of `chunk` items (the last may be shorter), the chunks into `threads`
// contiguous parts.
struct ParallelPlan {
  size_t items = 0;
  size_t chunk = 1;
  int threads = 1;
  size_t Chunks() const { return chunk == 0 ? 0 : (items + chunk - 1) / chunk; }
  // Part t: chunks [PartBegin(t), PartBegin(t + 1)).
  size_t PartBegin(int t) const { return Chunks() * static_cast<size_t>(t) / static_cast<size_t>(threads); }
};
// A plan over `items` for `threads` threads: chunks of a multiple of `grain` items, about
// chunks_per_thread of them per thread (more chunks: late workers cost less; fewer: less
// claiming). threads is capped at the number of grains.
ParallelPlan PlanChunks(size_t items, int threads, size_t grain = 1, size_t chunks_per_thread = 4);
// The common row operator: rows moving bytes_per_row each (read + written).
ParallelPlan PlanRows(size_t rows, size_t bytes_per_row);
// The plan of a call that runs on one thread: one chunk of every item.
inline ParallelPlan OneThreadPlan(size_t items) {
  ParallelPlan plan;
  plan.items = items;
  plan.chunk = items > 0 ? items : 1;
  return plan;
}

// body(ctx, worker, begin, end) for every chunk [begin, end) of the plan, each exactly once.
// worker (0 .. plan.threads - 1) is the participant running the chunk: unique among those
// running at the same time, so it can index per-thread scratch. Returns when all chunks are done.
using ChunkFn = void (*)(void* ctx, int worker, size_t begin, size_t end);
void ParallelRun(const ParallelPlan& plan, ChunkFn body, void* ctx);

template <class F>
void ParallelFor(const ParallelPlan& plan, F&& body) {
  if (plan.threads <= 1) {
    if (plan.items != 0) body(0, size_t{0}, plan.items);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  ParallelRun(
      plan, [](void* ctx, int worker, size_t begin, size_t end) { (*static_cast<Fn*>(ctx))(worker, begin, end); },
      const_cast<void*>(static_cast<const void*>(&body)));
}

// Tests and the lab: the pool's measured wake-up (ns, median of `reps` jobs on `threads`
// participants, workers awake), and how many workers it has started.
double MeasurePoolWakeNs(int threads, int reps);
int PoolWorkers();

}  // namespace vlak
