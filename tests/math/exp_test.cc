// The f32 exp family on one target (this binary is built once per target): special values at
// every LMUL and on strip tags, sampled accuracy against float64 std::exp within each variant's
// measured bound, and the array kernel (lengths around the vector length, in place, no access
// beyond n, same bits as the per-vector function).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "exp_bounds.h"
#include "exp_oracle.h"
#include "math/exp_accurate.h"
#include "math/exp_bittrick_p3.h"
#include "math/exp_bittrick_p5.h"
#include "math/exp_cephes.h"
#include "ops/exp/exp_kernels.h"
#include "math/exp_precise.h"
#include "math/exp_schraudolph.h"
#include "math/exp_softmax.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

using exp_test::Bits;
using exp_test::kBounds;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr ExpVariant kAll[] = {ExpVariant::kSchraudolph, ExpVariant::kBittrickP3, ExpVariant::kBittrickP5,
                               ExpVariant::kCephes,      ExpVariant::kAccurate,   ExpVariant::kPrecise};

const char* Name(ExpVariant v) { return kBounds[static_cast<int>(v)].name; }

template <class D>
VFromD<D> ExpOf(ExpVariant v, D d, VFromD<D> x) {
  switch (v) {
    case ExpVariant::kSchraudolph: return ExpSchraudolph(d, x);
    case ExpVariant::kBittrickP3: return ExpBittrickP3(d, x);
    case ExpVariant::kBittrickP5: return ExpBittrickP5(d, x);
    case ExpVariant::kCephes: return ExpCephes(d, x);
    case ExpVariant::kAccurate: return ExpAccurate(d, x);
    case ExpVariant::kPrecise: return ExpPrecise(d, x);
  }
  return x;
}

// The per-vector function over an array, in strips of LMUL 2^kPow2 that always use a strip tag.
template <int kPow2>
void ExpByVector(ExpVariant v, const float* x, float* y, size_t n) {
  const Simd<float, kPow2> d;
  for (size_t i = 0; i < n; i += Lanes(d)) {
    const auto ds = Strip(d, std::min(Lanes(d), n - i));
    StoreU(ds, ExpOf(v, ds, LoadU(ds, x + i)), y + i);
  }
}

bool SameBits(float a, float b) { return (std::isnan(a) && std::isnan(b)) || Bits(a) == Bits(b); }

// ------------------------------------------------------------------------------- special values
const float kSpecials[] = {-kInf, kNaN, kInf, 89.0f, 1000.0f, 3e38f, -110.0f, -1000.0f, -3e38f,
                           0.0f, -0.0f, -100.0f, -kNaN, 88.8f, -88.5f};

void CheckSpecial(ExpVariant v, float x, float y) {
  SCOPED_TRACE(testing::Message() << Name(v) << " x=" << x << " y=" << y);
  if (std::isnan(x)) {
    EXPECT_TRUE(std::isnan(y));
  } else if (x > 88.73f) {
    EXPECT_EQ(y, kInf);
  } else if (x < -104.0f) {
    EXPECT_EQ(Bits(y), 0u);  // +0, not -0
  } else if (x == -100.0f) {
    if (v == ExpVariant::kPrecise) {
      EXPECT_NE(y, 0.0f) << "denormal result kept";
      EXPECT_LE(std::fabs(y - std::exp(-100.0)), 0x1p-149);
    } else {
      EXPECT_EQ(Bits(y), 0u) << "flushed to +0";
    }
  } else if (x == -88.5f && v != ExpVariant::kPrecise) {
    EXPECT_EQ(Bits(y), 0u) << "flushed to +0";
  } else if (x == 0.0f && (v == ExpVariant::kCephes || v == ExpVariant::kAccurate || v == ExpVariant::kPrecise)) {
    EXPECT_EQ(y, 1.0f);
  }
}

template <int kPow2>
void SpecialValuesAt() {
  const Simd<float, kPow2> d;
  const size_t lanes = Lanes(d);
  std::vector<float> x(lanes), y(lanes);
  for (size_t i = 0; i < lanes; ++i) x[i] = kSpecials[i % std::size(kSpecials)];
  for (const ExpVariant v : kAll) {
    SCOPED_TRACE(testing::Message() << "LMUL " << (1 << kPow2));
    // Every special in every lane position: rotate through the group.
    for (size_t r = 0; r < std::size(kSpecials); ++r) {
      std::rotate(x.begin(), x.begin() + 1, x.end());
      StoreU(d, ExpOf(v, d, LoadU(d, x.data())), y.data());
      for (size_t i = 0; i < lanes; ++i) CheckSpecial(v, x[i], y[i]);
      // A strip one lane short: its lanes get the same answers.
      const size_t n = lanes > 1 ? lanes - 1 : 1;
      const auto ds = Strip(d, n);
      std::vector<float> ys(lanes, 7.0f);
      StoreU(ds, ExpOf(v, ds, LoadU(ds, x.data())), ys.data());
      for (size_t i = 0; i < n; ++i) EXPECT_TRUE(SameBits(ys[i], y[i])) << "strip lane " << i;
      for (size_t i = n; i < lanes; ++i) EXPECT_EQ(ys[i], 7.0f) << "strip store wrote lane " << i;
    }
  }
}

