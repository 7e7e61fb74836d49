/* Plain C matmul as a programmer would block it (Terapines AI-Benchmark's benchmark style): C = A * B for dense
 * row-major A (m x k), B (k x n), C (m x n), in 16 x 16 tiles of C with k in steps of 16; the
 * innermost loop runs along a row of the tile (unit stride in B and C), the one a vectoriser
 * takes. For the lab's compiler comparison and the RVV instruction counts (see peer_common.h). */
#include <stddef.h>

#include "../peer_common.h"

#define VLAK_REF_MATMUL_TILE 16

void VLAK_REF(matmul_f32)(const float* a, const float* b, float* c, size_t m, size_t n, size_t k) {
  const size_t t = VLAK_REF_MATMUL_TILE;
  for (size_t i0 = 0; i0 < m; i0 += t) {
    const size_t i1 = i0 + t < m ? i0 + t : m;
    for (size_t j0 = 0; j0 < n; j0 += t) {
      const size_t j1 = j0 + t < n ? j0 + t : n;
      for (size_t i = i0; i < i1; ++i) {
#pragma omp simd
        for (size_t j = j0; j < j1; ++j) c[i * n + j] = 0.0f;
      }
      for (size_t p0 = 0; p0 < k; p0 += t) {
        const size_t p1 = p0 + t < k ? p0 + t : k;
        for (size_t i = i0; i < i1; ++i) {
          for (size_t p = p0; p < p1; ++p) {
            const float aip = a[i * k + p];
#pragma omp simd
            for (size_t j = j0; j < j1; ++j) c[i * n + j] += aip * b[p * n + j];
          }
        }
      }
    }
  }
}
