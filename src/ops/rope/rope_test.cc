// vlak_rope_f32 and vlak_rope_tables_f32 against the float64 reference
// (src/ops/rope/rope_reference.cc) on every target this CPU (or qemu) runs.
// Also its rows of the tests across operators: GuardPages (its calls with the buffers ending at an
// inaccessible page), its jobs for tests/ops/concurrency_test.cc (VLAK_CONCURRENCY_JOBS) and CppApi
// (its std::span overloads against the C calls).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "ops/rope/rope.h"
#include "parallel/parallel.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

struct Tables {
  std::vector<float> cos, sin;
};
Tables MakeTables(size_t positions, size_t head_dim, size_t stride) {
  Tables t{std::vector<float>(positions * stride, kSentinel), std::vector<float>(positions * stride, kSentinel)};
  EXPECT_EQ(vlak_rope_tables_f32(positions, head_dim, 10000.0, t.cos.data(), t.sin.data(), stride), VLAK_OK);
  return t;
}

// Checks y against the bound of vlak.h for every element; returns y.
std::vector<float> Check(size_t positions, size_t rows, size_t head_dim, size_t table_stride, unsigned flags,
                         uint32_t seed) {
  SCOPED_TRACE(testing::Message() << positions << "x" << rows << "x" << head_dim << " flags " << flags);
  const auto x = Normal(positions * rows * head_dim, 0.0f, 3.0f, seed);
  const Tables t = MakeTables(positions, head_dim, table_stride);
  std::vector<float> y(x.size(), kSentinel);
  EXPECT_EQ(vlak_rope_f32(positions, rows, head_dim, x.data(), t.cos.data(), t.sin.data(), table_stride, y.data(),
                          flags),
            VLAK_OK);
  std::vector<double> ref(head_dim);
  const size_t half = head_dim / 2;
  for (size_t p = 0; p < positions; ++p) {
    const float* c = t.cos.data() + p * table_stride;
    const float* s = t.sin.data() + p * table_stride;
    for (size_t r = 0; r < rows; ++r) {
      const size_t o = (p * rows + r) * head_dim;
      vlak::RopeReferenceF64(x.data() + o, c, s, head_dim, flags, ref.data());
      for (size_t i = 0; i < half; ++i) {
        const bool inter = flags & VLAK_ROPE_INTERLEAVED;
        const size_t a = inter ? 2 * i : i, b = inter ? 2 * i + 1 : i + half;
        // 2^-23 times the sum of the magnitudes of the output's two products.
        const double xa = x[o + a], xb = x[o + b];
        const double bound_a = 0x1p-23 * (std::fabs(xa * c[i]) + std::fabs(xb * s[i]));
        const double bound_b = 0x1p-23 * (std::fabs(xa * s[i]) + std::fabs(xb * c[i]));
        EXPECT_LE(std::fabs(y[o + a] - ref[a]), bound_a) << "p " << p << " r " << r << " i " << i;
        EXPECT_LE(std::fabs(y[o + b] - ref[b]), bound_b) << "p " << p << " r " << r << " i " << i;
      }
    }
  }
  return y;
}

TEST(Rope, BothPairingsOddSizesAndSameBitsOnEveryTarget) {
  std::vector<std::vector<float>> first;
  bool have_first = false;
  ForEachTarget([&] {
    std::vector<std::vector<float>> outs;
    uint32_t seed = 1;
    for (unsigned flags : {VLAK_ROPE_HALVES, VLAK_ROPE_INTERLEAVED}) {
      // Fixed sizes (the same cases on every target, to compare bits) around every lane count
    // the targets use: 4 (scalar), 16, 32, 64 (x86 and RVV at LMUL 2 or 4).
    for (size_t half : {1, 3, 4, 5, 15, 16, 17, 31, 33, 63, 64, 65}) {
      const size_t head_dim = 2 * half;
        outs.push_back(Check(3, 4, head_dim, head_dim / 2 + (seed % 3), flags, seed));
        ++seed;
      }
    }
    if (!have_first) {
      first = outs;
      have_first = true;
    } else {
      for (size_t k = 0; k < outs.size(); ++k) {
        EXPECT_TRUE(vlak_test::SameBits(first[k].data(), outs[k].data(), outs[k].size())) << "case " << k;
      }
    }
  });
}