TEST(Exp, SpecialValuesEveryLmul) {
  SpecialValuesAt<0>();
  SpecialValuesAt<1>();
  SpecialValuesAt<2>();
  SpecialValuesAt<3>();
}

// The boundaries: the largest x with a finite exp (accurate and precise keep their bounds up to
// it, beyond the 88.7 of accurate's stated domain), the smallest with a non-zero one (precise).
TEST(Exp, OverflowAndUnderflowEdges) {
  const float big = 88.72283f;  // exp = 3.40279e38 < FLT_MAX
  std::vector<float> x = {big, std::nextafter(big, kInf), std::nextafter(std::nextafter(big, kInf), kInf),
                          -103.972076f, -103.97208f, -103.9721f, -87.33654f, -87.336548f};
  std::vector<float> y(x.size());
  for (const ExpVariant v : {ExpVariant::kAccurate, ExpVariant::kPrecise}) {
    ExpByVector<0>(v, x.data(), y.data(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double ref = std::exp(static_cast<double>(x[i]));
      SCOPED_TRACE(testing::Message() << Name(v) << " x=" << x[i] << " y=" << y[i] << " ref=" << ref);
      if (x[i] > 0) {
        EXPECT_LE(exp_test::UlpError(y[i], ref), kBounds[static_cast<int>(v)].max_ulp);
      } else if (v == ExpVariant::kPrecise) {
        EXPECT_LE(exp_test::UlpError(y[i], ref), 1.0);
      }
    }
  }
}

// ----------------------------------------------------------------------------- sampled accuracy
// `count` floats of the variant's domain from a fixed pseudo-random walk over its bit patterns
// (so each binade is hit in proportion to its floats), plus both ends.
std::vector<float> Sample(const exp_test::FloatRange& dom, size_t count, uint64_t seed) {
  std::vector<float> x(count);
  uint64_t s = seed;
  const uint64_t total = dom.Count();
  for (size_t i = 0; i < count; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = dom.At((s >> 11) % total);
  }
  x[0] = dom.lo;
  x[1] = dom.hi;
  return x;
}

void SampledAccuracy(ExpVariant v, size_t count) {
  const exp_test::MeasuredBound& b = kBounds[static_cast<int>(v)];
  const std::vector<float> x = Sample(b.domain, count, 0x5eed0000u + static_cast<unsigned>(v));
  std::vector<float> y(x.size());
  ExpByVector<1>(v, x.data(), y.data(), x.size());
  double max_ulp = 0, max_rel = 0;
  float worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double ref = std::exp(static_cast<double>(x[i]));
    const double e = exp_test::UlpError(y[i], ref);
    if (!(e <= max_ulp)) {
      max_ulp = e;
      worst = x[i];
    }
    if (ref >= 0x1p-126 && ref <= FLT_MAX) max_rel = std::max(max_rel, exp_test::RelError(y[i], ref));
  }
  std::printf("  %-12s %zu points: max %.4f ULP (x = %.9g), max rel %.3e; bound %.4f ULP, %.3e\n", b.name,
              x.size(), max_ulp, worst, max_rel, b.max_ulp, b.max_rel);
  EXPECT_LE(max_ulp, b.max_ulp) << b.name << " at x = " << worst;
  EXPECT_LE(max_rel, b.max_rel) << b.name;
}

constexpr size_t kSamples = size_t{1} << 20;  // >= 1M points per variant
TEST(ExpAccuracy, Schraudolph) { SampledAccuracy(ExpVariant::kSchraudolph, kSamples); }
TEST(ExpAccuracy, BittrickP3) { SampledAccuracy(ExpVariant::kBittrickP3, kSamples); }
TEST(ExpAccuracy, BittrickP5) { SampledAccuracy(ExpVariant::kBittrickP5, kSamples); }
TEST(ExpAccuracy, Cephes) { SampledAccuracy(ExpVariant::kCephes, kSamples); }
TEST(ExpAccuracy, Accurate) { SampledAccuracy(ExpVariant::kAccurate, kSamples); }
TEST(ExpAccuracy, Precise) { SampledAccuracy(ExpVariant::kPrecise, kSamples); }

