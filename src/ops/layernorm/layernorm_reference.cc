// Float64 references for LayerNorm forward and backward: direct transcriptions of the formulas
// in vlak.h, two passes in double (the mean, then the squared deviations).
#include <cmath>
#include <limits>

#include "ops/layernorm/layernorm.h"

namespace vlak {

void LayerNormReferenceF64(const float* x, size_t n, const float* gamma, const float* beta, float eps, double* y,
                           double* mean, double* rstd) {
  double s = 0;
  bool finite = true;
  for (size_t i = 0; i < n; ++i) {
    s += x[i];
    finite = finite && std::isfinite(x[i]);
  }
  if (!finite) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (size_t i = 0; i < n; ++i) y[i] = nan;
    *mean = *rstd = nan;
    return;
  }
  const double m = s / static_cast<double>(n);
  double v = 0;
  for (size_t i = 0; i < n; ++i) v += (x[i] - m) * (x[i] - m);
  v /= static_cast<double>(n);
  const double r = 1.0 / std::sqrt(v + static_cast<double>(eps));
  for (size_t i = 0; i < n; ++i) {
    const double g = gamma != nullptr ? gamma[i] : 1.0;
    const double b = beta != nullptr ? beta[i] : 0.0;
    y[i] = (x[i] - m) * r * g + b;
  }
  *mean = m;
  *rstd = r;
}

void LayerNormBackwardReferenceF64(const float* dy, const float* x, size_t n, const float* gamma, float mean,
                                   float rstd, double* dx, double* dgamma_terms, double* dbeta_terms) {
  double sum_g = 0, sum_gx = 0;
  for (size_t i = 0; i < n; ++i) {
    const double xhat = (static_cast<double>(x[i]) - mean) * rstd;
    const double g = static_cast<double>(dy[i]) * (gamma != nullptr ? gamma[i] : 1.0);
    sum_g += g;
    sum_gx += g * xhat;
    dgamma_terms[i] = static_cast<double>(dy[i]) * xhat;
    dbeta_terms[i] = dy[i];
  }
  const double mg = sum_g / static_cast<double>(n), mgx = sum_gx / static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const double xhat = (static_cast<double>(x[i]) - mean) * rstd;
    const double g = static_cast<double>(dy[i]) * (gamma != nullptr ? gamma[i] : 1.0);
    dx[i] = static_cast<double>(rstd) * (g - mg - xhat * mgx);
  }
}

void LayerNormReferenceRowsF64(const float* x, size_t rows, size_t cols, const float* gamma, const float* beta,
                               float eps, double* y, float* scale) {
  for (size_t r = 0; r < rows; ++r) {
    double mean = 0, rstd = 0;
    LayerNormReferenceF64(x + r * cols, cols, gamma, beta, eps, y + r * cols, &mean, &rstd);
    for (size_t c = 0; c < cols; ++c) {
      const double xhat = (x[r * cols + c] - mean) * rstd;
      const double g = gamma != nullptr ? gamma[c] : 1.0, b = beta != nullptr ? beta[c] : 0.0;
      scale[r * cols + c] = static_cast<float>(std::fabs(g) * (1 + std::fabs(xhat)) + std::fabs(b));
    }
  }
}

}  // namespace vlak
