// vlak_activation_f32 and vlak_glu_f32 against the float64 reference (activation_reference.cc) on
// every target this CPU (or qemu) runs, with vlak.h's bounds: 2 ULPs (activations), 3 ULPs (glu);
// the VLAK_ACT_FAST tier 4 ULPs (4 x 2^-149 below FLT_MIN) and 5 (glu).
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page) and its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ops/activation/activation.h"
#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.hpp"

namespace {

using vlak::ActivationReferenceF64;
using vlak::ActivationUlps;
using namespace vlak_test;

constexpr double kBound = 2.0;     // vlak.h: activations
constexpr double kGluBound = 3.0;  // vlak.h: glu
constexpr double kFastBound = 4.0;     // vlak.h: VLAK_ACT_FAST, also in units of 2^-149 below FLT_MIN
constexpr double kFastGluBound = 5.0;  // vlak.h: glu with VLAK_ACT_FAST

const vlak_activation kOps[] = {VLAK_ACT_SIGMOID, VLAK_ACT_TANH, VLAK_ACT_GELU,
                                VLAK_ACT_GELU_TANH, VLAK_ACT_SILU, VLAK_ACT_SOFTPLUS};

// Samples of the sampled accuracy test per function: under qemu the float64 reference (erfc, tanh,
// log1p in emulated libm) dominates, so fewer there, as kLongRow does.
constexpr size_t kSamples = vlak_test::NativeOrEmulated(size_t{1} << 20, size_t{1} << 14);

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// The largest lane count the kernels use on the active target (LMUL 2 on x86, 1 on RVV).
size_t MaxLanes() { return vlak_target_lanes(vlak_active_target(), 1, sizeof(float)); }

// Checks y = act(x) element by element; the first failure is reported.
void ExpectWithinBound(vlak_activation op, const float* x, const float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double ref = ActivationReferenceF64(op, x[i]);
    const double ulps = ActivationUlps(y[i], ref);
    ASSERT_LE(ulps, kBound) << vlak::ActivationName(op) << "(" << x[i] << " = 0x" << std::hex << Bits(x[i])
                            << std::dec << ") = " << y[i] << ", float64 " << ref << " (element " << i << ")";
  }
}

// Inputs over every binade of both signs (random bit patterns, NaNs and infinities dropped) and
// the regions where each function is hard: the tails where the result decays to denormals, the
// crossings of the algorithms' branches, and around zero.
std::vector<float> AccuracyInputs(vlak_activation op, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> x;
  x.reserve(n);
  struct Range { float lo, hi; };
  std::vector<Range> hard = {{-1.0f, 1.0f}, {-8.0f, 8.0f}};
  switch (op) {
    case VLAK_ACT_SIGMOID: hard.push_back({-105.0f, -80.0f}); break;
    case VLAK_ACT_TANH: hard.push_back({0.45f, 0.55f}); hard.push_back({-9.5f, -7.0f}); break;
    case VLAK_ACT_GELU: hard.push_back({-14.5f, -5.0f}); break;
    case VLAK_ACT_GELU_TANH: hard.push_back({-11.5f, -6.0f}); break;
    case VLAK_ACT_SILU: hard.push_back({-109.0f, -80.0f}); break;
    case VLAK_ACT_SOFTPLUS: hard.push_back({-105.0f, -80.0f}); hard.push_back({-17.0f, 20.0f}); break;
  }
  while (x.size() < n) {
    const uint32_t u = static_cast<uint32_t>(rng());
    if (x.size() % 2 == 0) {
      const float f = FromBits(u);
      if (std::isfinite(f)) x.push_back(f);
    } else {
      const Range& r = hard[u % hard.size()];
      x.push_back(vlak_test::UniformReal<float>(r.lo, r.hi)(rng));  // std::uniform_real_distribution's values
    }
  }
  return x;
}

// Every op of the tier (0 or VLAK_ACT_FAST) on AccuracyInputs' samples, on every target, within
// `bound` ULPs of the float64 reference; the ops' samples come from seeds first_seed, first_seed + 1, ...
void CheckSampledAccuracy(int tier, double bound, uint32_t first_seed) {
  uint32_t seed = first_seed;
  for (vlak_activation op : kOps) {
    SCOPED_TRACE(vlak::ActivationName(op));
    const std::vector<float> x = AccuracyInputs(op, kSamples, seed++);
    std::vector<double> ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) ref[i] = ActivationReferenceF64(op, x[i]);
    ForEachTarget([&] {
      std::vector<float> y(x.size());
      ASSERT_EQ(vlak_activation_f32(x.size(), x.data(), y.data(), op | tier), VLAK_OK);
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_LE(ActivationUlps(y[i], ref[i]), bound)
            << vlak::ActivationName(op) << "(" << x[i] << " = 0x" << std::hex << Bits(x[i]) << std::dec
            << ") = " << y[i] << ", float64 " << ref[i];
      }
    });
  }
}

