// Residual-add kernel of the fused add + norm operators (add_norm_kernel.cc, compiled once per
// target): its signature, declared once (dispatch/kernel_list.h). add_norm.cc builds its dispatch
// table from this list and runs the layernorm / rmsnorm row kernels on the sums.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_ADD_NORM_KERNELS(X)                                                                            \
  X(kAddRows, void, AddRowsF32,                                                                             \
    (size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride, float* s,  \
     size_t s_stride))
