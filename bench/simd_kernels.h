// The vector-layer benchmark kernels (simd_kernels.cc, compiled once per target): their
// signatures, declared once (dispatch/kernel_list.h). bench_simd.cc builds its dispatch tables
// from this list; the kernel source checks its definitions against it.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_BENCH_SIMD_KERNELS(X)                                                                                    \
  X(kSumM1, float, BenchSumF32M1, (const float* x, size_t n))                                                         \
  X(kSumM4, float, BenchSumF32M4, (const float* x, size_t n))                                                         \
  X(kAxpyM1, void, BenchAxpyF32M1, (float a, const float* x, float* y, size_t n))                                     \
  X(kAxpyM4, void, BenchAxpyF32M4, (float a, const float* x, float* y, size_t n))
