// INT8 / UINT8 softmax kernels (softmax_i8_kernel.cc, compiled once per target): their signatures,
// declared once (dispatch/kernel_list.h). softmax_i8.cc builds its dispatch tables from this list;
// the kernel source checks its definitions against it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_list.h"
#include "ops/softmax_i8/softmax_i8.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_SOFTMAX_I8_KERNELS(X)                                                                                    \
  X(kSoftmaxI8Rows, void, SoftmaxI8Rows,                                                                              \
    (size_t rows, size_t cols, const int8_t* x, size_t x_stride, int8_t* y, size_t y_stride,                          \
     const SoftmaxI8Tables& t))                                                                                       \
  X(kSoftmaxU8Rows, void, SoftmaxU8Rows,                                                                              \
    (size_t rows, size_t cols, const uint8_t* x, size_t x_stride, uint8_t* y, size_t y_stride,                        \
     const SoftmaxI8Tables& t))
