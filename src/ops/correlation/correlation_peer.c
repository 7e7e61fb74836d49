/* Plain C correlation, Terapines AI-Benchmark's loop (blocks of 8 columns from j = d, `omp simd` over the block,
 * sums over the channels), for the lab's compiler comparison (see peer_common.h). Two forms:
 * correlation_i8: int32 sums, arithmetic shift, saturation to int8 (vlak_correlation_i8's default);
 * correlation_wrap16_i8: AI-Benchmark's int16 sums and (int8)(sum >> shift) (VLAK_CORRELATION_WRAP16).
 * Both write 0 for j < d, as vlak does (AI-Benchmark leaves those unwritten). a and b are
 * [channels][height][width], out [displacements][height][width]; the lab hands each thread a block
 * of the flattened (d, i) output rows [q0, q1). */
#include <stddef.h>

#include "../peer_common.h"

#define VLAK_CORR_BLOCK 8

void VLAK_REF(correlation_i8)(const int8_t* a, const int8_t* b, int8_t* out, size_t q0, size_t q1, size_t channels,
                              size_t height, size_t width, unsigned shift) {
  for (size_t q = q0; q < q1; ++q) {
    const size_t d = q / height, i = q % height;
    int8_t* row = out + q * width;
    for (size_t j = 0; j < d && j < width; ++j) row[j] = 0;
    for (size_t j = d; j < width; j += VLAK_CORR_BLOCK) {
      int32_t sum[VLAK_CORR_BLOCK] = {0};
      const size_t n = width - j < VLAK_CORR_BLOCK ? width - j : VLAK_CORR_BLOCK;
      for (size_t k = 0; k < channels; ++k) {
        const int8_t* pa = a + (k * height + i) * width + j;
        const int8_t* pb = b + (k * height + i) * width + j - d;
#pragma omp simd
        for (size_t x = 0; x < n; ++x) sum[x] += (int32_t)pa[x] * pb[x];
      }
#pragma omp simd
      for (size_t x = 0; x < n; ++x) {
        const int32_t v = sum[x] >> shift;
        row[j + x] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
      }
    }
  }
}

void VLAK_REF(correlation_wrap16_i8)(const int8_t* a, const int8_t* b, int8_t* out, size_t q0, size_t q1,
                                     size_t channels, size_t height, size_t width, unsigned shift) {
  for (size_t q = q0; q < q1; ++q) {
    const size_t d = q / height, i = q % height;
    int8_t* row = out + q * width;
    for (size_t j = 0; j < d && j < width; ++j) row[j] = 0;
    for (size_t j = d; j < width; j += VLAK_CORR_BLOCK) {
      int16_t sum[VLAK_CORR_BLOCK] = {0};
      const size_t n = width - j < VLAK_CORR_BLOCK ? width - j : VLAK_CORR_BLOCK;
      for (size_t k = 0; k < channels; ++k) {
        const int8_t* pa = a + (k * height + i) * width + j;
        const int8_t* pb = b + (k * height + i) * width + j - d;
#pragma omp simd
        for (size_t x = 0; x < n; ++x) sum[x] = (int16_t)(sum[x] + (int16_t)pa[x] * pb[x]);
      }
#pragma omp simd
      for (size_t x = 0; x < n; ++x) row[j + x] = (int8_t)(sum[x] >> shift);
    }
  }
}
