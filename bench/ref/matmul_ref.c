/* Plain C matmul, C = A B for row-major A (m x k), B (k x n), C (m x n), blocked in 16 x 16 tiles
 * of C as seed 004's C operator is (its Triton peer uses the same tiles), for the lab's compiler
 * comparison (see ref_common.h). Each tile accumulates in a local 16 x 16 array over all of k; the
 * inner loop runs along a row of B (contiguous, `omp simd`). No packing, no register blocking
 * beyond what the compiler finds: that is the point of the comparison. The lab hands each thread
 * a block of rows of C. */
#include <stddef.h>

#include "ref_common.h"

#define VLAK_REF_TILE 16

void VLAK_REF(matmul_f32)(const float* a, const float* b, float* c, size_t m, size_t n, size_t k) {
  for (size_t i0 = 0; i0 < m; i0 += VLAK_REF_TILE) {
    const size_t ih = m - i0 < VLAK_REF_TILE ? m - i0 : VLAK_REF_TILE;
    for (size_t j0 = 0; j0 < n; j0 += VLAK_REF_TILE) {
      const size_t jw = n - j0 < VLAK_REF_TILE ? n - j0 : VLAK_REF_TILE;
      float acc[VLAK_REF_TILE][VLAK_REF_TILE] = {{0.0f}};
      for (size_t kk = 0; kk < k; ++kk) {
        const float* br = b + kk * n + j0;
        for (size_t i = 0; i < ih; ++i) {
          const float av = a[(i0 + i) * k + kk];
#pragma omp simd
          for (size_t j = 0; j < jw; ++j) acc[i][j] += av * br[j];
        }
      }
      for (size_t i = 0; i < ih; ++i) {
        for (size_t j = 0; j < jw; ++j) c[(i0 + i) * n + j0 + j] = acc[i][j];
      }
    }
  }
}
