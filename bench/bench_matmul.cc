// matmul f32 (C = A * B, row-major): vlak on the active target (or forced with VLAK_TARGET)
// against OpenBLAS cblas_sgemm and oneDNN's matmul primitive, in one run, each at 1 and 2 threads.
// Counters: GFLOPs = 2*m*n*k per second; pct_peak = that over the FMA peak of one core measured at
// start-up (an AVX-512 / AVX2 FMA loop with 12 independent accumulators), times the thread count.
//   build/host/bench/bench_matmul --benchmark_filter='/1$'       (one thread)
// A missing baseline is reported "not built" (SkipWithError), never a fake number.
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <time.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ops/matmul/matmul.h"
#include "vlak/vlak.h"

#if defined(VLAK_HAVE_GOMP)
// oneDNN (Debian's) threads with GNU libgomp; this file is not built with -fopenmp (clang's would
// bring LLVM libomp, whose thread count oneDNN does not see), so libgomp's API is declared here.
extern "C" void omp_set_num_threads(int n);
#endif
#if defined(VLAK_HAVE_OPENBLAS)
#include <cblas.h>
#endif
#if defined(VLAK_HAVE_ONEDNN)
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

struct Data {
  size_t m, n, k;
  std::vector<float> a, b, c;
  Data(size_t m_, size_t n_, size_t k_) : m(m_), n(n_), k(k_), a(m_ * k_), b(k_ * n_), c(m_ * n_) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& v : a) v = u(rng);
    for (auto& v : b) v = u(rng);
  }
};

// Fused multiply-adds per second of one core: 12 independent accumulator chains (more than the
// FMA latency x throughput product of current x86 cores), 512-bit if the CPU has AVX-512.
__attribute__((target("avx512f,fma"), noinline)) double PeakAvx512(long iters) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iters; ++it) {
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    __asm__ volatile("" : "+v"(acc[0]), "+v"(acc[1]), "+v"(acc[2]), "+v"(acc[3]), "+v"(acc[4]), "+v"(acc[5]),
                     "+v"(acc[6]), "+v"(acc[7]), "+v"(acc[8]), "+v"(acc[9]), "+v"(acc[10]), "+v"(acc[11]));
  }
  float s = 0;
  for (int i = 0; i < 12; ++i) s += _mm512_reduce_add_ps(acc[i]);
  return s;
}
__attribute__((target("avx2,fma"), noinline)) double PeakAvx2(long iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < iters; ++it) {
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    __asm__ volatile("" : "+x"(acc[0]), "+x"(acc[1]), "+x"(acc[2]), "+x"(acc[3]), "+x"(acc[4]), "+x"(acc[5]),
                     "+x"(acc[6]), "+x"(acc[7]), "+x"(acc[8]), "+x"(acc[9]), "+x"(acc[10]), "+x"(acc[11]));
  }
  alignas(32) float t[8];
  _mm256_store_ps(t, acc[0]);
  return t[0];
}

double ThreadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Peak GFLOP/s of one core (2 flops per FMA lane), measured once: the best of 5 runs of ~50 ms.
double PeakGflops() {
  static const double peak = [] {
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f");
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!avx512 && !avx2) return 0.0;
    const long iters = 4000000;
    const double flops = 2.0 * 12 * (avx512 ? 16 : 8) * static_cast<double>(iters);
    double best = 0;
    volatile double sink = 0;
    for (int r = 0; r < 5; ++r) {
      // Thread CPU time: on a shared machine, time slices given to other processes do not count.
      const double t0 = ThreadSeconds();
      sink = sink + (avx512 ? PeakAvx512(iters) : PeakAvx2(iters));
      const double s = ThreadSeconds() - t0;
      if (flops / s / 1e9 > best) best = flops / s / 1e9;
    }
    return best;
  }();
  return peak;
}

void SetCounters(benchmark::State& state, const Data& d, int threads) {
  const double flops = 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) * static_cast<double>(d.k);
  state.counters["GFLOPs"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPs_core"] = PeakGflops();
  state.counters["threads"] = threads;
}

// Percent of peak as a derived counter is not expressible in Google Benchmark's rate counters:
// printed by the reporter wrapper below instead (pct_peak = GFLOPs / (peak * threads)).

void SetThreads(int threads) {
  vlak_set_num_threads(threads);
#if defined(VLAK_HAVE_GOMP)
  omp_set_num_threads(threads);
#endif
#if defined(VLAK_HAVE_OPENBLAS)
  openblas_set_num_threads(threads);
#endif
}

