// Bilinear resize, one output pixel at a time from vlak.h's definition: exact integers, no tables,
// no vectors. The lab checks every implementation against it.
#include "ops/resize/resize.h"

namespace vlak {
namespace {

template <typename T>
void Reference(size_t channels, size_t in_h, size_t in_w, const T* src, size_t out_h, size_t out_w, T* dst,
               bool half_pixel) {
  for (size_t c = 0; c < channels; ++c) {
    const T* s = src + c * in_h * in_w;
    T* d = dst + c * out_h * out_w;
    for (size_t oy = 0; oy < out_h; ++oy) {
      const uint64_t py = ResizePositionQ7(oy, in_h, out_h, half_pixel);
      const size_t y0 = py >> 7, y1 = y0 + 1 < in_h ? y0 + 1 : in_h - 1;
      const int64_t wy1 = py & 127, wy0 = 128 - wy1;
      for (size_t ox = 0; ox < out_w; ++ox) {
        const uint64_t px = ResizePositionQ7(ox, in_w, out_w, half_pixel);
        const size_t x0 = px >> 7, x1 = x0 + 1 < in_w ? x0 + 1 : in_w - 1;
        const int64_t wx1 = px & 127, wx0 = 128 - wx1;
        // >> of a negative int64 is arithmetic (C++20), i.e. floor division by 128.
        const int64_t top = (s[y0 * in_w + x0] * wx0 + s[y0 * in_w + x1] * wx1) >> 7;
        const int64_t bot = (s[y1 * in_w + x0] * wx0 + s[y1 * in_w + x1] * wx1) >> 7;
        d[oy * out_w + ox] = static_cast<T>((top * wy0 + bot * wy1) >> 7);
      }
    }
  }
}

}  // namespace

void ResizeBilinearReferenceI8(size_t channels, size_t in_h, size_t in_w, const int8_t* src, size_t out_h,
                               size_t out_w, int8_t* dst, bool half_pixel) {
  Reference(channels, in_h, in_w, src, out_h, out_w, dst, half_pixel);
}
void ResizeBilinearReferenceU8(size_t channels, size_t in_h, size_t in_w, const uint8_t* src, size_t out_h,
                               size_t out_w, uint8_t* dst, bool half_pixel) {
  Reference(channels, in_h, in_w, src, out_h, out_w, dst, half_pixel);
}

}  // namespace vlak
