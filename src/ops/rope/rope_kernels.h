// RoPE kernels (rope_kernel.cc, compiled once per target): their signatures, declared once
// (dispatch/kernel_list.h). rope.cc builds its dispatch tables from this list; the kernel source
// checks its definitions against it.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_ROPE_KERNELS(X)                                                                                          \
  X(kRopeRows, void, RopeRowsF32,                                                                                     \
    (size_t begin, size_t end, size_t rows_per_position, size_t head_dim, const float* x, const float* cos,           \
     const float* sin, size_t table_stride, float* y, unsigned flags, bool stream))
