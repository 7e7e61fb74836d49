// vlak_resize_bilinear_i8 / _u8 against an oracle written here from the definition in
// vlak.h (not from the library's reference or kernel): exact rationals for the Q7 positions,
// explicit floor divisions for the two blends. Bit-exact on every target and VLEN.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page) and its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

// floor(a / b) for b > 0, a of any sign.
int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Q7 source position of output coordinate o: floor(128 * o * in / out) (asymmetric), or
// floor(128 * ((o + 1/2) * in / out - 1/2)) clamped at 0 (half pixel), as one exact rational.
int64_t Position(int64_t o, int64_t in, int64_t out, bool half) {
  if (!half) return FloorDiv(128 * o * in, out);
  const int64_t p = FloorDiv(64 * (2 * o + 1) * in - 64 * out, out);
  return p < 0 ? 0 : p;
}

template <typename T>
std::vector<T> Oracle(size_t ch, size_t ih, size_t iw, const std::vector<T>& src, size_t oh, size_t ow, bool half) {
  std::vector<T> out(ch * oh * ow);
  for (size_t c = 0; c < ch; ++c) {
    auto at = [&](int64_t y, int64_t x) -> int64_t { return src[(c * ih + static_cast<size_t>(y)) * iw + static_cast<size_t>(x)]; };
    for (size_t oy = 0; oy < oh; ++oy) {
      const int64_t py = Position(static_cast<int64_t>(oy), ih, oh, half);
      const int64_t y0 = py / 128, y1 = std::min<int64_t>(y0 + 1, static_cast<int64_t>(ih) - 1);
      const int64_t fy = py % 128;
      for (size_t ox = 0; ox < ow; ++ox) {
        const int64_t px = Position(static_cast<int64_t>(ox), iw, ow, half);
        const int64_t x0 = px / 128, x1 = std::min<int64_t>(x0 + 1, static_cast<int64_t>(iw) - 1);
        const int64_t fx = px % 128;
        const int64_t top = FloorDiv(at(y0, x0) * (128 - fx) + at(y0, x1) * fx, 128);
        const int64_t bot = FloorDiv(at(y1, x0) * (128 - fx) + at(y1, x1) * fx, 128);
        const int64_t v = FloorDiv(top * (128 - fy) + bot * fy, 128);
        EXPECT_GE(v, std::numeric_limits<T>::min());
        EXPECT_LE(v, std::numeric_limits<T>::max());
        out[(c * oh + oy) * ow + ox] = static_cast<T>(v);
      }
    }
  }
  return out;
}

vlak_status Call(size_t ch, size_t ih, size_t iw, const int8_t* s, size_t oh, size_t ow, int8_t* d, unsigned f) {
  return vlak_resize_bilinear_i8(ch, ih, iw, s, oh, ow, d, f);
}
vlak_status Call(size_t ch, size_t ih, size_t iw, const uint8_t* s, size_t oh, size_t ow, uint8_t* d, unsigned f) {
  return vlak_resize_bilinear_u8(ch, ih, iw, s, oh, ow, d, f);
}

template <typename T>
std::vector<T> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(dist(rng));
  return v;
}

template <typename T>
void Check(size_t ch, size_t ih, size_t iw, size_t oh, size_t ow, unsigned flags, const std::vector<T>& src) {
  SCOPED_TRACE(testing::Message() << (sizeof(T) == 1 && std::is_signed_v<T> ? "i8 " : "u8 ") << ch << "x" << ih << "x"
                                  << iw << " -> " << oh << "x" << ow << " flags " << flags);
  const auto want = Oracle(ch, ih, iw, src, oh, ow, (flags & VLAK_RESIZE_HALF_PIXEL) != 0);
  std::vector<T> got(ch * oh * ow + 1, T{0x5A});  // one element past the end must stay
  ASSERT_EQ(Call(ch, ih, iw, src.data(), oh, ow, got.data(), flags), VLAK_OK);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(int{got[i]}, int{want[i]}) << "element " << i << " (c " << i / (oh * ow) << ", y " << i / ow % oh
                                         << ", x " << i % ow << ")";
  }
  ASSERT_EQ(got.back(), T{0x5A});
}

