// Reference warp: vlak.h's definition in plain integers, one pixel at a time.
#include "ops/warp/warp.h"

namespace vlak {

void WarpReferenceI8(size_t channels, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                     int8_t* dst) {
  for (size_t c = 0; c < channels; ++c) {
    for (size_t h = 0; h < height; ++h) {
      const int8_t* row = src + (c * height + h) * width;
      for (size_t w = 0; w < width; ++w) {
        const int32_t o = offsets[h * width + w];
        const int64_t n = o >> 8;
        const int32_t f = static_cast<int8_t>(static_cast<uint8_t>(o & 0xFF));
        const int64_t r = static_cast<int64_t>(w) - n, l = r - 1;
        const int64_t wide = static_cast<int64_t>(width);
        const int32_t right = (r >= 0 && r < wide) ? row[r] : 0;
        const int32_t left = (l >= 0 && l < wide) ? row[l] : 0;
        const int32_t sum = right * 256 + (left - right) * f;
        dst[(c * height + h) * width + w] = static_cast<int8_t>(static_cast<uint32_t>(sum) >> 8 & 0xFF);
      }
    }
  }
}

}  // namespace vlak
