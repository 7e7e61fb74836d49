// rope_f32's RVV instruction budget at 32768 elements, beside AI-Benchmark's plain C
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
    // RoPE takes one divide per position instead of per row (-794 / -794 / -794; a divide is one
    // instruction here but tens of cycles on in-order cores).
    {"rope_f32/16x16x128",           15954,  8274,  4434},
};

// X60 cycles (icount_budget.h): set by scripts/rvv-cycles --budgets --write, only down.
constexpr CycleBudget kCycleBudgets[] = {
    {"rope_f32/16x16x128",                        27920},
};
const bool kRegistered = RegisterBudgets(kBudgets) && RegisterCycleBudgets(kCycleBudgets);

// 16 positions x 16 heads x 128, base 10000, one thread. AI-Benchmark's plain C
// (src/ops/rope/rope_peer.c) auto-vectorised by clang-19 -O3 -march=rv64gcv retires 1.46 / 0.81 /
// 0.48 per element at VLEN 128 / 256 / 512; this budget is 1.75-2.10x fewer.
TEST_F(IcountBudget, Rope) {
  constexpr size_t kPositions = 16, kHeads = 16, kDim = 128, kElems = kPositions * kHeads * kDim;
  std::vector<float> x(kElems), y(kElems);
  std::mt19937 rng(8);
  for (float& v : x) v = static_cast<float>(rng() >> 8) * 0x1p-24f * 4 - 2;
  std::vector<float> cos(kPositions * kDim / 2), sin(kPositions * kDim / 2);
  ASSERT_EQ(vlak_rope_tables_f32(kPositions, kDim, 10000.0, cos.data(), sin.data(), kDim / 2), VLAK_OK);
  MeasurePerElement("rope_f32/16x16x128", kElems, [&] {
    return vlak_rope_f32(kPositions, kHeads, kDim, x.data(), cos.data(), sin.data(), kDim / 2, y.data(), 0);
  });
}

}  // namespace
