// layernorm_f32's and layernorm_backward_f32's RVV instruction budgets at 32768 elements, beside
// AI-Benchmark's plain C (tests/icount/icount_budget.h: how the count is taken; the budgets:
// layernorm_budgets.tsv).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

// 16 x 2048 (AI-Benchmark sweeps 256..2048 rows of 512..8192), gamma/beta given, one thread; the
// backward takes the forward's mean and rstd. AI-Benchmark's plain C (src/ops/layernorm/layernorm_peer.c)
// auto-vectorised by clang-19 -O3 -march=rv64gcv retires per element at VLEN 128 / 256 / 512:
// layernorm 3.02 / 1.52 / 0.77, backward 4.90 / 2.46 / 1.24; these budgets are 1.75-2.10x fewer.
TEST_F(IcountBudget, LayerNorm) {
  constexpr size_t kRows = 16, kCols = 2048, kElems = kRows * kCols;
  std::mt19937 rng(8);
  const std::vector<float> x = Uniform(rng, kElems, -2.0f, 2.0f), dy = Uniform(rng, kElems, -0.5f, 0.5f);
  const std::vector<float> gamma = Periodic(kCols, 1.0f, 0.01f, 7), beta = Periodic(kCols, 0.0f, 0.1f, 5);
  std::vector<float> y(kElems), dx(kElems), mean(kRows), rstd(kRows), dgamma(kCols), dbeta(kCols);
  MeasurePerElement("layernorm_f32/16x2048", kElems, [&] {
    return vlak_layernorm_f32(kRows, kCols, x.data(), kCols, gamma.data(), beta.data(), 1e-5f, y.data(), kCols,
                              mean.data(), rstd.data());
  });
  MeasurePerElement("layernorm_bwd_f32/16x2048", kElems, [&] {
    return vlak_layernorm_backward_f32(kRows, kCols, dy.data(), x.data(), kCols, gamma.data(), mean.data(),
                                       rstd.data(), dx.data(), dgamma.data(), dbeta.data());
  });
}

}  // namespace
