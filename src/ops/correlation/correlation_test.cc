// vlak_correlation_i8 against an oracle written here from vlak.h's definition, and
// its WRAP16 mode against Terapines AI-Benchmark's own blocked int16 loop, on every target.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page) and its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/correlation/correlation.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

// Every target with its generic kernel, then the x86 specialisations where the CPU runs them: the
// avx2 target's vpmaddwd kernel and the avx512 target's VNNI kernel.
template <typename Fn>
void ForEachTarget(Fn fn) {
  const bool saved_vnni = vlak::SetCorrelationVnni(false);
  const bool saved_madd = vlak::SetCorrelationAvx2Madd(false);
  vlak_test::ForEachTarget(fn);
  vlak::SetCorrelationVnni(true);
  vlak::SetCorrelationAvx2Madd(true);
  const vlak_target before = vlak_active_target();
  if (vlak::CorrelationAvx2MaddEnabled() && vlak_target_supported(VLAK_TARGET_AVX2)) {
    ASSERT_EQ(vlak_set_target(VLAK_TARGET_AVX2), VLAK_OK);
    SCOPED_TRACE("target avx2 with its vpmaddwd kernel");
    fn();
  }
  if (vlak::CorrelationVnniEnabled() && vlak_target_supported(VLAK_TARGET_AVX512)) {
    ASSERT_EQ(vlak_set_target(VLAK_TARGET_AVX512), VLAK_OK);
    SCOPED_TRACE("target avx512 with AVX512_VNNI");
    fn();
  }
  vlak_set_target(before);
  vlak::SetCorrelationVnni(saved_vnni);
  vlak::SetCorrelationAvx2Madd(saved_madd);
}
struct Shape {
  size_t d, c, h, w;
};

// out[d][i][j] = sat8(floor(S / 2^shift)) with S = sum_k a[k][i][j] b[k][i][j-d] as a 32-bit
// two's-complement value, or (WRAP16) the low 8 bits of floor(S16 / 2^shift) with S16 = S mod
// 2^16 read as signed; 0 for j < d.
std::vector<int8_t> Oracle(Shape s, const std::vector<int8_t>& a, const std::vector<int8_t>& b, unsigned shift,
                           bool wrap16) {
  std::vector<int8_t> out(s.d * s.h * s.w);
  const size_t plane = s.h * s.w;
  auto floor_div = [](long long x, long long m) { return (x - ((x % m) + m) % m) / m; };
  for (size_t d = 0; d < s.d; ++d) {
    for (size_t i = 0; i < s.h; ++i) {
      for (size_t j = 0; j < s.w; ++j) {
        long long v = 0;
        if (j >= d) {
          long long sum = 0;
          for (size_t k = 0; k < s.c; ++k) sum += static_cast<long long>(a[k * plane + i * s.w + j]) * b[k * plane + i * s.w + j - d];
          const long long m = wrap16 ? 65536 : 4294967296LL;
          long long r = ((sum % m) + m) % m;
          if (r >= m / 2) r -= m;
          v = floor_div(r, 1LL << shift);
          if (wrap16) {
            v = ((v % 256) + 256) % 256;
            if (v >= 128) v -= 256;
          } else {
            v = std::clamp(v, -128LL, 127LL);
          }
        }
        out[d * plane + i * s.w + j] = static_cast<int8_t>(v);
      }
    }
  }
  return out;
}

// AI-Benchmark's loop: blocks of 8 columns from j = d, int16 sums, (int8)(sum >> shift); j < d unwritten.
void SeedCorrelation(Shape s, const std::vector<int8_t>& a, const std::vector<int8_t>& b, unsigned shift,
                     std::vector<int8_t>& out) {
  const size_t kBlock = 8;
  for (size_t d = 0; d < s.d; ++d) {
    for (size_t i = 0; i < s.h; ++i) {
      for (size_t j = d; j < s.w; j += kBlock) {
        int16_t sums[kBlock] = {};
        const size_t n = std::min(kBlock, s.w - j);
        for (size_t k = 0; k < s.c; ++k) {
          for (size_t x = 0; x < n; ++x) {
            const size_t at = k * s.w * s.h + i * s.w + j + x;
            sums[x] = static_cast<int16_t>(sums[x] + static_cast<int16_t>(a[at]) * b[at - d]);
          }
        }
        for (size_t x = 0; x < n; ++x) out[d * s.w * s.h + i * s.w + j + x] = static_cast<int8_t>(sums[x] >> shift);
      }
    }
  }
}

enum class Fill { kRandom, kMin, kMax, kSmall };

std::vector<int8_t> Bytes(size_t n, Fill fill, uint32_t seed) {
  std::vector<int8_t> v(n);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> full(-128, 127), small(-4, 4);
  for (auto& x : v) {
    x = static_cast<int8_t>(fill == Fill::kMin ? -128 : fill == Fill::kMax ? 127 : fill == Fill::kSmall ? small(rng) : full(rng));
  }
  return v;
}

