// Warp kernels (warp_kernel.cc, compiled once per target): their signatures, declared once
// (dispatch/kernel_list.h). warp.cc builds its dispatch tables from this list; the kernel source
// checks its definitions against it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_WARP_KERNELS(X)                                                                                          \
  X(kWarpRows, void, WarpRowsI8,                                                                                      \
    (size_t begin, size_t end, size_t height, size_t width, const int8_t* src, const int16_t* offsets, int8_t* dst))
