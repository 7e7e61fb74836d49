/* Plain C RoPE, Terapines AI-Benchmark's pairing (element i with i + d/2, GPT-NeoX / Hugging Face Llama), for the
 * lab's compiler comparison (see peer_common.h). x and y are [positions][rows][dim] (rows = batch x
 * heads), cos and sin [positions][dim/2]; the lab hands each thread its own block of positions. */
#include <stddef.h>

#include "../peer_common.h"

void VLAK_REF(rope_f32)(const float* x, const float* cos_t, const float* sin_t, float* y, size_t positions,
                        size_t rows, size_t dim) {
  const size_t h = dim / 2;
  for (size_t p = 0; p < positions; ++p) {
    const float* c = cos_t + p * h;
    const float* s = sin_t + p * h;
    for (size_t r = 0; r < rows; ++r) {
      const float* xr = x + (p * rows + r) * dim;
      float* yr = y + (p * rows + r) * dim;
#pragma omp simd
      for (size_t i = 0; i < h; ++i) {
        const float a = xr[i], b = xr[i + h];
        yr[i] = a * c[i] - b * s[i];
        yr[i + h] = a * s[i] + b * c[i];
      }
    }
  }
}
