// Float64 reference for RMSNorm: the formula of vlak.h in double.
#include <cmath>
#include <limits>

#include "ops/rmsnorm/rmsnorm.h"

namespace vlak {

void RmsNormReferenceF64(const float* x, size_t n, const float* gamma, float eps, double* y) {
  double s = 0;
  bool finite = true;
  for (size_t i = 0; i < n; ++i) {
    s += static_cast<double>(x[i]) * x[i];
    finite = finite && std::isfinite(x[i]);
  }
  const double r = finite ? 1.0 / std::sqrt(s / static_cast<double>(n) + eps) : std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 0; i < n; ++i) y[i] = x[i] * r * (gamma != nullptr ? gamma[i] : 1.0);
}

void RmsNormReferenceRowsF64(const float* x, size_t rows, size_t cols, const float* gamma, float eps, double* y,
                             float* scale) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    RmsNormReferenceF64(xr, cols, gamma, eps, y + r * cols);
    double ss = 0;
    for (size_t c = 0; c < cols; ++c) ss += static_cast<double>(xr[c]) * xr[c];
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(cols) + eps);
    for (size_t c = 0; c < cols; ++c) {
      const double g = gamma != nullptr ? gamma[c] : 1.0;
      scale[r * cols + c] = static_cast<float>(std::fabs(g) * (1 + std::fabs(xr[c] * inv)));
    }
  }
}

}  // namespace vlak
