/* Plain C warp, Terapines AI-Benchmark's loop (one pass per (channel, row), `omp simd` over the columns, the
 * blend in int16 with wrap-around, out = (int8)(acc >> 8)), for the lab's compiler comparison (see
 * peer_common.h). One change from AI-Benchmark, the one vlak.h states: the tap columns are full-width
 * (r = w - n in a wide integer, taps outside [0, width) read as 0) instead of int8, so the result
 * is vlak_warp_i8's at every width. src and dst are [rows][width] (rows = channels x height, each
 * thread its own block), offsets [height][width]; row q uses offsets row (row0 + q) % height. */
#include <stddef.h>

#include "../peer_common.h"

void VLAK_REF(warp_i8)(const int8_t* src, const int16_t* offsets, int8_t* dst, size_t row0, size_t rows,
                       size_t height, size_t width) {
  for (size_t q = 0; q < rows; ++q) {
    const int8_t* s = src + q * width;
    const int16_t* o = offsets + (row0 + q) % height * width;
    int8_t* d = dst + q * width;
    const long wide = (long)width;
#pragma omp simd
    for (size_t w = 0; w < width; ++w) {
      const int16_t off = o[w];
      const int8_t whole = (int8_t)(off >> 8);
      const int8_t frac = (int8_t)off;
      const long r = (long)w - whole;
      const long l = r - 1;
      const int8_t right = (r >= 0 && r < wide) ? s[r] : 0;
      const int8_t left = (l >= 0 && l < wide) ? s[l] : 0;
      int16_t acc = (int16_t)(right * 256);
      acc = (int16_t)(acc + (int16_t)(left - right) * frac);
      d[w] = (int8_t)(acc >> 8);
    }
  }
}
