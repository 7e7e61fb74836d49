// vlak_add_layernorm_f32 and vlak_add_rmsnorm_f32 on every target this CPU (or qemu) runs:
// the same bits as vlak_layernorm_f32 / vlak_rmsnorm_f32 on s = x + r (vlak.h's definition),
// within vlak.h's bound of the float64 references on s, sum = s bit for bit, in place, threads,
// special values and bad arguments. Also their GuardPages rows, concurrency jobs and CppApi rows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/layernorm/layernorm.h"
#include "ops/ops_test_util.h"
#include "ops/rmsnorm/rmsnorm.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

enum class Norm { kLayer, kRms };

struct Case {
  size_t rows, cols, x_stride, r_stride, y_stride, sum_stride;  // sum_stride 0: sum not asked for
  bool gamma, beta;
  uint32_t seed;
};

// The fused call against the two steps it is defined as: s = x + r in a float loop, then the
// plain norm on s. y and sum must be those bits, the gaps between rows untouched.
void CheckAgainstTwoSteps(Norm norm, const Case& c) {
  SCOPED_TRACE(testing::Message() << (norm == Norm::kLayer ? "layernorm" : "rmsnorm") << " rows " << c.rows
                                  << " cols " << c.cols << " sum " << c.sum_stride);
  const auto x = Normal((c.rows - 1) * c.x_stride + c.cols, 0.5f, 2.0f, c.seed);
  const auto r = Normal((c.rows - 1) * c.r_stride + c.cols, -0.25f, 1.0f, c.seed + 1);
  const auto gamma = Normal(c.cols, 1.0f, 0.3f, c.seed + 2);
  const auto beta = Normal(c.cols, 0.0f, 0.5f, c.seed + 3);
  const float* g = c.gamma ? gamma.data() : nullptr;
  const float* b = c.beta ? beta.data() : nullptr;
  std::vector<float> s(c.rows * c.cols), want(c.rows * c.cols);
  for (size_t i = 0; i < c.rows; ++i) {
    for (size_t j = 0; j < c.cols; ++j) s[i * c.cols + j] = x[i * c.x_stride + j] + r[i * c.r_stride + j];
  }
  const float eps = 1e-5f;
  if (norm == Norm::kLayer) {
    ASSERT_EQ(vlak_layernorm_f32(c.rows, c.cols, s.data(), c.cols, g, b, eps, want.data(), c.cols, nullptr, nullptr),
              VLAK_OK);
  } else {
    ASSERT_EQ(vlak_rmsnorm_f32(c.rows, c.cols, s.data(), c.cols, g, eps, want.data(), c.cols), VLAK_OK);
  }
  std::vector<float> y((c.rows - 1) * c.y_stride + c.cols, kSentinel);
  std::vector<float> sum(c.sum_stride ? (c.rows - 1) * c.sum_stride + c.cols : 0, kSentinel);
  float* sp = c.sum_stride ? sum.data() : nullptr;
  const vlak_status st =
      norm == Norm::kLayer
          ? vlak_add_layernorm_f32(c.rows, c.cols, x.data(), c.x_stride, r.data(), c.r_stride, g, b, eps, y.data(),
                                   c.y_stride, sp, c.sum_stride)
          : vlak_add_rmsnorm_f32(c.rows, c.cols, x.data(), c.x_stride, r.data(), c.r_stride, g, eps, y.data(),
                                 c.y_stride, sp, c.sum_stride);
  ASSERT_EQ(st, VLAK_OK);
  for (size_t i = 0; i < c.rows; ++i) {
    ASSERT_TRUE(SameBits(y.data() + i * c.y_stride, want.data() + i * c.cols, c.cols)) << "y, row " << i;
    for (size_t j = c.cols; i + 1 < c.rows && j < c.y_stride; ++j) ASSERT_EQ(y[i * c.y_stride + j], kSentinel);
    if (c.sum_stride == 0) continue;
    ASSERT_TRUE(SameBits(sum.data() + i * c.sum_stride, s.data() + i * c.cols, c.cols)) << "sum, row " << i;
    for (size_t j = c.cols; i + 1 < c.rows && j < c.sum_stride; ++j) ASSERT_EQ(sum[i * c.sum_stride + j], kSentinel);
  }
  // The float64 references on s, within vlak.h's bounds (an oracle independent of the kernels).
  std::vector<double> ref(c.cols);
  for (size_t i = 0; i < c.rows; ++i) {
    const float* si = s.data() + i * c.cols;
    double mean64 = 0, rstd64 = 0;
    if (norm == Norm::kLayer) {
      vlak::LayerNormReferenceF64(si, c.cols, g, b, eps, ref.data(), &mean64, &rstd64);
    } else {
      vlak::RmsNormReferenceF64(si, c.cols, g, eps, ref.data());
      double ms = 0;
      for (size_t j = 0; j < c.cols; ++j) ms += static_cast<double>(si[j]) * si[j] / static_cast<double>(c.cols);
      rstd64 = 1.0 / std::sqrt(ms + eps);
    }
    for (size_t j = 0; j < c.cols; ++j) {
      const double gj = g != nullptr ? g[j] : 1.0, bj = b != nullptr ? b[j] : 0.0;
      const double xhat = (si[j] - (norm == Norm::kLayer ? mean64 : 0.0)) * rstd64;
      const double bound = 1e-5 * (std::fabs(gj) * (1 + std::fabs(xhat)) + (norm == Norm::kLayer ? std::fabs(bj) : 0));
      ASSERT_LE(std::fabs(y[i * c.y_stride + j] - ref[j]), bound) << "row " << i << " col " << j;
    }
  }
}

