// softmax_u8 / softmax_i8's RVV instruction budgets against TFLite's reference in plain C
// (tests/icount/icount_budget.h: how the count is taken; the budgets: softmax_i8_budgets.tsv).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

// src/ops/softmax_i8/softmax_i8_peer.c (TFLite's reference uint8 softmax in plain C), built by clang -O3
// -march=rv64gcv -fopenmp-simd (auto-vectorised).
extern "C" void vlak_ref_clang_softmax_u8(const uint8_t* x, uint8_t* y, size_t rows, size_t cols, int32_t multiplier,
                                          int left_shift, int diff_min);

namespace {

using namespace vlak_icount;

// softmax u8 on uniform bytes with input_scale 1/16: 16 rows of 1024 in both modes,
// and 64 rows of 64 (i8); beside them TFLite's reference in plain C (src/ops/softmax_i8/softmax_i8_peer.c,
// clang -O3 -march=rv64gcv auto-vectorised), which must give the TFLITE mode's bits.
TEST_F(IcountBudget, SoftmaxU8) {
  constexpr float kScale = 1.0f / 16;
  const auto run = [&](size_t rows, size_t cols, bool i8, unsigned flags) {
    std::mt19937 rng(11);
    const std::vector<uint8_t> x = UniformBytes<uint8_t>(rng, rows * cols);
    std::vector<uint8_t> y(rows * cols), y_ref(rows * cols);
    const auto call = [&] {
      if (i8) {
        return vlak_softmax_i8(rows, cols, reinterpret_cast<const int8_t*>(x.data()), cols, kScale,
                               reinterpret_cast<int8_t*>(y.data()), cols, flags);
      }
      return vlak_softmax_u8(rows, cols, x.data(), cols, kScale, y.data(), cols, flags);
    };
    const unsigned long long count = CountAfterWarmUp(call);  // the warm-up makes this thread's tables for the scale
    // TFLite's constants for 1/16 (multiplier 2^30, left shift 23, diff_min -248), as its Prepare gives them.
    const double elems = static_cast<double>(rows * cols);
    if (!i8) {
      const unsigned long long c_count =
          CountPeerAfterWarmUp([&] { vlak_ref_clang_softmax_u8(x.data(), y_ref.data(), rows, cols, 1 << 30, 23, -248); });
      if (flags == VLAK_SOFTMAX_I8_TFLITE) EXPECT_EQ(y, y_ref) << "TFLITE mode against TFLite's reference in C";
      std::printf("[ icount   ] softmax_u8 %zux%zu %s VLEN %4d: vlak %.3f per element, plain C clang -O3 %.3f: %.1fx fewer\n",
                  rows, cols, flags == VLAK_SOFTMAX_I8_LUT ? "LUT" : "TFLITE", Vlen(), static_cast<double>(count) / elems,
                  static_cast<double>(c_count) / elems, static_cast<double>(c_count) / static_cast<double>(count));
    }
    return count;
  };
  CheckBudget("softmax_u8/16x1024", run(16, 1024, false, VLAK_SOFTMAX_I8_TFLITE));
  CheckBudget("softmax_u8_lut/16x1024", run(16, 1024, false, VLAK_SOFTMAX_I8_LUT));
  CheckBudget("softmax_i8/64x64", run(64, 64, true, VLAK_SOFTMAX_I8_TFLITE));
}

}  // namespace