TEST(Rope, InPlaceThreadsAndSpecialValues) {
  ForEachTarget([] {
    const size_t positions = 64, rows = 8, d = 128, n = positions * rows * d;
    const Tables t = MakeTables(positions, d, d / 2);
    auto x = Normal(n, 0.0f, 1.0f, 7);
    x[5] = kNaN;
    x[d + 3] = kInf;
    std::vector<float> y1(n), y2(n), z = x;
    {
      vlak_test::ScopedThreads th(1);
      ASSERT_EQ(vlak_rope_f32(positions, rows, d, x.data(), t.cos.data(), t.sin.data(), d / 2, y1.data(), 0), VLAK_OK);
    }
    {
      vlak_test::ScopedThreads th(3);
      ASSERT_EQ(vlak_rope_f32(positions, rows, d, x.data(), t.cos.data(), t.sin.data(), d / 2, y2.data(), 0), VLAK_OK);
      ASSERT_EQ(vlak_rope_f32(positions, rows, d, z.data(), t.cos.data(), t.sin.data(), d / 2, z.data(), 0), VLAK_OK);
    }
    EXPECT_TRUE(vlak_test::SameBits(y1.data(), y2.data(), n));
    EXPECT_TRUE(vlak_test::SameBits(y1.data(), z.data(), n));
    // Position 0 has cos 1, sin 0: the NaN stays in its pair's outputs only; inf * 0 gives NaN.
    EXPECT_TRUE(std::isnan(y1[5]) && std::isnan(y1[5 + d / 2]));
    EXPECT_TRUE(std::isinf(y1[d + 3]) && std::isnan(y1[d + 3 + d / 2]));
    EXPECT_TRUE(std::isfinite(y1[6]));
  });
}

// 4 MiB of output: past any L2 (the API then streams y), against one small call per position
// (never streamed): the same bits, for aligned and misaligned y (the kernel peels a head).
TEST(Rope, StreamedLargeOutputEqualsSmallCalls) {
  ForEachTarget([] {
    const size_t positions = 32, rows = 32, d = 1024, per = rows * d, n = positions * per;
    const Tables t = MakeTables(positions, d, d / 2);
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 1000) * 0.01f - 5.0f;
    std::vector<float> big(n + 64), small(n);
    for (size_t offset : {size_t{0}, size_t{3}}) {
      // Aligned to 64 bytes plus `offset` floats.
      const uintptr_t base = reinterpret_cast<uintptr_t>(big.data());
      float* y = big.data() + ((64 - base % 64) % 64) / sizeof(float) + offset;
      ASSERT_EQ(vlak_rope_f32(positions, rows, d, x.data(), t.cos.data(), t.sin.data(), d / 2, y, 0), VLAK_OK);
      for (size_t p = 0; p < positions; ++p) {
        ASSERT_EQ(vlak_rope_f32(1, rows, d, x.data() + p * per, t.cos.data() + p * (d / 2), t.sin.data() + p * (d / 2),
                                d / 2, small.data() + p * per, 0),
                  VLAK_OK);
      }
      EXPECT_TRUE(vlak_test::SameBits(y, small.data(), n)) << "offset " << offset;
    }
  });
}

// 12 times the L2 of output: one thread streams it, two or three do not (parallel_rows.h's
// ForEachRowChunkStreaming); the same bits. x86 only (the rule's target).
TEST(Rope, StreamingFollowsTheThreadsNotTheBits) {
#if defined(__riscv)
  GTEST_SKIP() << "x86's rule";
#else
  ForEachTarget([] {
    const size_t d = 64, rows = 16, positions = 12 * vlak::L2CacheBytes() / (rows * d * sizeof(float));
    const size_t n = positions * rows * d;
    const Tables t = MakeTables(positions, d, d / 2);
    std::vector<float> x(n), want(n), got(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 1000) * 0.01f - 5.0f;
    for (int threads : {1, 2, 3}) {
      vlak_test::ScopedThreads scoped(threads);
      std::vector<float>& y = threads == 1 ? want : got;
      ASSERT_EQ(vlak_rope_f32(positions, rows, d, x.data(), t.cos.data(), t.sin.data(), d / 2, y.data(), 0), VLAK_OK);
      if (threads > 1) EXPECT_TRUE(vlak_test::SameBits(got.data(), want.data(), n)) << "threads " << threads;
    }
  });
#endif
}

TEST(Rope, TablesMatchFloat64) {
  const size_t positions = 300, d = 96, stride = 50;
  const Tables t = MakeTables(positions, d, stride);
  for (size_t p = 0; p < positions; ++p) {
    for (size_t i = 0; i < d / 2; ++i) {
      const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * static_cast<double>(i) / d);
      ASSERT_EQ(t.cos[p * stride + i], static_cast<float>(std::cos(angle))) << p << " " << i;
      ASSERT_EQ(t.sin[p * stride + i], static_cast<float>(std::sin(angle))) << p << " " << i;
    }
    for (size_t i = d / 2; i < stride; ++i) ASSERT_EQ(t.cos[p * stride + i], kSentinel);
  }
}

