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

}  // namespace vlak
