// vlak_exp_f32 through the C API: argument errors, names, and the same bits on every target this
// machine (or qemu) runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "vlak/vlak.h"

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(ExpApi, Names) {
  EXPECT_STREQ(vlak_exp_variant_name(VLAK_EXP_SCHRAUDOLPH), "schraudolph");
  EXPECT_STREQ(vlak_exp_variant_name(VLAK_EXP_BITTRICK_P3), "bittrick_p3");
  EXPECT_STREQ(vlak_exp_variant_name(VLAK_EXP_BITTRICK_P5), "bittrick_p5");
  EXPECT_STREQ(vlak_exp_variant_name(VLAK_EXP_CEPHES), "cephes");
  EXPECT_STREQ(vlak_exp_variant_name(VLAK_EXP_ACCURATE), "accurate");
  EXPECT_STREQ(vlak_exp_variant_name(VLAK_EXP_PRECISE), "precise");
  EXPECT_EQ(vlak_exp_variant_name(static_cast<vlak_exp_variant>(6)), nullptr);
  EXPECT_EQ(vlak_exp_variant_name(static_cast<vlak_exp_variant>(-1)), nullptr);
}

TEST(ExpApi, Errors) {
  float x[4] = {0, 1, 2, 3}, y[4] = {9, 9, 9, 9};
  EXPECT_EQ(vlak_exp_f32(4, nullptr, y, VLAK_EXP_ACCURATE), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_exp_f32(4, x, nullptr, VLAK_EXP_ACCURATE), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_exp_f32(4, x, y, static_cast<vlak_exp_variant>(6)), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_exp_f32(4, x, y, static_cast<vlak_exp_variant>(-1)), VLAK_ERROR_INVALID_ARGUMENT);
  for (float v : y) EXPECT_EQ(v, 9.0f) << "nothing written on error";
  // n == 0: nothing to read or write, so null pointers are fine.
  EXPECT_EQ(vlak_exp_f32(0, nullptr, nullptr, VLAK_EXP_ACCURATE), VLAK_OK);
  EXPECT_EQ(vlak_exp_f32(4, x, y, VLAK_EXP_ACCURATE), VLAK_OK);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(vlak_exp_f32(4, x, x, VLAK_EXP_PRECISE), VLAK_OK);  // in place
  EXPECT_EQ(x[0], 1.0f);
}

// Every variant gives the same bits on every supported target (the vector layer is bit-exact).
TEST(ExpApi, SameBitsOnEveryTarget) {
  const size_t n = 4099;
  std::vector<float> x(n);
  uint32_t s = 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    uint32_t bits = s;
    std::memcpy(&x[i], &bits, 4);  // any bit pattern: NaNs, infinities, denormals, huge values
    if (i % 3 == 0) x[i] = static_cast<float>(static_cast<int32_t>(s) >> 8) * 0x1p-16f;
  }
  x[0] = -kInf;
  x[1] = kInf;
  const vlak_target saved = vlak_active_target();
  for (int v = VLAK_EXP_SCHRAUDOLPH; v <= VLAK_EXP_PRECISE; ++v) {
    const auto variant = static_cast<vlak_exp_variant>(v);
    ASSERT_EQ(vlak_set_target(VLAK_TARGET_SCALAR), VLAK_OK);
    std::vector<float> want(n);
    ASSERT_EQ(vlak_exp_f32(n, x.data(), want.data(), variant), VLAK_OK);
    for (int t = VLAK_TARGET_AVX2; t <= VLAK_TARGET_RVV; ++t) {
      const auto target = static_cast<vlak_target>(t);
      if (!vlak_target_supported(target)) continue;
      ASSERT_EQ(vlak_set_target(target), VLAK_OK);
      std::vector<float> got(n);
      ASSERT_EQ(vlak_exp_f32(n, x.data(), got.data(), variant), VLAK_OK);
      for (size_t i = 0; i < n; ++i) {
        const bool same = (std::isnan(got[i]) && std::isnan(want[i])) || std::memcmp(&got[i], &want[i], 4) == 0;
        ASSERT_TRUE(same) << vlak_exp_variant_name(variant) << " on " << vlak_target_name(target) << " x=" << x[i]
                          << ": " << got[i] << " vs scalar " << want[i];
      }
    }
  }
  ASSERT_EQ(vlak_set_target(saved), VLAK_OK);
}

}  // namespace
