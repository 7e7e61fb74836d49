/* Plain C 2x bilinear resize of int8 / uint8 planes, Terapines AI-Benchmark's algorithm, for the lab's compiler
 * comparison and the RVV instruction budget (see peer_common.h). Planar [channels][h][w] in,
 * [channels][2h][2w] out; the input position of output d is d << 6 in Q7 (7 fractional bits):
 * x0 = pos >> 7, x1 = min(x0 + 1, w - 1), weight of x1 = pos & 127; each row pair is blended
 * horizontally with a flooring >> 7, then vertically with a flooring >> 7 (vlak.h's definition with
 * VLAK_RESIZE_ASYMMETRIC at out = 2 in, bit for bit). Output rows [row_begin, row_end) of the
 * channel-major stack of 2h-row planes: the lab hands each thread its own block. The inner loop
 * computes each tap's index per pixel, as AI-Benchmark's kernel does: a vectoriser has to gather (or
 * see that x0 = x / 2). */
#include <stddef.h>

#include "../peer_common.h"

#define VLAK_REF_RESIZE2X(NAME, T)                                                                       \
  void VLAK_REF(NAME)(const T* src, T* dst, size_t in_h, size_t in_w, size_t row_begin, size_t row_end) { \
    const size_t out_h = 2 * in_h, out_w = 2 * in_w;                                                     \
    for (size_t r = row_begin; r < row_end; ++r) {                                                       \
      const size_t c = r / out_h, dy = r % out_h;                                                        \
      const int sy = (int)(dy << 6);                                                                     \
      const int y0 = sy >> 7, y1 = y0 + 1 < (int)in_h ? y0 + 1 : (int)in_h - 1;                         \
      const int fy = sy & 127;                                                                           \
      const T* r0 = src + (c * in_h + (size_t)y0) * in_w;                                                \
      const T* r1 = src + (c * in_h + (size_t)y1) * in_w;                                                \
      T* d = dst + r * out_w;                                                                            \
      _Pragma("omp simd")                                                                                \
      for (size_t dx = 0; dx < out_w; ++dx) {                                                            \
        const int sx = (int)(dx << 6);                                                                   \
        const int x0 = sx >> 7, x1 = x0 + 1 < (int)in_w ? x0 + 1 : (int)in_w - 1;                        \
        const int fx = sx & 127;                                                                         \
        const int top = (r0[x0] * (128 - fx) + r0[x1] * fx) >> 7;                                        \
        const int bot = (r1[x0] * (128 - fx) + r1[x1] * fx) >> 7;                                        \
        d[dx] = (T)((top * (128 - fy) + bot * fy) >> 7);                                                 \
      }                                                                                                  \
    }                                                                                                    \
  }

VLAK_REF_RESIZE2X(resize2x_i8, int8_t)
VLAK_REF_RESIZE2X(resize2x_u8, uint8_t)
