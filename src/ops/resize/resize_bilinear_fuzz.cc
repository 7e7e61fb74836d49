// Differential fuzz target of vlak_resize_bilinear_i8 and vlak_resize_bilinear_u8 (one target for
// both: the input's first byte picks the form). vlak.h defines the result exactly in integers, so
// every target must give the bytes of the oracle below, written from vlak.h's formulas.
#include <algorithm>

#include "fuzz/fuzz_util.h"

using namespace vlak_fuzz;

namespace {

// Q7 position and taps of output coordinate o along an axis of `in` inputs and `out` outputs.
struct Taps {
  size_t i0, i1;
  int w0, w1;
};
Taps TapsOf(size_t o, size_t in, size_t out, bool half_pixel) {
  unsigned __int128 p;
  if (half_pixel) {
    const unsigned __int128 q = static_cast<unsigned __int128>(2 * o + 1) * in * 64 / out;
    p = q > 64 ? q - 64 : 0;
  } else {
    p = static_cast<unsigned __int128>(o) * in * 128 / out;
  }
  const size_t i0 = static_cast<size_t>(p >> 7);
  const int w1 = static_cast<int>(p & 127);
  return {i0, std::min(i0 + 1, in - 1), 128 - w1, w1};
}

template <typename T>
void Oracle(size_t c, size_t ih, size_t iw, const T* s, size_t oh, size_t ow, T* d, bool half) {
  for (size_t oy = 0; oy < oh; ++oy) {
    const Taps ty = TapsOf(oy, ih, oh, half);
    for (size_t ox = 0; ox < ow; ++ox) {
      const Taps tx = TapsOf(ox, iw, ow, half);
      for (size_t k = 0; k < c; ++k) {
        const T* p = s + k * ih * iw;
        const int top = (p[ty.i0 * iw + tx.i0] * tx.w0 + p[ty.i0 * iw + tx.i1] * tx.w1) >> 7;
        const int bot = (p[ty.i1 * iw + tx.i0] * tx.w0 + p[ty.i1 * iw + tx.i1] * tx.w1) >> 7;
        d[(k * oh + oy) * ow + ox] = static_cast<T>((top * ty.w0 + bot * ty.w1) >> 7);
      }
    }
  }
}

template <typename T>
vlak_status Call(size_t c, size_t ih, size_t iw, const T* s, size_t oh, size_t ow, T* d, unsigned flags) {
  if constexpr (std::is_signed_v<T>) {
    return vlak_resize_bilinear_i8(c, ih, iw, s, oh, ow, d, flags);
  } else {
    return vlak_resize_bilinear_u8(c, ih, iw, s, oh, ow, d, flags);
  }
}

template <typename T>
int Run(Input& in) {
  SetThreads(in);
  size_t c = in.Size(4), ih = in.Size(70), iw = in.Size(300);
  // Sizes vlak.h refuses (in_h >= 2^31, products overflowing size_t) with one-byte buffers: the call
  // must return an error without touching them.
  const uint8_t huge = in.Byte();
  if (huge == 0xEE) ih = size_t{1} << 31;
  if (huge == 0xEF) c = SIZE_MAX / 2 + (c | 1);
  // Output sizes: often the seed's 2x, else any size up to 2.5x (down-scaling included).
  const uint8_t mode = in.Byte();
  const size_t oh = mode < 96 ? 2 * ih : in.Size(180), ow = mode < 96 ? 2 * iw : in.Size(700);
  const uint8_t fb = in.Byte();
  const unsigned flags = fb < 250 ? (fb & 1) : 0x2u << (fb & 7);
  const uint8_t nulls = in.Byte();
  const bool empty = c == 0 || oh == 0 || ow == 0;
  const bool too_big = huge == 0xEE || (huge == 0xEF && ih * iw > 1);
  const bool expect_error = (flags & ~1u) != 0 || (!empty && (ih == 0 || iw == 0 || nulls == 1 || nulls == 2 || too_big));
  if ((huge == 0xEF && !too_big) || (too_big && empty)) return 0;  // valid, or unspecified order
  const size_t ne = too_big ? 1 : c * ih * iw, oe = too_big ? 1 : c * oh * ow;
  std::unique_ptr<T[]> src(ne ? new T[ne] : nullptr);
  {
    const uint8_t dist = in.Byte();
    Rng rng(in.Bits(4) + 1);
    for (size_t i = 0; i < ne; ++i) {
      const uint8_t r = static_cast<uint8_t>(rng.Next());
      // Uniform bytes, or only the extremes (-128/127, 0/255), or a smooth ramp.
      src[i] = static_cast<T>(dist < 128 ? r : dist < 192 ? ((r & 1) ? 0xFF >> (std::is_signed_v<T> ? 1 : 0) : (std::is_signed_v<T> ? 0x80 : 0))
                                              : static_cast<uint8_t>(i * 3));
    }
  }
  Describe("vlak_resize_bilinear_%s(channels %zu, in %zux%zu, out %zux%zu, flags 0x%x) threads %d",
           std::is_signed_v<T> ? "i8" : "u8", c, ih, iw, oh, ow, flags, vlak_get_num_threads());
  std::vector<T> want(expect_error || empty ? 0 : oe);
  if (!want.empty()) Oracle(c, ih, iw, src.get(), oh, ow, want.data(), flags == VLAK_RESIZE_HALF_PIXEL);
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    std::unique_ptr<T[]> dst(oe ? new T[oe] : nullptr);
    std::fill(dst.get(), dst.get() + oe, static_cast<T>(0x5A));
    const vlak_status st = Call<T>(c, ih, iw, nulls == 1 ? nullptr : src.get(), oh, ow, nulls == 2 ? nullptr : dst.get(), flags);
    CheckStatus(st, expect_error, t);
    for (size_t i = 0; i < oe; ++i) {
      const int expect = want.empty() ? 0x5A : want[i];
      Check(dst[i] == static_cast<T>(expect), want.empty() ? "written on error or empty call" : "bytes differ from vlak.h's definition",
            t, i, dst[i], static_cast<T>(expect));
    }
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return RunByteForms(data, size, [](Input& in, auto form) { return Run<decltype(form)>(in); });
}
