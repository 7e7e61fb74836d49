// Every entry point called from 8 threads at once (4 under qemu; oversubscribed either way), with
// different shapes and flags per thread, while another thread changes vlak_set_num_threads or the
// target. Each result must equal the one computed alone beforehand, bit for bit (no result depends
// on the thread count), except where vlak.h lets it depend on the target (the norms, softmax, the
// int8 softmax's LUT mode, exp: equal to the result of one of the targets). Each operator's jobs
// are in its src/ops/<op>/<op>_test.cc (VLAK_CONCURRENCY_JOBS, concurrency_jobs.h), so that adding
// an operator edits no file here; exp's and the SFPI kernels' are below.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_test;

// The operator folders in src/ops/, each registering its jobs: fewer registrations means one was
// lost (its test file out of the glob, its VLAK_CONCURRENCY_JOBS removed) and its jobs with it.
constexpr size_t kMinRegisteredOperators = 9;

ConcurrencyInputs MakeInputs(uint32_t seed) {
  // Large enough (r x c >= 2 x 16K) that the calls split over the library's own threads.
  const size_t r = 12 + seed % 5, c = 3000 + 37 * (seed % 7);
  return {seed, r, c, std::make_shared<const std::vector<float>>(Normal(r * c, 1.0f, 2.0f, seed)),
          std::make_shared<const std::vector<float>>(Normal(c, 1.0f, 0.3f, seed + 1))};
}

// Every registered operator's jobs (by name), then exp's and the SFPI kernels', which live outside
// src/ops/.
std::vector<ConcurrencyJob> MakeJobs(uint32_t seed) {
  const ConcurrencyInputs in = MakeInputs(seed);
  std::vector<ConcurrencyJob> jobs;
  for (const auto& entry : ConcurrencyJobsRegistry()) {
    for (ConcurrencyJob& j : entry.make(in)) jobs.push_back(std::move(j));
  }
  const size_t r = in.r, c = in.c;
  const auto x = in.x;
  jobs.push_back({[=](std::vector<float>& out) {
                    out.resize(r * c);
                    return vlak_exp_f32(r * c, x->data(), out.data(), static_cast<vlak_exp_variant>(seed % 6));
                  },
                  false});
  // SFPI kernels over tiles (C++ API, vlak/sfpi.h): the same bits on every target.
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t tiles = 30 + seed % 3;  // <= 32 tiles: within x (r x c >= 36,000)
                    out.assign(x->begin(), x->begin() + static_cast<std::ptrdiff_t>(tiles * 1024));
                    return ::vlak::sfpi::RunKernel((seed & 1) ? "recip" : "exp-accurate", out.data(), tiles, seed) == 0
                               ? VLAK_OK
                               : VLAK_ERROR_INVALID_ARGUMENT;
                  },
                  true});
  return jobs;
}

TEST(Concurrency, EveryOperatorRegistersItsJobs) {
  const auto& registry = ConcurrencyJobsRegistry();
  EXPECT_GE(registry.size(), kMinRegisteredOperators);
  for (size_t i = 1; i < registry.size(); ++i) {
    EXPECT_LT(registry[i - 1].name, registry[i].name) << "a name registered twice";
  }
  for (const auto& entry : registry) EXPECT_FALSE(entry.make(MakeInputs(100)).empty()) << entry.name;
}

// What a job may give: its result alone on each supported target.
std::vector<std::vector<float>> Expected(ConcurrencyJob& job, bool every_target) {
  std::vector<std::vector<float>> want;
  const vlak_target saved = vlak_active_target();
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    const auto target = static_cast<vlak_target>(t);
    if (!vlak_target_supported(target) || (!every_target && target != saved)) continue;
    EXPECT_EQ(vlak_set_target(target), VLAK_OK);
    std::vector<float> out;
    EXPECT_EQ(job.run(out), VLAK_OK);
    want.push_back(std::move(out));
  }
  EXPECT_EQ(vlak_set_target(saved), VLAK_OK);
  // A job that claims the same bits everywhere (vlak.h's promise for it) gets them on every target.
  if (job.same_on_every_target) {
    for (const auto& w : want) {
      EXPECT_TRUE(w.size() == want[0].size() && SameBits(w.data(), want[0].data(), w.size()))
          << "a job that vlak.h promises the same bits on every target differs between targets";
    }
  }
  return want;
}

// kWorkers workers run every job of their own RNG seed, kReps times, while `disturb` runs until
// they finish. Under qemu each emulated thread runs at a fraction of native speed on the host's
// cores: half the workers, two repetitions, still more threads than cores (the times:
// docs/contributing.md, "Build and test times").
#if defined(__riscv)
constexpr int kWorkers = 4, kReps = 2;
#else
constexpr int kWorkers = 8, kReps = 3;
#endif
void RunConcurrently(bool every_target, const std::function<void(std::atomic<bool>&)>& disturb) {
  std::vector<std::vector<ConcurrencyJob>> jobs;
  std::vector<std::vector<std::vector<std::vector<float>>>> want;
  for (int w = 0; w < kWorkers; ++w) {
    jobs.push_back(MakeJobs(100 + w));
    want.emplace_back();
    for (ConcurrencyJob& j : jobs.back()) want.back().push_back(Expected(j, every_target));
  }
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread disturber([&] { disturb(done); });
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      for (int rep = 0; rep < kReps; ++rep) {
        for (size_t j = 0; j < jobs[w].size(); ++j) {
          std::vector<float> out;
          if (jobs[w][j].run(out) != VLAK_OK) ++failures;
          bool ok = false;
          for (const auto& cand : want[w][j]) {
            ok = ok || (out.size() == cand.size() && SameBits(out.data(), cand.data(), out.size()));
          }
          if (!ok) {
            ++failures;
            ADD_FAILURE() << "worker " << w << " job " << j << " repetition " << rep;
          }
        }
      }
    });
  }
  for (auto& t : workers) t.join();
  done = true;
  disturber.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Concurrency, EveryEntryPointWhileTheThreadCountChanges) {
  RunConcurrently(false, [](std::atomic<bool>& done) {
    for (int i = 0; !done; ++i) {
      EXPECT_EQ(vlak_set_num_threads(1 + i % 3), VLAK_OK);
      std::this_thread::yield();
    }
    vlak_set_num_threads(0);
  });
}

// The target changes every 20 us or more (a sleep, not a yield): still many times inside each
// call, but a job that needs two calls on one target (a packed quantized W and its product, which
// refuses another target's buffer) finds a window between changes within its retries. Changed
// back to back, they could come faster than one pack and product for all 100 tries on a 2-core
// machine, and the test failed now and then.
TEST(Concurrency, EveryEntryPointWhileTheTargetChanges) {
  const vlak_target saved = vlak_active_target();
  RunConcurrently(true, [saved](std::atomic<bool>& done) {
    for (int i = 0; !done; ++i) {
      const auto t = static_cast<vlak_target>(i % 4);
      if (vlak_target_supported(t)) EXPECT_EQ(vlak_set_target(t), VLAK_OK);
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    EXPECT_EQ(vlak_set_target(saved), VLAK_OK);
  });
}

}  // namespace
