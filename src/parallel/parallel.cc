// The parallel layer's pool, runner hook, cost model and plans (rules in parallel.h).
#include "parallel/parallel.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "vlak/vlak.h"

namespace vlak {
namespace {

int64_t NowNs() { return MonotonicNs(); }

void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__riscv)
  __asm__ volatile(".insn i 0x0F, 0, x0, x0, 0x010");  // Zihintpause's pause; a no-op fence without it
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

// Futex wait/wake on a 32-bit atomic (a portable sleep elsewhere: correct, slower to wake).
void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
#else
  if (word->load() == expected) std::this_thread::sleep_for(std::chrono::microseconds(50));
#endif
}
void FutexWake(std::atomic<uint32_t>* word, int count) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
#else
  (void)word, (void)count;
#endif
}

// The CPU the calling thread runs on, or -1 where unknown.
int CurrentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

// A worker that joins a job on the CPU of the caller (the thread that published it) only takes
// turns with it there: the two run each other's chunks one after the other. Linux does put a
// woken worker there: on a 2-vCPU KVM guest, after the caller had slept, about half of the
// workers' joins landed on the caller's CPU, call after call for milliseconds, and the calls ran
// at one thread's speed (docs/threads.md). Such a worker moves itself: its affinity becomes
// the CPUs it was started with, less the caller's (one syscall, only when it has landed there).
void LeaveCallersCpu(int caller_cpu) {
#if defined(__linux__)
  if (caller_cpu < 0 || caller_cpu >= CPU_SETSIZE || CurrentCpu() != caller_cpu) return;
  thread_local cpu_set_t started_with;
  thread_local bool known = sched_getaffinity(0, sizeof started_with, &started_with) == 0;
  if (!known) return;
  cpu_set_t others = started_with;
  CPU_CLR(caller_cpu, &others);
  if (CPU_COUNT(&others) > 0) sched_setaffinity(0, sizeof others, &others);
#else
  (void)caller_cpu;
#endif
}

// ---- a job: the plan's chunks, claimed per part ------------------------------------------------

struct alignas(64) Part {
  std::atomic<size_t> next;  // the next chunk to claim
  size_t end;                // one past the part's last chunk
};

struct Job {
  const ParallelPlan* plan;
  ChunkFn body;
  void* ctx;
  Part* parts;
};

thread_local bool t_in_job = false;  // a call from inside a job runs on its own thread

// Participant `worker`: its own part first, then the others' in order.
void RunParticipant(Job& job, int worker) {
  const bool outer = t_in_job;
  t_in_job = true;
  const ParallelPlan& plan = *job.plan;
  const int threads = plan.threads;
  for (int k = 0; k < threads; ++k) {
    Part& part = job.parts[(worker + k) % threads];
    if (part.next.load(std::memory_order_relaxed) >= part.end) continue;
    for (;;) {
      const size_t c = part.next.fetch_add(1, std::memory_order_relaxed);
      if (c >= part.end) break;
      const size_t begin = c * plan.chunk;
      const size_t end = std::min(plan.items, begin + plan.chunk);
      job.body(job.ctx, worker, begin, end);
    }
  }
  t_in_job = outer;
}

// ---- the pool ---------------------------------------------------------------------------------

// state_: bits 0-15 helpers joined, 16-31 helpers wanted, 32 closed, 33-63 the job's generation.
constexpr uint64_t kClosed = uint64_t{1} << 32;
uint64_t Pack(uint32_t gen, uint32_t wanted) {
  return (static_cast<uint64_t>(gen & 0x7FFFFFFFu) << 33) | (static_cast<uint64_t>(wanted) << 16);
}
uint32_t GenOf(uint64_t s) { return static_cast<uint32_t>(s >> 33); }
uint32_t Joined(uint64_t s) { return static_cast<uint32_t>(s & 0xFFFF); }
uint32_t Wanted(uint64_t s) { return static_cast<uint32_t>((s >> 16) & 0xFFFF); }

