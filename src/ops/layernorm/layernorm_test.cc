// vlak_layernorm_f32 and vlak_layernorm_backward_f32 against the float64 reference
// (src/ops/layernorm/layernorm_reference.cc) on every target this CPU (or qemu) runs.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page), its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS) and CppApi
// (its std::span overloads against the C calls).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/layernorm/layernorm.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

struct Case {
  size_t rows, cols, x_stride, y_stride;
  bool gamma, beta;
};

// Runs one forward case and checks every element against vlak.h's bound, mean and rstd within
// 1e-6 relative (the mean relative to |mean| + sd: a mean near 0 has no relative precision), and
// that the gaps between rows of y are untouched.
void CheckForward(const Case& c, float offset, float sd, uint32_t seed, float eps = 1e-5f) {
  SCOPED_TRACE(testing::Message() << "rows " << c.rows << " cols " << c.cols << " offset " << offset);
  const auto x = Normal((c.rows - 1) * c.x_stride + c.cols, offset, sd, seed);
  const auto gamma = Normal(c.cols, 1.0f, 0.5f, seed + 1);
  const auto beta = Normal(c.cols, 0.0f, 2.0f, seed + 2);
  std::vector<float> y((c.rows - 1) * c.y_stride + c.cols, kSentinel), mean(c.rows), rstd(c.rows);
  ASSERT_EQ(vlak_layernorm_f32(c.rows, c.cols, x.data(), c.x_stride, c.gamma ? gamma.data() : nullptr,
                               c.beta ? beta.data() : nullptr, eps, y.data(), c.y_stride, mean.data(), rstd.data()),
            VLAK_OK);
  std::vector<double> ref(c.cols);
  size_t bad = 0;
  for (size_t r = 0; r < c.rows && bad < 5; ++r) {
    double m64, r64;
    vlak::LayerNormReferenceF64(x.data() + r * c.x_stride, c.cols, c.gamma ? gamma.data() : nullptr,
                                c.beta ? beta.data() : nullptr, eps, ref.data(), &m64, &r64);
    const double sd64 = 1.0 / r64;
    EXPECT_LE(std::fabs(mean[r] - m64), 1e-6 * (std::fabs(m64) + sd64)) << "row " << r;
    EXPECT_LE(std::fabs(rstd[r] - r64), 1e-6 * r64) << "row " << r;
    for (size_t i = 0; i < c.cols && bad < 5; ++i) {
      const double g = c.gamma ? gamma[i] : 1.0, b = c.beta ? beta[i] : 0.0;
      const double xhat = (x[r * c.x_stride + i] - m64) * r64;
      const double bound = 1e-5 * (std::fabs(g) * (1 + std::fabs(xhat)) + std::fabs(b));
      const double err = std::fabs(y[r * c.y_stride + i] - ref[i]);
      if (!(err <= bound)) {
        ++bad;
        ADD_FAILURE() << "row " << r << " col " << i << " y " << y[r * c.y_stride + i] << " ref " << ref[i];
      }
    }
    if (r + 1 < c.rows) {
      for (size_t i = c.cols; i < c.y_stride; ++i) ASSERT_EQ(y[r * c.y_stride + i], kSentinel) << "gap after row " << r;
    }
  }
}

TEST(LayerNorm, OddSizesStridesAndOptionalParameters) {
  ForEachTarget([] {
    const size_t lanes = vlak_target_lanes(vlak_active_target(), 2, 4);
    uint32_t seed = 1;
    for (size_t cols : {size_t{1}, size_t{2}, size_t{3}, lanes - 1, lanes, lanes + 1, size_t{97}, 16 * lanes + 3,
                        size_t{1021}}) {
      for (int opt = 0; opt < 4; ++opt) {
        CheckForward({3, cols, cols + 5, cols + 2, (opt & 1) != 0, (opt & 2) != 0}, 0.0f, 1.0f, seed++);
      }
      // Pairs of rows one pair ahead (x86), and the odd row after them.
      CheckForward({7, cols, cols + 5, cols + 2, true, true}, 0.0f, 1.0f, seed++);
    }
  });
}