TEST(Activation, SampledAccuracyEveryBinade) { CheckSampledAccuracy(VLAK_ACT_ACCURATE, kBound, 1); }

// Lengths around every lane count, in place and not: the strip tails. The same bits on every target
// (vlak.h) and for every length (no element depends on its neighbours).
// Every prefix n = 1 .. 3 MaxLanes() + 1 of x, into a fresh y and in place: the first n values of
// `whole` (op over all of x), bit for bit, and nothing written past y[n - 1].
void ExpectPrefixesSameBits(vlak_activation op, const std::vector<float>& x, const std::vector<float>& whole) {
  for (size_t n = 1; n <= 3 * MaxLanes() + 1; ++n) {
    std::vector<float> y(n + 1, kSentinel);
    ASSERT_EQ(vlak_activation_f32(n, x.data(), y.data(), op), VLAK_OK);
    ASSERT_TRUE(SameBits(y.data(), whole.data(), n)) << "n " << n;
    ASSERT_EQ(y[n], kSentinel) << "n " << n;
    std::vector<float> z(x.begin(), x.begin() + n);
    ASSERT_EQ(vlak_activation_f32(n, z.data(), z.data(), op), VLAK_OK);
    ASSERT_TRUE(SameBits(z.data(), y.data(), n)) << "in place, n " << n;
  }
}

TEST(Activation, OddLengthsInPlaceSameBitsEveryTarget) {
  const size_t max_lanes = 64;  // AVX-512 at LMUL 2; RVV at LMUL 1 up to VLEN 2048
  const std::vector<float> x = Normal(3 * max_lanes + 1, 0.0f, 4.0f, 7);
  std::vector<std::vector<float>> first(std::size(kOps));
  for (size_t k = 0; k < std::size(kOps); ++k) {
    first[k].resize(x.size());
    ASSERT_EQ(vlak_activation_f32(x.size(), x.data(), first[k].data(), kOps[k]), VLAK_OK);
  }
  ForEachTarget([&] {
    for (size_t k = 0; k < std::size(kOps); ++k) {
      const vlak_activation op = kOps[k];
      SCOPED_TRACE(vlak::ActivationName(op));
      ExpectPrefixesSameBits(op, x, first[k]);
      if (HasFatalFailure()) return;
      ExpectWithinBound(op, x.data(), first[k].data(), x.size());
    }
  });
}

// x86's default sigmoid and silu take sigmoid.h's form in the lanes below -16 and fast.h's in the
// others, for vectors that mix them (sigmoid_split.h): each lane's bits are those of its x alone,
// within the bound, on every target; on x86 the lanes from -16 up are fast.h's form with its
// degree-4 exp, which glu's fast tier runs on the gate too (read here as glu with up = 1, exact).
TEST(Activation, SigmoidSiluLanesBelowSixteenMixed) {
  std::vector<float> x = Normal(3 * 64 + 5, 0.0f, 4.0f, 23);
  std::mt19937 rng(5);
  for (size_t i = 0; i < x.size(); i += 3) x[i] = std::uniform_real_distribution<float>(-120.0f, -16.0f)(rng);
  x[1] = -16.0f;
  x[4] = std::nextafter(-16.0f, -17.0f);
  x[7] = -kInf;
  for (const vlak_activation op : {VLAK_ACT_SIGMOID, VLAK_ACT_SILU}) {
    SCOPED_TRACE(vlak::ActivationName(op));
    ForEachTarget([&] {
      std::vector<float> y(x.size()), fast(x.size());
      const std::vector<float> one(x.size(), 1.0f);
      ASSERT_EQ(vlak_activation_f32(x.size(), x.data(), y.data(), op), VLAK_OK);
      ASSERT_EQ(vlak_glu_f32(1, x.size(), x.data(), x.size(), one.data(), x.size(), fast.data(), x.size(),
                             op | VLAK_ACT_FAST),
                VLAK_OK);
      ExpectWithinBound(op, x.data(), y.data(), x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        float alone = 0;
        ASSERT_EQ(vlak_activation_f32(1, &x[i], &alone, op), VLAK_OK);
        ASSERT_EQ(Bits(alone), Bits(y[i])) << "x = " << x[i];
#if !defined(__riscv)
        if (x[i] >= -16.0f) ASSERT_EQ(Bits(fast[i]), Bits(y[i])) << "x = " << x[i];
#endif
      }
    });
  }
}