template <typename T>
void CheckRandom(size_t ch, size_t ih, size_t iw, size_t oh, size_t ow, unsigned flags, uint32_t seed) {
  Check<T>(ch, ih, iw, oh, ow, flags, Random<T>(ch * ih * iw, seed));
}

// Hand-worked values: 1 x 2 -> 1 x 4 (positions 0, 64, 128, 192 in Q7): x0 = 0, 0, 1, 1 and
// wx1 = 0, 64, 0, 64 with x1 clamped to 1, so [a, (a + b) >> 1, b, b]; the mean floors (-1/2 -> -1).
TEST(ResizeBilinear, HandWorkedValues) {
  ForEachTarget([] {
    const uint8_t su[2] = {0, 101};
    uint8_t du[4];
    ASSERT_EQ(vlak_resize_bilinear_u8(1, 1, 2, su, 1, 4, du, VLAK_RESIZE_ASYMMETRIC), VLAK_OK);
    EXPECT_EQ(du[0], 0); EXPECT_EQ(du[1], 50); EXPECT_EQ(du[2], 101); EXPECT_EQ(du[3], 101);
    const int8_t si[2] = {-1, 0};
    int8_t di[4];
    ASSERT_EQ(vlak_resize_bilinear_i8(1, 1, 2, si, 1, 4, di, VLAK_RESIZE_ASYMMETRIC), VLAK_OK);
    EXPECT_EQ(di[0], -1); EXPECT_EQ(di[1], -1); EXPECT_EQ(di[2], 0); EXPECT_EQ(di[3], 0);
    // Half pixel, 2 -> 4: positions max(0, 32 (2o + 1) - 64) = 0, 32, 96, 160: x0 = 0, 0, 0, 1,
    // wx1 = 0, 32, 96, 32 (x1 = 1): 0, (101 * 32) >> 7 = 25, (101 * 96) >> 7 = 75, 101.
    ASSERT_EQ(vlak_resize_bilinear_u8(1, 1, 2, su, 1, 4, du, VLAK_RESIZE_HALF_PIXEL), VLAK_OK);
    EXPECT_EQ(du[0], 0); EXPECT_EQ(du[1], 25); EXPECT_EQ(du[2], 75); EXPECT_EQ(du[3], 101);
  });
}

