// rmsnorm_f32's RVV instruction budget at 32768 elements, beside AI-Benchmark's plain C
// (tests/icount/icount_budget.h: how the count is taken; the budgets: rmsnorm_budgets.tsv).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

// 16 x 2048, gamma given, one thread. AI-Benchmark's plain C (src/ops/rmsnorm/rmsnorm_peer.c)
// auto-vectorised by clang-19 -O3 -march=rv64gcv retires 1.89 / 0.95 / 0.49 per element at VLEN
// 128 / 256 / 512; this budget is 1.75-2.10x fewer.
TEST_F(IcountBudget, RmsNorm) {
  constexpr size_t kRows = 16, kCols = 2048, kElems = kRows * kCols;
  std::mt19937 rng(8);
  const std::vector<float> x = Uniform(rng, kElems, -2.0f, 2.0f), gamma = Periodic(kCols, 1.0f, 0.01f, 7);
  std::vector<float> y(kElems);
  MeasurePerElement("rmsnorm_f32/16x2048", kElems, [&] {
    return vlak_rmsnorm_f32(kRows, kCols, x.data(), kCols, gamma.data(), 1e-6f, y.data(), kCols);
  });
}

}  // namespace
