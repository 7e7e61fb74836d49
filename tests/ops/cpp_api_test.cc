// The std::span overloads of vlak.hpp for the transformer operators: shape checks, and the same
// bits as the C calls they wrap.
#include <gtest/gtest.h>

#include <vector>

#include "ops/ops_test_util.h"
#include "vlak/vlak.hpp"

namespace {

using vlak_test::Normal;
using vlak_test::SameBits;

TEST(CppApi, NormsMatchTheCApiAndCheckShapes) {
  const size_t rows = 3, cols = 40;
  const auto x = Normal(rows * cols, 1.0f, 2.0f, 1);
  const auto gamma = Normal(cols, 1.0f, 0.3f, 2);
  std::vector<float> y(x.size()), yc(x.size()), mean(rows), rstd(rows);
  ASSERT_EQ(vlak::LayerNorm(x, y, cols, gamma, {}, 1e-5f, mean, rstd), VLAK_OK);
  ASSERT_EQ(vlak_layernorm_f32(rows, cols, x.data(), cols, gamma.data(), nullptr, 1e-5f, yc.data(), cols, nullptr,
                               nullptr),
            VLAK_OK);
  EXPECT_TRUE(SameBits(y.data(), yc.data(), y.size()));
  EXPECT_EQ(vlak::LayerNorm(x, y, 7), VLAK_ERROR_INVALID_ARGUMENT);  // 120 is not rows of 7
  EXPECT_EQ(vlak::LayerNorm(x, y, cols, std::span<const float>(gamma).first(3)), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::LayerNorm(x, y, cols, {}, {}, 1e-5f, std::span<float>(mean).first(2)), VLAK_ERROR_INVALID_ARGUMENT);

  const auto dy = Normal(x.size(), 0.0f, 1.0f, 3);
  std::vector<float> dx(x.size()), dxc(x.size()), dg(cols), dgc(cols);
  ASSERT_EQ(vlak::LayerNormBackward(dy, x, cols, gamma, mean, rstd, dx, dg), VLAK_OK);
  ASSERT_EQ(vlak_layernorm_backward_f32(rows, cols, dy.data(), x.data(), cols, gamma.data(), mean.data(), rstd.data(),
                                        dxc.data(), dgc.data(), nullptr),
            VLAK_OK);
  EXPECT_TRUE(SameBits(dx.data(), dxc.data(), dx.size()));
  EXPECT_TRUE(SameBits(dg.data(), dgc.data(), cols));
  EXPECT_EQ(vlak::LayerNormBackward(dy, x, cols, gamma, std::span<const float>(mean).first(1), rstd, dx),
            VLAK_ERROR_INVALID_ARGUMENT);

  ASSERT_EQ(vlak::RmsNorm(x, y, cols, gamma), VLAK_OK);
  ASSERT_EQ(vlak_rmsnorm_f32(rows, cols, x.data(), cols, gamma.data(), 1e-6f, yc.data(), cols), VLAK_OK);
  EXPECT_TRUE(SameBits(y.data(), yc.data(), y.size()));
  EXPECT_EQ(vlak::RmsNorm(x, std::span<float>(y).first(10), cols), VLAK_ERROR_INVALID_ARGUMENT);
}

TEST(CppApi, RopeMatchesTheCApiAndChecksShapes) {
  const size_t positions = 5, heads = 2, d = 24;
  std::vector<float> cos(positions * d / 2), sin(positions * d / 2);
  ASSERT_EQ(vlak_rope_tables_f32(positions, d, 10000.0, cos.data(), sin.data(), d / 2), VLAK_OK);
  const auto x = Normal(positions * heads * d, 0.0f, 1.0f, 4);
  std::vector<float> y(x.size()), yc(x.size());
  ASSERT_EQ(vlak::Rope(x, cos, sin, y, positions, heads, d, VLAK_ROPE_INTERLEAVED), VLAK_OK);
  ASSERT_EQ(vlak_rope_f32(positions, heads, d, x.data(), cos.data(), sin.data(), d / 2, yc.data(),
                          VLAK_ROPE_INTERLEAVED),
            VLAK_OK);
  EXPECT_TRUE(SameBits(y.data(), yc.data(), y.size()));
  EXPECT_EQ(vlak::Rope(x, std::span<const float>(cos).first(d), sin, y, positions, heads, d),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Rope(x, cos, sin, y, positions, heads + 1, d), VLAK_ERROR_INVALID_ARGUMENT);
}

}  // namespace