TEST(AddNorm, SameBitsAsTheNormOfTheSum) {
  ForEachTarget([] {
    const size_t lanes = vlak_target_lanes(vlak_active_target(), 2, 4);
    uint32_t seed = 1;
    for (Norm norm : {Norm::kLayer, Norm::kRms}) {
      for (size_t cols : {size_t{1}, size_t{2}, lanes - 1, lanes, lanes + 1, size_t{101}, size_t{384},
                          16 * lanes + 7, size_t{5000}}) {
        CheckAgainstTwoSteps(norm, {3, cols, cols, cols, cols, 0, true, true, seed++});
        CheckAgainstTwoSteps(norm, {2, cols, cols + 3, cols + 1, cols + 5, cols + 2, true, false, seed++});
        CheckAgainstTwoSteps(norm, {1, cols, cols, cols, cols, cols, false, true, seed++});
      }
      // Many rows, the sums asked for and not.
      CheckAgainstTwoSteps(norm, {37, 384, 384, 390, 384, 384, true, true, seed++});
      CheckAgainstTwoSteps(norm, {23, 576, 580, 576, 577, 0, true, false, seed++});
    }
  });
}

TEST(AddNorm, SameBitsForEveryThreadCount) {
  ForEachTarget([] {
    const size_t rows = 96, cols = 1536;  // large enough to split over threads
    const auto x = Normal(rows * cols, 0.0f, 1.0f, 41), r = Normal(rows * cols, 0.0f, 1.0f, 42);
    const auto gamma = Normal(cols, 1.0f, 0.2f, 43), beta = Normal(cols, 0.0f, 0.2f, 44);
    std::vector<float> y1(x.size()), s1(x.size()), q1(x.size());
    const int before = vlak_get_num_threads();
    for (int threads : {1, 2, 3, 8}) {
      vlak_set_num_threads(threads);
      std::vector<float> y(x.size()), s(x.size()), q(x.size());
      ASSERT_EQ(vlak_add_layernorm_f32(rows, cols, x.data(), cols, r.data(), cols, gamma.data(), beta.data(), 1e-12f,
                                       y.data(), cols, s.data(), cols),
                VLAK_OK);
      ASSERT_EQ(vlak_add_rmsnorm_f32(rows, cols, x.data(), cols, r.data(), cols, gamma.data(), 1e-6f, q.data(), cols,
                                     nullptr, 0),
                VLAK_OK);
      if (threads == 1) {
        y1 = y, s1 = s, q1 = q;
        continue;
      }
      EXPECT_TRUE(SameBits(y.data(), y1.data(), y.size())) << threads;
      EXPECT_TRUE(SameBits(s.data(), s1.data(), s.size())) << threads;
      EXPECT_TRUE(SameBits(q.data(), q1.data(), q.size())) << threads;
    }
    vlak_set_num_threads(before);
  });
}

