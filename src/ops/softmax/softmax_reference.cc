// Float64 softmax reference: the oracle. Plain loops, libm exp/log in double, and a compensated
// (Neumaier) sum, so a 10^7-term row is good to ~1e-16. Not long double: on riscv64 that is
// software quad precision, hundreds of times slower under qemu, for accuracy a float32 bar
// cannot see.
#include <cmath>
#include <limits>

#include "ops/softmax/softmax.h"

namespace vlak {

void SoftmaxReferenceF64(const float* x, size_t n, double* y, unsigned flags) {
  const bool log_mode = (flags & VLAK_SOFTMAX_LOG) != 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  bool has_nan = false;
  double m = -inf;
  size_t pos_inf = 0;
  for (size_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (std::isnan(v)) has_nan = true;
    if (v == inf) ++pos_inf;
    if (v > m) m = v;
  }
  if (has_nan) {
    for (size_t i = 0; i < n; ++i) y[i] = nan;
    return;
  }
  if (m == -inf) {  // every entry is -inf: the mass has nowhere to go
    const bool safe = (flags & VLAK_SOFTMAX_SAFE) != 0;
    for (size_t i = 0; i < n; ++i) y[i] = safe ? (log_mode ? -inf : 0.0) : nan;
    return;
  }
  if (pos_inf > 0) {  // the +inf entries share the mass
    const double share = 1.0 / static_cast<double>(pos_inf);
    for (size_t i = 0; i < n; ++i) {
      const double p = x[i] == inf ? share : 0.0;
      y[i] = log_mode ? std::log(p) : p;
    }
    return;
  }
  double sum = 0, compensation = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = std::exp(static_cast<double>(x[i]) - m);
    const double t = sum + e;
    compensation += std::fabs(sum) >= e ? (sum - t) + e : (e - t) + sum;
    sum = t;
  }
  sum += compensation;
  const double log_sum = std::log(sum);
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - m;
    y[i] = log_mode ? d - log_sum : std::exp(d) / sum;
  }
}

}  // namespace vlak
