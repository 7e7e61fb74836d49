// ThreadPlanner (src/ops/thread_planner.h): the decision between one thread and RowThreads' count,
// driven with synthetic timings (the oracle is the model, worked out per case in the comments),
// and ForEachRowChunk running every row once whatever it chooses. Wall-clock speed itself is the
// lab's job (vlak bench --threads 1,all), not a test's.
#include "ops/thread_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "ops/parallel_rows.h"
#include "vlak/vlak.h"

namespace {

using vlak::Target;
using vlak::ThreadPlanner;

// Feeds `planner` the timings of a machine whose one-thread call takes e * r1 ns and whose
// T-thread call takes e * rt / T ns per chunk plus `fork_join` ns; returns the threads chosen by
// the last of `calls` calls.
int Drive(ThreadPlanner& planner, size_t e, double r1, double rt, double fork_join, int calls, int static_threads = 2,
          std::vector<int>* history = nullptr) {
  int last = 0;
  for (int i = 0; i < calls; ++i) {
    const ThreadPlanner::Plan plan = planner.Choose(static_threads, e, Target::kScalar);
    EXPECT_TRUE(plan.timed);
    const double chunk = plan.threads == 1 ? e * r1 : e * rt / plan.threads;
    const double wall = plan.threads == 1 ? chunk : chunk + fork_join;
    planner.Record(plan, static_cast<int64_t>(wall), static_cast<int64_t>(chunk));
    last = plan.threads;
    if (history != nullptr) history->push_back(plan.threads);
  }
  return last;
}

TEST(ThreadPlanner, StaticRuleOfOneThreadIsNotTimed) {
  ThreadPlanner::ForkJoin fj;
  ThreadPlanner planner(&fj);
  const ThreadPlanner::Plan plan = planner.Choose(1, 1 << 20, Target::kScalar);
  EXPECT_EQ(plan.threads, 1);
  EXPECT_FALSE(plan.timed);
}

TEST(ThreadPlanner, LearnsOneThreadThenManyThenChoosesByTheModel) {
  ThreadPlanner::ForkJoin fj;
  ThreadPlanner planner(&fj);
  std::vector<int> seen;
  // 80 us of work, a 50 us wake-up: 40 + 50 > 80, one thread wins.
  const size_t e = 80000;
  Drive(planner, e, 1.0, 1.0, 50000.0, 40, 2, &seen);
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[0], 1);  // learns r1
  EXPECT_EQ(seen[1], 2);  // learns rT and the fork/join cost
  for (size_t i = 2; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "call " << i;
  EXPECT_FLOAT_EQ(planner.OneThreadRate(Target::kScalar, e), 1.0f);
  EXPECT_NEAR(fj.ns.load(), 50000.0f, 1.0f);
}

TEST(ThreadPlanner, SplitsWhenTheWakeUpIsCheap) {
  ThreadPlanner::ForkJoin fj;
  ThreadPlanner planner(&fj);
  EXPECT_EQ(Drive(planner, 80000, 1.0, 1.0, 2000.0, 40), 2);  // 40 + 2 < 80
}

TEST(ThreadPlanner, SharedBandwidthCountsAgainstSplitting) {
  ThreadPlanner::ForkJoin fj;
  ThreadPlanner planner(&fj);
  // Two threads each run at 1.9x the per-element time of one (a shared memory bus): 0.95 e + w
  // against e, so a 10 us wake-up on 100 us of work loses.
  EXPECT_EQ(Drive(planner, 100000, 1.0, 1.9, 10000.0, 40), 1);
}

TEST(ThreadPlanner, ExploresOnlyCloseCallsAndRarely) {
  ThreadPlanner::ForkJoin fj;
  ThreadPlanner planner(&fj);
  std::vector<int> close, far;
  // Close: 100 us at one thread, 50 + 60 us at two (within 2x): every 64th call tries two.
  Drive(planner, 100000, 1.0, 1.0, 60000.0, 2 + 256, 2, &close);
  const auto tries = std::count(close.begin() + 2, close.end(), 2);
  EXPECT_EQ(tries, 4);
  // Far: 100 us against 50 + 500 us: never explored again.
  ThreadPlanner planner2(&fj);
  fj.ns.store(0.0f);
  Drive(planner2, 100000, 1.0, 1.0, 500000.0, 2 + 256, 2, &far);
  EXPECT_EQ(std::count(far.begin() + 2, far.end(), 2), 0);
}

TEST(ThreadPlanner, FollowsAChangeOfTheMachine) {
  ThreadPlanner::ForkJoin fj;
  ThreadPlanner planner(&fj);
  // Workers go from sleeping (60 us wake-up: one thread wins) to spinning (1 us: two win). The
  // explored two-thread calls carry the new cost into the average.
  EXPECT_EQ(Drive(planner, 100000, 1.0, 1.0, 60000.0, 100), 1);
  EXPECT_EQ(Drive(planner, 100000, 1.0, 1.0, 1000.0, 200), 2);
}

TEST(ThreadPlanner, RatesAreKeptPerTargetAndSizeClass) {
  ThreadPlanner::ForkJoin fj;
  ThreadPlanner planner(&fj);
  Drive(planner, 80000, 1.0, 1.0, 50000.0, 4);
  EXPECT_GT(planner.OneThreadRate(Target::kScalar, 80000), 0.0f);
  EXPECT_EQ(planner.OneThreadRate(Target::kScalar, 80000 * 16), 0.0f);  // another size class
  EXPECT_EQ(planner.OneThreadRate(Target::kAvx2, 80000), 0.0f);        // another target
  // A new class starts by learning again: one thread, then the static count.
  EXPECT_EQ(planner.Choose(2, 80000 * 16, Target::kScalar).threads, 1);
}

TEST(ThreadPlanner, ForEachRowChunkRunsEveryRowOnceWhateverItChooses) {
  ThreadPlanner planner;
  vlak_set_num_threads(2);
  for (int call = 0; call < 12; ++call) {
    const size_t rows = 64, cols = 4096;
    std::vector<int> hits(rows, 0);
    vlak::ForEachRowChunk(planner, rows, cols, [&](int, size_t begin, size_t end) {
      for (size_t r = begin; r < end; ++r) ++hits[r];
    });
    for (size_t r = 0; r < rows; ++r) ASSERT_EQ(hits[r], 1) << "call " << call << " row " << r;
  }
  vlak_set_num_threads(0);
}

}  // namespace
