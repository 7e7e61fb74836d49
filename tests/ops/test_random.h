// The operator tests' random floats: the same values as libstdc++'s std::uniform_real_distribution
// and std::normal_distribution on std::mt19937, drawn without their cost under qemu.
//
// libstdc++ (12, as the RISC-V sysroot and the host have it) draws each float or double through
// std::generate_canonical, which computes log2 of the engine's range in long double on every
// call (std::log(__r) / std::log(2.0L)), and no compiler folds it. On RISC-V long double is IEEE
// quad done in software (libgcc), so under qemu-riscv64 7.2 one uniform float cost 14 us of CPU
// and one normal float 19 us, against 0.15 us for the engine call itself (2026-11-27, the 2-core
// Zen 3 build machine): the 2*10^6-element row of Softmax.TenMillionElementRowKeepsSumAccurate
// took ~28 s of CPU to draw, more than the softmax calls and the float64 reference together.
//
// Canonical below is generate_canonical with that constant written out (the range of mt19937 is
// 2^32 and log2 of it 32), and UniformReal and NormalPolar are libstdc++'s operator() bodies
// (random.h, random.tcc) with the same engine calls, in the same order, and the same expressions
// in the same types, so every value is the same bits (tests/ops/test_random_test.cc checks them
// against the standard library's). Only std::mt19937 (a 32-bit engine) is supported: another
// engine's range changes how many calls make one value.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <type_traits>

namespace vlak_test {

// std::generate_canonical<Real, std::numeric_limits<Real>::digits>(rng).
template <typename Real>
Real Canonical(std::mt19937& rng) {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>);
  static_assert(std::mt19937::min() == 0 && std::mt19937::max() == 0xffffffffu);
  // ceil(digits / log2(range)): one 32-bit call for a float's 24 bits, two for a double's 53.
  constexpr size_t kCalls = std::is_same_v<Real, float> ? 1 : 2;
  constexpr Real kRange = static_cast<Real>(4294967296.0);  // 2^32, exact in both types
  Real sum = Real(0);
  Real tmp = Real(1);
  for (size_t k = kCalls; k != 0; --k) {
    sum += Real(rng() - std::mt19937::min()) * tmp;
    tmp *= kRange;  // libstdc++ multiplies in long double and converts back: exact either way
  }
  Real ret = sum / tmp;
  if (ret >= Real(1)) ret = std::nextafter(Real(1), Real(0));
  return ret;
}

// std::uniform_real_distribution<Real>(a, b).
template <typename Real>
class UniformReal {
 public:
  UniformReal(Real a, Real b) : a_(a), b_(b) {}
  Real operator()(std::mt19937& rng) const { return (Canonical<Real>(rng) * (b_ - a_)) + a_; }

 private:
  Real a_, b_;
};

// std::normal_distribution<Real>(mean, stddev): the Marsaglia polar method, whose second value of
// each pair is kept for the next call, as the standard library's object keeps it.
template <typename Real>
class NormalPolar {
 public:
  NormalPolar(Real mean, Real stddev) : mean_(mean), stddev_(stddev) {}
  Real operator()(std::mt19937& rng) {
    Real ret;
    if (saved_available_) {
      saved_available_ = false;
      ret = saved_;
    } else {
      Real x, y, r2;
      do {
        // The literals' types as in libstdc++ (- 1.0 is a double), so the roundings are the same.
        x = Real(2.0) * Canonical<Real>(rng) - 1.0;
        y = Real(2.0) * Canonical<Real>(rng) - 1.0;
        r2 = x * x + y * y;
      } while (r2 > 1.0 || r2 == 0.0);
      const Real mult = std::sqrt(-2 * std::log(r2) / r2);
      saved_ = x * mult;
      saved_available_ = true;
      ret = y * mult;
    }
    ret = ret * stddev_ + mean_;
    return ret;
  }

 private:
  Real mean_, stddev_;
  Real saved_ = Real(0);
  bool saved_available_ = false;
};

}  // namespace vlak_test
