// Every threaded baseline of the lab runs at the thread count its row claims, in its own runtime.
//
// A library that ignores the lab's thread count still produces right answers, so only the threads
// it burns show it: each row's prepared operation runs for about 0.2 s and the process CPU time
// over the wall time must stay below 1.35 at 1 thread (one busy thread, some slack for the spin of
// an idle pool) and exceed 1.4 at 2 threads. The shapes take about 1-5 ms per call on one core,
// enough work for every library to split it. A 1-thread run cannot exceed 1 by other jobs' load,
// but a 2-thread run on a shared machine can lose its second core to them: it gets three tries,
// and a try counts against the row only when the row's CPU time plus the machine's idle time
// (/proc/stat) came to at least 1.8 cores, i.e. the second core was free and the row left it;
// when other jobs took it in every try the check is skipped.
#include <gtest/gtest.h>

#include <link.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lab/gomp.h"
#include "lab/ops.h"
#include "lab/runner.h"

namespace vlak::lab {
namespace {

struct Row {
  const char* op;
  const char* impl;
  const char* shape;
  int max_threads;  // 0: any; 1: the row runs one thread only (its prepare refuses more)
};

// Every "library" implementation of every operator, and the lab's own loops (c-gcc over rows,
// sleef over blocks of the array) once.
const Row kRows[] = {
    {"softmax", "xnnpack", "512x4096", 0},
    {"softmax", "onednn", "512x4096", 0},
    {"softmax", "torch", "512x4096", 0},
    {"exp", "onednn", "2M", 0},
    {"exp", "torch", "2M", 0},
    {"exp", "sleef", "2M", 0},
    {"exp", "sleef@avx2", "2M", 0},
    {"layernorm", "onednn", "512x4096", 0},
    {"layernorm", "torch", "512x4096", 0},
    {"layernorm", "c-gcc", "512x4096", 0},
    {"layernorm-bwd", "onednn", "256x4096", 0},
    {"matmul", "openblas", "512x512x512", 0},
    {"matmul", "eigen", "512x512x512", 0},
    {"matmul", "onednn", "512x512x512", 0},
    {"linear", "onednn", "512x512x512", 0},
    {"linear-gelu", "onednn", "512x1536x384", 0},
    // XNNPACK's qd8-f32-qc4w/qc8w: not in Debian's XNNPACK, reported unavailable (skipped here).
    {"matmul_q4_0", "xnnpack", "16x256x256", 0},
    {"matmul_q4_0_qa", "xnnpack", "16x256x256", 0},
    {"matmul_q4_1", "xnnpack", "16x256x256", 0},
    {"matmul_q4_1_qa", "xnnpack", "16x256x256", 0},
    {"matmul_q8_0", "xnnpack", "16x256x256", 0},
    {"matmul_q8_0_qa", "xnnpack", "16x256x256", 0},
    {"matmul_q4_0_qa", "ggml", "64x1536x1536", 0},
    {"matmul_q4_1_qa", "ggml", "64x1536x1536", 0},
    {"matmul_q8_0_qa", "ggml", "64x1536x1536", 0},
    {"matmul", "torch", "512x512x512", 0},
    {"resize", "opencv", "3x1024x1024", 0},
    {"resize", "xnnpack", "3x256x256", 0},  // Debian's XNNPACK resizes u8 about 16x slower than OpenCV
    {"warp", "opencv", "1024x1024x3", 0},
    {"softmax-i8", "xnnpack", "512x4096", 1},
    {"activation-sigmoid", "xnnpack", "4M", 0},
    {"activation-sigmoid", "sleef", "4M", 0},
    {"activation-sigmoid", "sleef@avx2", "4M", 0},
    {"activation-tanh", "sleef", "4M", 0},
    {"activation-tanh", "sleef@avx2", "4M", 0},
    {"activation-gelu", "sleef", "4M", 0},
    {"activation-gelu", "sleef@avx2", "4M", 0},
    {"activation-gelu-tanh", "sleef", "4M", 0},
    {"activation-gelu-tanh", "sleef@avx2", "4M", 0},
    {"activation-silu", "sleef", "4M", 0},
    {"activation-silu", "sleef@avx2", "4M", 0},
    {"activation-softplus", "sleef", "4M", 0},
    {"activation-softplus", "sleef@avx2", "4M", 0},
    {"glu-sigmoid", "sleef", "1024x4096", 0},
    {"glu-sigmoid", "sleef@avx2", "1024x4096", 0},
    {"glu-tanh", "sleef", "1024x4096", 0},
    {"glu-tanh", "sleef@avx2", "1024x4096", 0},
    {"glu-softplus", "sleef", "1024x4096", 0},
    {"glu-softplus", "sleef@avx2", "1024x4096", 0},
    {"glu-silu", "sleef", "1024x4096", 0},
    {"glu-silu", "sleef@avx2", "1024x4096", 0},
    {"glu-gelu", "sleef", "1024x4096", 0},
    {"glu-gelu", "sleef@avx2", "1024x4096", 0},
    {"glu-gelu-tanh", "sleef", "1024x4096", 0},
    {"glu-gelu-tanh", "sleef@avx2", "1024x4096", 0},
};

void PrintTo(const Row& r, std::ostream* os) { *os << r.op << " " << r.impl << " " << r.shape; }

std::string RowName(const Row& r) {
  std::string s = std::string(r.op) + "_" + r.impl;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

int AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return static_cast<int>(std::thread::hardware_concurrency());
  return CPU_COUNT(&set);
}

double Seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Problems are shared by the rows of one operator and shape (their float64 references cost more
// than the runs).
const Problem& SharedProblem(const OpDef& op, const std::string& shape) {
  static std::map<std::string, std::unique_ptr<Problem>> cache;
  auto& slot = cache[op.name + " " + shape];
  if (!slot) {
    slot = std::make_unique<Problem>();
    std::string err;
    if (!ParseDims(shape, &slot->shape.dims, &err)) ADD_FAILURE() << err;
    op.make_problem(slot.get());
  }
  return *slot;
}

// Idle CPU seconds of the whole machine so far (idle + iowait of /proc/stat's cpu line), NaN
// where it cannot be read.
double MachineIdleSeconds() {
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return __builtin_nan("");
  unsigned long long user = 0, nice = 0, sys = 0, idle = 0, iowait = 0;
  const int got = std::fscanf(f, "cpu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait);
  std::fclose(f);
  if (got != 5) return __builtin_nan("");
  return static_cast<double>(idle + iowait) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct Usage {
  double ratio = 0;  // process CPU seconds / wall seconds
  double idle = 0;   // cores the machine left idle on average over the same time (NaN: unknown)
  double wall = 0;
  int calls = 0;
};

// Prepares the row at `threads`, runs it a few times to start its threads, waits for every pool
// that spins after a call to go to sleep (WaitForIdleThreads, the lab runner's: OpenBLAS's workers
// poll for about 0.1 s, libgomp's for GOMP_SPINCOUNT; a fixed sleep long enough for the slowest
// idled the machine, which this test has to itself, for most rows), then runs it for ~0.2 s of
// wall time.
bool Measure(const ImplDef& impl, const Problem& p, int threads, Usage* u, std::string* err) {
  Outputs out = p.MakeOutputs();
  Prepared pr = impl.prepare(p, out, threads, err);
  if (!pr.run) return false;
  pr.select();
  for (int i = 0; i < 3; ++i) {
    if (!pr.run()) {
      *err = "run failed";
      return false;
    }
  }
  WaitForIdleThreads();
  pr.select();
  const double i0 = MachineIdleSeconds();
  const double w0 = Seconds(CLOCK_MONOTONIC), c0 = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  double w1 = w0;
  u->calls = 0;
  while (w1 - w0 < 0.2) {
    if (!pr.run()) {
      *err = "run failed";
      return false;
    }
    ++u->calls;
    w1 = Seconds(CLOCK_MONOTONIC);
  }
  const double c1 = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  u->wall = w1 - w0;
  u->ratio = (c1 - c0) / u->wall;
  u->idle = (MachineIdleSeconds() - i0) / u->wall;
  return true;
}

class LabThreads : public ::testing::TestWithParam<Row> {};

TEST_P(LabThreads, RowRunsItsThreadCount) {
  const Row& row = GetParam();
  const OpDef* op = FindOp(row.op);
  ASSERT_NE(op, nullptr) << row.op;
  const ImplDef* impl = op->Find(row.impl);
  ASSERT_NE(impl, nullptr) << row.op << " " << row.impl;
  if (const std::string why = impl->unavailable(); !why.empty()) GTEST_SKIP() << row.impl << ": " << why;
  const Problem& p = SharedProblem(*op, row.shape);

  Usage one;
  std::string err;
  ASSERT_TRUE(Measure(*impl, p, 1, &one, &err)) << err;
  std::printf("  %s %s %s: 1 thread: CPU/wall %.2f (%d calls, %.2f ms each)\n", row.op, row.impl, row.shape, one.ratio,
              one.calls, 1e3 * one.wall / one.calls);
  EXPECT_LT(one.ratio, 1.35) << row.op << " " << row.impl << " at 1 thread used more than one core";

  if (row.max_threads == 1) return;
  if (AffinityCpus() < 2) GTEST_SKIP() << "fewer than 2 CPUs in this process's affinity mask";
  Usage two;
  bool conclusive = false;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    if (attempt > 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_TRUE(Measure(*impl, p, 2, &two, &err)) << err;
    std::printf("  %s %s %s: 2 threads (try %d): CPU/wall %.2f, machine idle %.2f cores (%d calls, %.2f ms each)\n",
                row.op, row.impl, row.shape, attempt, two.ratio, two.idle, two.calls, 1e3 * two.wall / two.calls);
    if (two.ratio > 1.4) return;
    // Conclusive when the cores this row used plus those nobody used come to most of two (or
    // the idle time is unknown): the second core was there for the row to take.
    if (!(two.ratio + two.idle < 1.8)) conclusive = true;
  }
  if (!conclusive) GTEST_SKIP() << "other jobs kept the second core busy in all three tries (CPU/wall " << two.ratio << ")";
  EXPECT_GT(two.ratio, 1.4) << row.op << " " << row.impl << " at 2 threads kept to about one core";
}

INSTANTIATE_TEST_SUITE_P(Baselines, LabThreads, ::testing::ValuesIn(kRows),
                         [](const ::testing::TestParamInfo<Row>& info) { return RowName(info.param); });

// A new library row is covered here or the suite says so.
TEST(LabThreadsCoverage, EveryLibraryRowIsChecked) {
  std::set<std::string> checked;
  for (const Row& r : kRows) checked.insert(std::string(r.op) + " " + r.impl);
  for (const OpDef& op : Operators()) {
    for (const ImplDef& d : op.impls) {
      if (d.kind != "library") continue;
      EXPECT_TRUE(checked.count(op.name + " " + d.name)) << op.name << " " << d.name << " has no row in kRows";
    }
  }
}

// One OpenMP runtime: GNU libgomp when the lab has its threads from it, and never LLVM's libomp
// (or Intel's libiomp5) beside it, whose thread count the libraries would not follow.
TEST(LabThreadsCoverage, OneOpenMpRuntime) {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        static_cast<std::vector<std::string>*>(data)->push_back(path.substr(path.find_last_of('/') + 1));
        return 0;
      },
      &names);
  bool gomp = false;
  for (const auto& n : names) {
    EXPECT_NE(n.rfind("libomp", 0), 0u) << "LLVM's OpenMP runtime is loaded: " << n;
    EXPECT_NE(n.rfind("libiomp", 0), 0u) << "Intel's OpenMP runtime is loaded: " << n;
    if (n.rfind("libgomp", 0) == 0) gomp = true;
  }
  if (std::string(LabThreadRuntime()) == "libgomp") EXPECT_TRUE(gomp) << "the lab's loops run on libgomp, but it is not loaded";
}

}  // namespace
}  // namespace vlak::lab
