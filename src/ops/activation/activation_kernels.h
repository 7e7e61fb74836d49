// Activation kernels (activation_kernel.cc, compiled once per target): their signatures, declared
// once (dispatch/kernel_list.h). activation.cc builds its dispatch tables from this list; the
// kernel source checks its definitions against it.
//   ActivationF32: y[i] = act(x[i]), i < n; x == y allowed.
//   GluF32: y[r][c] = act(gate[r][c]) * up[r][c] for rows x cols; y may be gate or up (same stride).
// op is a valid vlak_activation value, possibly with VLAK_ACT_FAST (the API checks it); for
// ActivationF32 also kActStreamOutput: y is written by non-temporal stores where the target has
// them (the API asks for it when the whole output is larger than the caches would keep).
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

namespace vlak {
inline constexpr int kActStreamOutput = 1 << 16;
}  // namespace vlak

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_ACTIVATION_KERNELS(X)                                                                                    \
  X(kActivationF32, void, ActivationF32, (int op, const float* x, float* y, size_t n))                               \
  X(kGluF32, void, GluF32,                                                                                            \
    (int op, size_t rows, size_t cols, const float* gate, size_t gate_stride, const float* up, size_t up_stride,     \
     float* y, size_t y_stride))
