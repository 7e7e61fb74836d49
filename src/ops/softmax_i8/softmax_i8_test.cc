// vlak_softmax_i8 / vlak_softmax_u8 on every target this CPU (or qemu) runs, against two oracles
// written here from the definitions, not from vlak's code:
//   TfliteRef  a port of TFLite's reference int8/uint8 softmax (reference/softmax.h) and of the
//              gemmlowp fixed-point functions it calls, with its Prepare (PreprocessSoftmaxScaling,
//              CalculateInputRadius) for beta = 1: VLAK_SOFTMAX_I8_TFLITE must equal it bit for bit.
//              Where TFLite's C++ leaves int32 (a Q12.19 sum >= 2^31, a shift >= 32) the port takes
//              the exact value of the same expression, as vlak.h defines it.
//   Float64    p = exp(s (x - max)) / sum in double: VLAK_SOFTMAX_I8_LUT must keep
//              |(y - zp) - min(256 p, 255)| < 1.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page) and its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "ops/softmax_i8/softmax_i8_tflite_port.h"
#include "ops/softmax_i8/softmax_i8.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

namespace tfl = vlak_test::tfl;
using tfl::Float64;

constexpr int kZp8 = -128;
template <typename T>
constexpr int Zp() { return std::is_signed_v<T> ? kZp8 : 0; }

// Checks rows x cols at the strides: TFLITE against the port, LUT against float64; gaps untouched.
// Returns the LUT's differences d = (y - zp) - round(t) through *stats (optional).
struct LutStats {
  double sum_err = 0, sum_abs_rounded = 0;  // sums of d and |d|
  size_t count = 0;
  std::vector<int> rounded_diffs;
};
template <typename T>
void Check(size_t rows, size_t cols, size_t xs, size_t ys, float s, const std::vector<T>& x, LutStats* stats = nullptr) {
  SCOPED_TRACE(testing::Message() << "rows " << rows << " cols " << cols << " scale " << s
                                  << (std::is_signed_v<T> ? " i8" : " u8"));
  const tfl::Params p = tfl::Prepare(s);
  const T sentinel = 0x5A;
  std::vector<T> y((rows - 1) * ys + cols, sentinel), ref(cols);
  std::vector<double> t(cols);
  ASSERT_EQ(vlak_test::SoftmaxBytes<T>(rows, cols, x.data(), xs, s, y.data(), ys, VLAK_SOFTMAX_I8_TFLITE), VLAK_OK);
  for (size_t r = 0; r < rows; ++r) {
    tfl::Softmax<T>(p, x.data() + r * xs, ref.data(), cols);
    for (size_t c = 0; c < cols; ++c) {
      ASSERT_EQ(int{y[r * ys + c]}, int{ref[c]}) << "TFLITE row " << r << " col " << c;
    }
    for (size_t c = cols; r + 1 < rows && c < ys; ++c) ASSERT_EQ(y[r * ys + c], sentinel);
  }
  std::fill(y.begin(), y.end(), sentinel);
  ASSERT_EQ(vlak_test::SoftmaxBytes<T>(rows, cols, x.data(), xs, s, y.data(), ys, VLAK_SOFTMAX_I8_LUT), VLAK_OK);
  for (size_t r = 0; r < rows; ++r) {
    Float64<T>(s, x.data() + r * xs, cols, t.data());
    for (size_t c = 0; c < cols; ++c) {
      const double v = int{y[r * ys + c]} - Zp<T>();
      ASSERT_LT(std::fabs(v - t[c]), 1.0) << "LUT row " << r << " col " << c << " y " << v << " t " << t[c];
      if (stats != nullptr) {
        const int rd = static_cast<int>(v) - static_cast<int>(std::floor(t[c] + 0.5));
        stats->sum_err += rd;
        stats->sum_abs_rounded += std::abs(rd);
        stats->rounded_diffs.push_back(rd);
        ++stats->count;
      }
    }
    for (size_t c = cols; r + 1 < rows && c < ys; ++c) ASSERT_EQ(y[r * ys + c], sentinel);
  }
}

template <typename T>
std::vector<T> Random(size_t n, uint32_t seed, int lo = std::numeric_limits<T>::min(), int hi = std::numeric_limits<T>::max()) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(dist(rng));
  return v;
}

