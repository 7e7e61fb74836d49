// The operator tests draw their inputs with tests/ops/test_random.h instead of the standard
// library's distributions (which cost ~14 us per value under qemu): the same bits as
// std::generate_canonical, std::uniform_real_distribution and std::normal_distribution on the
// same std::mt19937, and the engine left in the same state, so the tests' inputs are the ones
// the standard library gives.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "ops/test_random.h"

namespace {

// Under qemu each standard-library value costs ~14-19 us of CPU: 2000 per case keeps these tests
// near 2 s per VLEN together (2026-11-27) and still crosses mt19937's 624-word refills several
// times per case.
#if defined(__riscv)
constexpr int kDraws = 2000;
#else
constexpr int kDraws = 100000;
#endif

template <typename Real>
bool SameBits(Real a, Real b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <typename Real>
void ExpectSameCanonical(uint32_t seed) {
  std::mt19937 mine(seed), theirs(seed);
  for (int i = 0; i < kDraws; ++i) {
    const Real a = vlak_test::Canonical<Real>(mine);
    const Real b = std::generate_canonical<Real, std::numeric_limits<Real>::digits>(theirs);
    ASSERT_TRUE(SameBits(a, b)) << "draw " << i << ": " << a << " vs " << b;
  }
  EXPECT_TRUE(mine == theirs);
}

TEST(TestRandom, CanonicalIsTheStandardLibrarys) {
  for (uint32_t seed : {0u, 1u, 3u, 4242u}) {
    ExpectSameCanonical<float>(seed);
    ExpectSameCanonical<double>(seed);
  }
}

// The parameters the operator tests use, and ranges whose products round.
TEST(TestRandom, UniformIsTheStandardLibrarys) {
  const float ranges[][2] = {{0.0f, 1.0f}, {-1.0f, 1.0f}, {-100.0f, 100.0f}, {-3.0f, 38.0f}, {-8.5f, 3.25f}, {1e-3f, 7.0f}};
  uint32_t seed = 7;
  for (const auto& r : ranges) {
    std::mt19937 mine(seed), theirs(seed);
    ++seed;
    const vlak_test::UniformReal<float> u(r[0], r[1]);
    std::uniform_real_distribution<float> std_u(r[0], r[1]);
    for (int i = 0; i < kDraws; ++i) {
      const float a = u(mine), b = std_u(theirs);
      ASSERT_TRUE(SameBits(a, b)) << "[" << r[0] << ", " << r[1] << ") draw " << i << ": " << a << " vs " << b;
    }
    EXPECT_TRUE(mine == theirs);
  }
}

TEST(TestRandom, NormalIsTheStandardLibrarys) {
  const float params[][2] = {{0.0f, 1.0f}, {1.0f, 2.0f}, {0.0f, 5.0f}, {0.5f, 2.0f}, {1.0f, 0.3f}, {-3.0f, 0.01f}};
  uint32_t seed = 100;
  for (const auto& p : params) {
    std::mt19937 mine(seed), theirs(seed);
    ++seed;
    vlak_test::NormalPolar<float> n(p[0], p[1]);
    std::normal_distribution<float> std_n(p[0], p[1]);
    for (int i = 0; i < kDraws; ++i) {
      const float a = n(mine), b = std_n(theirs);
      ASSERT_TRUE(SameBits(a, b)) << "N(" << p[0] << ", " << p[1] << ") draw " << i << ": " << a << " vs " << b;
    }
    EXPECT_TRUE(mine == theirs);
  }
  // Interleaved with raw engine calls (as Softmax's rows mix rng() and a distribution).
  std::mt19937 mine(5), theirs(5);
  vlak_test::NormalPolar<float> n(0.0f, 5.0f);
  std::normal_distribution<float> std_n(0.0f, 5.0f);
  vlak_test::UniformReal<float> u(-3.0f, 38.0f);
  std::uniform_real_distribution<float> std_u(-3.0f, 38.0f);
  for (int i = 0; i < kDraws; ++i) {
    ASSERT_EQ(mine(), theirs());
    ASSERT_TRUE(SameBits(n(mine), std_n(theirs))) << i;
    ASSERT_TRUE(SameBits(u(mine), std_u(theirs))) << i;
  }
  EXPECT_TRUE(mine == theirs);
}

}  // namespace
