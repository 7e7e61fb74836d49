// RMS-norm kernels (rmsnorm_kernel.cc, compiled once per target): their signatures, declared once
// (dispatch/kernel_list.h). rmsnorm.cc builds its dispatch tables from this list; the kernel
// source checks its definitions against it.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_RMSNORM_KERNELS(X)                                                                                       \
  X(kRmsNormRows, void, RmsNormRowsF32,                                                                               \
    (size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, float eps, float* y,              \
     size_t y_stride, bool stream))                                                                                 \
  X(kAddRmsNormRows, void, AddRmsNormRowsF32,                                                                         \
    (size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride, float* s,            \
     size_t s_stride, const float* gamma, float eps, float* y, size_t y_stride, bool stream))