const float kScales[] = {1.0f / 255.0f, 1.0f / 64, 1.0f / 16, 0.1f, 0.25f, 1.0f, 4.0f};

TEST(SoftmaxI8, PortMatchesCmsisConstants) {
  // CMSIS-NN's arm_softmax_s8 test runs with multiplier 1077952640, left shift 19, diff_min -3968:
  // what TFLite's Prepare makes of input_scale 1/255 (as a float).
  const tfl::Params p = tfl::Prepare(1.0f / 255.0f);
  EXPECT_EQ(p.multiplier, 1077952640);
  EXPECT_EQ(p.left_shift, 19);
  EXPECT_EQ(p.diff_min, -3968);
}

TEST(SoftmaxI8, CmsisVectorExact) {
  const std::vector<int8_t> x = {101, 49, 6, -34, -75, -79, -38, 120, -55, 115};
  const std::vector<int8_t> want = {-57, -70, -79, -86, -92, -94, -88, -54, -91, -56};
  std::vector<int8_t> port(10);
  const tfl::Params p = tfl::Prepare(1.0f / 255.0f);
  tfl::Softmax<int8_t>(p, x.data(), port.data(), 5);
  tfl::Softmax<int8_t>(p, x.data() + 5, port.data() + 5, 5);
  EXPECT_EQ(port, want);  // the oracle itself reproduces CMSIS-NN's expected output
  ForEachTarget([&] {
    std::vector<int8_t> y(10, 0);
    ASSERT_EQ(vlak_softmax_i8(2, 5, x.data(), 5, 1.0f / 255.0f, y.data(), 5, VLAK_SOFTMAX_I8_TFLITE), VLAK_OK);
    EXPECT_EQ(y, want);
    std::vector<int8_t> inplace = x;  // x == y
    ASSERT_EQ(vlak::SoftmaxI8(inplace, inplace, 5, 1.0f / 255.0f), VLAK_OK);
    EXPECT_EQ(inplace, want);
    // The u8 form of the same logits (x + 128) gives the same outputs + 128.
    std::vector<uint8_t> xu(10), yu(10);
    for (int i = 0; i < 10; ++i) xu[i] = static_cast<uint8_t>(x[i] + 128);
    ASSERT_EQ(vlak::SoftmaxU8(xu, yu, 5, 1.0f / 255.0f), VLAK_OK);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(int{yu[i]}, want[i] + 128) << i;
  });
}

// K = 2: every one of the 65,536 pairs, one row each, for each scale; both forms.
TEST(SoftmaxI8, AllPairsK2) {
  std::vector<int8_t> xi(2 * 65536);
  std::vector<uint8_t> xu(2 * 65536);
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const size_t r = static_cast<size_t>(a) * 256 + b;
      xi[2 * r] = static_cast<int8_t>(a - 128);
      xi[2 * r + 1] = static_cast<int8_t>(b - 128);
      xu[2 * r] = static_cast<uint8_t>(a);
      xu[2 * r + 1] = static_cast<uint8_t>(b);
    }
  }
  ForEachTarget([&] {
    for (float s : kScales) {
      Check<int8_t>(65536, 2, 2, 2, s, xi);
      Check<uint8_t>(65536, 2, 2, 2, s, xu);
    }
  });
}

// K = 3: every pair of differences (d1, d2) below the maximum.
TEST(SoftmaxI8, AllDifferencePairsK3) {
  std::vector<int8_t> x(3 * 65536);
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const size_t r = static_cast<size_t>(a) * 256 + b;
      x[3 * r] = 127;
      x[3 * r + 1] = static_cast<int8_t>(127 - a);
      x[3 * r + 2] = static_cast<int8_t>(127 - b);
    }
  }
  ForEachTarget([&] {
    for (float s : {1.0f / 64, 0.1f, 1.0f}) Check<int8_t>(65536, 3, 3, 3, s, x);
  });
}

