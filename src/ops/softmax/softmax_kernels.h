// Softmax kernels (softmax_kernel.cc, softmax_variants_kernel.cc, compiled once per target): their
// signatures, declared once (dispatch/kernel_list.h). softmax.cc builds its dispatch tables from
// this list; the kernel source checks its definitions against it.
//   SoftmaxRowF32: one row; algo is a SoftmaxAlgo other than kAuto. Returns VLAK_OK: a status, so
//     that a one-row call ends in a tail call.
//   SoftmaxVariantRowF32: exp_variant is a vlak_exp_variant; false for an unknown variant or LMUL.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"
#include "vlak/vlak.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_SOFTMAX_KERNELS(X)                                                                                       \
  X(kSoftmaxRow, vlak_status, SoftmaxRowF32, (const float* x, float* y, size_t n, unsigned flags, int algo))          \
  X(kSoftmaxVariantRow, bool, SoftmaxVariantRowF32,                                                                   \
    (int exp_variant, int lmul_pow2, const float* x, float* y, size_t n))
