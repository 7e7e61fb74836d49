// Attention kernels (attention_kernel.cc, compiled once per target): their signatures, declared
// once (dispatch/kernel_list.h). attention.cc builds its dispatch tables from this list; the
// kernel source checks its definitions against it.
//   AttentionShapeF32: the target's blocking and one thread's scratch for these dimensions, with
//     cached_keys keys of packed K^T kept between units (AttentionArgs::cached_keys).
//   AttentionUnitF32: one work unit (attention.h) of the call; scratch holds scratch_floats,
//     64-byte aligned, whose first 16 floats the caller zeroes before the call's first unit.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"
#include "ops/attention/attention.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_ATTENTION_KERNELS(X)                                                                    \
  X(kAttentionShape, AttentionShape, AttentionShapeF32, (size_t head_dim, size_t value_dim, size_t cached_keys)) \
  X(kAttentionUnit, void, AttentionUnitF32, (const AttentionArgs& g, size_t unit, float* scratch))
