#include "lab/roofline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "dispatch/dispatch.h"
#include "lab/baselines.h"
#include "lab/ops.h"
#include "lab/peak_kernels.h"
#include "lab/stats.h"
#include "vlak/vlak.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_LAB_PEAK_KERNELS)
}  // namespace vlak

namespace vlak::lab {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct CopyBuffers {
  std::unique_ptr<char[], void (*)(void*)> src{nullptr, std::free}, dst{nullptr, std::free};
  size_t size = 0;
  void Ensure(size_t n) {
    if (n <= size) return;
    const size_t bytes = (n + 63) / 64 * 64;
    src.reset(static_cast<char*>(std::aligned_alloc(64, bytes)));
    dst.reset(static_cast<char*>(std::aligned_alloc(64, bytes)));
    std::memset(src.get(), 1, bytes);  // touch every page: no first-touch faults in the timing
    std::memset(dst.get(), 0, bytes);
    size = bytes;
  }
};

}  // namespace

namespace {

// Seconds per call of fn: the median over batches of ~1 ms during `seconds` (at least 5).
template <class Fn>
double MedianSeconds(Fn fn, double seconds) {
  fn();  // warm
  size_t batch = 1;
  for (;;) {
    const double t0 = Now();
    for (size_t i = 0; i < batch; ++i) fn();
    if (Now() - t0 > 1e-3 || batch >= (1u << 20)) break;
    batch *= 2;
  }
  std::vector<double> samples;
  const double start = Now();
  while (samples.size() < 5 || (Now() - start < seconds && samples.size() < 10000)) {
    const double t0 = Now();
    for (size_t i = 0; i < batch; ++i) fn();
    samples.push_back((Now() - t0) / static_cast<double>(batch));
  }
  return Quantile(samples, 0.5);
}

// Iterations of a peak loop that take at least 20 ms on the calling thread alone (the first calls
// also warm the clocks). Calibrated outside any parallel region: on a busy machine a region can
// wait milliseconds for a core, and growing the loop until a region lasts 1 ms would then stop at
// a loop too short to time, and report a peak a hundred times too low. 20 ms, not 2: a region of
// several threads that waits a few ms for a core then costs a tenth of the rate, not half of it
// (docs/lab.md, Roofline).
size_t CalibrateIters(const std::function<double(size_t)>& run) {
  size_t iters = 1 << 14;
  volatile double sink = 0;
  for (;;) {
    const double t0 = Now();
    sink = sink + run(iters);
    if (Now() - t0 >= 20e-3 || iters >= (size_t{1} << 34)) return iters;
    iters *= 2;
  }
}

// The best of 12 runs of thread_ops on `threads` threads at once, in billions of operations per
// second: thread_ops(i) runs thread i's loop and returns the operations it did. A peak is what the
// machine can do, so the fastest run is the measure.
double BestRate(int threads, const std::function<double(size_t thread)>& thread_ops) {
  double best = std::nan("");
  for (int run = 0; run < 12; ++run) {
    SetOmpThreads(threads);
    std::vector<double> ops(static_cast<size_t>(threads), 0.0);
    const double t0 = Now();
    ParallelBlocks(threads, static_cast<size_t>(threads), [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) ops[i] = thread_ops(i);
    });
    const double dt = Now() - t0;
    double total = 0;
    for (double o : ops) total += o;
    best = std::isnan(best) ? total / dt / 1e9 : std::max(best, total / dt / 1e9);
  }
  return best;
}

}  // namespace

double MeasureCopyGbps(double bytes, int threads, double seconds) {
  static CopyBuffers buf;
  const size_t half = std::max<size_t>(64, static_cast<size_t>(bytes / 2) / 4 * 4);
  buf.Ensure(half);
  auto* vcopy = Dispatch(kLabCopy, static_cast<Target>(WidestTarget()));
  // Blocks of whole pages per thread, as the operators split rows.
  const auto split = [&](auto&& copy_block) {
    ParallelBlocks(threads, (half + 4095) / 4096, [&](size_t b, size_t e) {
      const size_t lo = b * 4096, hi = std::min(half, e * 4096);
      if (hi > lo) copy_block(lo, hi);
    });
  };
  const double t_memcpy = MedianSeconds([&] {
    split([&](size_t lo, size_t hi) { std::memcpy(buf.dst.get() + lo, buf.src.get() + lo, hi - lo); });
  }, seconds / 2);
  const double t_vector = MedianSeconds([&] {
    split([&](size_t lo, size_t hi) {
      vcopy(reinterpret_cast<const float*>(buf.src.get() + lo), reinterpret_cast<float*>(buf.dst.get() + lo), (hi - lo) / 4);
    });
  }, seconds / 2);
  return 2.0 * static_cast<double>(half) / std::min(t_memcpy, t_vector) / 1e9;
}

int WidestTarget() {
  for (int t = VLAK_TARGET_RVV; t > VLAK_TARGET_SCALAR; --t) {
    if (TargetMissing(t).empty()) return t;
  }
  return VLAK_TARGET_SCALAR;
}

double MeasurePeakGflops(int target, int threads) {
  static std::map<std::pair<int, int>, double> cache;
  const auto key = std::make_pair(target, threads);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  double best = std::nan("");
  if (TargetMissing(target).empty()) {
    auto* fn = Dispatch(kLabFmaPeak, static_cast<Target>(target));
    const size_t iters = CalibrateIters([&](size_t n) {
      double f;
      return fn(n, 1.0f, &f);
    });
    volatile double sink = 0;
    best = BestRate(threads, [&](size_t i) {
      double flops = 0;
      sink = sink + fn(iters, 1.0f + static_cast<float>(i), &flops);
      return flops;
    });
  }
  cache[key] = best;
  return best;
}

double MeasurePeakGmacsI8(int target, int threads) {
  static std::map<std::pair<int, int>, double> cache;
  const auto key = std::make_pair(target, threads);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  double best = std::nan("");
  const I8MacKernel k = I8MacPeakKernel(target);
  if (k.run != nullptr && TargetMissing(target).empty()) {
    const size_t iters = CalibrateIters([&](size_t n) { return static_cast<double>(k.run(n, 0)); });
    volatile double sink = 0;
    best = BestRate(threads, [&](size_t i) {
      sink = sink + k.run(iters, static_cast<int>(i));
      return k.macs_per_iter * static_cast<double>(iters);
    });
  }
  cache[key] = best;
  return best;
}

}  // namespace vlak::lab
