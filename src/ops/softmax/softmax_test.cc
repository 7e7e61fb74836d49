// vlak_softmax_f32 against the float64 reference on every target this CPU (or qemu) runs.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page) and its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "ops/softmax/softmax.h"
#include "vlak/vlak.h"

namespace {


using namespace vlak_test;

enum class Dist { kUniform100, kNormal5, kHugeRange };
const char* DistName(Dist d) {
  return d == Dist::kUniform100 ? "uniform[-100,100]" : d == Dist::kNormal5 ? "normal(0,5)" : "huge-range";
}

std::vector<float> Row(size_t n, Dist dist, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> x(n);
  // The standard library's uniform and normal values, drawn cheaply under qemu (test_random.h).
  vlak_test::UniformReal<float> u100(-100.0f, 100.0f);
  vlak_test::NormalPolar<float> n5(0.0f, 5.0f);
  vlak_test::UniformReal<float> exponent(-3.0f, 38.0f);  // |x| from 1e-3 to 1e38
  for (size_t i = 0; i < n; ++i) {
    switch (dist) {
      case Dist::kUniform100: x[i] = u100(rng); break;
      case Dist::kNormal5: x[i] = n5(rng); break;
      case Dist::kHugeRange: x[i] = (rng() & 1 ? -1.0f : 1.0f) * std::pow(10.0f, exponent(rng)); break;
    }
  }
  return x;
}

// vlak.h's bound for accurate mode: relative 1e-6 + 6e-8 * |x - max| where y_ref >= 1e-30,
// absolute 1e-30 below.
void ExpectSoftmaxAccurate(const std::vector<float>& x, const float* y, const std::vector<double>& ref,
                           const char* what) {
  const size_t n = x.size();
  double m = -INFINITY;
  for (float v : x) m = std::max(m, static_cast<double>(v));
  size_t bad = 0;
  for (size_t i = 0; i < n && bad < 5; ++i) {
    if (ref[i] >= 1e-30) {
      const double bound = 1e-6 + 6e-8 * std::fabs(x[i] - m);
      const double rel = std::fabs(y[i] - ref[i]) / ref[i];
      if (!(rel <= bound)) {
        ++bad;
        ADD_FAILURE() << what << " n=" << n << " i=" << i << " x=" << x[i] << " y=" << y[i] << " ref=" << ref[i]
                      << " rel=" << rel << " bound=" << bound;
      }
    } else if (!(std::fabs(y[i] - ref[i]) <= 1e-30)) {
      ++bad;
      ADD_FAILURE() << what << " n=" << n << " i=" << i << " y=" << y[i] << " ref=" << ref[i];
    }
  }
}

void ExpectSoftmaxAccurate(const std::vector<float>& x, const float* y, unsigned flags, const char* what) {
  std::vector<double> ref(x.size());
  vlak::SoftmaxReferenceF64(x.data(), x.size(), ref.data(), flags);
  ExpectSoftmaxAccurate(x, y, ref, what);
}

void ExpectLogSoftmax(const std::vector<float>& x, const float* y, unsigned flags, const char* what) {
  std::vector<double> ref(x.size());
  vlak::SoftmaxReferenceF64(x.data(), x.size(), ref.data(), flags | VLAK_SOFTMAX_LOG);
  size_t bad = 0;
  for (size_t i = 0; i < x.size() && bad < 5; ++i) {
    const double bound = 1e-5 * std::max(1.0, std::fabs(ref[i]));
    if (!(std::fabs(y[i] - ref[i]) <= bound)) {
      ++bad;
      ADD_FAILURE() << what << " n=" << x.size() << " i=" << i << " y=" << y[i] << " ref=" << ref[i];
    }
  }
}

// The longest row is vlak_test::kLongRow: 10^6 natively, 10^5 under qemu, where a 10^6 row cost
// ~30 s per test and VLEN; the 2*10^6-element row of TenMillionElementRowKeepsSumAccurate keeps
// the long blocked sums covered there.
const size_t kCols[] = {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 65, 100, 257, 1000, 4099, 65537, vlak_test::kLongRow};

// One test per (algorithm, distribution): under qemu the million-column rows make these the ops
// binary's longest tests, and as separate tests ctest's shards of that binary share them.
class SoftmaxAccurate : public ::testing::TestWithParam<std::tuple<vlak::SoftmaxAlgo, Dist>> {};

TEST_P(SoftmaxAccurate, MeetsBar) {
  const auto [algo, dist] = GetParam();
  const std::string what = std::string(algo == vlak::SoftmaxAlgo::kTwoPass ? "two-pass " : "three-pass ") + DistName(dist);
  ForEachTarget([&] {
    for (size_t n : kCols) {
      const auto x = Row(n, dist, static_cast<uint32_t>(n * 3 + static_cast<int>(dist)));
      std::vector<float> y(n, -1.0f);
      ASSERT_EQ(vlak::SoftmaxF32(1, n, x.data(), n, y.data(), n, 0, algo), VLAK_OK);
      ExpectSoftmaxAccurate(x, y.data(), 0, what.c_str());
    }
  });
}

INSTANTIATE_TEST_SUITE_P(
    BothAlgorithms, SoftmaxAccurate,
    ::testing::Combine(::testing::Values(vlak::SoftmaxAlgo::kThreePass, vlak::SoftmaxAlgo::kTwoPass),
                       ::testing::Values(Dist::kUniform100, Dist::kNormal5, Dist::kHugeRange)),
    [](const ::testing::TestParamInfo<SoftmaxAccurate::ParamType>& info) {
      const Dist dist = std::get<1>(info.param);  // (no structured binding: its comma splits the macro)
      return std::string(std::get<0>(info.param) == vlak::SoftmaxAlgo::kTwoPass ? "TwoPass_" : "ThreePass_") +
             (dist == Dist::kUniform100 ? "Uniform100" : dist == Dist::kNormal5 ? "Normal5" : "HugeRange");
    });

TEST(Softmax, PreciseMeetsBar) {
  ForEachTarget([] {
    for (size_t n : {1, 17, 1000, 65537}) {
      const auto x = Row(n, Dist::kUniform100, 7);
      std::vector<float> y(n);
      ASSERT_EQ(vlak_softmax_f32(1, n, x.data(), n, y.data(), n, VLAK_SOFTMAX_EXP_PRECISE), VLAK_OK);
      ExpectSoftmaxAccurate(x, y.data(), 0, "precise");
    }
  });
}

TEST(Softmax, FastIsCloseAndSums) {
  // Fast mode uses the RISC-V hackathon softmax's bit-trick exp (degree-5 correction): ~1e-6 relative per exp.
  ForEachTarget([] {
    for (size_t n : {1, 33, 2048, 10000}) {
      const auto x = Row(n, Dist::kNormal5, 11);
      std::vector<float> y(n);
      std::vector<double> ref(n);
      ASSERT_EQ(vlak_softmax_f32(1, n, x.data(), n, y.data(), n, VLAK_SOFTMAX_EXP_FAST), VLAK_OK);
      vlak::SoftmaxReferenceF64(x.data(), n, ref.data(), 0);
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        sum += y[i];
        if (ref[i] > 1e-30) EXPECT_LE(std::fabs(y[i] - ref[i]) / ref[i], 2e-5) << "i=" << i;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  });
}

TEST(Softmax, LogSoftmax) {
  ForEachTarget([] {
    for (size_t n : {1, 5, 33, 1000, 65537}) {
      for (Dist dist : {Dist::kUniform100, Dist::kNormal5, Dist::kHugeRange}) {
        const auto x = Row(n, dist, 5);
        std::vector<float> y(n);
        ASSERT_EQ(vlak_softmax_f32(1, n, x.data(), n, y.data(), n, VLAK_SOFTMAX_LOG), VLAK_OK);
        ExpectLogSoftmax(x, y.data(), 0, "log");
      }
    }
  });
}

// Found by tests/fuzz/softmax_fuzz.cc (corpus/softmax/regression-log-offset): rows with a large
// common offset. y = x - (m + log_sum) as one rounded constant was off by up to 2^-11 at m = 1e4,
// 7e-5 of a y of -6.7; the bound is 1e-5.
TEST(Softmax, LogSoftmaxOfOffsetRows) {
  ForEachTarget([] {
    for (float offset : {1e4f, -3e5f, 1e6f}) {
      auto x = vlak_test::Normal(335, offset, 1.0f, 11);
      std::vector<float> y(x.size());
      ASSERT_EQ(vlak_softmax_f32(1, x.size(), x.data(), x.size(), y.data(), x.size(), VLAK_SOFTMAX_LOG), VLAK_OK);
      ExpectLogSoftmax(x, y.data(), 0, "log offset");
    }
  });
}

TEST(Softmax, TenMillionElementRowKeepsSumAccurate) {
  // Uniform [0, 1): every y is ~1/n, so the sum's relative error shows directly in each y. The
  // blocked summation is generic code; under qemu (RISC-V) 2e6 elements keep the run to seconds,
  // natively the full 1e7.
  const size_t n = vlak_test::NativeOrEmulated(10'000'000, 2'000'000);
  std::vector<float> x(n);
  std::mt19937 rng(3);
  vlak_test::UniformReal<float> u(0.0f, 1.0f);  // std::uniform_real_distribution's values (test_random.h)
  for (auto& v : x) v = u(rng);
  std::vector<float> y(n);
  std::vector<double> ref(n);
  vlak::SoftmaxReferenceF64(x.data(), n, ref.data(), 0);
  ForEachTarget([&] {
    for (auto algo : {vlak::SoftmaxAlgo::kThreePass, vlak::SoftmaxAlgo::kTwoPass}) {
      ASSERT_EQ(vlak::SoftmaxF32(1, n, x.data(), n, y.data(), n, 0, algo), VLAK_OK);
      ExpectSoftmaxAccurate(x, y.data(), ref, "1e7");
    }
  });
}

// Special rows, in both algorithms and with/without SAFE and LOG; expected values are the
// documented contract, computed here by hand.
TEST(Softmax, SpecialValues) {
  struct Case {
    std::vector<float> x;
    std::vector<float> want;  // for flags 0
  };
  const float third = 1.0f / 3.0f;
  const std::vector<Case> cases = {
      {{1.0f, kInf, 2.0f}, {0.0f, 1.0f, 0.0f}},
      {{kInf, -1.0f, kInf, 5.0f}, {0.5f, 0.0f, 0.5f, 0.0f}},
      {{kInf, kInf, kInf}, {third, third, third}},
      {{-kInf, -kInf}, {kNaN, kNaN}},
      {{1.0f, kNaN, 3.0f}, {kNaN, kNaN, kNaN}},
      {{kNaN, kInf}, {kNaN, kNaN}},
      {{-kInf, 0.0f, -kInf}, {0.0f, 1.0f, 0.0f}},
      {{3.0e38f, -3.0e38f}, {1.0f, 0.0f}},
      {{-3.0e38f, -3.0e38f}, {0.5f, 0.5f}},
  };
  ForEachTarget([&] {
    for (auto algo : {vlak::SoftmaxAlgo::kThreePass, vlak::SoftmaxAlgo::kTwoPass}) {
      for (const Case& c : cases) {
        // Also as long rows (the pattern repeated past several vectors) so the vector paths see them.
        for (size_t reps : {size_t{1}, size_t{37}}) {
          std::vector<float> x, want;
          for (size_t r = 0; r < reps; ++r) {
            x.insert(x.end(), c.x.begin(), c.x.end());
            want.insert(want.end(), c.want.begin(), c.want.end());
          }
          std::vector<float> y(x.size());
          ASSERT_EQ(vlak::SoftmaxF32(1, x.size(), x.data(), x.size(), y.data(), y.size(), 0, algo), VLAK_OK);
          for (size_t i = 0; i < x.size(); ++i) {
            const float w = reps == 1 ? want[i] : want[i] / static_cast<float>(reps);
            if (std::isnan(w)) {
              EXPECT_TRUE(std::isnan(y[i])) << "i=" << i << " x=" << x[i];
            } else {
              EXPECT_NEAR(y[i], w, 1e-6f * std::max(1.0f, w)) << "i=" << i << " x=" << x[i] << " reps=" << reps;
            }
          }
        }
      }
      // A NaN inside a run of -inf longer than a two-pass block is still a NaN row.
      std::vector<float> masked(9000, -kInf);
      masked[8000] = 1.0f;
      masked[100] = kNaN;
      std::vector<float> my(masked.size());
      ASSERT_EQ(vlak::SoftmaxF32(1, masked.size(), masked.data(), masked.size(), my.data(), my.size(), 0, algo), VLAK_OK);
      for (float v : my) ASSERT_TRUE(std::isnan(v));
      // All -inf: NaN by default, zeros with SAFE, -inf for log + SAFE.
      const std::vector<float> minf(40, -kInf);
      std::vector<float> y(40, 7.0f);
      ASSERT_EQ(vlak::SoftmaxF32(1, 40, minf.data(), 40, y.data(), 40, VLAK_SOFTMAX_SAFE, algo), VLAK_OK);
      for (float v : y) EXPECT_EQ(v, 0.0f);
      ASSERT_EQ(vlak::SoftmaxF32(1, 40, minf.data(), 40, y.data(), 40, VLAK_SOFTMAX_SAFE | VLAK_SOFTMAX_LOG, algo), VLAK_OK);
      for (float v : y) EXPECT_EQ(v, -kInf);
      ASSERT_EQ(vlak::SoftmaxF32(1, 40, minf.data(), 40, y.data(), 40, VLAK_SOFTMAX_LOG, algo), VLAK_OK);
      for (float v : y) EXPECT_TRUE(std::isnan(v));
      // log-softmax with +inf: log(1/2) at the two +inf, -inf elsewhere.
      const std::vector<float> two_inf = {kInf, 0.0f, kInf};
      std::vector<float> ly(3);
      ASSERT_EQ(vlak::SoftmaxF32(1, 3, two_inf.data(), 3, ly.data(), 3, VLAK_SOFTMAX_LOG, algo), VLAK_OK);
      EXPECT_NEAR(ly[0], std::log(0.5f), 1e-6f);
      EXPECT_EQ(ly[1], -kInf);
      EXPECT_NEAR(ly[2], std::log(0.5f), 1e-6f);
    }
  });
}

TEST(Softmax, DenormalAndTinyInputsAreFinite) {
  ForEachTarget([] {
    std::vector<float> x = {1e-40f, -1e-40f, 0.0f, -0.0f, 1e-45f};
    std::vector<float> y(x.size());
    ASSERT_EQ(vlak_softmax_f32(1, x.size(), x.data(), x.size(), y.data(), y.size(), 0), VLAK_OK);
    for (float v : y) EXPECT_NEAR(v, 0.2f, 1e-6f);
  });
}

TEST(Softmax, BadArgumentsWriteNothing) {
  std::vector<float> x(64, 1.0f), y(64, 7.0f);
  auto untouched = [&] {
    for (float v : y) if (v != 7.0f) return false;
    return true;
  };
  EXPECT_EQ(vlak_softmax_f32(2, 4, nullptr, 4, y.data(), 4, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_softmax_f32(2, 4, x.data(), 4, nullptr, 4, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_softmax_f32(2, 4, x.data(), 3, y.data(), 4, 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_softmax_f32(2, 4, x.data(), 4, y.data(), 3, 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_softmax_f32(2, 4, x.data(), 4, y.data(), 4, 0x100u), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_softmax_f32(2, 4, x.data(), 4, y.data(), 4, VLAK_SOFTMAX_EXP_MASK), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_softmax_f32(SIZE_MAX / 2, 4, x.data(), 8, y.data(), 8, 0), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_softmax_f32(3, SIZE_MAX / 2, x.data(), SIZE_MAX / 2, y.data(), SIZE_MAX / 2, 0), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_softmax_f32(2, 4, y.data(), 4, y.data(), 8, 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(untouched());
  // Empty shapes are fine, even with null pointers.
  EXPECT_EQ(vlak_softmax_f32(0, 4, nullptr, 4, nullptr, 4, 0), VLAK_OK);
  EXPECT_EQ(vlak_softmax_f32(4, 0, nullptr, 0, nullptr, 0, 0), VLAK_OK);
}

TEST(Softmax, StridesInPlaceAndRowsMatchSingleRowCalls) {
  ForEachTarget([] {
    const size_t rows = 9, cols = 70, xs = 75, ys = 80;
    const auto all = Row(rows * xs, Dist::kNormal5, 21);
    std::vector<float> y(rows * ys, 7.0f);
    ASSERT_EQ(vlak_softmax_f32(rows, cols, all.data(), xs, y.data(), ys, 0), VLAK_OK);
    for (size_t r = 0; r < rows; ++r) {
      std::vector<float> row(all.begin() + r * xs, all.begin() + r * xs + cols), one(cols);
      ASSERT_EQ(vlak_softmax_f32(1, cols, row.data(), cols, one.data(), cols, 0), VLAK_OK);
      for (size_t c = 0; c < cols; ++c) EXPECT_EQ(y[r * ys + c], one[c]);
      for (size_t c = cols; c < ys; ++c) EXPECT_EQ(y[r * ys + c], 7.0f) << "gap written";
      // In place gives the same bits.
      ASSERT_EQ(vlak_softmax_f32(1, cols, row.data(), cols, row.data(), cols, 0), VLAK_OK);
      for (size_t c = 0; c < cols; ++c) EXPECT_EQ(row[c], one[c]);
    }
  });
}

TEST(Softmax, ThreadsGiveIdenticalResults) {
  ForEachTarget([] {
    const size_t rows = 64, cols = 4099;
    const auto x = Row(rows * cols, Dist::kUniform100, 99);
    std::vector<float> y1(x.size()), y2(x.size());
    ASSERT_EQ(vlak_set_num_threads(1), VLAK_OK);
    EXPECT_EQ(vlak_get_num_threads(), 1);
    ASSERT_EQ(vlak_softmax_f32(rows, cols, x.data(), cols, y1.data(), cols, 0), VLAK_OK);
    ASSERT_EQ(vlak_set_num_threads(3), VLAK_OK);
    ASSERT_EQ(vlak_softmax_f32(rows, cols, x.data(), cols, y2.data(), cols, 0), VLAK_OK);
    ASSERT_EQ(vlak_set_num_threads(0), VLAK_OK);
    EXPECT_EQ(y1, y2);
    EXPECT_EQ(vlak_set_num_threads(-1), VLAK_ERROR_INVALID_ARGUMENT);
  });
}

// Every length 1 .. MaxLength() (ops_test_util.h) with the inputs and outputs ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, Softmax) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      GuardedFloats x(2 * n), y(2 * n);
      ASSERT_EQ(vlak_softmax_f32(2, n, x.data(), n, y.data(), n, 0), VLAK_OK);
      ASSERT_EQ(vlak_softmax_f32(1, n, x.data(), n, y.data(), n, VLAK_SOFTMAX_LOG), VLAK_OK);
      ASSERT_TRUE(std::isfinite(y.data()[2 * n - 1])) << n;
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): the result may depend on the target
// (vlak.h), so it must equal the result alone on one of them.
VLAK_CONCURRENCY_JOBS(softmax, in) {
  const uint32_t seed = in.seed;
  const size_t r = in.r, c = in.c;
  const auto x = in.x;
  return {vlak_test::FloatsJob(r * c, false, [=](float* y) {
    return vlak_softmax_f32(r, c, x->data(), c, y, c, (seed & 1) ? VLAK_SOFTMAX_LOG : 0);
  })};
}

}  // namespace
