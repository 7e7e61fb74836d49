// float64 definitions the SFPI kernels approximate (for `vlak accuracy sfpi` and the lab).
#pragma once

#include <cmath>

namespace vlak::sfpi {
inline double RefExp(double x) { return std::exp(x); }
inline double RefRecip(double x) { return 1.0 / x; }
inline double RefTanh(double x) { return std::tanh(x); }
inline double RefSigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
// gelu(x) = x Phi(x), Phi through erfc (no cancellation for x < 0).
inline double RefGelu(double x) { return 0.5 * x * std::erfc(-x * 0.70710678118654752440); }
inline double RefLog(double x) { return std::log(x); }
inline double RefSqrt(double x) { return std::sqrt(x); }
}  // namespace vlak::sfpi