// Terapines AI-Benchmark's resize: out = 2 * in, input position dst << 6, written here as AI-Benchmark's
// loop.
TEST(ResizeBilinear, SeedTwoTimes) {
  ForEachTarget([] {
    const size_t lanes = vlak_target_lanes(vlak_active_target(), 1, 1);  // bytes at LMUL 2
    uint32_t seed = 1;
    // lanes / 2 and / 4 + 2: rows shorter than a group, taken in halved groups (ForEachStripOverlapped).
    for (size_t w : {size_t{1}, size_t{2}, size_t{3}, lanes / 4 + 2, lanes / 2, lanes / 2 + 2, lanes - 1, lanes,
                     lanes + 1, lanes + 2, 2 * lanes + 5}) {
      for (size_t h : {size_t{1}, size_t{4}}) {
        const size_t oh = 2 * h, ow = 2 * w;
        const auto src = Random<int8_t>(3 * h * w, seed++);
        std::vector<int8_t> seed_out(3 * oh * ow);
        for (size_t c = 0; c < 3; ++c) {
          for (size_t dy = 0; dy < oh; ++dy) {
            const int sy = static_cast<int>(dy << 6);
            const size_t y0 = static_cast<size_t>(sy >> 7), y1 = std::min(y0 + 1, h - 1);
            const int fy = sy & 127;
            for (size_t dx = 0; dx < ow; ++dx) {
              const int sx = static_cast<int>(dx << 6);
              const size_t x0 = static_cast<size_t>(sx >> 7), x1 = std::min(x0 + 1, w - 1);
              const int fx = sx & 127;
              const int8_t* p = src.data() + c * h * w;
              const int t = (p[y0 * w + x0] * (128 - fx) + p[y0 * w + x1] * fx) >> 7;
              const int b = (p[y1 * w + x0] * (128 - fx) + p[y1 * w + x1] * fx) >> 7;
              seed_out[(c * oh + dy) * ow + dx] = static_cast<int8_t>((t * (128 - fy) + b * fy) >> 7);
            }
          }
        }
        std::vector<int8_t> got(seed_out.size());
        ASSERT_EQ(vlak_resize_bilinear_i8(3, h, w, src.data(), oh, ow, got.data(), VLAK_RESIZE_ASYMMETRIC), VLAK_OK);
        ASSERT_EQ(got, seed_out) << h << "x" << w;
        Check<int8_t>(3, h, w, oh, ow, VLAK_RESIZE_ASYMMETRIC, src);
        CheckRandom<uint8_t>(2, h, w, oh, ow, VLAK_RESIZE_ASYMMETRIC, seed++);
        CheckRandom<uint8_t>(2, h, w, oh, ow, VLAK_RESIZE_HALF_PIXEL, seed++);
      }
    }
  });
}

// Up, down and odd ratios, both mappings, sizes around the vector lengths (int32 gathers, int8
// strips), out sizes that are not multiples of 2.
TEST(ResizeBilinear, AnyRatio) {
  ForEachTarget([] {
    const size_t lanes = vlak_target_lanes(vlak_active_target(), 1, 1);
    const size_t lanes32 = vlak_target_lanes(vlak_active_target(), 2, 4);
    uint32_t seed = 100;
    const size_t ws[] = {1, 2, 3, 7, lanes32 - 1, lanes32 + 1, lanes + 1, 37};
    for (size_t iw : ws) {
      for (size_t ow : ws) {
        for (unsigned flags : {VLAK_RESIZE_ASYMMETRIC, VLAK_RESIZE_HALF_PIXEL}) {
          const size_t ih = 1 + seed % 5, oh = 1 + (seed * 7) % 9;
          CheckRandom<int8_t>(2, ih, iw, oh, ow, flags, seed++);
          CheckRandom<uint8_t>(1, ih, iw, oh, ow, flags, seed++);
        }
      }
    }
    CheckRandom<int8_t>(3, 33, 45, 17, 100, VLAK_RESIZE_HALF_PIXEL, 7);  // down rows, up columns
    CheckRandom<uint8_t>(3, 10, 30, 31, 9, VLAK_RESIZE_ASYMMETRIC, 8);   // up rows, down columns
    CheckRandom<uint8_t>(2, 9, 13, 9, 13, VLAK_RESIZE_ASYMMETRIC, 9);    // same size: a copy
  });
}

// Extreme inputs: every pixel at the type's limits, and a checkerboard of both limits (the largest
// blend magnitudes: int16 lanes must hold 255 * 128 and -128 * 128).
TEST(ResizeBilinear, ExtremeValues) {
  ForEachTarget([] {
    const size_t h = 5, w = 2 * vlak_target_lanes(vlak_active_target(), 1, 1) + 3;
    for (unsigned flags : {VLAK_RESIZE_ASYMMETRIC, VLAK_RESIZE_HALF_PIXEL}) {
      for (size_t ow : {2 * w, w + 3, size_t{5}}) {
        Check<int8_t>(1, h, w, 11, ow, flags, std::vector<int8_t>(h * w, -128));
        Check<int8_t>(1, h, w, 11, ow, flags, std::vector<int8_t>(h * w, 127));
        Check<uint8_t>(1, h, w, 11, ow, flags, std::vector<uint8_t>(h * w, 255));
        std::vector<int8_t> ci(h * w);
        std::vector<uint8_t> cu(h * w);
        for (size_t i = 0; i < h * w; ++i) {
          const bool hi = ((i / w) + (i % w)) % 2 != 0;
          ci[i] = hi ? 127 : -128;
          cu[i] = hi ? 255 : 0;
        }
        Check<int8_t>(1, h, w, 11, ow, flags, ci);
        Check<uint8_t>(1, h, w, 11, ow, flags, cu);
      }
    }
  });
}

