// The parallel layer's promises that only a clock can check, run natively (not under qemu or the
// sanitizers, whose clocks say nothing about the pool), one test at a time:
//  - after a burst of calls the process goes idle: < 10 ms of CPU in the next 300 ms (LLVM's
//    OpenMP runtime, which vlak used before, spins for 200 ms: ~200 ms per worker);
//  - with another process keeping every core busy, a 2-thread call takes <= 1.5x the 1-thread
//    call (a static split with a barrier waited ~8 ms, a scheduler slice, for its late worker).
// Both compare times measured in the same run; neither depends on the machine's speed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "ops/ops_test_util.h"
#include "vlak/vlak.h"

namespace {

double Seconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int Cpus() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

TEST(ParallelTiming, AnIdleProcessBurnsNoCpuAfterABurst) {
  if (Cpus() < 2) GTEST_SKIP() << "one CPU: nothing to wake";
  vlak_set_num_threads(0);
  const size_t rows = 512, cols = 2048;
  const std::vector<float> x = vlak_test::Normal(rows * cols, 0.0f, 2.0f, 1);
  std::vector<float> y(rows * cols);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(vlak_softmax_f32(rows, cols, x.data(), cols, y.data(), cols, 0), VLAK_OK);
  const double cpu0 = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  usleep(300000);
  const double burned_ms = 1e3 * (Seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0);
  std::printf("CPU burned in the 300 ms after 300 calls: %.2f ms (%d threads)\n", burned_ms, vlak_get_num_threads());
  EXPECT_LT(burned_ms, 10.0);
}

// Median wall time of `reps` calls of f, interleaved with g's (a and b measured alternately, so a
// change of load hits both).
template <class F, class G>
void Interleaved(int reps, F&& f, G&& g, double* f_median, double* g_median) {
  std::vector<double> a, b;
  for (int r = 0; r < reps; ++r) {
    double t0 = Seconds(CLOCK_MONOTONIC);
    f();
    a.push_back(Seconds(CLOCK_MONOTONIC) - t0);
    t0 = Seconds(CLOCK_MONOTONIC);
    g();
    b.push_back(Seconds(CLOCK_MONOTONIC) - t0);
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  *f_median = a[a.size() / 2];
  *g_median = b[b.size() / 2];
}

TEST(ParallelTiming, TwoThreadsOnALoadedMachineCostAtMostHalfAgainOneThread) {
  if (Cpus() < 2) GTEST_SKIP() << "one CPU";
  // Another process keeps every core busy (a spinning thread per CPU) until killed.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::vector<std::thread> spin;
    for (int i = 0; i < Cpus(); ++i) {
      spin.emplace_back([] {
        volatile unsigned long n = 0;
        for (;;) n = n + 1;
      });
    }
    for (auto& t : spin) t.join();
    _exit(0);
  }
  usleep(100000);
  const size_t rows = 1823, cols = 781;  // the Terapines AI-Benchmark softmax shape
  const std::vector<float> x = vlak_test::Normal(rows * cols, 0.0f, 2.0f, 2);
  std::vector<float> y(rows * cols);
  auto at = [&](int threads) {
    return [&, threads] {
      vlak_set_num_threads(threads);
      vlak_softmax_f32(rows, cols, x.data(), cols, y.data(), cols, 0);
    };
  };
  double t1 = 0, t2 = 0;
  Interleaved(41, at(1), at(2), &t1, &t2);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  vlak_set_num_threads(0);
  std::printf("softmax %zux%zu under load: T1 %.1f us, T2 %.1f us (%.2fx)\n", rows, cols, t1 * 1e6, t2 * 1e6, t2 / t1);
  EXPECT_LE(t2, 1.5 * t1);
}

}  // namespace