class Pool {
 public:
  // Runs the job on the caller and up to plan.threads - 1 workers; false (nothing run) when the
  // pool is busy with another caller's job.
  bool Run(Job& job) {
    std::unique_lock<std::mutex> lock(busy_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    const int helpers = job.plan->threads - 1;
    Grow(helpers);
    job_ = &job;
    caller_cpu_ = CurrentCpu();
    left_.store(0, std::memory_order_relaxed);
    const uint32_t gen = (gen_.load(std::memory_order_relaxed) + 1) & 0x7FFFFFFFu;
    state_.store(Pack(gen, static_cast<uint32_t>(helpers)), std::memory_order_release);
    gen_.store(gen, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) FutexWake(&gen_, helpers);
    RunParticipant(job, 0);
    // Close the job to latecomers, then wait for the helpers that joined (they run started chunks).
    const uint32_t joined = Joined(state_.fetch_or(kClosed, std::memory_order_acq_rel));
    WaitLeft(joined);
    job_ = nullptr;
    return true;
  }

  int Workers() {
    std::lock_guard<std::mutex> g(grow_);
    return static_cast<int>(started_);
  }

  // Time from publishing an empty job to the first helper's arrival, workers awake.
  // quantile_div 2: the median; 4: the first quartile (less swayed by another process).
  double WakeNs(int threads, int reps, size_t quantile_div = 2) {
    if (threads < 2) return 0;
    std::vector<int64_t> samples;
    struct Ctx {
      std::atomic<int64_t> first{0};
    } ctx;
    ParallelPlan plan;
    plan.items = static_cast<size_t>(threads);
    plan.chunk = 1;
    plan.threads = threads;
    for (int r = 0; r < reps + 3; ++r) {
      ctx.first.store(0, std::memory_order_relaxed);
      const int64_t t0 = NowNs();
      ParallelRun(
          plan,
          [](void* c, int worker, size_t begin, size_t) {
            auto* x = static_cast<Ctx*>(c);
            if (worker == 0) {  // the caller's first chunk waits (up to 1 ms) for the first helper
              const int64_t until = NowNs() + 1000000;
              while (begin == 0 && x->first.load(std::memory_order_acquire) == 0 && NowNs() < until) Pause();
              return;
            }
            int64_t zero = 0;
            x->first.compare_exchange_strong(zero, NowNs(), std::memory_order_acq_rel);
          },
          &ctx);
      const int64_t first = ctx.first.load(std::memory_order_acquire);
      if (r >= 3 && first > 0) samples.push_back(first - t0);
    }
    if (samples.empty()) return 1e6;
    std::sort(samples.begin(), samples.end());
    return static_cast<double>(samples[samples.size() / quantile_div]);
  }

 private:
  void Grow(int helpers) {
    std::lock_guard<std::mutex> g(grow_);
    while (started_ < static_cast<size_t>(helpers)) {
      try {
        std::thread([this] { WorkerLoop(); }).detach();
      } catch (...) {
        break;  // fewer workers: the caller takes their chunks
      }
      ++started_;
    }
  }

  void WaitLeft(uint32_t joined) {
    const int64_t spin_until = NowNs() + 20000;
    int spins = 0;
    for (;;) {
      const uint32_t left = left_.load(std::memory_order_acquire);
      if (left == joined) return;
      if (++spins % 64 == 0 && NowNs() > spin_until) {
        caller_waiting_.store(1, std::memory_order_seq_cst);
        if (left_.load(std::memory_order_seq_cst) == left) FutexWait(&left_, left);
        caller_waiting_.store(0, std::memory_order_relaxed);
      } else {
        Pause();
      }
    }
  }

  void WorkerLoop() {
    uint32_t seen = gen_.load(std::memory_order_acquire);
    for (;;) {
      // Wait for a new job: spin up to kSpinNs, then sleep.
      int64_t spin_until = NowNs() + kSpinNs;
      for (int spins = 0; gen_.load(std::memory_order_acquire) == seen;) {
        if (++spins % 64 != 0) {
          Pause();
          continue;
        }
        if (NowNs() < spin_until) continue;
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        if (gen_.load(std::memory_order_seq_cst) == seen) FutexWait(&gen_, seen);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
        spin_until = NowNs() + kSpinNs;
      }
      seen = gen_.load(std::memory_order_acquire);
      uint64_t s = state_.load(std::memory_order_acquire);
      while (GenOf(s) == seen && (s & kClosed) == 0 && Joined(s) < Wanted(s)) {
        if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
          LeaveCallersCpu(caller_cpu_);
          RunParticipant(*job_, static_cast<int>(Joined(s)) + 1);
          left_.fetch_add(1, std::memory_order_seq_cst);
          if (caller_waiting_.load(std::memory_order_seq_cst) != 0) FutexWake(&left_, 1);
          break;
        }
      }
    }
  }

