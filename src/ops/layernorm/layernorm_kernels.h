// Layer-norm kernels (layernorm_kernel.cc, compiled once per target): their signatures, declared
// once (dispatch/kernel_list.h). layernorm.cc builds its dispatch tables from this list; the
// kernel source checks its definitions against it.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_LAYERNORM_KERNELS(X)                                                                                     \
  X(kLayerNormRows, void, LayerNormRowsF32,                                                                           \
    (size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, const float* beta, float eps,     \
     float* y, size_t y_stride, float* mean, float* rstd, bool stream))                                               \
  X(kAddLayerNormRows, void, AddLayerNormRowsF32,                                                                     \
    (size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride, float* s,            \
     size_t s_stride, const float* gamma, const float* beta, float eps, float* y, size_t y_stride, bool stream))      \
  X(kLayerNormBackwardRows, void, LayerNormBackwardRowsF32,                                                           \
    (size_t rows, size_t cols, const float* dy, const float* x, size_t stride, const float* gamma, const float* mean, \
     const float* rstd, float* dx, float* acc_g, float* acc_b, double* sum_g, double* sum_b, bool from_memory))       \
  X(kLayerNormColumnSums, void, LayerNormColumnSumsF32,                                                               \
    (const double* sums, size_t chunk_stride, int chunks, size_t cols, float* out))
