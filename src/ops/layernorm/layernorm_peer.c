/* Plain C layer normalisation, forward and backward, as Terapines AI-Benchmark's C operators write them, for the
 * lab's compiler comparison (see peer_common.h). Rows [0, rows) of dense rows x cols matrices; the
 * lab hands each thread its own block of rows.
 *
 * Forward: two passes over the row for the statistics (mean, then the biased variance about it:
 * no E[x^2] - E[x]^2 cancellation), a third for y = (x - mean) * rstd * gamma + beta.
 * Backward: per row the two means of g = dy * gamma (plain and times xhat), then dx; dgamma and
 * dbeta are sums over rows. AI-Benchmark does that with `omp parallel for reduction(+: dgamma[:cols])`;
 * here each thread's block of rows adds into its own partial arrays (this function accumulates:
 * dgamma += ..., dbeta += ...) and the lab sums the partials, which is what the reduction clause
 * does, without the OpenMP runtime in this object (-fopenmp-simd). */
#include <math.h>
#include <stddef.h>

#include "../peer_common.h"

void VLAK_REF(layernorm_f32)(const float* x, const float* gamma, const float* beta, float* y, size_t rows,
                             size_t cols, float eps) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (size_t i = 0; i < cols; ++i) sum += xr[i];
    const float mean = sum / (float)cols;
    float var = 0.0f;
#pragma omp simd reduction(+ : var)
    for (size_t i = 0; i < cols; ++i) {
      const float d = xr[i] - mean;
      var += d * d;
    }
    var /= (float)cols;
    const float rstd = 1.0f / sqrtf(var + eps);
#pragma omp simd
    for (size_t i = 0; i < cols; ++i) yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
  }
}

void VLAK_REF(layernorm_bwd_f32)(const float* dy, const float* x, const float* gamma, const float* mean,
                                 const float* rstd, float* dx, float* dgamma, float* dbeta, size_t rows,
                                 size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const float* dyr = dy + r * cols;
    const float* xr = x + r * cols;
    float* dxr = dx + r * cols;
    const float mu = mean[r], rs = rstd[r];
    float sum_g = 0.0f, sum_gx = 0.0f;
#pragma omp simd reduction(+ : sum_g, sum_gx)
    for (size_t i = 0; i < cols; ++i) {
      const float xhat = (xr[i] - mu) * rs;
      const float g = dyr[i] * gamma[i];
      sum_g += g;
      sum_gx += g * xhat;
    }
    const float mg = sum_g / (float)cols, mgx = sum_gx / (float)cols;
#pragma omp simd
    for (size_t i = 0; i < cols; ++i) {
      const float xhat = (xr[i] - mu) * rs;
      const float g = dyr[i] * gamma[i];
      dxr[i] = rs * (g - mg - xhat * mgx);
      dgamma[i] += dyr[i] * xhat;
      dbeta[i] += dyr[i];
    }
  }
}
