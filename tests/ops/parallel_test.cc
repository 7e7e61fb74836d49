// The parallel layer (src/parallel/parallel.h): the partitioner's plans, the pool running every
// chunk exactly once under concurrent callers and changing thread counts, the runner hook, and the
// determinism it promises (the same bits for every thread count). Wall-clock behaviour (idle CPU,
// a loaded machine) is in parallel_timing_test.cc, which runs natively only.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "ops/matmul/matmul.h"
#include "ops/ops_test_util.h"
#include "parallel/parallel.h"
#include "vlak/vlak.h"

namespace {

using vlak::ParallelPlan;
using namespace vlak_test;
bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && vlak_test::SameBits(a.data(), b.data(), a.size());
}

// The shapes of the many-core benchmarks, in the items the operators split: rows of softmax
// 1823x781, layernorm 1151x8192, rope 512x16x8, correlation 5x58 rows, resize 3x512 rows, matmul
// tiles of 1024^3 and 256x512x256, and odd sizes around them.
const size_t kItems[] = {1, 2, 3, 7, 63, 64, 65, 560, 1151, 1536, 1823, 4096, 65536, 171 * 16, 43 * 8, 100003};

TEST(ParallelPlan, ChunksCoverTheWorkOnceAndNoThreadOwnsMoreThanItsShare) {
  for (size_t items : kItems) {
    for (size_t grain : {size_t{1}, size_t{6}, size_t{32}}) {
      for (int threads = 1; threads <= 64; ++threads) {
        const ParallelPlan plan = vlak::PlanChunks(items, threads, grain);
        ASSERT_GE(plan.threads, 1);
        ASSERT_LE(plan.threads, threads);
        ASSERT_LE(static_cast<size_t>(plan.threads), (items + grain - 1) / grain);
        ASSERT_EQ(plan.items, items);
        ASSERT_GE(plan.chunk, 1u);
        if (plan.threads > 1) ASSERT_EQ(plan.chunk % grain, 0u) << items << " " << grain << " " << threads;
        // Parts are contiguous, in order, and together hold every chunk once.
        const size_t chunks = plan.Chunks();
        ASSERT_EQ(plan.PartBegin(0), 0u);
        ASSERT_EQ(plan.PartBegin(plan.threads), chunks);
        const size_t share_chunks = (chunks + plan.threads - 1) / plan.threads;
        const size_t share_items = (items + plan.threads - 1) / plan.threads;
        std::vector<int> covered(items, 0);
        for (int t = 0; t < plan.threads; ++t) {
          const size_t c0 = plan.PartBegin(t), c1 = plan.PartBegin(t + 1);
          ASSERT_LE(c0, c1);
          ASSERT_LE(c1 - c0, share_chunks);
          size_t owned = 0;
          for (size_t c = c0; c < c1; ++c) {
            for (size_t i = c * plan.chunk; i < std::min(items, (c + 1) * plan.chunk); ++i, ++owned) ++covered[i];
          }
          ASSERT_LE(owned, share_items + plan.chunk) << items << " " << grain << " " << threads << " part " << t;
        }
        // The first item not covered exactly once fails, with the message a per-item ASSERT_EQ
        // gives; one assertion per plan, not per item: gtest's per-call AssertionResult for each
        // of ~34 million items was most of this test's 4.6 s of CPU under qemu (2026-11-27).
        const auto bad = std::find_if(covered.begin(), covered.end(), [](int n) { return n != 1; });
        if (bad != covered.end()) ASSERT_EQ(*bad, 1) << "item " << (bad - covered.begin());
      }
    }
  }
}