// vlak.h's special values, bit for bit.
TEST(Activation, SpecialValuesBitForBit) {
  struct Case {
    vlak_activation op;
    float x, y;
  };
  const float ln2 = 0.693147182f;
  const Case cases[] = {
      {VLAK_ACT_SIGMOID, -kInf, 0.0f},        {VLAK_ACT_SIGMOID, kInf, 1.0f},
      {VLAK_ACT_SIGMOID, -0.0f, 0.5f},        {VLAK_ACT_SIGMOID, 0.0f, 0.5f},
      {VLAK_ACT_SIGMOID, -200.0f, 0.0f},      {VLAK_ACT_SIGMOID, 20.0f, 1.0f},
      {VLAK_ACT_TANH, -kInf, -1.0f},          {VLAK_ACT_TANH, kInf, 1.0f},
      {VLAK_ACT_TANH, -0.0f, -0.0f},          {VLAK_ACT_TANH, 0.0f, 0.0f},
      {VLAK_ACT_TANH, 1e-30f, 1e-30f},        {VLAK_ACT_TANH, -FLT_TRUE_MIN, -FLT_TRUE_MIN},
      {VLAK_ACT_TANH, -10.0f, -1.0f},         {VLAK_ACT_TANH, FLT_MAX, 1.0f},
      {VLAK_ACT_GELU, -kInf, -0.0f},          {VLAK_ACT_GELU, kInf, kInf},
      {VLAK_ACT_GELU, -0.0f, -0.0f},          {VLAK_ACT_GELU, 0.0f, 0.0f},
      {VLAK_ACT_GELU, -FLT_MAX, -0.0f},       {VLAK_ACT_GELU, FLT_MAX, FLT_MAX},
      {VLAK_ACT_GELU, -15.0f, -0.0f},         {VLAK_ACT_GELU, 1e-30f, 5e-31f},
      {VLAK_ACT_GELU_TANH, -kInf, -0.0f},     {VLAK_ACT_GELU_TANH, kInf, kInf},
      {VLAK_ACT_GELU_TANH, -0.0f, -0.0f},     {VLAK_ACT_GELU_TANH, 0.0f, 0.0f},
      {VLAK_ACT_GELU_TANH, -FLT_MAX, -0.0f},  {VLAK_ACT_GELU_TANH, FLT_MAX, FLT_MAX},
      {VLAK_ACT_SILU, -kInf, -0.0f},          {VLAK_ACT_SILU, kInf, kInf},
      {VLAK_ACT_SILU, -0.0f, -0.0f},          {VLAK_ACT_SILU, 0.0f, 0.0f},
      {VLAK_ACT_SILU, -FLT_MAX, -0.0f},       {VLAK_ACT_SILU, FLT_MAX, FLT_MAX},
      {VLAK_ACT_SILU, -120.5f, -0.0f},        {VLAK_ACT_SILU, 1e-30f, 5e-31f},
      {VLAK_ACT_SOFTPLUS, -kInf, 0.0f},       {VLAK_ACT_SOFTPLUS, kInf, kInf},
      {VLAK_ACT_SOFTPLUS, -0.0f, ln2},        {VLAK_ACT_SOFTPLUS, 0.0f, ln2},
      {VLAK_ACT_SOFTPLUS, -FLT_MAX, 0.0f},    {VLAK_ACT_SOFTPLUS, FLT_MAX, FLT_MAX},
      {VLAK_ACT_SOFTPLUS, 30.0f, 30.0f},      {VLAK_ACT_SOFTPLUS, -110.0f, 0.0f},
  };
  const uint32_t nans[] = {0x7fc00000u, 0xffc00001u, 0x7fa00000u, 0x7f800001u};
  ForEachTarget([&] {
    for (const Case& c : cases) {
      float y = kSentinel;
      ASSERT_EQ(vlak_activation_f32(1, &c.x, &y, c.op), VLAK_OK);
      EXPECT_EQ(Bits(y), Bits(c.y)) << vlak::ActivationName(c.op) << "(" << c.x << ") = " << y << ", expected " << c.y;
      // The reference agrees (its limits are vlak.h's).
      EXPECT_EQ(Bits(static_cast<float>(ActivationReferenceF64(c.op, c.x))), Bits(c.y))
          << "reference " << vlak::ActivationName(c.op) << "(" << c.x << ")";
    }
    for (vlak_activation op : kOps) {
      for (uint32_t bits : nans) {
        const float x = FromBits(bits);
        float y = 0.0f;
        ASSERT_EQ(vlak_activation_f32(1, &x, &y, op), VLAK_OK);
        EXPECT_EQ(Bits(y), bits) << vlak::ActivationName(op) << " of NaN 0x" << std::hex << bits;
      }
    }
  });
}

