// rmsnorm_f32's RVV instruction budget at 32768 elements, beside AI-Benchmark's plain C
// (tests/icount/icount_budget.h: how the count is taken).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

constexpr Budget kBudgets[] = {
    // case                       VLEN 128    256    512
    {"rmsnorm_f32/16x2048",          26791, 13863,  7399},
};

// X60 cycles (icount_budget.h): set by scripts/rvv-cycles --budgets --write, only down.
constexpr CycleBudget kCycleBudgets[] = {
    {"rmsnorm_f32/16x2048",                       52007},
};
const bool kRegistered = RegisterBudgets(kBudgets) && RegisterCycleBudgets(kCycleBudgets);

// 16 x 2048, gamma given, one thread. AI-Benchmark's plain C (src/ops/rmsnorm/rmsnorm_peer.c)
// auto-vectorised by clang-19 -O3 -march=rv64gcv retires 1.89 / 0.95 / 0.49 per element at VLEN
// 128 / 256 / 512; this budget is 1.75-2.10x fewer.
TEST_F(IcountBudget, RmsNorm) {
  constexpr size_t kRows = 16, kCols = 2048, kElems = kRows * kCols;
  std::vector<float> x(kElems), y(kElems), gamma(kCols);
  std::mt19937 rng(8);
  for (float& v : x) v = static_cast<float>(rng() >> 8) * 0x1p-24f * 4 - 2;
  for (size_t i = 0; i < kCols; ++i) gamma[i] = 1.0f + static_cast<float>(i % 7) * 0.01f;
  MeasurePerElement("rmsnorm_f32/16x2048", kElems, [&] {
    return vlak_rmsnorm_f32(kRows, kCols, x.data(), kCols, gamma.data(), 1e-6f, y.data(), kCols);
  });
}

}  // namespace