// Runs a plan whose body counts every item and checks that concurrently running participants have
// distinct worker indices below plan.threads.
void RunAndCheck(const ParallelPlan& plan) {
  std::vector<std::atomic<int>> seen(plan.items);
  std::vector<std::atomic<int>> busy(static_cast<size_t>(plan.threads));
  std::atomic<int> bad_worker{0};
  vlak::ParallelFor(plan, [&](int worker, size_t begin, size_t end) {
    if (worker < 0 || worker >= plan.threads) {
      bad_worker.fetch_add(1);
      return;
    }
    if (busy[static_cast<size_t>(worker)].fetch_add(1) != 0) bad_worker.fetch_add(1);
    for (size_t i = begin; i < end; ++i) seen[i].fetch_add(1, std::memory_order_relaxed);
    busy[static_cast<size_t>(worker)].fetch_sub(1);
  });
  ASSERT_EQ(bad_worker.load(), 0);
  for (size_t i = 0; i < plan.items; ++i) ASSERT_EQ(seen[i].load(), 1) << "item " << i << " of " << plan.items;
}

TEST(ParallelPool, RunsEveryChunkExactlyOnce) {
  for (size_t items : kItems) {
    if (items > 5000) continue;
    for (int threads : {1, 2, 3, 4, 8, 16, 33}) RunAndCheck(vlak::PlanChunks(items, threads, 1, 4));
  }
}

// 10^5 calls (10^4 under emulation) from 8 callers at once, while another thread changes
// vlak_set_num_threads: every call runs each chunk exactly once, whatever the pool's state.
TEST(ParallelPool, ConcurrentCallersAndChangingThreadCounts) {
#if defined(__riscv)
  constexpr int kCalls = 10000;
#else
  constexpr int kCalls = 100000;
#endif
  constexpr int kCallers = 8;
  std::atomic<bool> stop{false};
  std::atomic<long> failures{0};
  std::thread changer([&] {
    for (int i = 0; !stop.load(); ++i) {
      vlak_set_num_threads(1 + i % 5);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      std::vector<int> hits(256);
      for (int call = 0; call < kCalls / kCallers; ++call) {
        const size_t items = 1 + static_cast<size_t>((call * 7 + c * 13) % 255);
        const int threads = std::min(vlak_get_num_threads(), 1 + (call + c) % 6);
        const ParallelPlan plan = vlak::PlanChunks(items, threads, 1 + static_cast<size_t>(call % 3), 1 + call % 4);
        std::fill(hits.begin(), hits.end(), 0);
        std::atomic<int> racy{0};
        vlak::ParallelFor(plan, [&](int, size_t begin, size_t end) {
          for (size_t i = begin; i < end; ++i) {
            // Each item belongs to one chunk: a plain increment races only if a chunk ran twice
            // concurrently, which the count below (or TSan) would catch.
            if (++hits[i] != 1) racy.fetch_add(1);
          }
        });
        for (size_t i = 0; i < items; ++i) {
          if (hits[i] != 1) failures.fetch_add(1);
        }
        if (racy.load() != 0) failures.fetch_add(1);
      }
    });
  }
  for (auto& t : callers) t.join();
  stop.store(true);
  changer.join();
  vlak_set_num_threads(0);
  EXPECT_EQ(failures.load(), 0);
}

TEST(ParallelPool, NestedCallsRunOnTheirOwnThread) {
  const ParallelPlan outer = vlak::PlanChunks(64, 4, 1, 4);
  std::atomic<int> total{0};
  vlak::ParallelFor(outer, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const ParallelPlan inner = vlak::PlanChunks(32, 4, 1, 4);
      vlak::ParallelFor(inner, [&](int worker, size_t b, size_t e) {
        EXPECT_EQ(worker, 0);  // inside a job: inline
        total.fetch_add(static_cast<int>(e - b));
      });
    }
  });
  EXPECT_EQ(total.load(), 64 * 32);
}

// ---- the cost model -------------------------------------------------------------------------

