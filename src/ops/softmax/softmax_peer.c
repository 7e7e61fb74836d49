/* Plain C softmax, three passes per row as a programmer would write it (max; exp and sum; divide
 * by the sum), for the lab's compiler comparison (see peer_common.h). Rows [0, rows) of a dense
 * rows x cols matrix; the lab hands each thread its own block of rows. */
#include <stddef.h>

#include "../peer_common.h"

void VLAK_REF(softmax_f32)(const float* x, float* y, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -__builtin_inff();
#pragma omp simd reduction(max : m)
    for (size_t i = 0; i < cols; ++i) m = xr[i] > m ? xr[i] : m;
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < cols; ++i) {
      const float e = vlak_ref_expf(xr[i] - m);
      yr[i] = e;
      s += e;
    }
#pragma omp simd
    for (size_t i = 0; i < cols; ++i) yr[i] = yr[i] / s;
  }
}