TEST(Activation, BadArgumentsWriteNothing) {
  std::vector<float> x(8, 1.0f), y(8, kSentinel);
  EXPECT_EQ(vlak_activation_f32(8, nullptr, y.data(), VLAK_ACT_SILU), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_activation_f32(8, x.data(), nullptr, VLAK_ACT_SILU), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_activation_f32(8, x.data(), y.data(), static_cast<vlak_activation>(6)), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_activation_f32(8, x.data(), y.data(), static_cast<vlak_activation>(-1)), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_activation_f32(0, x.data(), y.data(), static_cast<vlak_activation>(6)), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_activation_f32(SIZE_MAX / 2, x.data(), y.data(), VLAK_ACT_TANH), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_activation_f32(0, nullptr, nullptr, VLAK_ACT_TANH), VLAK_OK);
  for (float v : y) EXPECT_EQ(v, kSentinel);

  std::vector<float> g(32, 1.0f), u(32, 2.0f), z(32, kSentinel);
  EXPECT_EQ(vlak_glu_f32(2, 8, nullptr, 8, u.data(), 8, z.data(), 8, VLAK_ACT_SILU), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 8, nullptr, 8, z.data(), 8, VLAK_ACT_SILU), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 8, u.data(), 8, nullptr, 8, VLAK_ACT_SILU), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 7, u.data(), 8, z.data(), 8, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 8, u.data(), 7, z.data(), 8, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 8, u.data(), 8, z.data(), 7, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 8, u.data(), 8, z.data(), 8, static_cast<vlak_activation>(9)),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 8, u.data(), 16, g.data(), 16, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 16, u.data(), 8, u.data(), 16, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_glu_f32(3, 8, g.data(), SIZE_MAX / 2, u.data(), 8, z.data(), 8, VLAK_ACT_SILU), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_glu_f32(3, 8, g.data(), 8, u.data(), 8, z.data(), SIZE_MAX / 8, VLAK_ACT_SILU), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_glu_f32(2, SIZE_MAX / 2, g.data(), SIZE_MAX / 2, u.data(), SIZE_MAX / 2, z.data(), SIZE_MAX / 2,
                         VLAK_ACT_SILU),
            VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_glu_f32(0, 8, nullptr, 0, nullptr, 0, nullptr, 0, VLAK_ACT_SILU), VLAK_OK);
  EXPECT_EQ(vlak_glu_f32(2, 0, nullptr, 0, nullptr, 0, nullptr, 0, VLAK_ACT_SILU), VLAK_OK);
  for (float v : z) EXPECT_EQ(v, kSentinel);
  for (float v : g) EXPECT_EQ(v, 1.0f);
  for (float v : u) EXPECT_EQ(v, 2.0f);

  // The C++ overloads' size checks.
  EXPECT_EQ(vlak::Activation(std::span<const float>(x), std::span<float>(y).first(7), VLAK_ACT_TANH),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Glu(g, u, std::span<float>(z).first(31), 8, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Glu(g, u, z, 5, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Glu(g, u, z, 0, VLAK_ACT_SILU), VLAK_ERROR_INVALID_ARGUMENT);
  for (float v : y) EXPECT_EQ(v, kSentinel);
  for (float v : z) EXPECT_EQ(v, kSentinel);
}

// glu against act64(gate) * up within 3 ULPs (+ |up| 2^-149 where act(gate) is denormal), with
// strides, odd widths and y on gate or up; the gaps between rows untouched.
void CheckGlu(vlak_activation op, size_t rows, size_t cols, size_t gs, size_t us, size_t ys, int in_place,
              uint32_t seed, int tier = VLAK_ACT_ACCURATE) {
  const double bound = tier == VLAK_ACT_FAST ? kFastGluBound : kGluBound;
  const double sub = tier == VLAK_ACT_FAST ? 4 * 0x1p-149 : 0x1p-149;
  SCOPED_TRACE(testing::Message() << vlak::ActivationName(op) << " rows " << rows << " cols " << cols << " in place "
                                  << in_place);
  std::vector<float> g = Normal((rows - 1) * gs + cols, 0.0f, 3.0f, seed);
  std::vector<float> u = Normal((rows - 1) * us + cols, 1.0f, 2.0f, seed + 1);
  for (size_t i = 0; i < g.size(); i += 17) g[i] = -90.0f - static_cast<float>(i % 23);  // denormal act(gate)
  const std::vector<float> g0 = g, u0 = u;
  std::vector<float> own((rows - 1) * ys + cols, kSentinel);
  float* y = in_place == 1 ? g.data() : in_place == 2 ? u.data() : own.data();
  if (in_place == 1) ys = gs;
  if (in_place == 2) ys = us;
  ASSERT_EQ(vlak_glu_f32(rows, cols, g.data(), gs, u.data(), us, y, ys, op | tier), VLAK_OK);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const float gv = g0[r * gs + c], uv = u0[r * us + c];
      const double act = ActivationReferenceF64(op, gv);
      const double ref = act * uv;
      const float got = y[r * ys + c];
      const double slack = std::fabs(act) < FLT_MIN ? std::fabs(uv) * sub : 0.0;
      const double err = std::fabs(static_cast<double>(got) - ref);
      ASSERT_TRUE(ActivationUlps(got, ref) <= bound || err <= slack + 0x1p-149)
          << "gate " << gv << " up " << uv << " = " << got << ", float64 " << ref << " at " << r << "," << c;
    }
    if (in_place == 0) {
      for (size_t c = cols; r + 1 < rows && c < ys; ++c) ASSERT_EQ(own[r * ys + c], kSentinel);
    }
  }
}