// ------------------------------------------------------------- softmax's evaluations of the exps
// ExpEval::kLean (two roundings per Horner step, exp_common.h) and ExpAccurateNonPositive, as
// softmax runs them on RVV at LMUL 8: sampled over softmax's domain [-87.3, 0] (exp(x - max)),
// the inputs passed through a subtraction as in the kernel (x - 0), against float64 exp. Bounds:
// measured on 1M points (rounded up), and never looser than vlak.h's promise for the variant.
struct LeanCase {
  const char* name;
  double max_ulp;
};
template <class D>
VFromD<D> LeanExpOf(int which, D d, VFromD<D> x) {
  switch (which) {
    case 0: return ExpSchraudolph<ExpEval::kLean>(d, x);
    case 1: return ExpBittrickP3<ExpEval::kLean>(d, x);
    case 2: return ExpBittrickP5<ExpEval::kLean>(d, x);
    case 3: return ExpCephes<ExpEval::kLean>(d, x);
    case 4: return ExpAccurate<ExpEval::kLean>(d, x);
    case 5: return ExpPrecise<ExpEval::kLean>(d, x);
    case 6: return ExpAccurateNonPositive<ExpEval::kLean>(d, x);
    default: return ExpAccurateNonPositive<ExpEval::kFused>(d, x);
  }
}
constexpr LeanCase kLeanCases[] = {
    {"schraudolph lean", 366463.0}, {"bittrick_p3 lean", 7239.0}, {"bittrick_p5 lean", 76.0},
    {"cephes lean", 4.0735},        {"accurate lean", 2.0},       {"precise lean", 1.0},
    {"accurate nonpositive lean", 2.0}, {"accurate nonpositive fused", 2.0},
};

TEST(ExpSoftmaxEvaluations, AccuracyOnNonPositive) {
  const exp_test::FloatRange dom = {-87.3f, 0.0f};
  const std::vector<float> x = Sample(dom, size_t{1} << 20, 0x5eed1000u);
  std::vector<float> y(x.size());
  std::vector<double> want(x.size());  // the float64 oracle, once for every case
  for (size_t i = 0; i < x.size(); ++i) want[i] = std::exp(static_cast<double>(x[i]));
  for (int which = 0; which < static_cast<int>(std::size(kLeanCases)); ++which) {
    const Simd<float, 1> d;
    for (size_t i = 0; i < x.size(); i += Lanes(d)) {
      const auto ds = Strip(d, std::min(Lanes(d), x.size() - i));
      StoreU(ds, LeanExpOf(which, ds, Sub(ds, LoadU(ds, x.data() + i), 0.0f)), y.data() + i);
    }
    double max_ulp = 0;
    float worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double e = exp_test::UlpError(y[i], want[i]);
      if (!(e <= max_ulp)) {
        max_ulp = e;
        worst = x[i];
      }
    }
    std::printf("  %-28s max %.4f ULP (x = %.9g), bound %.4f\n", kLeanCases[which].name, max_ulp, worst,
                kLeanCases[which].max_ulp);
    EXPECT_LE(max_ulp, kLeanCases[which].max_ulp) << kLeanCases[which].name << " at x = " << worst;
  }
}

// Special values through a subtraction, as softmax feeds them: -inf and below -88 give +0 (the
// precise exp: denormals down to -104), NaN stays NaN, 0 gives 1.
TEST(ExpSoftmaxEvaluations, SpecialValues) {
  const float in[] = {-kInf, kNaN, -kNaN, -88.5f, -1000.0f, -3e38f, 0.0f, -0.0f, -87.0f, -1e-30f};
  const Simd<float, 0> d;
  for (int which = 0; which < static_cast<int>(std::size(kLeanCases)); ++which) {
    for (float v : in) {
      std::vector<float> buf(MaxLanes(d), v), out(MaxLanes(d));
      StoreU(d, LeanExpOf(which, d, Sub(d, LoadU(d, buf.data()), 0.0f)), out.data());
      SCOPED_TRACE(testing::Message() << kLeanCases[which].name << " v=" << v);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(out[0]));
      } else if (v < -104.0f || (v < -88.0f && which != 5)) {
        EXPECT_EQ(Bits(out[0]), 0u);
      } else if (v < -88.0f) {  // precise keeps denormal results
        EXPECT_LE(std::fabs(out[0] - std::exp(static_cast<double>(v))), 0x1p-149);
      } else if (v == 0.0f) {
        EXPECT_NEAR(out[0], 1.0f, which <= 1 ? 0.04f : 1e-6f);
      } else {
        EXPECT_TRUE(out[0] >= 0.0f && out[0] <= 1.0f);
      }
    }
  }
}