// Big enough to run on several threads: the same bits at 1 and 4 threads and as the oracle.
TEST(ResizeBilinear, Threads) {
  ForEachTarget([] {
    const size_t ch = 3, ih = 64, iw = 150, oh = 128, ow = 300;
    const auto src = Random<uint8_t>(ch * ih * iw, 5);
    for (int threads : {1, 4}) {
      ScopedThreads scoped(threads);
      Check<uint8_t>(ch, ih, iw, oh, ow, VLAK_RESIZE_ASYMMETRIC, src);
      Check<uint8_t>(ch, ih, iw, 100, 211, VLAK_RESIZE_HALF_PIXEL, src);
    }
  });
}

TEST(ResizeBilinear, Errors) {
  int8_t s[16] = {};
  int8_t d[64];
  std::fill(d, d + 64, int8_t{7});
  auto untouched = [&] { return std::all_of(d, d + 64, [](int8_t v) { return v == 7; }); };
  EXPECT_EQ(vlak_resize_bilinear_i8(1, 4, 4, s, 8, 8, d, 0x2u), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_resize_bilinear_i8(1, 0, 4, s, 8, 8, d, 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_resize_bilinear_i8(1, 4, 0, s, 8, 8, d, 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_resize_bilinear_i8(1, 4, 4, nullptr, 8, 8, d, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_resize_bilinear_i8(1, 4, 4, s, 8, 8, nullptr, 0), VLAK_ERROR_NULL_POINTER);
  const size_t big = size_t{1} << 40;
  EXPECT_EQ(vlak_resize_bilinear_i8(big, big, 4, s, 8, 8, d, 0), VLAK_ERROR_OVERFLOW);      // input elements
  EXPECT_EQ(vlak_resize_bilinear_i8(big, 1, 1, s, big, 8, d, 0), VLAK_ERROR_OVERFLOW);      // output elements
  EXPECT_EQ(vlak_resize_bilinear_i8(1, 1, 4, s, 1, size_t{1} << 60, d, 0), VLAK_ERROR_OVERFLOW);  // in_w * out_w * 128
  EXPECT_EQ(vlak_resize_bilinear_i8(1, size_t{1} << 31, 1, s, 1, 1, d, 0), VLAK_ERROR_OVERFLOW);  // >= 2^31
  uint8_t su[4] = {}, du[4] = {9, 9, 9, 9};
  EXPECT_EQ(vlak_resize_bilinear_u8(1, 2, 2, su, 2, 2, du, ~0u), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_resize_bilinear_u8(1, 2, 2, nullptr, 2, 2, du, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_TRUE(untouched());
  EXPECT_EQ(du[0], 9);
  // Nothing to do: VLAK_OK without looking at the pointers.
  EXPECT_EQ(vlak_resize_bilinear_i8(0, 4, 4, nullptr, 8, 8, nullptr, 0), VLAK_OK);
  EXPECT_EQ(vlak_resize_bilinear_i8(1, 4, 4, nullptr, 0, 8, nullptr, 0), VLAK_OK);
  EXPECT_EQ(vlak_resize_bilinear_u8(1, 4, 4, nullptr, 8, 0, nullptr, 0), VLAK_OK);
}

TEST(ResizeBilinear, SpanOverloads) {
  const auto src = Random<uint8_t>(2 * 3 * 5, 3);
  std::vector<uint8_t> got(2 * 6 * 10), want(got.size());
  ASSERT_EQ(vlak::ResizeBilinear(std::span<const uint8_t>(src), std::span<uint8_t>(got), 2, 3, 5, 6, 10), VLAK_OK);
  ASSERT_EQ(vlak_resize_bilinear_u8(2, 3, 5, src.data(), 6, 10, want.data(), 0), VLAK_OK);
  EXPECT_EQ(got, want);
  std::vector<int8_t> si(30), di(119);
  EXPECT_EQ(vlak::ResizeBilinear(std::span<const int8_t>(si), std::span<int8_t>(di), 2, 3, 5, 6, 10),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::ResizeBilinear(std::span<const int8_t>(si), std::span<int8_t>(di), size_t{1} << 40, size_t{1} << 40,
                                 5, 6, 10),
            VLAK_ERROR_OVERFLOW);
}

// Widths 1 .. MaxLength() (ops_test_util.h), 2 planes of 2 rows, every plane ending at an
// inaccessible page: the 2x path (contiguous loads of s[i] and s[i + 1], interleaving stores), the
// gather path (half pixel, odd ratios) and a downscale.
TEST(GuardPages, Resize) {
  ForEachTarget([] {
    for (size_t w = 1; w <= MaxLength(); ++w) {
      GuardedBytes src(2 * 2 * w), up(2 * 4 * 2 * w), odd(2 * 3 * (w + 2)), down(2 * 1 * ((w + 1) / 2));
      ASSERT_EQ(vlak_resize_bilinear_u8(2, 2, w, src.u8(), 4, 2 * w, up.u8(), VLAK_RESIZE_ASYMMETRIC), VLAK_OK);
      ASSERT_EQ(vlak_resize_bilinear_i8(2, 2, w, src.i8(), 4, 2 * w, up.i8(), VLAK_RESIZE_HALF_PIXEL), VLAK_OK);
      ASSERT_EQ(vlak_resize_bilinear_i8(2, 2, w, src.i8(), 3, w + 2, odd.i8(), VLAK_RESIZE_ASYMMETRIC), VLAK_OK);
      ASSERT_EQ(vlak_resize_bilinear_u8(2, 2, w, src.u8(), 1, (w + 1) / 2, down.u8(), VLAK_RESIZE_HALF_PIXEL), VLAK_OK);
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): 3 planes of 16 x (c / 10) pixels to
// 32 x (c / 5) (Terapines AI-Benchmark's 2x, contiguous-load path) and to 29 x (c / 7) with the
// half-pixel mapping (the gather path); bytes compared as floats, the same on every target.
VLAK_CONCURRENCY_JOBS(resize, in) {
  const uint32_t seed = in.seed;
  const size_t c = in.c;
  std::vector<vlak_test::ConcurrencyJob> jobs;
  const size_t ih = 16, iw = c / 10;
  auto pix = std::make_shared<std::vector<uint8_t>>(3 * ih * iw);
  for (size_t i = 0; i < pix->size(); ++i) (*pix)[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 13);
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t oh = 2 * ih, ow = 2 * iw;
                    std::vector<uint8_t> o(3 * oh * ow);
                    const vlak_status st = vlak_resize_bilinear_u8(3, ih, iw, pix->data(), oh, ow, o.data(), 0);
                    out.assign(o.begin(), o.end());
                    return st;
                  },
                  true});
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t oh = 29, ow = c / 7;
                    std::vector<int8_t> o(3 * oh * ow);
                    const vlak_status st = vlak_resize_bilinear_i8(3, ih, iw, reinterpret_cast<const int8_t*>(pix->data()),
                                                                   oh, ow, o.data(), VLAK_RESIZE_HALF_PIXEL);
                    out.assign(o.begin(), o.end());
                    return st;
                  },
                  true});
  return jobs;
}

}  // namespace
