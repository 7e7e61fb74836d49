// correlation_i8's RVV instruction budgets, beside AI-Benchmark's plain C (tests/icount/icount_budget.h:
// how the count is taken; the budgets: correlation_budgets.tsv).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

// src/ops/correlation/correlation_peer.c, built by clang -O3 -march=rv64gcv -fopenmp-simd
// (AI-Benchmark's loops in plain C, auto-vectorised).
extern "C" void vlak_ref_clang_correlation_i8(const int8_t* a, const int8_t* b, int8_t* out, size_t q0, size_t q1,
                                              size_t channels, size_t height, size_t width, unsigned shift);
extern "C" void vlak_ref_clang_correlation_wrap16_i8(const int8_t* a, const int8_t* b, int8_t* out, size_t q0,
                                                     size_t q1, size_t channels, size_t height, size_t width,
                                                     unsigned shift);

namespace {

using namespace vlak_icount;

// One thread, against AI-Benchmark's loops in plain C (src/ops/correlation/correlation_peer.c)
// auto-vectorised by clang-19 -O3 -march=rv64gcv on the same counter, after checking both give the
// same bytes. Goal: >= 2x fewer instructions.
//   5 x 58 x 4 x 88 (AI-Benchmark's displacements, channels and width; 4 of its 112 rows),
//   default and WRAP16.
TEST_F(IcountBudget, Correlation) {
  constexpr size_t kD = 5, kK = 58, kRows = 4, kCols = 88, kOut = kD * kRows * kCols;
  // The bytes the budgets were counted on: mt19937(9) past the 32,768 draws that give warp's budget
  // test its 3 x 8 x 1024 pixels and 8 x 1024 offsets (src/ops/warp/warp_icount.cc), discarded here.
  std::mt19937 rng(9);
  rng.discard(3 * 8 * 1024 + 8 * 1024);
  const std::vector<int8_t> a = UniformBytes<int8_t>(rng, kK * kRows * kCols), b = UniformBytes<int8_t>(rng, kK * kRows * kCols);
  std::vector<int8_t> out(kOut), out_ref(kOut);
  const auto measure = [&](const char* name, bool wrap16) {
    unsigned long long vlak = 0;
    ASSERT_NO_FATAL_FAILURE(CountAfterWarmUp(
        [&] {
          return vlak_correlation_i8(kD, kK, kRows, kCols, a.data(), b.data(), 10, out.data(),
                                     wrap16 ? VLAK_CORRELATION_WRAP16 : 0);
        },
        vlak));
    const unsigned long long plain = CountPeerAfterWarmUp([&] {
      (wrap16 ? vlak_ref_clang_correlation_wrap16_i8 : vlak_ref_clang_correlation_i8)(
          a.data(), b.data(), out_ref.data(), 0, kD * kRows, kK, kRows, kCols, 10);
    });
    ASSERT_EQ(out, out_ref);
    ReportAgainstPlainC(name, vlak, plain, kOut, 2.0, /*enforce_goal=*/true);
  };
  measure("correlation_i8/5x58x4x88", false);
  measure("correlation_i8/wrap16", true);
}

}  // namespace