void ExpectCorrelation(Shape s, Fill fa, Fill fb, unsigned shift, uint32_t seed) {
  const auto a = Bytes(s.c * s.h * s.w, fa, seed);
  const auto b = Bytes(s.c * s.h * s.w, fb, seed + 1);
  for (bool wrap16 : {false, true}) {
    const auto expected = Oracle(s, a, b, shift, wrap16);
    const unsigned flags = wrap16 ? VLAK_CORRELATION_WRAP16 : 0u;
    ForEachTarget([&] {
      std::vector<int8_t> out(s.d * s.h * s.w, 99);
      ASSERT_EQ(vlak_correlation_i8(s.d, s.c, s.h, s.w, a.data(), b.data(), shift, out.data(), flags), VLAK_OK);
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(out[i], expected[i]) << s.d << "x" << s.c << "x" << s.h << "x" << s.w << " shift " << shift
                                       << " wrap16 " << wrap16 << " element " << i;
      }
    });
  }
}

TEST(Correlation, OddSizesAndVectorLengthsOnEveryTarget) {
  uint32_t seed = 1;
  for (size_t w : {1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 88, 127, 128, 129, 257}) {
    for (unsigned shift : {0u, 7u, 15u}) ExpectCorrelation({5, 9, 2, w}, Fill::kRandom, Fill::kRandom, shift, seed++);
  }
  ExpectCorrelation({1, 1, 1, 1}, Fill::kRandom, Fill::kRandom, 0, 50);
  ExpectCorrelation({5, 58, 3, 88}, Fill::kRandom, Fill::kRandom, 8, 51);   // AI-Benchmark's channels and width
  ExpectCorrelation({12, 3, 2, 5}, Fill::kRandom, Fill::kRandom, 0, 52);    // displacements >= width
  ExpectCorrelation({3, 0, 2, 9}, Fill::kRandom, Fill::kRandom, 3, 53);     // no channels: zeros
  ExpectCorrelation({4, 7, 3, 40}, Fill::kSmall, Fill::kSmall, 0, 54);      // small sums, shift 0
  // Channel counts around the VNNI kernel's groups of 4; displacements beyond its 8 accumulators.
  for (size_t c : {1, 2, 3, 4, 5, 8}) ExpectCorrelation({3, c, 2, 70}, Fill::kRandom, Fill::kRandom, 6, 60 + c);
  ExpectCorrelation({11, 6, 2, 40}, Fill::kRandom, Fill::kRandom, 7, 70);
  ExpectCorrelation({21, 5, 2, 130}, Fill::kRandom, Fill::kRandom, 7, 71);
}

TEST(Correlation, ExtremeInputsSaturateOrWrap) {
  uint32_t seed = 100;
  for (unsigned shift : {0u, 1u, 7u, 15u, 16u, 20u, 31u}) {
    for (Fill fa : {Fill::kMin, Fill::kMax}) {
      for (Fill fb : {Fill::kMin, Fill::kMax, Fill::kRandom}) ExpectCorrelation({3, 58, 2, 37}, fa, fb, shift, seed++);
    }
  }
}

// More than 131072 channels of (-128)^2: the int32 sum wraps modulo 2^32 as vlak.h states.
TEST(Correlation, Int32SumWrapsBeyond131072Channels) {
  const size_t c = 140000;
  std::vector<int8_t> a(c, -128), b(c, -128);
  const long long sum = static_cast<long long>(c) * 16384;  // 2.29e9 > 2^31
  const int32_t wrapped = static_cast<int32_t>(static_cast<uint32_t>(sum));
  ASSERT_LT(wrapped, 0);
  ForEachTarget([&] {
    int8_t out = 0;
    ASSERT_EQ(vlak_correlation_i8(1, c, 1, 1, a.data(), b.data(), 24, &out, 0), VLAK_OK);
    EXPECT_EQ(out, std::max(-128, wrapped >> 24));
  });
}

// WRAP16 is AI-Benchmark's arithmetic: its own blocked loop gives the same bytes for j >= d.
TEST(Correlation, Wrap16IsSeedArithmetic) {
  for (Shape s : {Shape{5, 58, 4, 88}, Shape{3, 13, 2, 21}, Shape{9, 4, 1, 8}}) {
    for (unsigned shift : {0u, 5u, 15u, 16u, 31u}) {
      const auto a = Bytes(s.c * s.h * s.w, Fill::kRandom, 7 + shift);
      const auto b = Bytes(s.c * s.h * s.w, Fill::kRandom, 8 + shift);
      std::vector<int8_t> seed(s.d * s.h * s.w, 0);  // j < d: AI-Benchmark leaves them, vlak writes 0
      SeedCorrelation(s, a, b, shift, seed);
      ForEachTarget([&] {
        std::vector<int8_t> out(seed.size(), 99);
        ASSERT_EQ(vlak::Correlation(a, b, out, s.d, s.c, s.h, s.w, shift, VLAK_CORRELATION_WRAP16), VLAK_OK);
        EXPECT_EQ(out, seed) << "shift " << shift;
      });
    }
  }
}

