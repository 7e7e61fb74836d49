// The NPU model's lane kernels (npu_lanes_kernel.cc, compiled once per target): their signatures,
// declared once (dispatch/kernel_list.h). npu_lanes.cc builds its dispatch tables from this list;
// the kernel source checks its definitions against it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_list.h"

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_NPU_LANES_KERNELS(X)                                                                                     \
  X(kNpuLaneArith, void, NpuLaneArith,                                                                                \
    (int op, int bits, bool sat, size_t k, const uint32_t* a, const uint32_t* b, uint32_t* r))                        \
  X(kNpuLaneLut, void, NpuLaneLut, (const int32_t* wide, size_t k, const uint32_t* idx, uint32_t* r))