TEST(ParallelCostModel, SmallCallsNeverSplitAndTheSplitIsMonotoneAndRepeatable) {
  vlak_set_num_threads(8);
  EXPECT_EQ(vlak::ThreadsForBytes(vlak::kNeverSplitBytes - 1, 1000), 1);
  EXPECT_EQ(vlak::ThreadsForBytes(size_t{1} << 30, 1), 1);
  const vlak::ParallelCosts& costs = vlak::MeasuredParallelCosts();
  EXPECT_GE(costs.wake_ns, 512.0);
  EXPECT_LE(costs.wake_ns, 4096.0);
  EXPECT_GT(costs.copy_bytes_per_ns, 0.0);
  int last = 1;
  for (size_t bytes = 1024; bytes < (size_t{1} << 34); bytes *= 2) {
    const int t = vlak::ThreadsForBytes(bytes, 1u << 20);
    EXPECT_GE(t, last) << bytes;  // more work never gets fewer threads
    EXPECT_LE(t, 8);
    EXPECT_EQ(t, vlak::ThreadsForBytes(bytes, 1u << 20));  // the same call splits the same way
    last = t;
  }
  EXPECT_EQ(last, 8);  // 16 GiB of work uses every thread allowed
  // Each thread gets at least MinNsPerThread of estimated work.
  const double ns = 40 * vlak::MinNsPerThread();
  EXPECT_EQ(vlak::ThreadsForNs(ns, 1000), 8);
  EXPECT_EQ(vlak::ThreadsForNs(3.5 * vlak::MinNsPerThread(), 1000), 3);
  EXPECT_EQ(vlak::ThreadsForNs(1.5 * vlak::MinNsPerThread(), 1000), 1);
  vlak_set_num_threads(0);
}

TEST(ParallelThreads, DefaultIsAtLeastOneAndSetGetRoundTrips) {
  EXPECT_GE(vlak::DefaultNumThreads(), 1);
  EXPECT_LE(vlak::DefaultNumThreads(), vlak::kMaxThreads);
  EXPECT_EQ(vlak_set_num_threads(-1), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_set_num_threads(3), VLAK_OK);
  EXPECT_EQ(vlak_get_num_threads(), 3);
  EXPECT_EQ(vlak_set_num_threads(100000), VLAK_OK);
  EXPECT_EQ(vlak_get_num_threads(), vlak::kMaxThreads);
  EXPECT_EQ(vlak_set_num_threads(0), VLAK_OK);
  EXPECT_EQ(vlak_get_num_threads(), vlak::DefaultNumThreads());
}

// ---- the runner hook --------------------------------------------------------------------------

struct RunnerLog {
  std::atomic<int> runs{0};
  std::atomic<int> tasks{0};
  bool reverse = false;
  bool threads = false;
};

void TestRunner(void* ctx, vlak_parallel_task task, void* task_ctx, size_t n) {
  auto* log = static_cast<RunnerLog*>(ctx);
  log->runs.fetch_add(1);
  if (log->threads) {
    std::vector<std::thread> pool;
    for (size_t i = 1; i < n; ++i) pool.emplace_back([=] { task(task_ctx, i); });
    task(task_ctx, 0);
    for (auto& t : pool) t.join();
  } else {
    for (size_t k = 0; k < n; ++k) task(task_ctx, log->reverse ? n - 1 - k : k);
  }
  log->tasks.fetch_add(static_cast<int>(n));
}

TEST(ParallelRunner, AnEmbeddingRuntimeRunsTheChunksWithTheSameResults) {
  const size_t rows = 600, cols = 1000;
  const std::vector<float> x = Normal(rows * cols, 0.0f, 3.0f, 17);
  std::vector<float> alone(rows * cols), with_runner(rows * cols);
  vlak_set_num_threads(4);
  ASSERT_EQ(vlak_softmax_f32(rows, cols, x.data(), cols, alone.data(), cols, 0), VLAK_OK);
  for (bool threads : {false, true}) {
    for (bool reverse : {false, true}) {
      RunnerLog log;
      log.reverse = reverse;
      log.threads = threads;
      ASSERT_EQ(vlak_set_parallel_runner(TestRunner, &log), VLAK_OK);
      RunAndCheck(vlak::PlanChunks(1000, 4, 1, 4));
      std::fill(with_runner.begin(), with_runner.end(), -1.0f);
      ASSERT_EQ(vlak_softmax_f32(rows, cols, x.data(), cols, with_runner.data(), cols, 0), VLAK_OK);
      ASSERT_EQ(vlak_set_parallel_runner(nullptr, nullptr), VLAK_OK);
      EXPECT_GE(log.runs.load(), 1);
      EXPECT_TRUE(SameBits(alone, with_runner));
    }
  }
  vlak_set_num_threads(0);
}

