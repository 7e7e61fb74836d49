// RMSNorm internals shared by the API, tests and the lab.
#pragma once

#include <cstddef>

namespace vlak {

// Float64 reference of one row (plain loops in double): y = x / sqrt(mean(x^2) + eps) * gamma,
// gamma may be null (1). A NaN or inf in x gives a NaN row.
void RmsNormReferenceF64(const float* x, size_t n, const float* gamma, float eps, double* y);
// RmsNormReferenceF64 over rows x cols dense rows, and per element the scale vlak.h's bound is
// stated in, |gamma| (1 + |xhat64|) (gamma null: 1): the lab's reference.
void RmsNormReferenceRowsF64(const float* x, size_t rows, size_t cols, const float* gamma, float eps, double* y,
                             float* scale);

}  // namespace vlak
