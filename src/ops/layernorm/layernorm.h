// LayerNorm internals shared by the API, the kernels, tests and the lab.
#pragma once

#include <cstddef>

namespace vlak {

// Float64 references, written independently of the kernels (plain two-pass loops in double):
// the oracles for tests and the lab. One row of n elements; gamma/beta may be null (1, 0).
// Special values as vlak_layernorm_f32: a NaN or inf in x gives NaN y, mean and rstd.
void LayerNormReferenceF64(const float* x, size_t n, const float* gamma, const float* beta, float eps, double* y,
                           double* mean, double* rstd);
// LayerNormReferenceF64 over rows x cols dense rows, and per element the scale vlak.h's bound is
// stated in, |gamma| (1 + |xhat64|) + |beta| (gamma, beta null: 1, 0): the lab's reference.
void LayerNormReferenceRowsF64(const float* x, size_t rows, size_t cols, const float* gamma, const float* beta,
                               float eps, double* y, float* scale);
// The backward pass of one row given the forward's float mean and rstd: dx (n values) and the
// row's terms of dgamma (dy * xhat) and dbeta (dy), each n values; gamma may be null.
void LayerNormBackwardReferenceF64(const float* dy, const float* x, size_t n, const float* gamma, float mean,
                                   float rstd, double* dx, double* dgamma_terms, double* dbeta_terms);

}  // namespace vlak
