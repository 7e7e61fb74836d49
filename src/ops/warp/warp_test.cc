// vlak_warp_i8 against an oracle written here from vlak.h's definition, and against
// Terapines AI-Benchmark's own int8-index arithmetic where the two must agree (width 128), on every target.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page) and its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/warp/warp.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

// Every target with its generic kernel, then the avx2 and avx512 targets with the gather-free
// kernel for rows of small displacements (warp_avx2window.cc) where the CPU runs them.
template <typename Fn>
void ForEachTarget(Fn fn) {
  const bool saved = vlak::SetWarpAvx2Window(false);
  vlak_test::ForEachTarget(fn);
  vlak::SetWarpAvx2Window(true);
  if (vlak::WarpAvx2WindowEnabled()) {
    const vlak_target before = vlak_active_target();
    for (const vlak_target t : {VLAK_TARGET_AVX2, VLAK_TARGET_AVX512}) {
      if (!vlak_target_supported(t)) continue;
      ASSERT_EQ(vlak_set_target(t), VLAK_OK);
      SCOPED_TRACE(t == VLAK_TARGET_AVX2 ? "target avx2 with the window kernel" : "target avx512 with the window kernel");
      fn();
    }
    vlak_set_target(before);
  }
  vlak::SetWarpAvx2Window(saved);
}

// The definition: n = o >> 8 (arithmetic), f = the low byte as a signed int8, r = w - n,
// l = r - 1, taps 0 outside [0, width), out = bits 8..15 of R * 256 + (L - R) * f.
std::vector<int8_t> Oracle(size_t channels, size_t height, size_t width, const std::vector<int8_t>& src,
                           const std::vector<int16_t>& offsets) {
  std::vector<int8_t> out(channels * height * width);
  for (size_t c = 0; c < channels; ++c) {
    for (size_t h = 0; h < height; ++h) {
      for (size_t w = 0; w < width; ++w) {
        const int o = offsets[h * width + w];
        const long n = o >= 0 ? o / 256 : -((-o + 255) / 256);  // floor(o / 256)
        int f = o - static_cast<int>(n) * 256;                   // 0 .. 255: the low byte
        if (f >= 128) f -= 256;                                  // ... read as signed
        const long r = static_cast<long>(w) - n, l = r - 1;
        auto tap = [&](long x) { return x < 0 || x >= static_cast<long>(width) ? 0 : int{src[(c * height + h) * width + x]}; };
        const long sum = tap(r) * 256L + (tap(l) - tap(r)) * static_cast<long>(f);
        long bits = (sum - (sum % 256 + 256) % 256) / 256;  // floor(sum / 256)
        bits = ((bits % 256) + 256) % 256;                  // its low 8 bits
        out[(c * height + h) * width + w] = static_cast<int8_t>(bits >= 128 ? bits - 256 : bits);
      }
    }
  }
  return out;
}

// AI-Benchmark's arithmetic as its C states it: the column index in int8 (taps reach columns 0..127,
// negative indices read as 0), the blend in int16 with wrap-around. Only valid where AI-Benchmark's C stays
// inside its row: width 128 (indices cast to uint8 never exceed 255; r in 128..255 wraps negative).
std::vector<int8_t> SeedWarp(size_t channels, size_t height, size_t width, const std::vector<int8_t>& src,
                             const std::vector<int16_t>& offsets) {
  std::vector<int8_t> out(channels * height * width);
  for (size_t c = 0; c < channels; ++c) {
    for (size_t h = 0; h < height; ++h) {
      const int8_t* row = &src[(c * height + h) * width];
      for (size_t w = 0; w < width; ++w) {
        const int16_t o = offsets[h * width + w];
        const int8_t whole = static_cast<int8_t>(o >> 8);
        const int8_t frac = static_cast<int8_t>(static_cast<int16_t>(o << 8) >> 8);
        const int8_t r = static_cast<int8_t>(w - whole);
        const int8_t l = static_cast<int8_t>(r - 1);
        const int8_t right = r < 0 ? 0 : row[static_cast<uint8_t>(r)];
        const int8_t left = l < 0 ? 0 : row[static_cast<uint8_t>(l)];
        int16_t acc = static_cast<int16_t>(right << 8);
        acc = static_cast<int16_t>(acc + static_cast<int16_t>(left - right) * frac);
        out[(c * height + h) * width + w] = static_cast<int8_t>(acc >> 8);
      }
    }
  }
  return out;
}