TEST(LayerNorm, LargeCommonOffsetAndOutlierShift) {
  ForEachTarget([] {
    // x = 1e4 + N(0, 1): E[x^2] - E[x]^2 in f32 loses every digit here.
    CheckForward({4, 4096, 4096, 4096, true, true}, 1e4f, 1.0f, 11);
    CheckForward({2, 33, 33, 33, true, false}, -3e5f, 0.5f, 12);
    // The shift samples hit outliers: elements at the sampled positions far from the rest.
    std::vector<float> x = Normal(1024, 0.0f, 1.0f, 13);
    for (size_t j = 0; j < 16; ++j) x[j * 1024 / 16] = 1e3f;
    std::vector<float> y(1024), ref(1024);
    float mean, rstd;
    ASSERT_EQ(vlak_layernorm_f32(1, 1024, x.data(), 1024, nullptr, nullptr, 0.0f, y.data(), 1024, &mean, &rstd),
              VLAK_OK);
    std::vector<double> r64(1024);
    double m64, s64;
    vlak::LayerNormReferenceF64(x.data(), 1024, nullptr, nullptr, 0.0f, r64.data(), &m64, &s64);
    EXPECT_LE(std::fabs(rstd - s64), 1e-6 * s64);
    for (size_t i = 0; i < 1024; ++i) ASSERT_LE(std::fabs(y[i] - r64[i]), 1e-5 * (1 + std::fabs(r64[i]))) << i;
  });
}

TEST(LayerNorm, MillionColumns) {
  ForEachTarget([] {
    const size_t n = vlak_test::kLongRow;
    CheckForward({1, n, n, n, true, true}, 3.0f, 2.0f, 21);
  });
}

TEST(LayerNorm, InPlaceEqualsOutOfPlace) {
  ForEachTarget([] {
    const auto x = Normal(5 * 300, 1.0f, 3.0f, 31);
    const auto gamma = Normal(300, 1.0f, 0.5f, 32);
    std::vector<float> y(x.size()), z = x;
    ASSERT_EQ(vlak_layernorm_f32(5, 300, x.data(), 300, gamma.data(), nullptr, 1e-5f, y.data(), 300, nullptr, nullptr),
              VLAK_OK);
    ASSERT_EQ(vlak_layernorm_f32(5, 300, z.data(), 300, gamma.data(), nullptr, 1e-5f, z.data(), 300, nullptr, nullptr),
              VLAK_OK);
    EXPECT_TRUE(vlak_test::SameBits(y.data(), z.data(), y.size()));
  });
}

// y at several offsets from x modulo 4 KiB: the output pass runs backward where y lies 1-511 bytes
// after x (x86, src/ops/output_strips.h); either order gives the same bits. Rows longer than
// x86's row pairs (1024 columns), and an odd row count (the last row alone).
TEST(LayerNorm, OutputPageOffsetsKeepTheBits) {
  ForEachTarget([] {
    for (size_t cols : {size_t{300}, size_t{1100}, size_t{2053}}) {
      SCOPED_TRACE(testing::Message() << "cols " << cols);
      const size_t rows = 3, n = rows * cols;
      const auto src = Normal(n, 1.0f, 3.0f, 51);
      const auto gamma = Normal(cols, 1.0f, 0.5f, 52);
      const auto beta = Normal(cols, 0.0f, 0.5f, 53);
      std::vector<float> xb(n + 1024), yb(n + 2048);
      float* const x = vlak_test::AtPageOffset(xb, 0);
      std::copy(src.begin(), src.end(), x);
      std::vector<float> want;
      for (size_t off : {size_t{512}, size_t{0}, size_t{4}, size_t{64}, size_t{127}, size_t{1008}, size_t{1023}}) {
        SCOPED_TRACE(testing::Message() << "y at x + " << 4 * off << " bytes");
        float* const y = vlak_test::AtPageOffset(yb, off);
        ASSERT_EQ(vlak_layernorm_f32(rows, cols, x, cols, gamma.data(), beta.data(), 1e-5f, y, cols, nullptr, nullptr),
                  VLAK_OK);
        if (want.empty()) want.assign(y, y + n);
        EXPECT_TRUE(vlak_test::SameBits(y, want.data(), n));
      }
    }
  });
}