// Every op of `tier` (VLAK_ACT_ACCURATE or VLAK_ACT_FAST) at widths around the lane count, in three layouts:
// strided with gaps into a separate y, y with its own gap, and in place (seeds from `seed` on).
void CheckGluLayouts(uint32_t seed, int tier) {
  const size_t lanes = MaxLanes();
  for (vlak_activation op : kOps) {
    for (size_t cols : {size_t{1}, lanes - 1, lanes + 1, 3 * lanes + 1, size_t{257}}) {
      CheckGlu(op, 3, cols, cols + 3, cols + 5, cols + 1, 0, seed++, tier);
      CheckGlu(op, 2, cols, cols, cols + 2, 0, 1, seed++, tier);
      CheckGlu(op, 2, cols, cols + 1, cols, 0, 2, seed++, tier);
    }
  }
}

TEST(Glu, StridesOddWidthsInPlace) {
  ForEachTarget([] { CheckGluLayouts(11, VLAK_ACT_ACCURATE); });
}

// glu's bounds rest on act's relative error rho: the product shows it as up to rho 2^24 ULP where
// its mantissa is near 2. At the gates where sigmoid's and silu's rho peaks (every float measured,
// docs/ops/activation.md: the default tier's split form, fast.h's form with q of degree 4, and
// with degree 3, which glu must not take), ups that put the product just under a power of 2.
TEST(Glu, WorstGatesWithProductsNearTheTopOfTheirBinade) {
  const struct {
    vlak_activation op;
    float gate;
  } cases[] = {{VLAK_ACT_SIGMOID, -14.9299316f}, {VLAK_ACT_SILU, -5.89482403f},  {VLAK_ACT_SIGMOID, -16.3165245f},
               {VLAK_ACT_SILU, -16.318924f},     {VLAK_ACT_SIGMOID, -16.2890491f}, {VLAK_ACT_SILU, -16.4815063f}};
  constexpr size_t kUps = 4096;
  ForEachTarget([&] {
    for (const int tier : {VLAK_ACT_ACCURATE, VLAK_ACT_FAST}) {
      const double bound = tier == VLAK_ACT_FAST ? kFastGluBound : kGluBound;
      for (const auto& c : cases) {
        SCOPED_TRACE(testing::Message() << vlak::ActivationName(c.op) << " tier " << tier << " gate " << c.gate);
        const double act = ActivationReferenceF64(c.op, c.gate);
        int e;
        const double m = std::frexp(std::fabs(act), &e);  // |act| = m 2^e, m in [0.5, 1)
        std::vector<float> gate(kUps, c.gate), up(kUps), y(kUps);
        for (size_t i = 0; i < kUps; ++i) up[i] = static_cast<float>((1.0 - static_cast<double>(i + 1) * 0x1p-22) / m);
        ASSERT_EQ(vlak_glu_f32(1, kUps, gate.data(), kUps, up.data(), kUps, y.data(), kUps, c.op | tier), VLAK_OK);
        for (size_t i = 0; i < kUps; ++i) ASSERT_LE(ActivationUlps(y[i], act * up[i]), bound) << "up " << up[i];
      }
    }
  });
}

TEST(Glu, FastTierStridesOddWidthsInPlace) {
  ForEachTarget([] { CheckGluLayouts(111, VLAK_ACT_FAST); });
}