enum class Fill { kRandom, kMin, kMax };
// kWindow: n in [-23, 23], the avx2 window kernel's whole range (every row takes it); kWindowOut:
// the same with one pixel per row at n = +-24 (every row falls back to the generic kernel).
enum class Shift { kFull, kNear, kExtreme, kWindow, kWindowOut, kSmooth, kSmoothOut };

std::vector<int8_t> Pixels(size_t n, Fill fill, uint32_t seed) {
  std::vector<int8_t> v(n);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  for (auto& x : v) x = fill == Fill::kMin ? -128 : fill == Fill::kMax ? 127 : static_cast<int8_t>(dist(rng));
  return v;
}

std::vector<int16_t> Offsets(size_t n, Shift kind, uint32_t seed, size_t width = 0) {
  std::vector<int16_t> v(n);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> full(-32768, 32767), near(-8 * 256, 8 * 256 - 1), pick(0, 3),
      window(-23 * 256, 23 * 256 + 255);
  static constexpr int16_t kExtremes[4] = {32767, -32767, -32768, 0x00FF};
  for (auto& x : v) {
    x = static_cast<int16_t>(kind == Shift::kFull      ? full(rng)
                             : kind == Shift::kNear    ? near(rng)
                             : kind == Shift::kExtreme ? kExtremes[pick(rng)]
                                                       : window(rng));
  }
  if (kind == Shift::kWindow) {  // both ends of the range in every row
    for (size_t i = 0; i < n; i += 2) v[i] = static_cast<int16_t>((i % 4 == 0 ? -23 : 23) * 256 + (i & 0xFF));
  }
  if (kind == Shift::kSmooth || kind == Shift::kSmoothOut) {
    // Far but smooth: per 32 pixels from each row's start, n = B + r with r in 0 .. 47 and both
    // ends present: the avx2 window kernel's widest spread (kSpread = 47). B walks over
    // -128 .. 80, so n reaches both -128 and 127. kSmoothOut widens one group per 256 columns to
    // 48 (r = -1).
    std::uniform_int_distribution<int> r47(0, 47), frac(0, 255);
    for (size_t i = 0; i < n; ++i) {
      const size_t x = width != 0 ? i % width : i, g = x / 32 + i / (width != 0 ? width : n);
      const int base = -128 + static_cast<int>((g * 37) % 209);
      int r = x % 32 == 3 ? 0 : x % 32 == 17 ? 47 : r47(rng);
      if (kind == Shift::kSmoothOut && x % 256 == 29) r = -1;
      v[i] = static_cast<int16_t>((base + r) * 256 + frac(rng));
    }
  }
  return v;
}

void ExpectWarp(size_t channels, size_t height, size_t width, Fill fill, Shift shift, uint32_t seed) {
  const auto src = Pixels(channels * height * width, fill, seed);
  auto offsets = Offsets(height * width, shift, seed + 1, width);
  if (shift == Shift::kWindowOut) {  // one pixel per row just outside the window kernel's range
    for (size_t h = 0; h < height; ++h) offsets[h * width + (h * 7 + seed) % width] = static_cast<int16_t>((h % 2 ? 24 : -24) * 256 + 77);
  }
  const auto expected = Oracle(channels, height, width, src, offsets);
  ForEachTarget([&] {
    std::vector<int8_t> dst(src.size(), 99);
    ASSERT_EQ(vlak_warp_i8(channels, height, width, src.data(), offsets.data(), dst.data()), VLAK_OK);
    for (size_t i = 0; i < dst.size(); ++i) {
      ASSERT_EQ(dst[i], expected[i]) << channels << "x" << height << "x" << width << " element " << i
                                     << " offset " << offsets[i % (height * width)];
    }
  });
}