TEST(LayerNorm, SpecialValues) {
  ForEachTarget([] {
    const size_t cols = 37;
    std::vector<float> x = Normal(4 * cols, 0.0f, 1.0f, 41);
    x[0 * cols + 5] = kNaN;
    x[1 * cols + 36] = kInf;
    for (size_t i = 0; i < cols; ++i) x[2 * cols + i] = 2.5f;  // constant row, eps = 0
    std::vector<float> y(x.size()), mean(4), rstd(4);
    ASSERT_EQ(vlak_layernorm_f32(4, cols, x.data(), cols, nullptr, nullptr, 0.0f, y.data(), cols, mean.data(),
                                 rstd.data()),
              VLAK_OK);
    for (size_t i = 0; i < cols; ++i) {
      EXPECT_TRUE(std::isnan(y[i])) << i;
      EXPECT_TRUE(std::isnan(y[cols + i])) << i;
      EXPECT_TRUE(std::isnan(y[2 * cols + i])) << "0 * inf: " << i;
      EXPECT_TRUE(std::isfinite(y[3 * cols + i])) << i;
    }
    EXPECT_TRUE(std::isnan(mean[0]) && std::isnan(rstd[0]));
    EXPECT_TRUE(std::isnan(mean[1]) && std::isnan(rstd[1]));
    EXPECT_EQ(mean[2], 2.5f);
    EXPECT_EQ(rstd[2], kInf);
  });
}

TEST(LayerNorm, ThreadCountDoesNotChangeBits) {
  const auto x = Normal(64 * 1024, 5.0f, 2.0f, 51);
  std::vector<float> y1(x.size()), y3(x.size());
  {
    vlak_test::ScopedThreads t(1);
    ASSERT_EQ(vlak_layernorm_f32(64, 1024, x.data(), 1024, nullptr, nullptr, 1e-5f, y1.data(), 1024, nullptr, nullptr),
              VLAK_OK);
  }
  {
    vlak_test::ScopedThreads t(3);
    ASSERT_EQ(vlak_layernorm_f32(64, 1024, x.data(), 1024, nullptr, nullptr, 1e-5f, y3.data(), 1024, nullptr, nullptr),
              VLAK_OK);
  }
  EXPECT_TRUE(vlak_test::SameBits(y1.data(), y3.data(), x.size()));
}

TEST(LayerNorm, BadArgumentsWriteNothing) {
  std::vector<float> x(64, 1.0f), y(64, kSentinel), m(4, kSentinel);
  EXPECT_EQ(vlak_layernorm_f32(2, 8, nullptr, 8, nullptr, nullptr, 0, y.data(), 8, nullptr, nullptr),
            VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_layernorm_f32(2, 8, x.data(), 8, nullptr, nullptr, 0, nullptr, 8, nullptr, nullptr),
            VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_layernorm_f32(2, 8, x.data(), 7, nullptr, nullptr, 0, y.data(), 8, m.data(), nullptr),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_layernorm_f32(2, 8, x.data(), 8, nullptr, nullptr, -1e-5f, y.data(), 8, m.data(), nullptr),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_layernorm_f32(2, 8, x.data(), 8, nullptr, nullptr, kNaN, y.data(), 8, m.data(), nullptr),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_layernorm_f32(2, 8, x.data(), 8, nullptr, nullptr, 0, x.data(), 9, m.data(), nullptr),
            VLAK_ERROR_INVALID_ARGUMENT);  // in place with different strides
  EXPECT_EQ(vlak_layernorm_f32(3, 8, x.data(), SIZE_MAX / 2, nullptr, nullptr, 0, y.data(), 8, m.data(), nullptr),
            VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_layernorm_f32(0, 8, nullptr, 0, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr), VLAK_OK);
  for (float v : y) EXPECT_EQ(v, kSentinel);
  for (float v : m) EXPECT_EQ(v, kSentinel);
}

