// Target-information kernels (target_info_kernel.cc, compiled once per target): their signatures,
// declared once (dispatch/kernel_list.h). c_api.cc builds its dispatch tables from this list; the
// kernel source checks its definitions against it.
//   TargetLanes: lanes of a register group of 2^lmul_pow2 registers of elem_size-byte elements.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_TARGET_INFO_KERNELS(X)                                                                                   \
  X(kTargetLanes, size_t, TargetLanes, (int lmul_pow2, size_t elem_size))