// y or sum in place of x or r (the residual stream updated in place: sum == x).
TEST(AddNorm, InPlace) {
  ForEachTarget([] {
    const size_t rows = 5, cols = 77;
    const auto x = Normal(rows * cols, 1.0f, 1.0f, 51), r = Normal(rows * cols, 0.0f, 3.0f, 52);
    const auto gamma = Normal(cols, 1.0f, 0.2f, 53);
    std::vector<float> y(x.size()), s(x.size()), q(x.size()), qs(x.size());
    ASSERT_EQ(vlak_add_layernorm_f32(rows, cols, x.data(), cols, r.data(), cols, gamma.data(), nullptr, 1e-5f,
                                     y.data(), cols, s.data(), cols),
              VLAK_OK);
    ASSERT_EQ(vlak_add_rmsnorm_f32(rows, cols, x.data(), cols, r.data(), cols, gamma.data(), 1e-5f, q.data(), cols,
                                   qs.data(), cols),
              VLAK_OK);
    for (int layout = 0; layout < 4; ++layout) {
      SCOPED_TRACE(layout);
      std::vector<float> xa = x, ra = r, other(x.size());
      // 0: y = x, sum = r; 1: y = r, sum = x; 2: y = x, no sum; 3: sum = x, y elsewhere.
      float* yp = layout == 0 || layout == 2 ? xa.data() : layout == 1 ? ra.data() : other.data();
      float* sp = layout == 0 ? ra.data() : layout == 1 || layout == 3 ? xa.data() : nullptr;
      ASSERT_EQ(vlak_add_layernorm_f32(rows, cols, xa.data(), cols, ra.data(), cols, gamma.data(), nullptr, 1e-5f, yp,
                                       cols, sp, cols),
                VLAK_OK);
      EXPECT_TRUE(SameBits(yp, y.data(), y.size()));
      if (sp != nullptr) EXPECT_TRUE(SameBits(sp, s.data(), s.size()));
      xa = x, ra = r;
      yp = layout == 0 || layout == 2 ? xa.data() : layout == 1 ? ra.data() : other.data();
      sp = layout == 0 ? ra.data() : layout == 1 || layout == 3 ? xa.data() : nullptr;
      ASSERT_EQ(vlak_add_rmsnorm_f32(rows, cols, xa.data(), cols, ra.data(), cols, gamma.data(), 1e-5f, yp, cols, sp,
                                     cols),
                VLAK_OK);
      EXPECT_TRUE(SameBits(yp, q.data(), q.size()));
      if (sp != nullptr) EXPECT_TRUE(SameBits(sp, qs.data(), qs.size()));
    }
  });
}