// The accurate softmax's exp on RVV (exp_softmax.h), K exp(v): its ULP error against K exp(v) in
// float64 over softmax's domain, at LMUL 2 (the pipelined pass's) and through the subtraction,
// within vlak.h's 2 ULP for the accurate exp.
TEST(ExpSoftmaxEvaluations, ScaledAccuracyOnNonPositive) {
  const exp_test::FloatRange dom = {-87.3f, 0.0f};
  const std::vector<float> x = Sample(dom, size_t{1} << 20, 0x5eed1001u);
  std::vector<float> y(x.size());
  const Simd<float, 1> d;
  for (size_t i = 0; i < x.size(); i += Lanes(d)) {
    const auto ds = Strip(d, std::min(Lanes(d), x.size() - i));
    StoreU(ds, ExpSoftmaxScaled(ds, Sub(ds, LoadU(ds, x.data() + i), 0.0f)), y.data() + i);
  }
  const double k = exp_detail::kSoftmaxK;
  double max_ulp = 0;
  float worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = exp_test::UlpError(y[i], k * std::exp(static_cast<double>(x[i])));
    if (!(e <= max_ulp)) {
      max_ulp = e;
      worst = x[i];
    }
  }
  std::printf("  softmax scaled exp: max %.4f ULP (x = %.9g), bound 2\n", max_ulp, worst);
  EXPECT_LE(max_ulp, 2.0) << "at x = " << worst;
}

// Its special values: NaN stays NaN, -inf and below -87.68 give +0, 0 gives K; the rest stay
// within [0, K].
TEST(ExpSoftmaxEvaluations, ScaledSpecialValues) {
  const float in[] = {-kInf, kNaN, -kNaN, -87.7f, -88.0f, -88.5f, -1000.0f, -3e38f, 0.0f, -0.0f, -87.0f, -1e-30f};
  const Simd<float, 0> d;
  const float k = exp_detail::kSoftmaxK;
  for (float v : in) {
    std::vector<float> buf(MaxLanes(d), v), out(MaxLanes(d));
    StoreU(d, ExpSoftmaxScaled(d, Sub(d, LoadU(d, buf.data()), 0.0f)), out.data());
    SCOPED_TRACE(testing::Message() << "v=" << v);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(out[0]));
    } else if (v < -87.68f) {
      EXPECT_EQ(Bits(out[0]), 0u);
    } else if (v == 0.0f) {
      EXPECT_EQ(out[0], k);
    } else {
      EXPECT_TRUE(out[0] > 0.0f && out[0] <= k);
    }
  }
}

// --------------------------------------------------------------------------------- array kernel
// `count` floats ending exactly at an inaccessible page: touching x[count] or y[count] faults.
class Guarded {
 public:
  explicit Guarded(size_t count) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bytes_ = (count * sizeof(float) + page_ - 1) / page_ * page_ + page_;
    base_ = static_cast<char*>(mmap(nullptr, bytes_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED || mprotect(base_ + bytes_, page_, PROT_NONE) != 0) std::abort();
    data_ = reinterpret_cast<float*>(base_ + bytes_) - count;
  }
  ~Guarded() { munmap(base_, bytes_ + page_); }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  float* data() { return data_; }

 private:
  size_t page_, bytes_;
  char* base_;
  float* data_;
};

std::vector<float> Inputs(size_t n) {
  std::vector<float> x(n);
  uint32_t s = 12345;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = i % 7 == 3 ? kSpecials[(s >> 8) % std::size(kSpecials)] : static_cast<float>(static_cast<int32_t>(s) >> 8) * 0x1p-16f;
  }
  return x;
}

TEST(ExpArray, LengthsInPlaceAndSameBitsAsPerVector) {
  // The largest LMUL any variant's array kernel uses (kExpF32Pow2 is per variant).
  const size_t vl = Lanes(Simd<float, kExpF32Pow2<ExpVariant::kSchraudolph>>());
  for (const ExpVariant v : kAll) {
    for (const size_t n : {size_t{0}, size_t{1}, vl - 1, vl, vl + 1, 2 * vl + 3, size_t{1000}}) {
      SCOPED_TRACE(testing::Message() << Name(v) << " n=" << n << " (vl " << vl << ")");
      const std::vector<float> in = Inputs(n);
      std::vector<float> want(n);
      ExpByVector<0>(v, in.data(), want.data(), n);  // another LMUL, strip tags only

      Guarded gx(n), gy(n);
      std::copy(in.begin(), in.end(), gx.data());
      ExpF32(v, gx.data(), gy.data(), n);
      for (size_t i = 0; i < n; ++i) ASSERT_TRUE(SameBits(gy.data()[i], want[i])) << "lane " << i;
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(gx.data()[i]), Bits(in[i])) << "input changed";

      ExpF32(v, gx.data(), gx.data(), n);  // in place
      for (size_t i = 0; i < n; ++i) ASSERT_TRUE(SameBits(gx.data()[i], want[i])) << "in place, lane " << i;
    }
  }
}

}  // namespace
}  // namespace vlak::VLAK_NS
