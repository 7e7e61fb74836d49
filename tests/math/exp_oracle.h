// Test oracle for the f32 exp family: float64 std::exp and the ULP / relative error of a float
// result against it. Nothing here calls the code under test.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace vlak::exp_test {

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Spacing of floats in the binade that |r| lies in; 2^-149 below 2^-126 (denormals).
inline double UlpF32(double r) {
  const double a = std::fabs(r);
  if (a < 0x1p-126) return 0x1p-149;
  uint64_t u;
  std::memcpy(&u, &a, 8);
  const uint64_t e = u >> 52;  // a in [2^(e-1023), 2^(e-1022)): ulp = 2^(e - 1023 - 23)
  const uint64_t ulp_bits = (e - 23) << 52;
  double ulp;
  std::memcpy(&ulp, &ulp_bits, 8);
  return ulp;
}

// |y - exp(x)| in float ULPs of exp(x); +inf for NaN, for +inf where a finite value is due, and
// for a finite value where the float64 result rounds to +inf.
inline double UlpError(float y, double ref) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (std::isnan(y)) return kInf;
  if (ref >= static_cast<double>(FLT_MAX) + 0x1p103) return std::isinf(y) && y > 0 ? 0.0 : kInf;
  if (std::isinf(y)) return kInf;
  return std::fabs(static_cast<double>(y) - ref) / UlpF32(ref);
}

// Relative error, meaningful for normal results only.
inline double RelError(float y, double ref) { return std::fabs(static_cast<double>(y) - ref) / ref; }

// Floats of [lo, hi] (lo <= 0 <= hi) as indices 0..Count()-1: -0 down to lo, then +0 up to hi.
struct FloatRange {
  float lo, hi;
  uint64_t Negatives() const { return Bits(lo) - 0x80000000u + uint64_t{1}; }
  uint64_t Count() const { return Negatives() + Bits(hi) + uint64_t{1}; }
  float At(uint64_t i) const {
    const uint64_t neg = Negatives();
    return i < neg ? FromBits(static_cast<uint32_t>(0x80000000u + i)) : FromBits(static_cast<uint32_t>(i - neg));
  }
};

// Bounds measured by `vlak accuracy exp --exhaustive` (every float of the domain; the targets
// are bit-identical, so these hold on all of them). A sampled test must stay within them; they
// are the measurement, not a tolerance.
struct MeasuredBound {
  const char* name;
  FloatRange domain;
  double max_ulp;
  double max_rel;  // over normal results
};

}  // namespace vlak::exp_test