TEST(AddNorm, SpecialValues) {
  ForEachTarget([] {
    const size_t cols = 19;
    std::vector<float> x = Normal(4 * cols, 0.0f, 1.0f, 61), r = Normal(4 * cols, 0.0f, 1.0f, 62);
    x[2] = kInf, r[2] = -kInf;  // row 0: inf + -inf = NaN
    x[cols + 5] = kNaN;         // row 1: NaN
    r[2 * cols + 7] = kInf;     // row 2: inf
    std::vector<float> y(x.size()), q(x.size()), s(x.size());
    ASSERT_EQ(vlak_add_layernorm_f32(4, cols, x.data(), cols, r.data(), cols, nullptr, nullptr, 1e-5f, y.data(), cols,
                                     s.data(), cols),
              VLAK_OK);
    ASSERT_EQ(vlak_add_rmsnorm_f32(4, cols, x.data(), cols, r.data(), cols, nullptr, 1e-5f, q.data(), cols, nullptr, 0),
              VLAK_OK);
    EXPECT_TRUE(std::isnan(s[2]));
    EXPECT_EQ(s[2 * cols + 7], kInf);
    for (size_t row = 0; row < 4; ++row) {
      for (size_t i = 0; i < cols; ++i) {
        EXPECT_EQ(std::isnan(y[row * cols + i]), row < 3) << row;
        EXPECT_EQ(std::isnan(q[row * cols + i]), row < 3) << row;
      }
    }
  });
}

TEST(AddNorm, BadArgumentsWriteNothing) {
  std::vector<float> x(32, 1.0f), r(32, 2.0f), y(32, kSentinel), s(32, kSentinel);
  const auto layer = [&](size_t rows, size_t cols, const float* xp, size_t xs, const float* rp, size_t rs, float eps,
                         float* yp, size_t ys, float* sp, size_t ss) {
    return vlak_add_layernorm_f32(rows, cols, xp, xs, rp, rs, nullptr, nullptr, eps, yp, ys, sp, ss);
  };
  const auto rms = [&](size_t rows, size_t cols, const float* xp, size_t xs, const float* rp, size_t rs, float eps,
                       float* yp, size_t ys, float* sp, size_t ss) {
    return vlak_add_rmsnorm_f32(rows, cols, xp, xs, rp, rs, nullptr, eps, yp, ys, sp, ss);
  };
  for (int op = 0; op < 2; ++op) {
    const auto call = [&](auto&&... a) { return op == 0 ? layer(a...) : rms(a...); };
    float* X = x.data();
    EXPECT_EQ(call(2, 8, nullptr, 8, r.data(), 8, 0.0f, y.data(), 8, s.data(), 8), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(call(2, 8, X, 8, nullptr, 8, 0.0f, y.data(), 8, s.data(), 8), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 8, 0.0f, nullptr, 8, s.data(), 8), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(call(2, 8, X, 7, r.data(), 8, 0.0f, y.data(), 8, s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 7, 0.0f, y.data(), 8, s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 8, 0.0f, y.data(), 7, s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 8, 0.0f, y.data(), 8, s.data(), 7), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 8, -1.0f, y.data(), 8, s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 8, kNaN, y.data(), 8, s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 8, 0.0f, y.data(), 8, y.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, X, 8, r.data(), 8, 0.0f, y.data(), 16, y.data(), 16), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(3, 8, X, SIZE_MAX / 2, r.data(), 8, 0.0f, y.data(), 8, s.data(), 8), VLAK_ERROR_OVERFLOW);
    EXPECT_EQ(call(3, 8, X, 8, r.data(), 8, 0.0f, y.data(), 8, s.data(), SIZE_MAX / 2), VLAK_ERROR_OVERFLOW);
    for (float v : y) ASSERT_EQ(v, kSentinel);
    for (float v : s) ASSERT_EQ(v, kSentinel);
    // In place with another stride than the buffer it replaces.
    std::vector<float> xi = x, ri = r;
    EXPECT_EQ(call(2, 8, xi.data(), 8, r.data(), 8, 0.0f, xi.data(), 16, nullptr, 0), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 8, x.data(), 8, ri.data(), 16, 0.0f, y.data(), 8, ri.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(SameBits(xi.data(), x.data(), x.size()));
    EXPECT_TRUE(SameBits(ri.data(), r.data(), r.size()));
    for (float v : y) ASSERT_EQ(v, kSentinel);
    // Nothing to do: OK, nothing read or written.
    EXPECT_EQ(call(0, 8, nullptr, 8, nullptr, 8, 0.0f, nullptr, 8, nullptr, 0), VLAK_OK);
    EXPECT_EQ(call(2, 0, nullptr, 0, nullptr, 0, 0.0f, nullptr, 0, nullptr, 0), VLAK_OK);
  }
}

// Every length 1 .. MaxLength() (ops_test_util.h) with the inputs and outputs ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, AddNorm) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      GuardedFloats x(2 * n), r(2 * n), y(2 * n), s(2 * n), gamma(n), beta(n);
      ASSERT_EQ(vlak_add_layernorm_f32(2, n, x.data(), n, r.data(), n, gamma.data(), beta.data(), 1e-5f, y.data(), n,
                                       s.data(), n),
                VLAK_OK);
      ASSERT_TRUE(std::isfinite(y.data()[2 * n - 1])) << n;
      ASSERT_EQ(vlak_add_rmsnorm_f32(2, n, x.data(), n, r.data(), n, gamma.data(), 1e-5f, y.data(), n, s.data(), n),
                VLAK_OK);
      ASSERT_TRUE(std::isfinite(y.data()[2 * n - 1])) << n;
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc), with x as its own residual
// (s = 2x); the norms' results may depend on the target (vlak.h).
VLAK_CONCURRENCY_JOBS(add_norm, in) {
  const size_t rows = in.r, cols = in.c;
  const auto x = in.x, g = in.g;
  return {vlak_test::FloatsJob(2 * rows * cols, false,
                               [=](float* out) {
                                 return vlak_add_layernorm_f32(rows, cols, x->data(), cols, x->data(), cols, g->data(),
                                                               nullptr, 1e-5f, out, cols, out + rows * cols, cols);
                               }),
          vlak_test::FloatsJob(rows * cols, false, [=](float* out) {
            return vlak_add_rmsnorm_f32(rows, cols, x->data(), cols, x->data(), cols, g->data(), 1e-6f, out, cols,
                                        nullptr, 0);
          })};
}

