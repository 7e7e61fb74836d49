// Resize kernels (resize_kernel.cc, compiled once per target): their signatures, declared once
// (dispatch/kernel_list.h). resize.cc builds its dispatch tables from this list; the kernel source
// checks its definitions against it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_list.h"
#include "ops/resize/resize.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_RESIZE_KERNELS(X)                                                                                        \
  X(kResizeRowsI8, void, ResizeRowsI8,                                                                                \
    (const ResizePlan& plan, const int8_t* src, int8_t* dst, size_t row_begin, size_t row_end, void* scratch))        \
  X(kResizeRowsU8, void, ResizeRowsU8,                                                                                \
    (const ResizePlan& plan, const uint8_t* src, uint8_t* dst, size_t row_begin, size_t row_end, void* scratch))