TEST(Rope, BadArgumentsWriteNothing) {
  std::vector<float> x(64, 1.0f), c(32, 1.0f), s(32, 0.0f), y(64, kSentinel);
  EXPECT_EQ(vlak_rope_f32(2, 2, 16, nullptr, c.data(), s.data(), 8, y.data(), 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_rope_f32(2, 2, 16, x.data(), nullptr, s.data(), 8, y.data(), 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_rope_f32(2, 2, 16, x.data(), c.data(), s.data(), 8, nullptr, 0), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_rope_f32(2, 2, 15, x.data(), c.data(), s.data(), 8, y.data(), 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rope_f32(2, 2, 16, x.data(), c.data(), s.data(), 7, y.data(), 0), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rope_f32(2, 2, 16, x.data(), c.data(), s.data(), 8, y.data(), 0x4), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rope_f32(SIZE_MAX / 4, 4, 16, x.data(), c.data(), s.data(), 8, y.data(), 0), VLAK_ERROR_OVERFLOW);
  EXPECT_EQ(vlak_rope_f32(0, 2, 16, nullptr, nullptr, nullptr, 0, nullptr, 0), VLAK_OK);
  for (float v : y) EXPECT_EQ(v, kSentinel);
  // The tables' extent is (positions - 1) * table_stride + head_dim / 2: one position takes any
  // stride, two with a stride whose extent overflows are refused.
  EXPECT_EQ(vlak_rope_f32(1, 2, 16, x.data(), c.data(), s.data(), SIZE_MAX, y.data(), 0), VLAK_OK);
  EXPECT_EQ(vlak_rope_f32(2, 2, 16, x.data(), c.data(), s.data(), SIZE_MAX / 4, y.data(), 0), VLAK_ERROR_OVERFLOW);
  std::fill(y.begin(), y.end(), kSentinel);
  EXPECT_EQ(vlak_rope_tables_f32(2, 16, 0.0, c.data(), s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rope_tables_f32(2, 16, NAN, c.data(), s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rope_tables_f32(2, 15, 1e4, c.data(), s.data(), 8), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_rope_tables_f32(2, 16, 1e4, nullptr, s.data(), 8), VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_rope_tables_f32(2, 16, 1e4, c.data(), s.data(), 7), VLAK_ERROR_INVALID_ARGUMENT);
  for (float v : c) EXPECT_EQ(v, 1.0f);
}

// Every length 1 .. MaxLength() (ops_test_util.h) with the inputs and outputs ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, Rope) {
  ForEachTarget([] {
    for (size_t half = 1; half <= MaxLength(); ++half) {
      GuardedFloats x(4 * half), y(4 * half), c(half), s(half);
      for (unsigned flags : {VLAK_ROPE_HALVES, VLAK_ROPE_INTERLEAVED}) {
        ASSERT_EQ(vlak_rope_f32(1, 2, 2 * half, x.data(), c.data(), s.data(), half, y.data(), flags), VLAK_OK);
      }
      ASSERT_EQ(vlak_rope_tables_f32(1, 2 * half, 10000.0, c.data(), s.data(), half), VLAK_OK);
    }
  });
}

// Its jobs for the concurrency test (tests/ops/concurrency_test.cc: 8 threads against the result
// computed alone while the thread count or the target changes): the tables and the rotation, the
// same bits on every target.
VLAK_CONCURRENCY_JOBS(rope, in) {
  const uint32_t seed = in.seed;
  const size_t r = in.r, c = in.c;
  const auto x = in.x;
  const size_t positions = r, rows = 2, d = 2 * (c / 4);
  return {vlak_test::FloatsJob(positions * rows * d, true, [=](float* y) {
    std::vector<float> cs(positions * d / 2), sn(positions * d / 2);
    vlak_rope_tables_f32(positions, d, 10000.0, cs.data(), sn.data(), d / 2);
    return vlak_rope_f32(positions, rows, d, x->data(), cs.data(), sn.data(), d / 2, y,
                         (seed & 2) ? VLAK_ROPE_INTERLEAVED : VLAK_ROPE_HALVES);
  })};
}

// vlak::Rope (vlak.hpp): shape checks, and the same bits as the C call it wraps.
TEST(CppApi, RopeMatchesTheCApiAndChecksShapes) {
  const size_t positions = 5, heads = 2, d = 24;
  std::vector<float> cos(positions * d / 2), sin(positions * d / 2);
  ASSERT_EQ(vlak_rope_tables_f32(positions, d, 10000.0, cos.data(), sin.data(), d / 2), VLAK_OK);
  const auto x = Normal(positions * heads * d, 0.0f, 1.0f, 4);
  std::vector<float> y(x.size()), yc(x.size());
  ASSERT_EQ(vlak::Rope(x, cos, sin, y, positions, heads, d, VLAK_ROPE_INTERLEAVED), VLAK_OK);
  ASSERT_EQ(vlak_rope_f32(positions, heads, d, x.data(), cos.data(), sin.data(), d / 2, yc.data(),
                          VLAK_ROPE_INTERLEAVED),
            VLAK_OK);
  EXPECT_TRUE(SameBits(y.data(), yc.data(), y.size()));
  EXPECT_EQ(vlak::Rope(x, std::span<const float>(cos).first(d), sin, y, positions, heads, d),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Rope(x, cos, sin, y, positions, heads + 1, d), VLAK_ERROR_INVALID_ARGUMENT);
}

}  // namespace