// ---- backward ---------------------------------------------------------------------------------

struct Grads {
  std::vector<float> dx, dgamma, dbeta;
};

void CheckBackward(size_t rows, size_t cols, size_t stride, bool gamma_given, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << "backward rows " << rows << " cols " << cols);
  const size_t len = (rows - 1) * stride + cols;
  const auto x = Normal(len, 2.0f, 3.0f, seed);
  const auto dy = Normal(len, 0.0f, 1.0f, seed + 1);
  const auto gamma = Normal(cols, 1.0f, 0.5f, seed + 2);
  std::vector<float> mean(rows), rstd(rows), y(len);
  ASSERT_EQ(vlak_layernorm_f32(rows, cols, x.data(), stride, nullptr, nullptr, 1e-5f, y.data(), stride, mean.data(),
                               rstd.data()),
            VLAK_OK);
  std::vector<float> dx(len, kSentinel), dgamma(cols, kSentinel), dbeta(cols, kSentinel);
  const float* g = gamma_given ? gamma.data() : nullptr;
  ASSERT_EQ(vlak_layernorm_backward_f32(rows, cols, dy.data(), x.data(), stride, g, mean.data(), rstd.data(),
                                        dx.data(), dgamma.data(), dbeta.data()),
            VLAK_OK);
  std::vector<double> rdx(cols), tg(cols), tb(cols), sg(cols, 0), sb(cols, 0), ag(cols, 0), ab(cols, 0);
  for (size_t r = 0; r < rows; ++r) {
    const size_t o = r * stride;
    vlak::LayerNormBackwardReferenceF64(dy.data() + o, x.data() + o, cols, g, mean[r], rstd[r], rdx.data(), tg.data(),
                                        tb.data());
    // The row's scale: its largest term of rstd * (g - mean(g) - xhat * mean(g xhat)). Not
    // max |dx64|: with one column (or a constant row) dx64 is 0 by cancellation of equal terms.
    double scale = 0, mg = 0, mgx = 0;
    for (size_t i = 0; i < cols; ++i) {
      const double gi = static_cast<double>(dy[o + i]) * (g != nullptr ? g[i] : 1.0);
      mg += gi / cols;
      mgx += gi * ((x[o + i] - double{mean[r]}) * rstd[r]) / cols;
    }
    for (size_t i = 0; i < cols; ++i) {
      const double xhat = (x[o + i] - double{mean[r]}) * rstd[r];
      const double gi = static_cast<double>(dy[o + i]) * (g != nullptr ? g[i] : 1.0);
      scale = std::max(scale, rstd[r] * (std::fabs(gi) + std::fabs(mg) + std::fabs(xhat * mgx)));
    }
    for (size_t i = 0; i < cols; ++i) {
      ASSERT_LE(std::fabs(dx[o + i] - rdx[i]), 1e-5 * scale) << "dx row " << r << " col " << i;
      sg[i] += tg[i];
      sb[i] += tb[i];
      ag[i] += std::fabs(tg[i]);
      ab[i] += std::fabs(tb[i]);
    }
    for (size_t i = cols; r + 1 < rows && i < stride; ++i) ASSERT_EQ(dx[o + i], kSentinel);
  }
  for (size_t i = 0; i < cols; ++i) {
    ASSERT_LE(std::fabs(dgamma[i] - sg[i]), 1e-5 * ag[i]) << "dgamma " << i;
    ASSERT_LE(std::fabs(dbeta[i] - sb[i]), 1e-5 * ab[i]) << "dbeta " << i;
  }
}

