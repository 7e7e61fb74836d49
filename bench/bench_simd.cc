// Vector-layer micro-benchmarks: each target the CPU has against a plain loop compiled with the
// baseline flags, in one run, so ratios are meaningful on a noisy machine.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "simd_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_BENCH_SIMD_KERNELS)
}  // namespace vlak

namespace {

std::vector<float> Data(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 97) * 0.01f;
  return v;
}

// Bytes really moved: sum reads 4 per element, axpy reads 8 and writes 4.
void SumPlain(benchmark::State& state) {
  const auto x = Data(state.range(0));
  for (auto _ : state) {
    float s = 0;
    for (float v : x) s += v;
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

template <typename Fn>
void SumVlak(benchmark::State& state, Fn* fn) {
  const auto x = Data(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(fn(x.data(), x.size()));
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4);
}

void AxpyPlain(benchmark::State& state) {
  const auto x = Data(state.range(0));
  auto y = Data(state.range(0));
  for (auto _ : state) {
    for (size_t i = 0; i < x.size(); ++i) y[i] = 0.5f * x[i] + y[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 12);
}

template <typename Fn>
void AxpyVlak(benchmark::State& state, Fn* fn) {
  const auto x = Data(state.range(0));
  auto y = Data(state.range(0));
  for (auto _ : state) {
    fn(0.5f, x.data(), y.data(), y.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * 12);
}

void Register() {
  const auto sizes = [](benchmark::internal::Benchmark* b) { b->Arg(4096)->Arg(4099)->Arg(1 << 20); };
  benchmark::RegisterBenchmark("sum_f32/plain", SumPlain)->Apply(sizes);
  benchmark::RegisterBenchmark("axpy_f32/plain", AxpyPlain)->Apply(sizes);
  for (int i = 0; i < vlak::kNumTargets; ++i) {
    const auto t = static_cast<vlak::Target>(i);
    if (!vlak::TargetSupported(t)) continue;
    const std::string name = vlak::TargetName(t);
    benchmark::RegisterBenchmark(("sum_f32/" + name + "_m1").c_str(), SumVlak<float(const float*, size_t)>, vlak::kSumM1[i])->Apply(sizes);
    benchmark::RegisterBenchmark(("sum_f32/" + name + "_m4").c_str(), SumVlak<float(const float*, size_t)>, vlak::kSumM4[i])->Apply(sizes);
    benchmark::RegisterBenchmark(("axpy_f32/" + name + "_m1").c_str(), AxpyVlak<void(float, const float*, float*, size_t)>, vlak::kAxpyM1[i])->Apply(sizes);
    benchmark::RegisterBenchmark(("axpy_f32/" + name + "_m4").c_str(), AxpyVlak<void(float, const float*, float*, size_t)>, vlak::kAxpyM4[i])->Apply(sizes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
