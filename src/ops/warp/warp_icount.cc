// warp_i8's RVV instruction budget, beside AI-Benchmark's plain C (tests/icount/icount_budget.h: how
// the count is taken; the budgets: warp_budgets.tsv).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

// src/ops/warp/warp_peer.c, built by clang -O3 -march=rv64gcv -fopenmp-simd (AI-Benchmark's loops in
// plain C, auto-vectorised).
extern "C" void vlak_ref_clang_warp_i8(const int8_t* src, const int16_t* offsets, int8_t* dst, size_t row0, size_t rows,
                                       size_t height, size_t width);

namespace {

using namespace vlak_icount;

// One thread, against AI-Benchmark's loops in plain C (src/ops/warp/warp_peer.c) auto-vectorised by
// clang-19 -O3 -march=rv64gcv on the same counter, after checking both give the same bytes. Goal: >= 2x
// fewer instructions.
//   3 x 8 x 1024 (CHANNELSxHEIGHTxWIDTH, 24,576 outputs; AI-Benchmark runs 1024 x 1024 x 3 rows
//   of the same kind); offsets n in -16..16, any low byte.
TEST_F(IcountBudget, Warp) {
  constexpr size_t kC = 3, kH = 8, kW = 1024, kPixels = kC * kH * kW;
  std::mt19937 rng(9);
  const std::vector<int8_t> src = UniformBytes<int8_t>(rng, kPixels);
  std::vector<int8_t> dst(kPixels), dst_ref(kPixels);
  std::vector<int16_t> offsets(kH * kW);
  for (int16_t& v : offsets) v = static_cast<int16_t>(static_cast<int>(rng() % (33 * 256)) - 16 * 256);
  unsigned long long vlak = 0;
  ASSERT_NO_FATAL_FAILURE(
      CountAfterWarmUp([&] { return vlak_warp_i8(kC, kH, kW, src.data(), offsets.data(), dst.data()); }, vlak));
  const unsigned long long plain = CountPeerAfterWarmUp(
      [&] { vlak_ref_clang_warp_i8(src.data(), offsets.data(), dst_ref.data(), 0, kC * kH, kH, kW); });
  ASSERT_EQ(dst, dst_ref);
  // At least 2x fewer instructions than clang's auto-vectorised plain C (figures: docs/ops/warp.md).
  // VLEN 512 is the closest: a 1024-column row is only 8 strips there, so the widened copy of the
  // row and the row's fixed costs weigh most.
  ReportAgainstPlainC("warp_i8/3x8x1024", vlak, plain, kPixels, 2.0, /*enforce_goal=*/true);
}

}  // namespace
