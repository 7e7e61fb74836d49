// Bilinear resize internals shared by the API, the kernel, the tests and the lab.
//
// The API computes the Q7 taps of every output column and row once per call (ResizePlan); the
// kernel (resize_kernel.cc, one per target) walks output rows with them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vlak {

// Q7 position of output coordinate `o` of `out` along an axis of `in` samples (vlak.h's mapping).
// Callers guarantee in * out * 128 fits in 64 bits, so no intermediate overflows.
inline uint64_t ResizePositionQ7(uint64_t o, uint64_t in, uint64_t out, bool half_pixel) {
  if (!half_pixel) return o * in * 128 / out;
  const uint64_t q = (2 * o + 1) * in * 64 / out;
  return q > 64 ? q - 64 : 0;
}

// Taps of one axis: index of the first sample (x0), of the second (x1 = min(x0 + 1, in - 1)) and
// the Q7 weight of the second (w1 = position & 127; the first weighs 128 - w1).
struct ResizeTaps {
  int32_t* i0;
  int32_t* i1;
  int32_t* w1;
};

inline void ResizeFillTaps(size_t in, size_t out, bool half_pixel, ResizeTaps t) {
  for (size_t o = 0; o < out; ++o) {
    const uint64_t p = ResizePositionQ7(o, in, out, half_pixel);
    const uint64_t i0 = p >> 7;
    t.i0[o] = static_cast<int32_t>(i0);
    t.i1[o] = static_cast<int32_t>(i0 + 1 < in ? i0 + 1 : in - 1);
    t.w1[o] = static_cast<int32_t>(p & 127);
  }
}

// How the horizontal pass reads its taps. At out_w = 2 in_w both mappings are affine pairs with
// fixed weights (AI-Benchmark's ASYMMETRIC 2x: x0 = ox / 2, wx1 = 0 / 64; HALF_PIXEL: positions
// 64 ox - 32, wx1 = 32 / 96): contiguous loads instead of gathers. Any other ratio gathers.
enum class ResizeColumns { kGather, k2xAsymmetric, k2xHalfPixel };

// Everything a kernel call needs besides the pixels.
struct ResizePlan {
  size_t channels, in_h, in_w, out_h, out_w;
  ResizeTaps x;  // out_w entries
  ResizeTaps y;  // out_h entries
  ResizeColumns columns;
  bool rows_2x_asymmetric;  // out_h = 2 in_h, ASYMMETRIC: row weights 0 and 64 only
};

// Bytes of row scratch one kernel call needs (two horizontally blended rows and a widened input
// row), with room to align each part to 64 bytes.
inline size_t ResizeScratchBytes(size_t in_w, size_t out_w) { return 2 * (out_w + 64) + 4 * in_w + 128; }

// Plain per-pixel references of vlak.h's definition (exact integers), for the lab's check.
void ResizeBilinearReferenceI8(size_t channels, size_t in_h, size_t in_w, const int8_t* src, size_t out_h,
                               size_t out_w, int8_t* dst, bool half_pixel);
void ResizeBilinearReferenceU8(size_t channels, size_t in_h, size_t in_w, const uint8_t* src, size_t out_h,
                               size_t out_w, uint8_t* dst, bool half_pixel);

}  // namespace vlak
