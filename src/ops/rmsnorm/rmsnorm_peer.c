/* Plain C RMS normalisation (Llama): y = x / sqrt(mean(x^2) + eps) * gamma, for the lab's compiler
 * comparison (see peer_common.h). Rows [0, rows) of a dense rows x cols matrix. */
#include <math.h>
#include <stddef.h>

#include "../peer_common.h"

void VLAK_REF(rmsnorm_f32)(const float* x, const float* gamma, float* y, size_t rows, size_t cols, float eps) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float ss = 0.0f;
#pragma omp simd reduction(+ : ss)
    for (size_t i = 0; i < cols; ++i) ss += xr[i] * xr[i];
    const float inv = 1.0f / sqrtf(ss / (float)cols + eps);
#pragma omp simd
    for (size_t i = 0; i < cols; ++i) yr[i] = xr[i] * inv * gamma[i];
  }
}
