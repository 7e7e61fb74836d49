/* Plain C residual add + norms, for the lab's compiler comparison (see peer_common.h): s = x + r,
 * then the two-pass LayerNorm of layernorm_peer.c or the RMSNorm of rmsnorm_peer.c, row by row on
 * a dense rows x cols matrix, and the add alone (the first of the two calls a caller without a
 * fused operator makes). */
#include <math.h>
#include <stddef.h>

#include "../peer_common.h"

void VLAK_REF(add_f32)(const float* x, const float* r, float* s, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) s[i] = x[i] + r[i];
}

void VLAK_REF(add_layernorm_f32)(const float* x, const float* r, const float* gamma, const float* beta, float* y,
                                 size_t rows, size_t cols, float eps) {
  for (size_t row = 0; row < rows; ++row) {
    const float* xr = x + row * cols;
    const float* rr = r + row * cols;
    float* yr = y + row * cols;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (size_t i = 0; i < cols; ++i) {
      yr[i] = xr[i] + rr[i];
      sum += yr[i];
    }
    const float mean = sum / (float)cols;
    float var = 0.0f;
#pragma omp simd reduction(+ : var)
    for (size_t i = 0; i < cols; ++i) var += (yr[i] - mean) * (yr[i] - mean);
    const float rstd = 1.0f / sqrtf(var / (float)cols + eps);
#pragma omp simd
    for (size_t i = 0; i < cols; ++i) yr[i] = (yr[i] - mean) * rstd * gamma[i] + beta[i];
  }
}

void VLAK_REF(add_rmsnorm_f32)(const float* x, const float* r, const float* gamma, float* y, float* s, size_t rows,
                               size_t cols, float eps) {
  for (size_t row = 0; row < rows; ++row) {
    const float* xr = x + row * cols;
    const float* rr = r + row * cols;
    float* sr = s + row * cols;
    float* yr = y + row * cols;
    float ss = 0.0f;
#pragma omp simd reduction(+ : ss)
    for (size_t i = 0; i < cols; ++i) {
      sr[i] = xr[i] + rr[i];
      ss += sr[i] * sr[i];
    }
    const float inv = 1.0f / sqrtf(ss / (float)cols + eps);
#pragma omp simd
    for (size_t i = 0; i < cols; ++i) yr[i] = sr[i] * inv * gamma[i];
  }
}
