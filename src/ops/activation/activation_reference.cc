// Float64 reference of the activations: vlak.h's formulas in double, with vlak.h's limits at
// +-inf (where the formula in double gives inf * 0 or inf / inf).
#include <cmath>
#include <limits>

#include "ops/activation/activation.h"

namespace vlak {

namespace {
// sigmoid without cancellation on either side.
double Sigmoid(double v) {
  if (v >= 0) return 1.0 / (1.0 + std::exp(-v));
  const double e = std::exp(v);
  return e / (1.0 + e);
}
}  // namespace

double ActivationReferenceF64(vlak_activation op, double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) {
    switch (op) {
      case VLAK_ACT_SIGMOID: return x > 0 ? 1.0 : 0.0;
      case VLAK_ACT_TANH: return x > 0 ? 1.0 : -1.0;
      case VLAK_ACT_GELU:
      case VLAK_ACT_GELU_TANH:
      case VLAK_ACT_SILU: return x > 0 ? x : -0.0;
      case VLAK_ACT_SOFTPLUS: return x > 0 ? x : 0.0;
    }
    return std::numeric_limits<double>::quiet_NaN();
  }
  switch (op) {
    case VLAK_ACT_SIGMOID: return Sigmoid(x);
    case VLAK_ACT_TANH: return std::tanh(x);
    case VLAK_ACT_GELU: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case VLAK_ACT_GELU_TANH: {
      // 0.5 x (1 + tanh(w)) = x sigmoid(2w): no cancellation for x < 0.
      const double w = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
      return x * Sigmoid(2.0 * w);
    }
    case VLAK_ACT_SILU: return x * Sigmoid(x);
    case VLAK_ACT_SOFTPLUS: return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace vlak
