// vlak_rmsnorm_f32 against the float64 reference (src/ops/rmsnorm/rmsnorm_reference.cc) on every
// target this CPU (or qemu) runs.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page), its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS) and CppApi
// (its std::span overloads against the C calls).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "ops/rmsnorm/rmsnorm.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

void Check(size_t rows, size_t cols, size_t x_stride, size_t y_stride, bool gamma_given, float mean, float sd,
           uint32_t seed) {
  SCOPED_TRACE(testing::Message() << "rows " << rows << " cols " << cols);
  const auto x = Normal((rows - 1) * x_stride + cols, mean, sd, seed);
  const auto gamma = Normal(cols, 1.0f, 0.5f, seed + 1);
  const float* g = gamma_given ? gamma.data() : nullptr;
  std::vector<float> y((rows - 1) * y_stride + cols, kSentinel);
  ASSERT_EQ(vlak_rmsnorm_f32(rows, cols, x.data(), x_stride, g, 1e-6f, y.data(), y_stride), VLAK_OK);
  std::vector<double> ref(cols);
  for (size_t r = 0; r < rows; ++r) {
    vlak::RmsNormReferenceF64(x.data() + r * x_stride, cols, g, 1e-6f, ref.data());
    for (size_t i = 0; i < cols; ++i) {
      const double gi = g != nullptr ? g[i] : 1.0;
      const double xhat = gi != 0 ? ref[i] / gi : 0;
      ASSERT_LE(std::fabs(y[r * y_stride + i] - ref[i]), 1e-5 * std::fabs(gi) * (1 + std::fabs(xhat)))
          << "row " << r << " col " << i;
    }
    for (size_t i = cols; r + 1 < rows && i < y_stride; ++i) ASSERT_EQ(y[r * y_stride + i], kSentinel);
  }
}

TEST(RmsNorm, OddSizesStridesGamma) {
  ForEachTarget([] {
    const size_t lanes = vlak_target_lanes(vlak_active_target(), 2, 4);
    uint32_t seed = 1;
    for (size_t cols : {size_t{1}, size_t{2}, lanes - 1, lanes, lanes + 1, size_t{101}, 16 * lanes + 7}) {
      Check(3, cols, cols + 4, cols + 1, true, 0.0f, 1.0f, seed++);
      Check(2, cols, cols, cols, false, 3.0f, 0.1f, seed++);
    }
  });
}

TEST(RmsNorm, MillionColumnsAndLargeValues) {
  ForEachTarget([] {
    const size_t n = vlak_test::kLongRow;
    Check(1, n, n, n, true, 0.5f, 1.0f, 21);
    Check(2, 257, 257, 257, true, 0.0f, 1e18f, 22);  // squares near the f32 limit: the f64 path
  });
}

TEST(RmsNorm, SpecialValuesAndInPlace) {
  ForEachTarget([] {
    const size_t cols = 19;
    std::vector<float> x = Normal(3 * cols, 0.0f, 1.0f, 31);
    x[3] = kNaN;
    x[cols + 7] = -kInf;
    std::vector<float> y(x.size());
    ASSERT_EQ(vlak_rmsnorm_f32(3, cols, x.data(), cols, nullptr, 0.0f, y.data(), cols), VLAK_OK);
    for (size_t i = 0; i < cols; ++i) {
      EXPECT_TRUE(std::isnan(y[i]));
      EXPECT_TRUE(std::isnan(y[cols + i]));
      EXPECT_TRUE(std::isfinite(y[2 * cols + i]));
    }
    std::vector<float> zero(cols, 0.0f), out(cols);
    ASSERT_EQ(vlak_rmsnorm_f32(1, cols, zero.data(), cols, nullptr, 0.0f, out.data(), cols), VLAK_OK);
    for (float v : out) EXPECT_TRUE(std::isnan(v)) << "0 * inf";
    std::vector<float> z = x;
    ASSERT_EQ(vlak_rmsnorm_f32(3, cols, z.data(), cols, nullptr, 0.0f, z.data(), cols), VLAK_OK);
    EXPECT_TRUE(vlak_test::SameBits(z.data(), y.data(), y.size()));
  });
}