// Calls large enough to split over threads give the bits of the one-thread call, the flat call's
// blocks and glu's rows and blocks of one long row alike.
TEST(Activation, ThreadsGiveTheSameBits) {
  // Under qemu above the split floor (16K elements) only: qemu runs threads slowly.
  const size_t n = vlak_test::NativeOrEmulated(300001, 20001);
  const std::vector<float> x = Normal(n, 0.0f, 3.0f, 5), u = Normal(n, 1.0f, 1.0f, 6);
  for (vlak_activation op : {VLAK_ACT_SILU, VLAK_ACT_GELU}) {
    std::vector<float> one(n), many(n), glu_one(n), glu_many(n), row_one(n), row_many(n);
    {
      vlak_test::ScopedThreads t(1);
      ASSERT_EQ(vlak_activation_f32(n, x.data(), one.data(), op), VLAK_OK);
      ASSERT_EQ(vlak_glu_f32(n / 1000, 1000, x.data(), 1000, u.data(), 1000, glu_one.data(), 1000, op), VLAK_OK);
      ASSERT_EQ(vlak_glu_f32(1, n, x.data(), n, u.data(), n, row_one.data(), n, op), VLAK_OK);
    }
    for (int threads : {2, 8}) {
      vlak_test::ScopedThreads t(threads);
      ASSERT_EQ(vlak_activation_f32(n, x.data(), many.data(), op), VLAK_OK);
      ASSERT_EQ(vlak_glu_f32(n / 1000, 1000, x.data(), 1000, u.data(), 1000, glu_many.data(), 1000, op), VLAK_OK);
      ASSERT_EQ(vlak_glu_f32(1, n, x.data(), n, u.data(), n, row_many.data(), n, op), VLAK_OK);
      EXPECT_TRUE(SameBits(one.data(), many.data(), n)) << threads << " threads";
      EXPECT_TRUE(SameBits(glu_one.data(), glu_many.data(), n / 1000 * 1000)) << threads << " threads";
      EXPECT_TRUE(SameBits(row_one.data(), row_many.data(), n)) << threads << " threads";
    }
  }
}

// ---- the fast tier (VLAK_ACT_FAST) ------------------------------------------------------------

TEST(ActivationFast, SampledAccuracyEveryBinade) { CheckSampledAccuracy(VLAK_ACT_FAST, kFastBound, 101); }

// Tails and in place, the same bits for every length, and on every target but two: the fast
// sigmoid and silu on AVX2 and AVX-512 are table forms (sigmoid_avx2.h, sigmoid_avx512.h; vlak.h),
// whose bits differ from the scalar target's; every other op and target gives the scalar target's
// bits. The flag changes sigmoid, tanh, gelu, gelu_tanh and silu and leaves softplus's bits (it
// runs the accurate kernel).
TEST(ActivationFast, OddLengthsInPlaceSameBitsEveryTarget) {
  const size_t max_lanes = 64;
  const std::vector<float> x = Normal(3 * max_lanes + 1, 0.0f, 4.0f, 17);
  const vlak_target saved = vlak_active_target();
  ASSERT_EQ(vlak_set_target(VLAK_TARGET_SCALAR), VLAK_OK);
  std::vector<std::vector<float>> scalar(std::size(kOps));
  for (size_t k = 0; k < std::size(kOps); ++k) {
    scalar[k].resize(x.size());
    ASSERT_EQ(vlak_activation_f32(x.size(), x.data(), scalar[k].data(), kOps[k] | VLAK_ACT_FAST), VLAK_OK);
  }
  ASSERT_EQ(vlak_set_target(saved), VLAK_OK);
  for (size_t k = 0; k < std::size(kOps); ++k) {
    std::vector<float> fast(x.size()), accurate(x.size());
    ASSERT_EQ(vlak_activation_f32(x.size(), x.data(), fast.data(), kOps[k] | VLAK_ACT_FAST), VLAK_OK);
    ASSERT_EQ(vlak_activation_f32(x.size(), x.data(), accurate.data(), kOps[k]), VLAK_OK);
    // (x86's default sigmoid and silu are fast.h's form above -16, but with its degree-4 exp, the
    // fast tier's has degree 3: their bits differ too.)
    const bool own_kernel = kOps[k] != VLAK_ACT_SOFTPLUS;
    EXPECT_EQ(SameBits(accurate.data(), fast.data(), x.size()), !own_kernel) << vlak::ActivationName(kOps[k]);
  }
  ForEachTarget([&](vlak_target t) {
    for (size_t k = 0; k < std::size(kOps); ++k) {
      const vlak_activation op = kOps[k] | VLAK_ACT_FAST;
      SCOPED_TRACE(vlak::ActivationName(kOps[k]));
      std::vector<float> whole(x.size());
      ASSERT_EQ(vlak_activation_f32(x.size(), x.data(), whole.data(), op), VLAK_OK);
      const bool table_form = (kOps[k] == VLAK_ACT_SIGMOID || kOps[k] == VLAK_ACT_SILU) &&
                              (t == VLAK_TARGET_AVX2 || t == VLAK_TARGET_AVX512);
      EXPECT_EQ(SameBits(whole.data(), scalar[k].data(), x.size()), !table_form);
      ExpectPrefixesSameBits(op, x, whole);
      if (HasFatalFailure()) return;
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_LE(ActivationUlps(whole[i], ActivationReferenceF64(kOps[k], x[i])), kFastBound) << x[i];
      }
    }
  });
}

