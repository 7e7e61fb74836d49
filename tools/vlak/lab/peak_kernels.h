// The lab's roofline kernels (peak_kernel.cc, compiled once per target): their signatures,
// declared once (dispatch/kernel_list.h). roofline.cc builds its dispatch tables from this list;
// the kernel source checks its definitions against it.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_LAB_PEAK_KERNELS(X)                                                                                      \
  X(kLabFmaPeak, double, LabFmaPeak, (size_t iters, float seed, double* flops))                                       \
  X(kLabCopy, void, LabCopy, (const float* x, float* y, size_t n))
