// Whether waking threads pays for a call, learned while running (internal; used through
// parallel_rows.h's ForEachRowChunk(planner, ...)).
//
// Why: RowThreads splits any call of 32K elements or more. What the split costs is a property of
// the OpenMP runtime's state and of the OS, not of the kernel. When libomp's workers spin
// (KMP_BLOCKTIME's default of 200 ms), a parallel region costs 1-2 us. When they sleep
// (KMP_BLOCKTIME=0, as `vlak bench` runs, or calls further apart than the block time), it cost
// ~50 us on issue 9's 2-vCPU VM. That is more than a 78 us correlation saves by splitting: it took
// 90 us on 2 threads. What a call costs depends on the operator, the target and the machine, so
// neither cost can be a constant: both are measured. Every call that the static rule would split
// is timed (two clock reads per chunk).
//
// Model: one thread takes E * r1; T threads take E * rT / T + w.
//  - E is the call's elements.
//  - r1 and rT are a chunk's nanoseconds per element at 1 and at T threads. rT > r1 when the
//    threads share a memory bus.
//  - w is the fork/join cost actually paid: the region's wall time minus its longest chunk. It is
//    shared by every operator.
//  - Each is an exponential moving average (weight 1/4 for the newest call).
// Choice: T threads iff E * rT / T + w < E * r1.
//  - An operator starts by running once on one thread (to learn r1), then once on T threads (to
//    learn rT and w).
//  - When the two predictions are within 2x of each other, every 64th call runs the other choice,
//    so that the estimates follow the machine (a changed load, another runtime setting). That
//    costs at most 1/64 of the difference.
//  - Rates are kept per target and per size class (E within a factor of 4): the cost of an element
//    changes with the cache level the call's data lives in.
//
// Results never depend on the choice. Every operator using a planner gives the same bits for any
// thread count. Layernorm backward, whose column sums depend on it, keeps RowThreads' rule.
// Inside a caller's own OpenMP region (nested parallelism off), the region runs on one thread. The
// measured w is then the whole second chunk, so the planner learns to stay on one thread.
#pragma once

#include <time.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "dispatch/dispatch.h"

namespace vlak {

// The fork/join cost w, shared by the planners of every operator (tests use their own).
struct ThreadForkJoin {
  std::atomic<float> ns{0.0f};
};
inline constinit ThreadForkJoin g_thread_fork_join;

class ThreadPlanner {
 public:
  using ForkJoin = ThreadForkJoin;
  struct Plan {
    int threads = 1;      // threads to run the call on
    bool timed = false;   // time the call and Record it (false: the static rule said one thread)
    int slot = 0;         // the (target, size class) whose rates the timing updates
    size_t elements = 0;  // E
  };

  constexpr ThreadPlanner() = default;
  explicit constexpr ThreadPlanner(ForkJoin* fork_join) : fork_join_(fork_join) {}

  // The plan for a call of `elements` that RowThreads would run on `static_threads`.
  // One thread by the static rule costs a compare: no target read, no timing (RVV budgets).
  Plan Choose(int static_threads, size_t elements) {
    if (static_threads <= 1 || elements == 0) return Plan{};
    return Choose(static_threads, elements, ActiveTarget());
  }
  Plan Choose(int static_threads, size_t elements, Target target) {
    Plan plan;
    if (static_threads <= 1 || elements == 0) return plan;
    plan.timed = true;
    plan.slot = Slot(target, elements);
    plan.elements = elements;
    Rates& r = rates_[static_cast<size_t>(plan.slot)];
    const uint32_t call = r.calls.fetch_add(1, std::memory_order_relaxed);
    const double r1 = r.one.load(std::memory_order_relaxed);
    const double rt = r.many.load(std::memory_order_relaxed);
    if (r1 <= 0.0) return plan;  // learn one thread first
    plan.threads = static_threads;
    if (rt <= 0.0) return plan;  // then T threads
    const double e = static_cast<double>(elements);
    const double one = e * r1;
    const double many = e * rt / static_threads + Shared().ns.load(std::memory_order_relaxed);
    bool split = many < one;
    if (call % 64 == 63 && many < 2.0 * one && one < 2.0 * many) split = !split;  // explore
    if (!split) plan.threads = 1;
    return plan;
  }

  // What a timed call took: its wall time and its longest chunk (both ns).
  void Record(const Plan& plan, int64_t wall_ns, int64_t longest_ns) {
    if (!plan.timed || plan.elements == 0 || wall_ns < 0 || longest_ns <= 0) return;
    Rates& r = rates_[static_cast<size_t>(plan.slot)];
    const float per_element =
        static_cast<float>(static_cast<double>(longest_ns) * plan.threads / static_cast<double>(plan.elements));
    if (plan.threads <= 1) {
      Average(r.one, per_element);
      return;
    }
    Average(r.many, per_element);
    Average(Shared().ns, static_cast<float>(wall_ns > longest_ns ? wall_ns - longest_ns : 0));
  }

  // The learned rates for calls of `elements` on a target (ns per element at one and at many
  // threads; 0: not learned yet).
  float OneThreadRate(Target t, size_t elements) const { return rates_[Slot(t, elements)].one.load(std::memory_order_relaxed); }
  float ManyThreadRate(Target t, size_t elements) const {
    return rates_[Slot(t, elements)].many.load(std::memory_order_relaxed);
  }

  static int64_t NowNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }

 private:
  // Size classes: E < 2^17, [2^17, 2^19), ..., >= 2^29 (8 classes of a factor of 4).
  static constexpr int kSizeClasses = 8;
  static int Slot(Target t, size_t elements) {
    const int log2 = elements == 0 ? 0 : 63 - __builtin_clzll(static_cast<unsigned long long>(elements));
    int size_class = (log2 - 15) / 2;
    size_class = size_class < 0 ? 0 : size_class >= kSizeClasses ? kSizeClasses - 1 : size_class;
    return static_cast<int>(t) * kSizeClasses + size_class;
  }

  struct Rates {
    std::atomic<float> one{0.0f};   // r1
    std::atomic<float> many{0.0f};  // rT
    std::atomic<uint32_t> calls{0};
  };

  // Racing updates may lose one sample: an estimate, not an account.
  static void Average(std::atomic<float>& a, float sample) {
    const float old = a.load(std::memory_order_relaxed);
    a.store(old > 0.0f ? old + 0.25f * (sample - old) : (sample > 0.0f ? sample : 1e-9f), std::memory_order_relaxed);
  }

  ForkJoin& Shared() { return fork_join_ != nullptr ? *fork_join_ : g_thread_fork_join; }

  ForkJoin* fork_join_ = nullptr;  // null: g_thread_fork_join
  std::array<Rates, kNumTargets * kSizeClasses> rates_{};
};

}  // namespace vlak