  std::mutex busy_;  // one job at a time
  std::mutex grow_;
  size_t started_ = 0;
  Job* job_ = nullptr;
  int caller_cpu_ = -1;  // where the caller published job_ (written with it, read after joining)
  alignas(64) std::atomic<uint32_t> gen_{0};      // futex: a new job
  alignas(64) std::atomic<uint64_t> state_{0};    // see Pack
  alignas(64) std::atomic<uint32_t> left_{0};     // futex: helpers done with the job
  std::atomic<uint32_t> caller_waiting_{0};
  alignas(64) std::atomic<int> sleepers_{0};
};

// The pool is never destroyed (workers may be asleep in it at exit); after fork() the child has
// none of the parent's threads, so it starts a fresh pool (the old one is left, unreachable).
std::atomic<Pool*> g_pool{nullptr};
std::once_flag g_atfork_once;

Pool& ThePool() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p != nullptr) return *p;
  std::call_once(g_atfork_once, [] {
    pthread_atfork(nullptr, nullptr, [] { g_pool.store(nullptr, std::memory_order_relaxed); });
  });
  auto* fresh = new Pool;
  Pool* expected = nullptr;
  if (g_pool.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *expected;
}

// ---- the runner hook --------------------------------------------------------------------------

struct Runner {
  vlak_parallel_runner fn;
  void* ctx;
};
std::atomic<const Runner*> g_runner{nullptr};

void RunnerTask(void* ctx, size_t i) {
  auto* job = static_cast<Job*>(ctx);
  if (i < static_cast<size_t>(job->plan->threads)) RunParticipant(*job, static_cast<int>(i));
}

// ---- measured costs ---------------------------------------------------------------------------

double MeasureCopyBytesPerNs() {
  // y = x + 1 over a quarter of the per-core L2, a plain loop: the
  // rate a row kernel streams at from cache is of this order; a kernel that computes more per
  // byte is slower, which only makes the model split less eagerly. Not memcpy: in a process that
  // has loaded Debian's libtorch 1.13, glibc's memcpy of 128 KiB ran 10-30x slower than this
  // loop (docs/ops/parallel.md).
  const size_t n = L2CacheBytes() / 4 / (2 * sizeof(float));
  std::unique_ptr<float[]> x(new (std::nothrow) float[n]), y(new (std::nothrow) float[n]);
  if (!x || !y) return 1.0;
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i & 255);
  int64_t best = INT64_MAX;
  for (int r = 0; r < 7; ++r) {
    const int64_t t0 = NowNs();
    const float* xs = x.get();
    float* ys = y.get();
    for (size_t i = 0; i < n; ++i) ys[i] = xs[i] + 1.0f;
    __asm__ volatile("" : : "r"(ys) : "memory");
    best = std::min(best, NowNs() - t0);
  }
  return static_cast<double>(2 * n * sizeof(float)) / static_cast<double>(best > 0 ? best : 1);  // read + written
}

}  // namespace

size_t L2CacheBytes() {
  static const size_t l2 = [] {
    long bytes = -1;
#if defined(_SC_LEVEL2_CACHE_SIZE)
    bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return bytes > 0 ? static_cast<size_t>(bytes) : size_t{1} << 20;
  }();
  return l2;
}

int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double PowerOfTwoAtMost(double x) {
  double p = 1.0;
  while (p * 2 <= x) p *= 2;
  while (p > x && p > 1.0 / 4096) p /= 2;
  return p;
}

const ParallelCosts& MeasuredParallelCosts() {
  static const ParallelCosts costs = [] {
    ParallelCosts c;
    const int threads = std::min(NumThreads(), 16);
    c.wake_ns = threads >= 2 ? ThePool().WakeNs(threads, 15, 4) : 1000.0;
    // A floor of 0.5 us and a ceiling of 4 us: below, claiming chunks costs more than waking;
    // above, the measurement met a loaded machine, not an awake worker (0.5-2 us measured on
    // 2-vCPU guests), and an estimate of 8 us would keep mid-sized calls on one thread for the
    // whole process (docs/threads.md). Erring low costs little: the caller never waits for a
    // late worker.
    c.wake_ns = PowerOfTwoAtMost(std::clamp(c.wake_ns, 512.0, 4096.0));
    c.copy_bytes_per_ns = PowerOfTwoAtMost(std::max(MeasureCopyBytesPerNs(), 1.0 / 64));
    return c;
  }();
  return costs;
}