void Vlak(benchmark::State& state, size_t m, size_t n, size_t k, unsigned flags) {
  const int threads = static_cast<int>(state.range(0));
  SetThreads(threads);
  Data d(m, n, k);
  const size_t ldb = (flags & VLAK_MATMUL_TRANS_B) ? k : n;
  for (auto _ : state) {
    const vlak_status st = vlak_matmul_f32(m, n, k, d.a.data(), k, d.b.data(), ldb, d.c.data(), n, flags);
    if (st != VLAK_OK) {
      state.SkipWithError("vlak_matmul_f32 failed");
      break;
    }
    benchmark::DoNotOptimize(d.c.data());
  }
  SetCounters(state, d, threads);
  size_t peak_bytes = 0;
  const vlak::MatmulArgs args{m, n, k, d.a.data(), k, d.b.data(), ldb, d.c.data(), n, false, false};
  vlak::MatmulF32(args, flags, 0, &peak_bytes);
  state.counters["scratch_KiB"] = static_cast<double>(peak_bytes) / 1024.0;
  state.SetLabel(vlak_target_name(vlak_active_target()));
}

void Openblas(benchmark::State& state, size_t m, size_t n, size_t k, unsigned flags) {
#if defined(VLAK_HAVE_OPENBLAS)
  const int threads = static_cast<int>(state.range(0));
  SetThreads(threads);
  Data d(m, n, k);
  const bool trans = (flags & VLAK_MATMUL_TRANS_B) != 0;
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, d.a.data(), static_cast<int>(k), d.b.data(),
                static_cast<int>(trans ? k : n), 0.0f, d.c.data(), static_cast<int>(n));
    benchmark::DoNotOptimize(d.c.data());
  }
  SetCounters(state, d, threads);
#else
  (void)m, (void)n, (void)k, (void)flags;
  state.SkipWithError("openblas: not built (install libopenblas-dev, reconfigure)");
  for (auto _ : state) {
  }
#endif
}

void Onednn(benchmark::State& state, size_t m, size_t n, size_t k, unsigned flags) {
#if defined(VLAK_HAVE_ONEDNN)
  const int threads = static_cast<int>(state.range(0));
  SetThreads(threads);
  Data d(m, n, k);
  const bool trans = (flags & VLAK_MATMUL_TRANS_B) != 0;
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const auto M = static_cast<long>(m), N = static_cast<long>(n), K = static_cast<long>(k);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const dnnl::memory::desc a_md({M, K}, dt::f32, tag::ab);
  const dnnl::memory::desc b_md({K, N}, dt::f32, trans ? tag::ba : tag::ab);
  const dnnl::memory::desc c_md({M, N}, dt::f32, tag::ab);
  dnnl::memory am(a_md, eng, d.a.data()), bm(b_md, eng, d.b.data()), cm(c_md, eng, d.c.data());
  const dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), eng));
  for (auto _ : state) {
    prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    s.wait();
    benchmark::DoNotOptimize(d.c.data());
  }
  SetCounters(state, d, threads);
#else
  (void)m, (void)n, (void)k, (void)flags;
  state.SkipWithError("onednn: not built (install libdnnl-dev, reconfigure)");
  for (auto _ : state) {
  }
#endif
}

// An FMA-throughput loop as a benchmark of its own, so the peak is in the output.
void Peak(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(PeakGflops());
  state.counters["peak_GFLOPs_core"] = PeakGflops();
}

struct Shape {
  size_t m, n, k;
  unsigned flags;
};
constexpr Shape kShapes[] = {
    {64, 64, 64, 0},      {128, 128, 128, 0},   {192, 192, 192, 0},   {256, 256, 256, 0},  {512, 512, 512, 0},
    {1024, 1024, 1024, 0}, {2048, 2048, 2048, 0}, {256, 512, 256, 0},  // Terapines AI-Benchmark's 256x512x256 (m x n x k)
    {512, 512, 64, VLAK_MATMUL_TRANS_B},  // attention's Q K^T: 512 queries x 512 keys, head 64
};

int Register() {
  benchmark::RegisterBenchmark("fma_peak", Peak)->Iterations(1);
  for (const Shape& s : kShapes) {
    std::string shape = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    if (s.flags & VLAK_MATMUL_TRANS_B) shape += "_transB";
    using Fn = void (*)(benchmark::State&, size_t, size_t, size_t, unsigned);
    const std::pair<const char*, Fn> impls[] = {{"vlak", Vlak}, {"openblas", Openblas}, {"onednn", Onednn}};
    for (const auto& [name, fn] : impls) {
      // One thread: rates over the thread's CPU time, which other processes on a shared machine
      // do not inflate; two threads: over wall time (CPU time would add up both threads').
      for (const int threads : {1, 2}) {
        auto* b = benchmark::RegisterBenchmark((std::string("matmul/") + shape + "/" + name).c_str(),
                                               [fn = fn, s](benchmark::State& st) { fn(st, s.m, s.n, s.k, s.flags); })
                      ->ArgName("threads")
                      ->Arg(threads)
                      ->MinTime(0.3);
        if (threads > 1) b->UseRealTime();
      }
    }
  }
  return 0;
}
const int kRegistered = Register();

}  // namespace

BENCHMARK_MAIN();
