// Matmul kernels (matmul_kernel.cc, compiled once per target): their signatures, declared once
// (dispatch/kernel_list.h). matmul.cc builds its dispatch tables from this list; the kernel source
// checks its definitions against it.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"
#include "ops/matmul/matmul.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_MATMUL_KERNELS(X)                                                                                        \
  X(kMatmulShape, MatmulShape, MatmulShapeF32, (size_t n))                                                            \
  X(kMatmulBlock, void, MatmulBlockF32,                                                                               \
    (const MatmulArgs& g, bool narrow, size_t i0, size_t i1, size_t j0, size_t j1, float* scratch))                   \
  X(kMatmulDirect, void, MatmulDirectF32,                                                                             \
    (const MatmulArgs& g, bool narrow, size_t i0, size_t i1, size_t j0, size_t j1, float* a_packed))                  \
  X(kMatmulDirectPackA, void, MatmulDirectPackAF32, (const MatmulArgs& g, size_t i0, size_t i1, float* dst))          \
  X(kMatmulPackB, void, MatmulPackBF32,                                                                               \
    (const MatmulArgs& g, bool narrow, size_t pc, size_t kc, size_t j0, size_t ncols, float* dst))                    \
  X(kMatmulPackedRows, void, MatmulPackedRowsF32,                                                                     \
    (const MatmulArgs& g, bool narrow, size_t pc, size_t kc, const float* packed, size_t j0, size_t ncols, size_t i0, \
     size_t i1))
