// Correlation kernels (correlation_kernel.cc, compiled once per target): their signatures,
// declared once (dispatch/kernel_list.h). correlation.cc builds its dispatch tables from this
// list; the kernel source checks its definitions against it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_CORRELATION_KERNELS(X)                                                                                   \
  X(kCorrelationRows, void, CorrelationRowsI8,                                                                        \
    (size_t begin, size_t end, size_t channels, size_t height, size_t width, const int8_t* a, const int8_t* b,        \
     unsigned shift, int8_t* out, unsigned flags))