// ---- determinism ------------------------------------------------------------------------------

// matmul: the same bits for every thread count (forced, so the shared-B path runs even where the
// cost model would stay on one thread), for square, skinny, transposed and accumulating calls.
TEST(ParallelDeterminism, MatmulIsTheSameBitsForEveryThreadCount) {
  struct Shape {
    size_t m, n, k;
    unsigned flags;
  };
  const Shape shapes[] = {{97, 131, 300, 0},   {256, 64, 512, VLAK_MATMUL_TRANS_B}, {5, 1000, 70, 0},
                          {300, 7, 129, VLAK_MATMUL_ACCUMULATE}, {64, 2100, 33, 0}};
  for (const Shape& s : shapes) {
    const std::vector<float> a = Normal(s.m * s.k, 0.0f, 1.0f, 3), b = Normal(s.k * s.n, 0.0f, 1.0f, 4);
    const std::vector<float> c0 = Normal(s.m * s.n, 0.0f, 1.0f, 5);
    const size_t ldb = (s.flags & VLAK_MATMUL_TRANS_B) ? s.k : s.n;
    std::vector<float> one = c0;
    const vlak::MatmulArgs args1{s.m, s.n, s.k, a.data(), s.k, b.data(), ldb, one.data(), s.n, false, false};
    ASSERT_EQ(vlak::MatmulF32(args1, s.flags, 1, nullptr), VLAK_OK);
    for (int threads : {2, 3, 4, 7, 16}) {
      std::vector<float> many = c0;
      const vlak::MatmulArgs args{s.m, s.n, s.k, a.data(), s.k, b.data(), ldb, many.data(), s.n, false, false};
      ASSERT_EQ(vlak::MatmulF32(args, s.flags, threads, nullptr), VLAK_OK);
      ASSERT_TRUE(SameBits(one, many)) << s.m << "x" << s.n << "x" << s.k << " threads " << threads;
    }
  }
}

// layernorm backward: dgamma/dbeta are reduced over blocks of rows fixed by the shape, so every
// thread count gives the same bits (and dx is per row).
TEST(ParallelDeterminism, LayernormBackwardIsTheSameBitsForEveryThreadCount) {
  const size_t rows = 1151, cols = 520;
  const std::vector<float> x = Normal(rows * cols, 0.5f, 2.0f, 8), dy = Normal(rows * cols, 0.0f, 1.0f, 9);
  const std::vector<float> gamma = Normal(cols, 1.0f, 0.2f, 10);
  std::vector<float> y(rows * cols), mean(rows), rstd(rows);
  ASSERT_EQ(vlak_layernorm_f32(rows, cols, x.data(), cols, gamma.data(), nullptr, 1e-5f, y.data(), cols, mean.data(),
                               rstd.data()),
            VLAK_OK);
  std::vector<float> ref;
  for (int threads : {1, 2, 3, 5, 8, 16}) {
    vlak_set_num_threads(threads);
    std::vector<float> out(rows * cols + 2 * cols);
    ASSERT_EQ(vlak_layernorm_backward_f32(rows, cols, dy.data(), x.data(), cols, gamma.data(), mean.data(),
                                          rstd.data(), out.data(), out.data() + rows * cols,
                                          out.data() + rows * cols + cols),
              VLAK_OK);
    if (ref.empty()) {
      ref = out;
    } else {
      ASSERT_TRUE(SameBits(ref, out)) << "threads " << threads;
    }
  }
  vlak_set_num_threads(0);
}

}  // namespace