TEST(LayerNormBackward, MatchesReference) {
  ForEachTarget([] {
    const size_t lanes = vlak_target_lanes(vlak_active_target(), 2, 4);
    uint32_t seed = 100;
    for (size_t cols : {size_t{1}, size_t{3}, lanes - 1, lanes + 1, size_t{67}, 16 * lanes + 5}) {
      CheckBackward(5, cols, cols + 3, true, seed++);
      CheckBackward(3, cols, cols, false, seed++);
    }
    CheckBackward(40, 1000, 1000, true, seed++);  // dgamma/dbeta across the f32 flushes
    // Long rows, which AVX-512 takes four at a time (layernorm_config.h): quads across a flush,
    // then a pair and a lone row. AVX2 pairs rows from 2048 columns only: lone rows, then pairs.
    CheckBackward(23, 1600, 1603, true, seed++);
    CheckBackward(7, 2048, 2048, false, seed++);
  });
}

void OptionalOutputsInPlaceAndThreads(size_t rows, size_t cols) {
  const size_t n = rows * cols;
  const auto x = Normal(n, 0.0f, 2.0f, 61);
  const auto dy = Normal(n, 0.0f, 1.0f, 62);
  std::vector<float> mean(rows), rstd(rows), y(n);
  ASSERT_EQ(vlak_layernorm_f32(rows, cols, x.data(), cols, nullptr, nullptr, 1e-5f, y.data(), cols, mean.data(),
                               rstd.data()),
            VLAK_OK);
  const auto run = [&](int threads, float* dx, const float* dyp, float* dg, float* db) {
    vlak_test::ScopedThreads t(threads);
    ASSERT_EQ(vlak_layernorm_backward_f32(rows, cols, dyp, x.data(), cols, nullptr, mean.data(), rstd.data(), dx, dg,
                                          db),
              VLAK_OK);
  };
  std::vector<float> dx1(n), dg1(cols), db1(cols), dx3(n), dg3a(cols), dg3b(cols), db3(cols);
  run(1, dx1.data(), dy.data(), dg1.data(), db1.data());
  run(3, dx3.data(), dy.data(), dg3a.data(), db3.data());
  EXPECT_TRUE(vlak_test::SameBits(dx1.data(), dx3.data(), n)) << "dx does not depend on threads";
  run(3, dx3.data(), dy.data(), dg3b.data(), nullptr);
  EXPECT_TRUE(vlak_test::SameBits(dg3a.data(), dg3b.data(), cols)) << "same thread count, same bits";
  // The column sums are reduced over blocks of rows fixed by the shape: every thread count.
  EXPECT_TRUE(vlak_test::SameBits(dg1.data(), dg3a.data(), cols)) << "dgamma does not depend on threads";
  EXPECT_TRUE(vlak_test::SameBits(db1.data(), db3.data(), cols)) << "dbeta does not depend on threads";
  std::vector<float> inplace = dy;
  run(1, inplace.data(), inplace.data(), nullptr, nullptr);  // dx == dy
  EXPECT_TRUE(vlak_test::SameBits(inplace.data(), dx1.data(), n));
}

TEST(LayerNormBackward, OptionalOutputsInPlaceAndThreads) {
  // 1600 columns: rows four at a time on AVX-512 (layernorm_config.h).
  for (const size_t cols : {size_t{512}, size_t{1600}}) {
    SCOPED_TRACE(testing::Message() << "cols " << cols);
    OptionalOutputsInPlaceAndThreads(96, cols);
  }
}

// x, dy and dx of 33.5 and 34.5 MB, more than 16 times any L2 up to 2 MiB: x86 takes these rows
// from memory one at a time (layernorm.cc's BackwardRowsFromMemory) where smaller calls pair them,
// and on AVX2 the 2053-column rows each beside the next (layernorm_kernel.cc's BackwardRowsAhead:
// an odd row count, a strip tail, a stride past the columns, flush groups cut by the row blocks).
// Against float64, and the same bits at 1 and 3 threads and in place: the choice may follow the
// shape, never the thread count. x86 only (the rule's target; qemu would take minutes).
TEST(LayerNormBackward, RowsFromMemory) {
#if defined(__riscv)
  GTEST_SKIP() << "x86's rule";
#else
  ForEachTarget([] {
    CheckBackward(5461, 512, 512, true, 700);
    OptionalOutputsInPlaceAndThreads(5461, 512);
    CheckBackward(1401, 2053, 2056, true, 710);
    CheckBackward(1401, 2053, 2053, false, 720);
    OptionalOutputsInPlaceAndThreads(1401, 2053);
  });
#endif
}

