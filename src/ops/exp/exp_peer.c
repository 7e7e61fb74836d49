/* Plain C exp over an array: the compiler-comparison peer of vlak_exp_f32 (see peer_common.h). */
#include <stddef.h>

#include "../peer_common.h"

void VLAK_REF(exp_f32)(const float* x, float* y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) y[i] = vlak_ref_expf(x[i]);
}
