// RMSNorm internals shared by the API, tests and the lab.
#pragma once

#include <cstddef>

namespace vlak {

// Float64 reference of one row (plain loops in double): y = x / sqrt(mean(x^2) + eps) * gamma,
// gamma may be null (1). A NaN or inf in x gives a NaN row.
void RmsNormReferenceF64(const float* x, size_t n, const float* gamma, float eps, double* y);

}  // namespace vlak
