// Softmax internals shared by the API, the kernels, tests and benchmarks.
#pragma once

#include <cstddef>

#include "vlak/vlak.h"

namespace vlak {

// How a row is computed. kAuto: two-pass when x and y (8 * cols bytes) exceed L2, else three-pass.
enum class SoftmaxAlgo : int {
  kAuto = 0,
  kThreePass = 1,  // max; exp + sum + store; scale: one exp per element, reads y back
  kTwoPass = 2,    // online max + rescaled sum per L1 block, then exp * 1/sum: 12 bytes per element
};

// vlak_softmax_f32 with the algorithm forced (for tests and benchmarks).
vlak_status SoftmaxF32(size_t rows, size_t cols, const float* x, size_t x_stride, float* y,
                       size_t y_stride, unsigned flags, SoftmaxAlgo algo);

// Three-pass softmax of one row with a chosen exp variant and LMUL (2^lmul_pow2) on the active
// target, for the RISC-V hackathon softmax harness (`vlak hackathon`) and the lab. False for an
// unknown variant/LMUL or when VLAK_TARGET could not be honoured.
bool SoftmaxVariantRow(vlak_exp_variant variant, int lmul_pow2, const float* x, float* y, size_t n);

// Float64 reference, written independently of the kernels: the oracle for tests and the lab.
// y gets softmax (or log-softmax with VLAK_SOFTMAX_LOG) of one row, with the special-value
// rules of vlak_softmax_f32 (SAFE honoured).
void SoftmaxReferenceF64(const float* x, size_t n, double* y, unsigned flags);

}  // namespace vlak