// dx at offsets from dy and x modulo 4 KiB (the pairs' and quads' output pass walks back where dx
// lies 1 to 511 bytes after them: layernorm_kernel.cc's PairOutput), and dy and x at two offsets
// (the column partials are placed by theirs: layernorm.cc's PartialsShift): the same dx, dgamma
// and dbeta to the bit. Rows in pairs with a lone last row (300, 1100 columns) and, on AVX-512,
// a quad and a lone row (2053).
TEST(LayerNormBackward, PageOffsetsKeepTheBits) {
  ForEachTarget([] {
    for (size_t cols : {size_t{300}, size_t{1100}, size_t{2053}}) {
      SCOPED_TRACE(testing::Message() << "cols " << cols);
      const size_t rows = 5, n = rows * cols;
      const auto x_src = Normal(n, 1.0f, 3.0f, 61), dy_src = Normal(n, 0.0f, 1.0f, 62);
      const auto gamma = Normal(cols, 1.0f, 0.5f, 63);
      std::vector<float> mean(rows), rstd(rows), y(n);
      ASSERT_EQ(vlak_layernorm_f32(rows, cols, x_src.data(), cols, nullptr, nullptr, 1e-5f, y.data(), cols,
                                   mean.data(), rstd.data()),
                VLAK_OK);
      std::vector<float> xb(n + 2048), dyb(n + 2048), dxb(n + 3072), dg(cols), db(cols);
      std::vector<float> want_dx, want_dg, want_db;
      for (size_t in_off : {size_t{0}, size_t{16}}) {
        float* const x = vlak_test::AtPageOffset(xb, in_off);
        float* const dy = vlak_test::AtPageOffset(dyb, in_off);
        std::copy(x_src.begin(), x_src.end(), x);
        std::copy(dy_src.begin(), dy_src.end(), dy);
        for (size_t off : {size_t{512}, size_t{0}, size_t{4}, size_t{16}, size_t{127}, size_t{1008}, size_t{1023}}) {
          SCOPED_TRACE(testing::Message() << "x, dy at " << 4 * in_off << " bytes into a page, dx at x + "
                                          << 4 * off << " bytes");
          float* const dx = vlak_test::AtPageOffset(dxb, in_off + off);
          ASSERT_EQ(vlak_layernorm_backward_f32(rows, cols, dy, x, cols, gamma.data(), mean.data(), rstd.data(), dx,
                                                dg.data(), db.data()),
                    VLAK_OK);
          if (want_dx.empty()) want_dx.assign(dx, dx + n), want_dg = dg, want_db = db;
          EXPECT_TRUE(vlak_test::SameBits(dx, want_dx.data(), n));
          EXPECT_TRUE(vlak_test::SameBits(dg.data(), want_dg.data(), cols));
          EXPECT_TRUE(vlak_test::SameBits(db.data(), want_db.data(), cols));
        }
      }
    }
  });
}

TEST(LayerNormBackward, BadArgumentsWriteNothing) {
  std::vector<float> a(64, 1.0f), dx(64, kSentinel), dg(8, kSentinel);
  EXPECT_EQ(vlak_layernorm_backward_f32(2, 8, a.data(), a.data(), 8, nullptr, nullptr, a.data(), dx.data(), dg.data(),
                                        nullptr),
            VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_layernorm_backward_f32(2, 8, a.data(), a.data(), 8, nullptr, a.data(), a.data(), nullptr, dg.data(),
                                        nullptr),
            VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_layernorm_backward_f32(2, 8, a.data(), a.data(), 7, nullptr, a.data(), a.data(), dx.data(),
                                        dg.data(), nullptr),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_layernorm_backward_f32(3, 8, a.data(), a.data(), SIZE_MAX / 2, nullptr, a.data(), a.data(), dx.data(),
                                        dg.data(), nullptr),
            VLAK_ERROR_OVERFLOW);
  for (float v : dx) EXPECT_EQ(v, kSentinel);
  for (float v : dg) EXPECT_EQ(v, kSentinel);
}