// y at several offsets from x modulo 4 KiB: the output pass runs backward where y lies 1-511 bytes
// after x (x86, src/ops/output_strips.h); either order gives the same bits. So does the fused add,
// whose output pass reads its sum s. Rows longer than x86's rows-ahead limit (1024 columns).
TEST(RmsNorm, OutputPageOffsetsKeepTheBits) {
  ForEachTarget([] {
    for (size_t cols : {size_t{1100}, size_t{2053}}) {
      SCOPED_TRACE(testing::Message() << "cols " << cols);
      const size_t rows = 3, n = rows * cols;
      const auto src = Normal(n, 0.5f, 1.0f, 41);
      const auto res = Normal(n, 0.0f, 1.0f, 43);
      const auto gamma = Normal(cols, 1.0f, 0.5f, 42);
      std::vector<float> xb(n + 1024), yb(n + 2048), sb(n + 1024);
      float* const x = vlak_test::AtPageOffset(xb, 0);
      float* const s = vlak_test::AtPageOffset(sb, 0);
      std::copy(src.begin(), src.end(), x);
      std::vector<float> want, want_add;
      // 2 KiB first (forward), then 0 (forward), 16, 256 and 508 bytes (backward), -64 and -4 bytes.
      for (size_t off : {size_t{512}, size_t{0}, size_t{4}, size_t{64}, size_t{127}, size_t{1008}, size_t{1023}}) {
        SCOPED_TRACE(testing::Message() << "y at x + " << 4 * off << " bytes");
        float* const y = vlak_test::AtPageOffset(yb, off);
        ASSERT_EQ(vlak_rmsnorm_f32(rows, cols, x, cols, gamma.data(), 1e-6f, y, cols), VLAK_OK);
        if (want.empty()) want.assign(y, y + n);
        EXPECT_TRUE(vlak_test::SameBits(y, want.data(), n));
        ASSERT_EQ(vlak_add_rmsnorm_f32(rows, cols, x, cols, res.data(), cols, gamma.data(), 1e-6f, y, cols, s, cols),
                  VLAK_OK);
        if (want_add.empty()) want_add.assign(y, y + n);
        EXPECT_TRUE(vlak_test::SameBits(y, want_add.data(), n));
      }
    }
  });
}

TEST(RmsNorm, BadArgumentsWriteNothing) {
  std::vector<float> x(32, 1.0f), y(32, kSentinel);
  EXPECT_EQ(vlak_rmsnorm_f32(2, 8, nullptr, 8, nullptr, 0, y.data(), 8), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_rmsnorm_f32(2, 8, x.data(), 8, nullptr, 0, nullptr, 8), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_rmsnorm_f32(2, 8, x.data(), 8, nullptr, 0, y.data(), 7), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rmsnorm_f32(2, 8, x.data(), 8, nullptr, -1, y.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rmsnorm_f32(2, 8, x.data(), 8, nullptr, 0, x.data(), 16), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rmsnorm_f32(3, 8, x.data(), SIZE_MAX / 2, nullptr, 0, y.data(), 8), VLAK_ERROR_OVERFLOW);
  for (float v : y) EXPECT_EQ(v, kSentinel);
}

// Every length 1 .. MaxLength() (ops_test_util.h) with the inputs and outputs ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, RmsNorm) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      GuardedFloats x(2 * n), y(2 * n), gamma(n);
      ASSERT_EQ(vlak_rmsnorm_f32(2, n, x.data(), n, gamma.data(), 1e-6f, y.data(), n), VLAK_OK);
      ASSERT_TRUE(std::isfinite(y.data()[2 * n - 1])) << n;
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): the result may depend on the target
// (vlak.h), so it must equal the result alone on one of them.
VLAK_CONCURRENCY_JOBS(rmsnorm, in) {
  const size_t r = in.r, c = in.c;
  const auto x = in.x, g = in.g;
  return {vlak_test::FloatsJob(r * c, false,
                               [=](float* y) { return vlak_rmsnorm_f32(r, c, x->data(), c, g->data(), 1e-6f, y, c); })};
}

// vlak::RmsNorm (vlak.hpp): a shape check, and the same bits as the C call it wraps.
TEST(CppApi, RmsNormMatchesTheCApiAndChecksShapes) {
  const size_t rows = 3, cols = 40;
  const auto x = Normal(rows * cols, 1.0f, 2.0f, 1);
  const auto gamma = Normal(cols, 1.0f, 0.3f, 2);
  std::vector<float> y(x.size()), yc(x.size());
  ASSERT_EQ(vlak::RmsNorm(x, y, cols, gamma), VLAK_OK);
  ASSERT_EQ(vlak_rmsnorm_f32(rows, cols, x.data(), cols, gamma.data(), 1e-6f, yc.data(), cols), VLAK_OK);
  EXPECT_TRUE(SameBits(y.data(), yc.data(), y.size()));
  EXPECT_EQ(vlak::RmsNorm(x, std::span<float>(y).first(10), cols), VLAK_ERROR_INVALID_ARGUMENT);
}

}  // namespace