TEST(Warp, OddSizesAndVectorLengthsOnEveryTarget) {
  uint32_t seed = 1;
  for (size_t width : {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1024,
                       1025, 2049}) {
    for (Shift shift : {Shift::kFull, Shift::kNear}) ExpectWarp(2, 3, width, Fill::kRandom, shift, seed++);
  }
  ExpectWarp(1, 1, 1, Fill::kRandom, Shift::kNear, 7);
  ExpectWarp(3, 5, 7, Fill::kRandom, Shift::kNear, 8);
}

// The avx2 window kernel's edges, on rows around its 32-pixel vectors and 1024-column blocks,
// where taps leave the row: displacements at +-23 (a spread of 46) and rows with one of +-24;
// far smooth fields whose groups spread over exactly 47 columns (the window's ends) with n at
// -128 and 127, and rows with one group of 48 per 256 columns: up to 4 such groups of a row take
// scalar code (width 1024), more send the row to the generic kernel (1056, 2080).
TEST(Warp, WindowRangeAndItsEdges) {
  uint32_t seed = 300;
  for (size_t width : {1, 2, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 96, 1023, 1024, 1025, 1056, 2080}) {
    for (Shift shift : {Shift::kWindow, Shift::kWindowOut, Shift::kSmooth, Shift::kSmoothOut}) {
      for (Fill fill : {Fill::kRandom, Fill::kMin}) ExpectWarp(2, 3, width, fill, shift, seed++);
    }
  }
}

TEST(Warp, ExtremeInputs) {
  uint32_t seed = 100;
  for (size_t width : {1, 5, 64, 129, 300}) {
    for (Fill fill : {Fill::kMin, Fill::kMax, Fill::kRandom}) {
      for (Shift shift : {Shift::kExtreme, Shift::kFull, Shift::kNear}) ExpectWarp(1, 2, width, fill, shift, seed++);
    }
  }
}

// Every offset value once: a row of 65536 pixels with offsets -32768 .. 32767.
TEST(Warp, EveryOffsetValue) {
  const size_t width = 65536;
  auto src = Pixels(width, Fill::kRandom, 5);
  std::vector<int16_t> offsets(width);
  for (size_t i = 0; i < width; ++i) offsets[i] = static_cast<int16_t>(static_cast<int>(i) - 32768);
  const auto expected = Oracle(1, 1, width, src, offsets);
  ForEachTarget([&] {
    std::vector<int8_t> dst(width);
    ASSERT_EQ(vlak_warp_i8(1, 1, width, src.data(), offsets.data(), dst.data()), VLAK_OK);
    EXPECT_EQ(dst, expected);
  });
}

// AI-Benchmark's own arithmetic agrees at width 128 (its int8 indices cover the row exactly).
TEST(Warp, SeedArithmeticAtWidth128) {
  for (Shift shift : {Shift::kFull, Shift::kNear, Shift::kExtreme}) {
    for (Fill fill : {Fill::kRandom, Fill::kMin, Fill::kMax}) {
      const size_t c = 3, h = 4, w = 128;
      const auto src = Pixels(c * h * w, fill, 11);
      const auto offsets = Offsets(h * w, shift, 12);
      const auto seed = SeedWarp(c, h, w, src, offsets);
      ASSERT_EQ(Oracle(c, h, w, src, offsets), seed);  // the definition is AI-Benchmark's here
      ForEachTarget([&] {
        std::vector<int8_t> dst(src.size());
        ASSERT_EQ(vlak_warp_i8(c, h, w, src.data(), offsets.data(), dst.data()), VLAK_OK);
        EXPECT_EQ(dst, seed);
      });
    }
  }
}

