// s = x + r over rows, generic over the tag: compiled once per target.
//
// One float add per element, rounded once: the same bits on every target. Cost per element: two
// loads, an add, a store, with no remainder loop (the last strip is masked, or VL-limited on RVV).
// s may be x or r (the same stride): each strip is loaded before it is stored.
#include "ops/add_norm/add_norm_kernels.h"
#include "ops/row_kernel_lmul.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {

void AddRowsF32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride, float* s,
                size_t s_stride) {
  const Simd<float, kRowKernelPow2> d;
  for (size_t row = 0; row < rows; ++row, x += x_stride, r += r_stride, s += s_stride) {
    ForEachStrip(d, cols, [&](auto ds, size_t i) { StoreU(ds, Add(ds, LoadU(ds, x + i), LoadU(ds, r + i)), s + i); });
  }
}

VLAK_KERNELS_DEFINED(VLAK_ADD_NORM_KERNELS)

}  // namespace vlak::VLAK_NS
