// Activation kernels (activation_kernel.cc, compiled once per target): their signatures, declared
// once (dispatch/kernel_list.h). activation.cc builds its dispatch tables from this list; the
// kernel source checks its definitions against it.
//   ActivationF32: y[i] = act(x[i]), i < n; x == y allowed.
//   GluF32: y[r][c] = act(gate[r][c]) * up[r][c] for rows x cols; y may be gate or up (same stride).
//   ActivationStreamF32: ActivationF32 with y written by non-temporal stores where the target has
//   them (the API calls it when the whole output is larger than the caches would keep).
//   BiasActivationRowsF32: y[r][c] = act(y[r][c] + bias[c]) for rows x cols, in place (bias NULL:
//   no addition; op kActNone: no activation): matmul's epilogue, called by its kernels on a tile
//   of C just computed. The same bits as an addition then ActivationF32.
// op is a kernel op code (below; the API maps vlak.h's ops to them).
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

namespace vlak {

// The kernels' op codes: 0..5 the vlak_activation values (the accurate tier, and the fast tier of
// softplus, which runs the accurate kernel); the fast kernels of fast.h after.
inline constexpr int kActFastSigmoid = 6, kActFastTanh = 7, kActFastSilu = 8, kActFastGelu = 9,
                     kActFastGeluTanh = 10, kNumActKernels = 11;
// BiasActivationRowsF32's "no activation" (the bias alone).
inline constexpr int kActNone = -1;

// The kernel op code of an API op (vlak.h: a function, optionally | VLAK_ACT_FAST), or -1 when
// the op is not one. One compare for the accurate tier, as the check of 0..5 alone was.
inline int ActivationKernelOp(int op) {
  if (static_cast<unsigned>(op) < 6u) return op;
  constexpr int kFast[6] = {kActFastSigmoid, kActFastTanh, kActFastGelu, kActFastGeluTanh, kActFastSilu, 5};
  const unsigned f = static_cast<unsigned>(op) - 0x100u;  // VLAK_ACT_FAST
  return f < 6u ? kFast[f] : -1;
}

}  // namespace vlak

// X(table, return type, name, (parameters)): dispatch/kernel_list.h.
#define VLAK_ACTIVATION_KERNELS(X)                                                                                    \
  X(kActivationF32, void, ActivationF32, (int op, const float* x, float* y, size_t n))                               \
  X(kActivationStreamF32, void, ActivationStreamF32, (int op, const float* x, float* y, size_t n))                   \
  X(kBiasActivationRowsF32, void, BiasActivationRowsF32,                                                              \
    (int op, size_t rows, size_t cols, const float* bias, float* y, size_t y_stride))                                \
  X(kGluF32, void, GluF32,                                                                                            \
    (int op, size_t rows, size_t cols, const float* gate, size_t gate_stride, const float* up, size_t up_stride,     \
     float* y, size_t y_stride))