// Two-level rows at K = 8 and 64 (j entries at the top value, the rest `gap` below), bimodal rows,
// the saturation row, and a uniform row of 8 (1/8 = -96, the value the chisel-npu tutorial's tests A-D should give).
TEST(SoftmaxI8, StructuredRows) {
  ForEachTarget([] {
    for (size_t k : {size_t{8}, size_t{64}}) {
      std::vector<int8_t> x;
      size_t rows = 0;
      for (size_t j = 1; j <= k; j += (k == 8 ? 1 : 7)) {
        for (int gap = 0; gap < 256; gap += 5) {
          for (size_t c = 0; c < k; ++c) x.push_back(static_cast<int8_t>(c < j ? 127 : 127 - gap));
          ++rows;
        }
      }
      for (float s : kScales) Check<int8_t>(rows, k, k, k, s, x);
    }
    // Bimodal: two clusters far apart, random within each.
    std::vector<int8_t> bi = Random<int8_t>(64 * 100, 7, -10, 10);
    for (size_t i = 0; i < bi.size(); i += 3) bi[i] = static_cast<int8_t>(bi[i] + 100);
    for (float s : kScales) Check<int8_t>(100, 64, 64, 64, s, bi);
    // Saturation: one maximum, the rest at the minimum; uniform rows give 1/K.
    std::vector<int8_t> sat(8, -128);
    sat[3] = 127;
    for (float s : kScales) Check<int8_t>(1, 8, 8, 8, s, sat);
    std::vector<int8_t> uni(8, 42), y(8);
    ASSERT_EQ(vlak_softmax_i8(1, 8, uni.data(), 8, 1.0f / 64, y.data(), 8, 0), VLAK_OK);
    for (int v : y) EXPECT_EQ(v, -96);  // 256 / 8 - 128
  });
}

// Lengths around the vector widths, strides with gaps, long rows; random logits.
TEST(SoftmaxI8, OddSizesStridesLongRows) {
  ForEachTarget([] {
    const size_t lanes = vlak_target_lanes(vlak_active_target(), 0, 1);  // f32 lanes at LMUL 1
    uint32_t seed = 1;
    for (size_t cols : {size_t{1}, size_t{2}, size_t{3}, 4 * lanes - 1, 4 * lanes, 4 * lanes + 1, 12 * lanes + 1,
                        size_t{255}, size_t{256}, size_t{257}, size_t{1000}, size_t{4096}, size_t{5000}}) {
      for (float s : {1.0f / 16, 0.1f, 1.0f}) {
        Check<int8_t>(3, cols, cols + 5, cols + 3, s, Random<int8_t>(2 * (cols + 5) + cols, seed++));
        Check<uint8_t>(2, cols, cols, cols + 1, s, Random<uint8_t>(cols + cols, seed++));
      }
    }
    // Narrow ranges (the row table holds few entries) and long rows.
    Check<int8_t>(4, 3000, 3000, 3000, 0.05f, Random<int8_t>(12000, 99, 20, 30));
    Check<int8_t>(1, vlak_test::kLongRow / 4, vlak_test::kLongRow / 4, vlak_test::kLongRow / 4, 0.1f,
                  Random<int8_t>(vlak_test::kLongRow / 4, 98));
  });
}

// Rows whose sum of exps reaches 512 (TFLite's shift >= 32) or 4096 (its int32 Q12.19 sum
// overflows): vlak.h defines the exact rounding, the minimum output everywhere; LUT keeps its bound.
TEST(SoftmaxI8, SumsPastTflitesInt32) {
  ForEachTarget([] {
    for (size_t n : {size_t{511}, size_t{512}, size_t{600}, size_t{4095}, size_t{4096}, size_t{5000}}) {
      std::vector<int8_t> x(n, 7), y(n, 0);
      ASSERT_EQ(vlak_softmax_i8(1, n, x.data(), n, 0.1f, y.data(), n, 0), VLAK_OK);
      const int want = static_cast<int>(std::floor(256.0 / static_cast<double>(n) + 0.5)) - 128;
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(int{y[i]}, n >= 512 ? -128 : want) << "n " << n;
      Check<int8_t>(1, n, n, n, 0.1f, x);
    }
  });
}