double MinNsPerThread() { return kWorkPerWake * MeasuredParallelCosts().wake_ns; }

int ThreadsForNs(double ns, size_t max_parts) {
  const int allowed = NumThreads();
  if (allowed <= 1 || max_parts <= 1) return 1;
  const double by_work = ns / MinNsPerThread();
  if (by_work < 2.0) return 1;
  double t = std::min(by_work, static_cast<double>(allowed));
  t = std::min(t, static_cast<double>(max_parts));
  return static_cast<int>(t);
}

int ThreadsForBytes(size_t bytes, size_t max_parts) {
  if (bytes < kNeverSplitBytes || max_parts <= 1 || NumThreads() <= 1) return 1;
  return ThreadsForNs(static_cast<double>(bytes) / MeasuredParallelCosts().copy_bytes_per_ns, max_parts);
}

ParallelPlan PlanChunks(size_t items, int threads, size_t grain, size_t chunks_per_thread) {
  ParallelPlan plan;
  plan.items = items;
  if (grain == 0) grain = 1;
  const size_t grains = (items + grain - 1) / grain;
  if (threads < 1) threads = 1;
  if (static_cast<size_t>(threads) > grains) threads = static_cast<int>(grains > 0 ? grains : 1);
  plan.threads = threads;
  if (threads == 1) {
    plan.chunk = items > 0 ? items : 1;
    return plan;
  }
  const size_t want = static_cast<size_t>(threads) * (chunks_per_thread > 0 ? chunks_per_thread : 1);
  const size_t grains_per_chunk = std::max<size_t>(1, grains / want);
  plan.chunk = grains_per_chunk * grain;
  return plan;
}

ParallelPlan PlanRows(size_t rows, size_t bytes_per_row) {
  const size_t bytes = bytes_per_row != 0 && rows > SIZE_MAX / bytes_per_row ? SIZE_MAX : rows * bytes_per_row;
  return PlanChunks(rows, ThreadsForBytes(bytes, rows));
}

void ParallelRun(const ParallelPlan& plan, ChunkFn body, void* ctx) {
  const size_t chunks = plan.Chunks();
  if (plan.threads <= 1 || chunks <= 1 || t_in_job) {
    for (size_t c = 0; c < chunks; ++c) {
      const size_t begin = c * plan.chunk;
      body(ctx, 0, begin, std::min(plan.items, begin + plan.chunk));
    }
    return;
  }
  constexpr int kInlineParts = 32;
  Part inline_parts[kInlineParts];
  std::unique_ptr<Part[]> heap;
  Part* parts = inline_parts;
  if (plan.threads > kInlineParts) {
    heap.reset(new (std::nothrow) Part[static_cast<size_t>(plan.threads)]);
    if (!heap) {
      ParallelPlan one = plan;
      one.threads = 1;
      return ParallelRun(one, body, ctx);
    }
    parts = heap.get();
  }
  for (int t = 0; t < plan.threads; ++t) {
    parts[t].next.store(plan.PartBegin(t), std::memory_order_relaxed);
    parts[t].end = plan.PartBegin(t + 1);
  }
  Job job{&plan, body, ctx, parts};
  if (const Runner* r = g_runner.load(std::memory_order_acquire); r != nullptr) {
    r->fn(r->ctx, RunnerTask, &job, static_cast<size_t>(plan.threads));
    RunParticipant(job, 0);  // a runner that skipped calls leaves nothing undone
    return;
  }
  if (!ThePool().Run(job)) RunParticipant(job, 0);  // the pool serves another caller: run here
}

double MeasurePoolWakeNs(int threads, int reps) { return ThePool().WakeNs(std::min(threads, kMaxThreads), reps); }
int PoolWorkers() { return ThePool().Workers(); }

}  // namespace vlak

extern "C" vlak_status vlak_set_parallel_runner(vlak_parallel_runner runner, void* runner_ctx) {
  // Every runner set is kept for the process's life (a call that read the old one may still be
  // using it), reachable from here.
  static std::mutex m;
  static std::vector<std::unique_ptr<vlak::Runner>> kept;
  std::lock_guard<std::mutex> g(m);
  const vlak::Runner* r = nullptr;
  if (runner != nullptr) {
    kept.push_back(std::make_unique<vlak::Runner>(vlak::Runner{runner, runner_ctx}));
    r = kept.back().get();
  }
  vlak::g_runner.store(r, std::memory_order_release);
  return VLAK_OK;
}
