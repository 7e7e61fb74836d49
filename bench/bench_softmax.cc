// softmax f32: vlak on each target the CPU has (auto, three-pass, two-pass) against a naive libm
// loop, XNNPACK and oneDNN, in one run. bytes_per_second counts 8 bytes per element (read x,
// write y), as the lab's softmax operator does; memcpy of the same bytes gives the roof.
// Single thread: run with OMP_NUM_THREADS=1 (scripts/bench does) so oneDNN uses one thread too.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ops/softmax/softmax.h"
#include "vlak/vlak.h"

#if defined(VLAK_HAVE_XNNPACK)
#include <xnnpack.h>
#endif
#if defined(VLAK_HAVE_ONEDNN)
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

struct Data {
  std::vector<float> x, y;
  Data(size_t rows, size_t cols) : x(rows * cols), y(rows * cols) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-10.0f, 10.0f);
    for (auto& v : x) v = u(rng);
  }
};

void SetBytes(benchmark::State& state, size_t elements) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * elements * 8));
  state.counters["elements"] = static_cast<double>(elements);
}

void Naive(benchmark::State& state, size_t rows, size_t cols) {
  Data d(rows, cols);
  for (auto _ : state) {
    for (size_t r = 0; r < rows; ++r) {
      const float* x = d.x.data() + r * cols;
      float* y = d.y.data() + r * cols;
      float m = x[0];
      for (size_t i = 1; i < cols; ++i) m = std::max(m, x[i]);
      float s = 0;
      for (size_t i = 0; i < cols; ++i) s += (y[i] = std::exp(x[i] - m));
      for (size_t i = 0; i < cols; ++i) y[i] /= s;
    }
    benchmark::ClobberMemory();
  }
  SetBytes(state, rows * cols);
}

void Vlak(benchmark::State& state, size_t rows, size_t cols, vlak_target target, vlak::SoftmaxAlgo algo,
          unsigned flags) {
  Data d(rows, cols);
  if (vlak_set_target(target) != VLAK_OK) return state.SkipWithError("target unavailable");
  vlak_set_num_threads(1);
  for (auto _ : state) {
    if (vlak::SoftmaxF32(rows, cols, d.x.data(), cols, d.y.data(), cols, flags, algo) != VLAK_OK) {
      return state.SkipWithError("softmax failed");
    }
    benchmark::ClobberMemory();
  }
  SetBytes(state, rows * cols);
}

// memcpy of the same 4-byte elements: its bandwidth / 12 bytes per element is the two-pass roof.
void Memcpy(benchmark::State& state, size_t rows, size_t cols) {
  Data d(rows, cols);
  for (auto _ : state) {
    std::memcpy(d.y.data(), d.x.data(), rows * cols * sizeof(float));
    benchmark::ClobberMemory();
  }
  SetBytes(state, rows * cols);  // 8 bytes per element: 4 read + 4 written, as for softmax
}

#if defined(VLAK_HAVE_XNNPACK)
void Xnnpack(benchmark::State& state, size_t rows, size_t cols) {
  Data d(rows, cols);
  if (xnn_initialize(nullptr) != xnn_status_success) return state.SkipWithError("xnn_initialize");
  xnn_operator_t op = nullptr;
  if (xnn_create_softmax_nc_f32(cols, cols, cols, 0, &op) != xnn_status_success) {
    return state.SkipWithError("xnn_create_softmax_nc_f32");
  }
  if (xnn_setup_softmax_nc_f32(op, rows, d.x.data(), d.y.data(), nullptr) != xnn_status_success) {
    return state.SkipWithError("xnn_setup_softmax_nc_f32");
  }
  for (auto _ : state) {
    xnn_run_operator(op, nullptr);
    benchmark::ClobberMemory();
  }
  xnn_delete_operator(op);
  SetBytes(state, rows * cols);
}
#endif

#if defined(VLAK_HAVE_ONEDNN)
void OneDnn(benchmark::State& state, size_t rows, size_t cols) {
  Data d(rows, cols);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const dnnl::memory::desc md({static_cast<dnnl::memory::dim>(rows), static_cast<dnnl::memory::dim>(cols)},
                              dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  dnnl::memory src(md, eng, d.x.data()), dst(md, eng, d.y.data());
  const dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md, 1);
  const dnnl::softmax_forward::primitive_desc pd(desc, eng);
  dnnl::softmax_forward prim(pd);
  for (auto _ : state) {
    prim.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    s.wait();
    benchmark::ClobberMemory();
  }
  SetBytes(state, rows * cols);
}
#endif

void Register() {
  struct Shape { size_t rows, cols; };
  std::vector<Shape> shapes;
  for (size_t cols : {256, 1024, 2048, 4096, 16384, 65536, 262144, 1 << 20, 1 << 22, 1 << 24}) shapes.push_back({1, cols});
  shapes.push_back({256, 2048});  // a batch of attention-sized rows
  shapes.push_back({64, 1000});   // classifier logits
  const auto name = [](const char* impl, Shape s) {
    return std::string("softmax/") + impl + "/" + std::to_string(s.rows) + "x" + std::to_string(s.cols);
  };
  for (Shape s : shapes) {
    const double min_time = s.rows * s.cols >= (1u << 22) ? 1.0 : 0.2;
    auto reg = [&](const std::string& n, auto fn) { benchmark::RegisterBenchmark(n.c_str(), fn)->MinTime(min_time)->UseRealTime(); };
    reg(name("memcpy", s), [s](benchmark::State& st) { Memcpy(st, s.rows, s.cols); });
    reg(name("naive_libm", s), [s](benchmark::State& st) { Naive(st, s.rows, s.cols); });
#if defined(VLAK_HAVE_XNNPACK)
    reg(name("xnnpack", s), [s](benchmark::State& st) { Xnnpack(st, s.rows, s.cols); });
#endif
#if defined(VLAK_HAVE_ONEDNN)
    reg(name("onednn", s), [s](benchmark::State& st) { OneDnn(st, s.rows, s.cols); });
#endif
    for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
      const auto target = static_cast<vlak_target>(t);
      if (!vlak_target_supported(target)) continue;
      const std::string tn = std::string("vlak_") + vlak_target_name(target);
      reg(name(tn.c_str(), s), [s, target](benchmark::State& st) { Vlak(st, s.rows, s.cols, target, vlak::SoftmaxAlgo::kAuto, 0); });
      if (target == VLAK_TARGET_SCALAR) continue;
      reg(name((tn + "_3pass").c_str(), s), [s, target](benchmark::State& st) { Vlak(st, s.rows, s.cols, target, vlak::SoftmaxAlgo::kThreePass, 0); });
      reg(name((tn + "_2pass").c_str(), s), [s, target](benchmark::State& st) { Vlak(st, s.rows, s.cols, target, vlak::SoftmaxAlgo::kTwoPass, 0); });
      reg(name((tn + "_fast").c_str(), s), [s, target](benchmark::State& st) { Vlak(st, s.rows, s.cols, target, vlak::SoftmaxAlgo::kAuto, VLAK_SOFTMAX_EXP_FAST); });
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
#if !defined(VLAK_HAVE_XNNPACK)
  std::fprintf(stderr, "bench_softmax: XNNPACK not built (install libxnnpack-dev libpthreadpool-dev)\n");
#endif
#if !defined(VLAK_HAVE_ONEDNN)
  std::fprintf(stderr, "bench_softmax: oneDNN not built (install libdnnl-dev)\n");
#endif
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