// vlak.h: the fast tier has the accurate tier's special values, bit for bit.
TEST(ActivationFast, SpecialValuesBitForBit) {
  const float specials[] = {-kInf, kInf, -0.0f, 0.0f, -FLT_MAX, FLT_MAX, -FLT_TRUE_MIN, FLT_TRUE_MIN,
                            1e-30f, -1e-30f, -200.0f, -120.5f, -110.0f, -104.0f, 20.0f, 25.0f, -10.0f, 10.0f,
                            // gelu_tanh's clamps at +-12 and results below FLT_MIN (x about -9.5)
                            -12.0f, 12.0f, -12.5f, 12.5f, -9.6f};
  const uint32_t nans[] = {0x7fc00000u, 0xffc00001u, 0x7fa00000u, 0x7f800001u};
  ForEachTarget([&] {
    for (vlak_activation op : {VLAK_ACT_SIGMOID, VLAK_ACT_TANH, VLAK_ACT_SILU, VLAK_ACT_GELU_TANH}) {
      for (float x : {-kInf, kInf, -0.0f, 0.0f}) {
        float y = kSentinel;
        ASSERT_EQ(vlak_activation_f32(1, &x, &y, op | VLAK_ACT_FAST), VLAK_OK);
        EXPECT_EQ(Bits(y), Bits(static_cast<float>(ActivationReferenceF64(op, x))))
            << vlak::ActivationName(op) << "(" << x << ") = " << y;
      }
      for (float x : specials) {
        float y = kSentinel;
        ASSERT_EQ(vlak_activation_f32(1, &x, &y, op | VLAK_ACT_FAST), VLAK_OK);
        EXPECT_LE(ActivationUlps(y, ActivationReferenceF64(op, x)), kFastBound)
            << vlak::ActivationName(op) << "(" << x << ") = " << y;
      }
      for (uint32_t bits : nans) {
        const float x = FromBits(bits);
        float y = 0.0f;
        ASSERT_EQ(vlak_activation_f32(1, &x, &y, op | VLAK_ACT_FAST), VLAK_OK);
        EXPECT_EQ(Bits(y), bits) << vlak::ActivationName(op) << " of NaN 0x" << std::hex << bits;
      }
    }
  });
}

// Tier bits other than VLAK_ACT_FAST, and any bit above them, are rejected before anything is
// written; VLAK_ACT_ACCURATE is the default (0).
TEST(ActivationFast, BadFlagsWriteNothing) {
  std::vector<float> x(8, 1.0f), y(8, kSentinel), g(16, 1.0f), u(16, 2.0f), z(16, kSentinel);
  for (int bad : {0x200, 0x300, 0x400, 0x80, 0x1000, 1 << 16, 1 << 30}) {
    const auto op = static_cast<vlak_activation>(VLAK_ACT_SILU | bad);
    EXPECT_EQ(vlak_activation_f32(8, x.data(), y.data(), op), VLAK_ERROR_INVALID_ARGUMENT) << std::hex << bad;
    EXPECT_EQ(vlak_activation_f32(0, x.data(), y.data(), op), VLAK_ERROR_INVALID_ARGUMENT) << std::hex << bad;
    EXPECT_EQ(vlak_glu_f32(2, 8, g.data(), 8, u.data(), 8, z.data(), 8, op), VLAK_ERROR_INVALID_ARGUMENT)
        << std::hex << bad;
  }
  EXPECT_EQ(vlak_activation_f32(8, x.data(), y.data(), static_cast<vlak_activation>(6 | VLAK_ACT_FAST)),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_activation_f32(8, nullptr, y.data(), VLAK_ACT_SILU | VLAK_ACT_FAST), VLAK_ERROR_NULL_POINTER);
  for (float v : y) EXPECT_EQ(v, kSentinel);
  for (float v : z) EXPECT_EQ(v, kSentinel);
  EXPECT_EQ(vlak_activation_f32(8, x.data(), y.data(), VLAK_ACT_SILU | VLAK_ACT_ACCURATE), VLAK_OK);
}