TEST(Correlation, ThreadsGiveTheSameBytes) {
  const Shape s{5, 58, 56, 88};
  const auto a = Bytes(s.c * s.h * s.w, Fill::kRandom, 31);
  const auto b = Bytes(s.c * s.h * s.w, Fill::kRandom, 32);
  const auto expected = Oracle(s, a, b, 9, false);
  for (int threads : {1, 2, 4}) {
    ScopedThreads scope(threads);
    std::vector<int8_t> out(expected.size());
    ASSERT_EQ(vlak::Correlation(a, b, out, s.d, s.c, s.h, s.w, 9), VLAK_OK);
    EXPECT_EQ(out, expected) << threads << " threads";
  }
}

TEST(Correlation, BadArgumentsWriteNothing) {
  std::vector<int8_t> a(8, 1), b(8, 1), out(8, 77);
  auto call = [&](const int8_t* pa, const int8_t* pb, int8_t* po, unsigned shift, unsigned flags) {
    return vlak_correlation_i8(2, 2, 2, 2, pa, pb, shift, po, flags);
  };
  EXPECT_EQ(call(nullptr, b.data(), out.data(), 0, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(call(a.data(), nullptr, out.data(), 0, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(call(a.data(), b.data(), nullptr, 0, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(call(a.data(), b.data(), out.data(), 32, 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(a.data(), b.data(), out.data(), 0, 0x2), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(a.data(), b.data(), out.data(), 0, 0x80000000u), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_correlation_i8(SIZE_MAX / 2, 1, 2, 2, a.data(), b.data(), 0, out.data(), 0), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_correlation_i8(1, SIZE_MAX / 2, 2, 2, a.data(), b.data(), 0, out.data(), 0), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_correlation_i8(1, 1, SIZE_MAX / 2, 4, a.data(), b.data(), 0, out.data(), 0), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_correlation_i8(0, 2, 2, 2, nullptr, nullptr, 0, nullptr, 0), VLAK_OK);
  EXPECT_EQ(vlak_correlation_i8(2, 2, 0, 2, nullptr, nullptr, 0, nullptr, 0), VLAK_OK);
  EXPECT_EQ(vlak_correlation_i8(2, 2, 2, 0, nullptr, nullptr, 0, nullptr, 0), VLAK_OK);
  EXPECT_EQ(out, std::vector<int8_t>(8, 77));
  EXPECT_EQ(vlak_correlation_i8(2, 0, 2, 2, nullptr, nullptr, 0, out.data(), 0), VLAK_OK);  // no channels
  EXPECT_EQ(out, std::vector<int8_t>(8, 0));
  std::fill(out.begin(), out.end(), int8_t{77});
  EXPECT_EQ(vlak::Correlation(a, b, std::span<int8_t>(out.data(), 7), 2, 2, 2, 2, 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(out, std::vector<int8_t>(8, 77));
}

// Every length 1 .. 3 * lanes + 1, lanes of the widest int8 group (LMUL 8), with the inputs and
// outputs ending at an inaccessible page: a read or write past the last element faults. Each
// target's generic kernel and, where the CPU has them, the x86 specialisations (this file's ForEachTarget).
TEST(GuardPages, Correlation) {
  ForEachTarget([] {
    const size_t max = 3 * vlak_target_lanes(vlak_active_target(), 3, sizeof(int8_t)) + 1;
    for (size_t n = 1; n <= max; ++n) {
      GuardedInts<int8_t> a(3 * n), b(3 * n), out(2 * n);
      for (unsigned flags : {0u, VLAK_CORRELATION_WRAP16}) {
        ASSERT_EQ(vlak_correlation_i8(2, 3, 1, n, a.data(), b.data(), 4, out.data(), flags), VLAK_OK);
      }
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): bytes widened to the float outputs,
// the same on every target.
VLAK_CONCURRENCY_JOBS(correlation, in) {
  const uint32_t seed = in.seed;
  const size_t r = in.r, c = in.c;
  std::vector<vlak_test::ConcurrencyJob> jobs;
  auto pixels = std::make_shared<std::vector<int8_t>>(3 * r * c);
  for (size_t i = 0; i < pixels->size(); ++i) (*pixels)[i] = static_cast<int8_t>((i * 2654435761u + seed) >> 13);
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t channels = 3, width = c / 3, displacements = 5;
                    std::vector<int8_t> bytes(displacements * r * width);
                    const vlak_status st = vlak_correlation_i8(displacements, channels, r, width, pixels->data(),
                                                               pixels->data() + channels * r * width, seed % 12,
                                                               bytes.data(), (seed & 1) ? VLAK_CORRELATION_WRAP16 : 0);
                    out.assign(bytes.begin(), bytes.end());
                    return st;
                  },
                  true});
  return jobs;
}

}  // namespace
