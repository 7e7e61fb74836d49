// rope_f32's RVV instruction budget at 32768 elements, beside AI-Benchmark's plain C
// (tests/icount/icount_budget.h: how the count is taken; the budgets: rope_budgets.tsv).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

// 16 positions x 16 heads x 128, base 10000, one thread. AI-Benchmark's plain C
// (src/ops/rope/rope_peer.c) auto-vectorised by clang-19 -O3 -march=rv64gcv retires 1.46 / 0.81 /
// 0.48 per element at VLEN 128 / 256 / 512; this budget is 1.75-2.10x fewer.
TEST_F(IcountBudget, Rope) {
  constexpr size_t kPositions = 16, kHeads = 16, kDim = 128, kElems = kPositions * kHeads * kDim;
  std::mt19937 rng(8);
  const std::vector<float> x = Uniform(rng, kElems, -2.0f, 2.0f);
  std::vector<float> y(kElems), cos(kPositions * kDim / 2), sin(kPositions * kDim / 2);
  ASSERT_EQ(vlak_rope_tables_f32(kPositions, kDim, 10000.0, cos.data(), sin.data(), kDim / 2), VLAK_OK);
  MeasurePerElement("rope_f32/16x16x128", kElems, [&] {
    return vlak_rope_f32(kPositions, kHeads, kDim, x.data(), cos.data(), sin.data(), kDim / 2, y.data(), 0);
  });
}

}  // namespace