TEST(ActivationFast, ThreadsGiveTheSameBits) {
  const size_t n = vlak_test::NativeOrEmulated(300001, 20001);
  const std::vector<float> x = Normal(n, 0.0f, 3.0f, 15), u = Normal(n, 1.0f, 1.0f, 16);
  for (vlak_activation op : {VLAK_ACT_SILU | VLAK_ACT_FAST, VLAK_ACT_TANH | VLAK_ACT_FAST}) {
    std::vector<float> one(n), many(n), glu_one(n), glu_many(n);
    {
      vlak_test::ScopedThreads t(1);
      ASSERT_EQ(vlak_activation_f32(n, x.data(), one.data(), op), VLAK_OK);
      ASSERT_EQ(vlak_glu_f32(1, n, x.data(), n, u.data(), n, glu_one.data(), n, op), VLAK_OK);
    }
    for (int threads : {2, 8}) {
      vlak_test::ScopedThreads t(threads);
      ASSERT_EQ(vlak_activation_f32(n, x.data(), many.data(), op), VLAK_OK);
      ASSERT_EQ(vlak_glu_f32(1, n, x.data(), n, u.data(), n, glu_many.data(), n, op), VLAK_OK);
      EXPECT_TRUE(SameBits(one.data(), many.data(), n)) << threads << " threads";
      EXPECT_TRUE(SameBits(glu_one.data(), glu_many.data(), n)) << threads << " threads";
    }
  }
}

#if !defined(__riscv)
// A call large enough for streamed output (x86: non-temporal stores past an unaligned head) gives
// the bits of the same elements in small calls, in place too.
TEST(Activation, StreamedOutputSameBits) {
  const size_t n = (size_t{1} << 23) + 37;
  const std::vector<float> x = Normal(n + 1, 0.0f, 5.0f, 21);
  std::vector<float> big(n + 2, kSentinel), small(n);
  for (vlak_activation op : {VLAK_ACT_SILU, VLAK_ACT_SIGMOID | VLAK_ACT_FAST}) {
    ASSERT_EQ(vlak_activation_f32(n, x.data() + 1, big.data() + 1, op), VLAK_OK);
    for (size_t i = 0; i < n; i += 100000) {
      ASSERT_EQ(vlak_activation_f32(std::min<size_t>(100000, n - i), x.data() + 1 + i, small.data() + i, op), VLAK_OK);
    }
    EXPECT_TRUE(SameBits(big.data() + 1, small.data(), n));
    EXPECT_EQ(big[0], kSentinel);
    EXPECT_EQ(big[n + 1], kSentinel);
    std::vector<float> z(x.begin() + 1, x.end());
    ASSERT_EQ(vlak_activation_f32(n, z.data(), z.data(), op), VLAK_OK);
    EXPECT_TRUE(SameBits(z.data(), small.data(), n)) << "in place";
  }
}
#endif

TEST(GuardPages, Activation) {
  ForEachTarget([] {
    const size_t max = 3 * MaxLanes() + 1;
    for (size_t n = 1; n <= max; ++n) {
      vlak_test::GuardedFloats x(n), y(n), g(2 * n), u(2 * n), z(2 * n);
      for (vlak_activation op : kOps) {
        for (int tier : {VLAK_ACT_ACCURATE, VLAK_ACT_FAST}) {
          ASSERT_EQ(vlak_activation_f32(n, x.data(), y.data(), op | tier), VLAK_OK);
          ASSERT_EQ(vlak_activation_f32(n, y.data(), y.data(), op | tier), VLAK_OK);
          ASSERT_EQ(vlak_glu_f32(2, n, g.data(), n, u.data(), n, z.data(), n, op | tier), VLAK_OK);
        }
      }
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes). Same bits on every target (vlak.h).
VLAK_CONCURRENCY_JOBS(activation, in) {
  const uint32_t seed = in.seed;
  const size_t r = in.r, c = in.c;
  const auto x = in.x;
  const auto op = kOps[seed % std::size(kOps)];
  const auto glu_op = seed & 1 ? VLAK_ACT_SILU : VLAK_ACT_GELU_TANH;
  return {vlak_test::FloatsJob(r * c, true, [=](float* y) { return vlak_activation_f32(r * c, x->data(), y, op); }),
          vlak_test::FloatsJob(r * (c / 2), true, [=](float* y) {
            return vlak_glu_f32(r, c / 2, x->data(), c, x->data() + c / 2, c, y, c / 2, glu_op);
          })};
}

}  // namespace