TEST(Warp, ThreadsGiveTheSameBytes) {
  const size_t c = 3, h = 64, w = 1000;
  const auto src = Pixels(c * h * w, Fill::kRandom, 21);
  const auto offsets = Offsets(h * w, Shift::kNear, 22);
  const auto expected = Oracle(c, h, w, src, offsets);
  for (int threads : {1, 2, 4}) {
    ScopedThreads scope(threads);
    std::vector<int8_t> dst(src.size());
    ASSERT_EQ(vlak::Warp(src, offsets, dst, c, h, w), VLAK_OK);
    EXPECT_EQ(dst, expected) << threads << " threads";
  }
}

TEST(Warp, BadArgumentsWriteNothing) {
  std::vector<int8_t> src(12, 1), dst(12, 77);
  std::vector<int16_t> offsets(4, 0);
  EXPECT_EQ(vlak_warp_i8(3, 2, 2, nullptr, offsets.data(), dst.data()), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_warp_i8(3, 2, 2, src.data(), nullptr, dst.data()), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_warp_i8(3, 2, 2, src.data(), offsets.data(), nullptr), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_warp_i8(SIZE_MAX / 2, 2, 2, src.data(), offsets.data(), dst.data()), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_warp_i8(1, SIZE_MAX / 2, 2, src.data(), offsets.data(), dst.data()), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_warp_i8(0, 2, 2, nullptr, nullptr, nullptr), VLAK_OK);
  EXPECT_EQ(vlak_warp_i8(3, 0, 2, nullptr, nullptr, nullptr), VLAK_OK);
  EXPECT_EQ(vlak_warp_i8(3, 2, 0, nullptr, nullptr, nullptr), VLAK_OK);
  EXPECT_EQ(dst, std::vector<int8_t>(12, 77));
  // The span overload checks the sizes.
  EXPECT_EQ(vlak::Warp(src, offsets, std::span<int8_t>(dst.data(), 11), 3, 2, 2), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Warp(src, std::span<const int16_t>(offsets.data(), 3), dst, 3, 2, 2), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(dst, std::vector<int8_t>(12, 77));
}

// Every length 1 .. 3 * lanes + 1, lanes of the widest int8 group (LMUL 8), with the inputs and
// outputs ending at an inaccessible page: a read or write past the last element faults. Each
// target's generic kernel and, where the CPU has them, the avx2 window kernel (this file's ForEachTarget).
TEST(GuardPages, Warp) {
  ForEachTarget([] {
    const size_t max = 3 * vlak_target_lanes(vlak_active_target(), 3, sizeof(int8_t)) + 1;
    for (size_t n = 1; n <= max; ++n) {
      GuardedInts<int8_t> src(2 * n), dst(2 * n);
      GuardedInts<int16_t> offsets(n);
      ASSERT_EQ(vlak_warp_i8(2, 1, n, src.data(), offsets.data(), dst.data()), VLAK_OK);
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): bytes widened to the float outputs,
// the same on every target.
VLAK_CONCURRENCY_JOBS(warp, in) {
  const uint32_t seed = in.seed;
  const size_t r = in.r, c = in.c;
  std::vector<vlak_test::ConcurrencyJob> jobs;
  auto pixels = std::make_shared<std::vector<int8_t>>(3 * r * c);
  auto offsets = std::make_shared<std::vector<int16_t>>(r * c);
  for (size_t i = 0; i < pixels->size(); ++i) (*pixels)[i] = static_cast<int8_t>((i * 2654435761u + seed) >> 13);
  for (size_t i = 0; i < offsets->size(); ++i) (*offsets)[i] = static_cast<int16_t>((i * 40503u + seed) % 8192) - 4096;
  jobs.push_back({[=](std::vector<float>& out) {
                    std::vector<int8_t> bytes(3 * r * c);
                    const vlak_status st = vlak_warp_i8(3, r, c, pixels->data(), offsets->data(), bytes.data());
                    out.assign(bytes.begin(), bytes.end());
                    return st;
                  },
                  true});
  return jobs;
}

}  // namespace