// vlak::AddLayerNorm / vlak::AddRmsNorm (vlak.hpp): shape checks, and the same bits as the C calls.
TEST(CppApi, AddNormMatchesTheCApiAndChecksShapes) {
  const size_t rows = 3, cols = 40;
  const auto x = Normal(rows * cols, 1.0f, 2.0f, 1), r = Normal(rows * cols, 0.0f, 1.0f, 2);
  const auto gamma = Normal(cols, 1.0f, 0.3f, 3), beta = Normal(cols, 0.0f, 0.3f, 4);
  std::vector<float> y(x.size()), yc(x.size()), s(x.size()), sc(x.size());
  ASSERT_EQ(vlak::AddLayerNorm(x, r, y, cols, gamma, beta, 1e-5f, s), VLAK_OK);
  ASSERT_EQ(vlak_add_layernorm_f32(rows, cols, x.data(), cols, r.data(), cols, gamma.data(), beta.data(), 1e-5f,
                                   yc.data(), cols, sc.data(), cols),
            VLAK_OK);
  EXPECT_TRUE(SameBits(y.data(), yc.data(), y.size()));
  EXPECT_TRUE(SameBits(s.data(), sc.data(), s.size()));
  ASSERT_EQ(vlak::AddRmsNorm(x, r, y, cols, gamma), VLAK_OK);
  ASSERT_EQ(vlak_add_rmsnorm_f32(rows, cols, x.data(), cols, r.data(), cols, gamma.data(), 1e-6f, yc.data(), cols,
                                 nullptr, 0),
            VLAK_OK);
  EXPECT_TRUE(SameBits(y.data(), yc.data(), y.size()));
  EXPECT_EQ(vlak::AddLayerNorm(x, std::span<const float>(r).first(10), y, cols), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::AddRmsNorm(x, r, y, cols, {}, 1e-6f, std::span<float>(s).first(7)), VLAK_ERROR_INVALID_ARGUMENT);
}

}  // namespace