// Every length 1 .. MaxLength() (ops_test_util.h) with the inputs and outputs ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, LayerNorm) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      GuardedFloats x(2 * n), y(2 * n), gamma(n), beta(n), mean(2), rstd(2), dx(2 * n), dg(n), db(n);
      ASSERT_EQ(vlak_layernorm_f32(2, n, x.data(), n, gamma.data(), beta.data(), 1e-5f, y.data(), n, mean.data(),
                                   rstd.data()),
                VLAK_OK);
      ASSERT_EQ(vlak_layernorm_backward_f32(2, n, y.data(), x.data(), n, gamma.data(), mean.data(), rstd.data(),
                                            dx.data(), dg.data(), db.data()),
                VLAK_OK);
      ASSERT_TRUE(std::isfinite(y.data()[2 * n - 1]) && std::isfinite(dg.data()[n - 1])) << n;
    }
    // Five rows of long rows: the backward's quads on AVX-512 (layernorm_config.h), then a lone row.
    for (size_t n : {size_t{1536}, size_t{1543}}) {
      GuardedFloats x(5 * n), y(5 * n), mean(5), rstd(5), dx(5 * n), dg(n), db(n);
      ASSERT_EQ(vlak_layernorm_f32(5, n, x.data(), n, nullptr, nullptr, 1e-5f, y.data(), n, mean.data(), rstd.data()),
                VLAK_OK);
      ASSERT_EQ(vlak_layernorm_backward_f32(5, n, y.data(), x.data(), n, nullptr, mean.data(), rstd.data(), dx.data(),
                                            dg.data(), db.data()),
                VLAK_OK);
      ASSERT_TRUE(std::isfinite(dx.data()[5 * n - 1]) && std::isfinite(db.data()[n - 1])) << n;
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): the forward and the backward, whose
// results may depend on the target (vlak.h): each must equal the result alone on one of them.
VLAK_CONCURRENCY_JOBS(layernorm, in) {
  const uint32_t seed = in.seed;
  const size_t r = in.r, c = in.c;
  const auto x = in.x, g = in.g;
  // The forward: y, mean and rstd.
  std::vector<vlak_test::ConcurrencyJob> jobs = {vlak_test::FloatsJob(r * c + 2 * r, false, [=](float* out) {
    return vlak_layernorm_f32(r, c, x->data(), c, g->data(), nullptr, 1e-5f, out, c, out + r * c, out + r * c + r);
  })};
  // The backward's inputs once, here: computed inside the job, a target switch between the two
  // calls would mix two targets' statistics into one result.
  auto mean = std::make_shared<std::vector<float>>(r), rstd = std::make_shared<std::vector<float>>(r);
  auto dy = std::make_shared<std::vector<float>>(Normal(r * c, 0.0f, 1.0f, seed + 4));
  std::vector<float> y(r * c);
  vlak_layernorm_f32(r, c, x->data(), c, nullptr, nullptr, 1e-5f, y.data(), c, mean->data(), rstd->data());
  jobs.push_back(vlak_test::FloatsJob(r * c + 2 * c, false, [=](float* out) {
    return vlak_layernorm_backward_f32(r, c, dy->data(), x->data(), c, g->data(), mean->data(), rstd->data(), out,
                                       out + r * c, out + r * c + c);
  }));
  return jobs;
}

// vlak::LayerNorm and vlak::LayerNormBackward (vlak.hpp): shape checks, and the same bits as the C
// calls they wrap.
TEST(CppApi, LayerNormMatchesTheCApiAndChecksShapes) {
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
}

}  // namespace