// TFLite's own test contract, measured on the LUT mode: 10^5 random rows (10^4 under qemu).
TEST(SoftmaxI8, LutStatistics) {
  const size_t rows = vlak_test::NativeOrEmulated(100000, 10000);
  ForEachTarget([&] {
    for (float s : {1.0f / 64, 1.0f / 16, 0.25f}) {
      LutStats st;
      Check<int8_t>(rows, 8, 8, 8, s, Random<int8_t>(rows * 8, 5), &st);
      std::nth_element(st.rounded_diffs.begin(), st.rounded_diffs.begin() + st.count / 2, st.rounded_diffs.end());
      EXPECT_EQ(st.rounded_diffs[st.count / 2], 0) << "median";
      EXPECT_LT(std::fabs(st.sum_err / static_cast<double>(st.count)), 0.02) << "mean of y - round(256 p)";
      EXPECT_LT(st.sum_abs_rounded / static_cast<double>(st.count), 0.03) << "mean |y - round(256 p)|";
    }
  });
}

TEST(SoftmaxI8, BadArgumentsWriteNothing) {
  ForEachTarget([] {
    std::vector<int8_t> x(64, 1), y(64, 0x33);
    const float s = 0.1f;
    auto untouched = [&] { return std::all_of(y.begin(), y.end(), [](int8_t v) { return v == 0x33; }); };
    EXPECT_EQ(vlak_softmax_i8(2, 8, nullptr, 8, s, y.data(), 8, 0), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, s, nullptr, 8, 0), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 7, s, y.data(), 8, 0), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, s, y.data(), 7, 0), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, s, y.data(), 8, 0x2u), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, 0.0f, y.data(), 8, 0), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, -0.1f, y.data(), 8, 0), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, std::ldexp(1.0f, -26), y.data(), 8, 0), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, std::numeric_limits<float>::infinity(), y.data(), 8, 0),
              VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 8, x.data(), 8, std::numeric_limits<float>::quiet_NaN(), y.data(), 8, 0),
              VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_softmax_i8(2, 4, y.data(), 8, s, y.data(), 4, 0), VLAK_ERROR_INVALID_ARGUMENT);  // x == y, strides differ
    EXPECT_EQ(vlak_softmax_i8(SIZE_MAX / 4, 8, x.data(), 8, s, y.data(), 8, 0), VLAK_ERROR_OVERFLOW);
    EXPECT_EQ(vlak_softmax_u8(2, 8, reinterpret_cast<const uint8_t*>(x.data()), 8, s, nullptr, 8, 0),
              VLAK_ERROR_NULL_POINTER);
    EXPECT_TRUE(untouched());
    // Nothing to do: OK with null pointers; a bad flag or scale is still an error.
    EXPECT_EQ(vlak_softmax_i8(0, 8, nullptr, 8, s, nullptr, 8, 0), VLAK_OK);
    EXPECT_EQ(vlak_softmax_i8(8, 0, nullptr, 0, s, nullptr, 0, 0), VLAK_OK);
    EXPECT_EQ(vlak_softmax_i8(0, 8, nullptr, 8, s, nullptr, 8, 0x80u), VLAK_ERROR_INVALID_ARGUMENT);
    // Smallest accepted scale (just above 2^-26) and a huge one work.
    EXPECT_EQ(vlak_softmax_i8(8, 8, x.data(), 8, std::nextafter(std::ldexp(1.0f, -26), 1.0f), y.data(), 8, 0), VLAK_OK);
    EXPECT_EQ(vlak_softmax_i8(8, 8, x.data(), 8, 1e30f, y.data(), 8, 0), VLAK_OK);
    std::vector<int8_t> bad(3);
    EXPECT_EQ(vlak::SoftmaxI8(x, bad, 8, s), VLAK_ERROR_INVALID_ARGUMENT);
  });
}

TEST(SoftmaxI8, ExtremeScalesMatchPort) {
  ForEachTarget([] {
    const auto x = Random<int8_t>(16 * 40, 3);
    for (float s : {std::nextafter(std::ldexp(1.0f, -26), 1.0f), 1e-6f, 1e-3f, 31.9f, 32.0f, 1000.0f, 1e30f}) {
      Check<int8_t>(16, 40, 40, 40, s, x);
    }
  });
}

