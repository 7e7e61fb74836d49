// resize_bilinear_i8's RVV instruction budgets against AI-Benchmark's plain C
// (tests/icount/icount_budget.h: how the count is taken; the budgets: resize_budgets.tsv).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

// src/ops/resize/resize_peer.c (Terapines AI-Benchmark's 2x resize), built by clang -O3 -march=rv64gcv
// -fopenmp-simd (auto-vectorised).
extern "C" void vlak_ref_clang_resize2x_i8(const int8_t* src, int8_t* dst, size_t in_h, size_t in_w, size_t row_begin,
                                           size_t row_end);

namespace {

using namespace vlak_icount;

// Retired instructions of vlak_resize_bilinear_i8 at out = 2 in (AI-Benchmark's resize) and of
// its plain C loop (src/ops/resize/resize_peer.c) auto-vectorised by clang -O3 for rv64gcv, after
// checking both give the same bytes; with the half-pixel mapping (the gather path) for comparison.
// The taps and row buffers come from the buffer pool (ops/buffer_pool.h): after the warm-up call
// the counted one allocates nothing, so the count is the same whichever tests ran before.
struct ResizeCounts {
  unsigned long long vlak = 0, vlak_half = 0, plain_c = 0;
};
ResizeCounts CountResize2x(size_t channels, size_t h, size_t w) {
  const size_t oh = 2 * h, ow = 2 * w, outs = channels * oh * ow;
  std::vector<int8_t> src(channels * h * w), out(outs), out_ref(outs);
  std::mt19937 rng(9);
  for (int8_t& v : src) v = static_cast<int8_t>(rng() >> 24);
  ResizeCounts counts;
  auto vlak_call = [&](unsigned flags) {
    return vlak_resize_bilinear_i8(channels, h, w, src.data(), oh, ow, out.data(), flags);
  };
  vlak_status st = VLAK_OK;
  EXPECT_EQ(vlak_call(VLAK_RESIZE_HALF_PIXEL), VLAK_OK);  // warm-up
  counts.vlak_half = Count([&] { st = vlak_call(VLAK_RESIZE_HALF_PIXEL); });
  EXPECT_EQ(st, VLAK_OK);
  counts.vlak = Count([&] { st = vlak_call(VLAK_RESIZE_ASYMMETRIC); });
  EXPECT_EQ(st, VLAK_OK);
  counts.plain_c = Count([&] { vlak_ref_clang_resize2x_i8(src.data(), out_ref.data(), h, w, 0, channels * oh); });
  EXPECT_EQ(out, out_ref) << "vlak and AI-Benchmark's plain C differ";
  const double n = static_cast<double>(outs);
  std::printf("[ icount   ] resize_i8 %zux%zux%zu->%zux%zu VLEN %4d: vlak %llu (%.4f per output), half-pixel %llu "
              "(%.4f), plain C clang -O3 %llu (%.4f per output): %.2fx fewer\n",
              channels, h, w, oh, ow, Vlen(), counts.vlak, static_cast<double>(counts.vlak) / n, counts.vlak_half,
              static_cast<double>(counts.vlak_half) / n, counts.plain_c, static_cast<double>(counts.plain_c) / n,
              static_cast<double>(counts.plain_c) / static_cast<double>(counts.vlak));
  return counts;
}

// 3 planes of 32 x 96 to 64 x 192 (36,864 outputs), one thread. Goal: >= 2x fewer instructions
// per output than AI-Benchmark's plain C auto-vectorised by clang.
TEST_F(IcountBudget, ResizeSeed2x) {
  const ResizeCounts counts = CountResize2x(3, 32, 96);
  CheckBudget("resize_i8/3x32x96->64x192", counts.vlak);
  CheckBudget("resize_i8/half_pixel/3x32x96->64x192", counts.vlak_half);
  EXPECT_GE(static_cast<double>(counts.plain_c) / static_cast<double>(counts.vlak), 2.0)
      << "goal: >= 2x fewer instructions than AI-Benchmark's plain C";
}

// AI-Benchmark's shape, 3 x 512 x 512 to 1024 x 1024: slow under the plugin, so disabled; run with
//   scripts/rvv-run --vlen 128 build/rv64gcv/tests/vlak_icount_budget_test \
//     --gtest_also_run_disabled_tests --gtest_filter='*ResizeSeedShape*'
// Measured: vlak 531,947 / 307,819 / 195,753 at VLEN 128 / 256 / 512 (0.169 / 0.098 /
// 0.062 per output), half pixel 2,384,488 / 1,325,086 / 795,386, AI-Benchmark's plain C by clang
// 8,340,549 / 4,211,781 / 2,147,397: 15.7x / 13.7x / 11.0x more than vlak.
TEST_F(IcountBudget, DISABLED_ResizeSeedShape) { CountResize2x(3, 512, 512); }

}  // namespace
