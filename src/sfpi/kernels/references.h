// float64 definitions the SFPI kernels approximate (for `vlak accuracy sfpi` and the lab).
#pragma once

#include <cmath>

namespace vlak::sfpi {
inline double RefExp(double x) { return std::exp(x); }
inline double RefRecip(double x) { return 1.0 / x; }
inline double RefTanh(double x) { return std::tanh(x); }
}  // namespace vlak::sfpi