TEST(SoftmaxI8, ThreadsGiveTheSameBits) {
  const auto x = Random<int8_t>(512 * 300, 11);
  std::vector<int8_t> one(x.size()), many(x.size());
  ForEachTarget([&] {
    for (unsigned flags : {0u, unsigned{VLAK_SOFTMAX_I8_LUT}}) {
      {
        vlak_test::ScopedThreads t(1);
        ASSERT_EQ(vlak_softmax_i8(512, 300, x.data(), 300, 0.07f, one.data(), 300, flags), VLAK_OK);
      }
      {
        vlak_test::ScopedThreads t(4);
        ASSERT_EQ(vlak_softmax_i8(512, 300, x.data(), 300, 0.07f, many.data(), 300, flags), VLAK_OK);
      }
      EXPECT_EQ(one, many);
    }
  });
}

}  // namespace

namespace {
// The TFLITE kernel stops a row's table at its first 0 byte only when the call's exp table is
// non-increasing (checked per scale; either way the bits are TFLite's, as the tests above check).
// How often that fast path applies: every one of 2,000 scales from 2^-10 to 2^4.
TEST(SoftmaxI8, ExpTableMonotoneOverScales) {
  int monotone = 0, total = 0;
  for (int i = 0; i < 2000; ++i) {
    const float s = std::ldexp(1.0f, -10) * std::pow(2.0f, 14.0f * static_cast<float>(i) / 2000.0f);
    monotone += vlak::SoftmaxI8TablesFor(s, true).exp_q31_monotone ? 1 : 0;
    ++total;
  }
  std::printf("[ info     ] exp table non-increasing for %d of %d scales\n", monotone, total);
  EXPECT_EQ(monotone, total);
}

// Every length 1 .. MaxLength() (ops_test_util.h) with the inputs and outputs ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, SoftmaxI8) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      // 2n bytes ending at the page: the floats' storage, addressed from its end.
      GuardedFloats xs((2 * n + 3) / 4), ys((2 * n + 3) / 4);
      auto* x = reinterpret_cast<int8_t*>(xs.data() + (2 * n + 3) / 4) - 2 * n;
      auto* y = reinterpret_cast<int8_t*>(ys.data() + (2 * n + 3) / 4) - 2 * n;
      for (unsigned flags : {VLAK_SOFTMAX_I8_TFLITE, VLAK_SOFTMAX_I8_LUT}) {
        ASSERT_EQ(vlak_softmax_i8(2, n, x, n, 0.1f, y, n, flags), VLAK_OK);
        ASSERT_EQ(vlak_softmax_u8(2, n, reinterpret_cast<const uint8_t*>(x), n, 0.1f, reinterpret_cast<uint8_t*>(y),
                                  n, flags),
                  VLAK_OK);
      }
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): int8 and uint8, a different
// input_scale per worker (each thread keeps its own exp tables); outputs widened to float.
VLAK_CONCURRENCY_JOBS(softmax_i8, in) {
  const uint32_t seed = in.seed;
  const size_t r = in.r, c = in.c;
  const auto x = in.x;
  std::vector<vlak_test::ConcurrencyJob> jobs;
  auto q = std::make_shared<std::vector<int8_t>>(r * c);
  for (size_t i = 0; i < r * c; ++i) (*q)[i] = static_cast<int8_t>(std::lround(std::fmax(-128.0f, std::fmin(127.0f, 30.0f * (*x)[i]))));
  jobs.push_back({[=](std::vector<float>& out) {
                    std::vector<int8_t> y(r * c);
                    const vlak_status st = vlak_softmax_i8(r, c, q->data(), c, 0.02f + 0.01f * static_cast<float>(seed % 5),
                                                           y.data(), c, (seed & 8) ? VLAK_SOFTMAX_I8_LUT : 0);
                    out.assign(y.begin(), y.end());
                    return st;
                  },
                  (seed & 8) == 0});  // TFLITE: the same bits on every target; LUT: per target
  jobs.push_back({[=](std::vector<float>& out) {
                    // The same bytes read as uint8 (zero point 0): a different row maximum and range.
                    std::vector<uint8_t> y(r * c);
                    const vlak_status st =
                        vlak_softmax_u8(r, c, reinterpret_cast<const uint8_t*>(q->data()), c,
                                        0.03f + 0.01f * static_cast<float>(seed % 3), y.data(), c,
                                        (seed & 2) ? VLAK_SOFTMAX_I8_LUT : 0);
                    out.assign(y.begin(), y.end());
                    return st;
                  },
                  (seed & 2) == 0});
  return jobs;
}

}  // namespace
