// vlak_matmul_q_pack / vlak_matmul_q_packed_f32 on every target: the layout holds W's bytes (every
// row unpacks to the bytes given), the product is within vlak_matmul_q_f32's bounds and has its bits
// wherever vlak.h promises them (the rows layout; exact weights), the same bits for every
// thread count, the epilogue, buffers refused by another target or shape, bad arguments with
// nothing written, guard pages.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "ops/ops_test_util.h"
#include "ops/quant/quant.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

constexpr vlak_qtype kTypes[] = {VLAK_Q8_0, VLAK_Q4_0, VLAK_Q4_1};
constexpr size_t kHeader = 64;  // vlak.h: the packed weights follow a 64-byte header

// W: n rows of random blocks (block scales over 2^-6 .. 2^6), row stride rb + 5.
std::vector<uint8_t> RandomW(vlak_qtype t, size_t n, size_t k, uint32_t seed, size_t* stride) {
  const size_t rb = vlak_qtype_row_bytes(t, k);
  *stride = rb + 5;
  auto v = Normal(n * k, 0.0f, 1.0f, seed);
  for (size_t b = 0; b < n * k / 32; ++b)
    for (size_t j = 0; j < 32; ++j) v[32 * b + j] *= std::ldexp(1.0f, static_cast<int>(b * 7 % 13) - 6);
  std::vector<uint8_t> w(n * *stride, 0xEE);
  for (size_t j = 0; j < n; ++j) EXPECT_EQ(vlak_quantize_f32(t, 1, k, v.data() + j * k, k, w.data() + j * *stride, rb), VLAK_OK);
  return w;
}

std::vector<uint8_t> Pack(vlak_qtype t, size_t n, size_t k, const std::vector<uint8_t>& w, size_t stride) {
  const size_t bytes = vlak_matmul_q_packed_size(t, n, k);
  EXPECT_GE(bytes, kHeader);
  std::vector<uint8_t> p(bytes + 3, 0xCD);
  EXPECT_EQ(vlak_matmul_q_pack(t, n, k, w.data(), stride, p.data(), bytes), VLAK_OK);
  for (size_t i = bytes; i < p.size(); ++i) EXPECT_EQ(p[i], 0xCD);
  return p;
}

// The header's fields (vlak.h: the layout is named there; after the 8-byte magic, the target,
// layout and wtype as 4-byte words, then the group of rows): 0 is the rows layout, 1 x16 (group
// 16, 4-byte pieces), 2 RVV's (1-byte pieces).
uint32_t Word(const std::vector<uint8_t>& p, size_t at) {
  uint32_t v;
  std::memcpy(&v, p.data() + at, 4);
  return v;
}
bool IsGrouped(const std::vector<uint8_t>& p) { return Word(p, 12) != 0; }
size_t Group(const std::vector<uint8_t>& p) { return Word(p, 20); }
size_t Piece(const std::vector<uint8_t>& p) { return Word(p, 12) == 1 ? 4 : 1; }

TEST(QuantPacked, SizeAndLayoutHoldTheRows) {
  // The rows rounded up to the target's group: at least n rows, whole rows.
  const size_t s17 = vlak_matmul_q_packed_size(VLAK_Q4_1, 17, 64);
  EXPECT_GE(s17, kHeader + 17 * 40);
  EXPECT_EQ((s17 - kHeader) % 40, 0u);
  EXPECT_EQ(vlak_matmul_q_packed_size(VLAK_Q8_0, 0, 32), kHeader);
  EXPECT_EQ(vlak_matmul_q_packed_size(VLAK_Q8_0, 3, 40), 0u);
  EXPECT_EQ(vlak_matmul_q_packed_size(static_cast<vlak_qtype>(5), 3, 32), 0u);
  EXPECT_EQ(vlak_matmul_q_packed_size(VLAK_Q8_0, SIZE_MAX / 2, 64), 0u);
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) {
      for (size_t n : {1, 15, 16, 35}) {
        const size_t k = 96, rb = vlak_qtype_row_bytes(t, k);
        size_t stride;
        const auto w = RandomW(t, n, k, static_cast<uint32_t>(n), &stride);
        const auto p = Pack(t, n, k, w, stride);
        std::vector<uint8_t> row(rb);
        const size_t padded = IsGrouped(p) ? (n + Group(p) - 1) / Group(p) * Group(p) : n;
        EXPECT_EQ(p.size() - 3, kHeader + padded * rb);
        for (size_t j = 0; j < padded; ++j) {
          if (IsGrouped(p)) {
            vlak::UnpackGroupRow(t, k, p.data() + kHeader, j, Group(p), Piece(p), row.data());
          } else {
            std::memcpy(row.data(), p.data() + kHeader + j * rb, rb);
          }
          if (j < n) {
            ASSERT_EQ(std::memcmp(row.data(), w.data() + j * stride, rb), 0) << t << " n " << n << " row " << j;
          } else {
            for (uint8_t b : row) ASSERT_EQ(b, 0) << t << " padding row " << j;
          }
        }
      }
    }
  });
}

// C from the packed W against vlak_matmul_q_f32 on the rows: the same bits except in the grouped
// kernels (QUANTIZE_A), which are checked against the float64 bound instead, and against the plain
// form of their arithmetic, bit for bit.
TEST(QuantPacked, ProductIsTheRowsProduct) {
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) {
      for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
        for (size_t m : {1, 2, 4, 5, 15, 16, 17}) {
          for (size_t n : {1, 7, 16, 21, 40}) {
            for (size_t k : {32, 96, 288}) {
              size_t stride;
              const auto w = RandomW(t, n, k, static_cast<uint32_t>(m + n + k), &stride);
              const auto p = Pack(t, n, k, w, stride);
              const size_t lda = k + 3, ldc = n + 2;
              const auto a = Normal(m * lda, 0.0f, 1.0f, static_cast<uint32_t>(m * k));
              std::vector<float> c(m * ldc, kSentinel), want(m * ldc, kSentinel);
              ASSERT_EQ(vlak_matmul_q_f32(m, n, k, a.data(), lda, t, w.data(), stride, want.data(), ldc, flags, nullptr),
                        VLAK_OK);
              ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), lda, p.data(), c.data(), ldc, flags, nullptr), VLAK_OK);
              const bool own_kernel = IsGrouped(p) && flags != 0;
              if (!own_kernel) {
                ASSERT_TRUE(SameBits(c.data(), want.data(), c.size())) << t << " flags " << flags << " m " << m << " n "
                                                                        << n << " k " << k;
                continue;
              }
              std::vector<float> plain(m * ldc, kSentinel);
              vlak::QMatmulArgs gp{m, n, k, a.data(), lda, t, p.data() + kHeader, vlak_qtype_row_bytes(t, k), plain.data(), ldc};
              gp.group = Group(p), gp.piece = Piece(p);
              ASSERT_EQ(vlak::MatmulQGroupedPlainF32(gp), VLAK_OK);
              ASSERT_TRUE(SameBits(c.data(), plain.data(), c.size())) << t << " m " << m << " n " << n << " k " << k;
              const vlak::QMatmulArgs g{m, n, k, a.data(), lda, t, w.data(), stride, c.data(), ldc};
              std::vector<double> c64(m * n), err64(m * n), s64(m * n);
              vlak::MatmulQReferenceF64(g, true, c64.data(), nullptr, err64.data(), s64.data());
              for (size_t i = 0; i < m; ++i) {
                for (size_t j = 0; j < n; ++j) {
                  const double bound = err64[i * n + j] + 2.0 * k * 0x1p-24 * s64[i * n + j] + 1e-30;
                  ASSERT_LE(std::fabs(c[i * ldc + j] - c64[i * n + j]), bound)
                      << t << " m " << m << " n " << n << " k " << k << " at " << i << "," << j;
                }
                for (size_t j = n; j < ldc; ++j) ASSERT_TRUE(SameBits(&c[i * ldc + j], &kSentinel, 1));
              }
            }
          }
        }
      }
    }
  });
}

TEST(QuantPacked, SameBitsForEveryThreadCountAndEpilogue) {
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) {
      const size_t n = 100, k = 256;
      size_t stride;
      const auto w = RandomW(t, n, k, 7, &stride);
      const auto p = Pack(t, n, k, w, stride);
      const auto bias = Normal(n, 0.0f, 1.0f, 8);
      for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
        for (size_t m : {1, 3, 20}) {
          const auto a = Normal(m * k, 0.0f, 1.0f, 3);
          std::vector<float> c1(m * n), c(m * n);
          vlak::QMatmulArgs g{m, n, k, a.data(), k, t, p.data() + kHeader, vlak_qtype_row_bytes(t, k), c1.data(), n};
          if (IsGrouped(p)) g.group = Group(p), g.piece = Piece(p);
          ASSERT_EQ(vlak::MatmulQF32(g, flags, 1), VLAK_OK);
          for (int th : {2, 3, 7}) {
            g.c = c.data();
            ASSERT_EQ(vlak::MatmulQF32(g, flags, th), VLAK_OK);
            ASSERT_TRUE(SameBits(c.data(), c1.data(), c.size())) << t << " flags " << flags << " m " << m << " threads " << th;
          }
          ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), k, p.data(), c.data(), n, flags, nullptr), VLAK_OK);
          ASSERT_TRUE(SameBits(c.data(), c1.data(), c.size()));
          // The epilogue: those bits, + bias in float, then vlak_activation_f32.
          const vlak_matmul_epilogue e{bias.data(), VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_GELU};
          for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) c1[i * n + j] += bias[j];
          ASSERT_EQ(vlak_activation_f32(m * n, c1.data(), c1.data(), VLAK_ACT_GELU), VLAK_OK);
          ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), k, p.data(), c.data(), n, flags, &e), VLAK_OK);
          ASSERT_TRUE(SameBits(c.data(), c1.data(), c.size())) << t << " epilogue, flags " << flags << " m " << m;
        }
      }
    }
  });
}

// On the avx512 target: for each type and shapes of an x16 W, m rows of A (QUANTIZE_A) give the
// same bits with a specialisation switched on (set(true)) and off (set(false)).
template <class Set>
void SameBitsEitherWay(Set set, std::initializer_list<size_t> ms) {
  for (vlak_qtype t : kTypes) {
    for (size_t n : {16, 21, 40}) {
      for (size_t k : {32, 64, 96, 1024}) {
        size_t stride;
        const auto w = RandomW(t, n, k, static_cast<uint32_t>(n * k), &stride);
        const auto p = Pack(t, n, k, w, stride);
        ASSERT_TRUE(IsGrouped(p));
        for (size_t m : ms) {
          const size_t lda = k + 3, ldc = n + 2;
          const auto a = Normal(m * lda, 0.0f, 1.0f, static_cast<uint32_t>(m + k));
          std::vector<float> on(m * ldc, kSentinel), off(m * ldc, kSentinel);
          const bool was = set(true);
          ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), lda, p.data(), on.data(), ldc, VLAK_MATMUL_Q_QUANTIZE_A,
                                             nullptr),
                    VLAK_OK);
          set(false);
          ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), lda, p.data(), off.data(), ldc, VLAK_MATMUL_Q_QUANTIZE_A,
                                             nullptr),
                    VLAK_OK);
          set(was);
          ASSERT_TRUE(SameBits(on.data(), off.data(), on.size())) << t << " m " << m << " n " << n << " k " << k;
        }
      }
    }
  }
}

// AVX-512 with AMX: the tile kernel (16 rows of A at a time, the rest by VNNI) gives the VNNI
// kernel's bits, for odd and even block counts, partial groups of W and rows past the last tile.
TEST(QuantPacked, AmxTilesGiveTheVnniBits) {
  const vlak_target saved = vlak_active_target();
  if (vlak_set_target(VLAK_TARGET_AVX512) != VLAK_OK || !vlak::QuantAmxEnabled()) {
    vlak_set_target(saved);
    GTEST_SKIP() << "this CPU (or OS) runs no AMX tiles";
  }
  SameBitsEitherWay(vlak::SetQuantAmx, {16, 17, 31, 32, 51});
  ASSERT_EQ(vlak_set_target(saved), VLAK_OK);
}

// AVX-512 with VNNI: decode (m = 1-3) by the 512-bit VNNI kernel and by the AVX2 form the avx512
// target takes on CPUs that split 512-bit operations give the same bits.
TEST(QuantPacked, ZmmDecodeAndTheAvx2FormGiveTheSameBits) {
  const vlak_target saved = vlak_active_target();
  if (vlak_set_target(VLAK_TARGET_AVX512) != VLAK_OK || !vlak::QuantVnniEnabled()) {
    vlak_set_target(saved);
    GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  }
  SameBitsEitherWay(vlak::SetQuantZmmDecode, {1, 2, 3});
  ASSERT_EQ(vlak_set_target(saved), VLAK_OK);
}

TEST(QuantPacked, BadArgumentsWriteNothing) {
  ForEachTarget([] {
    const size_t n = 3, k = 64;
    size_t stride;
    const auto w = RandomW(VLAK_Q4_1, n, k, 1, &stride);
    const size_t bytes = vlak_matmul_q_packed_size(VLAK_Q4_1, n, k);
    std::vector<uint8_t> p(bytes, 0xAB);
    auto untouched = [&] {
      for (uint8_t b : p)
        if (b != 0xAB) return false;
      return true;
    };
    EXPECT_EQ(vlak_matmul_q_pack(static_cast<vlak_qtype>(7), n, k, w.data(), stride, p.data(), bytes), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, n, 48, w.data(), stride, p.data(), bytes), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, n, k, w.data(), 39, p.data(), bytes), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, n, k, w.data(), stride, p.data(), bytes - 1), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, n, k, nullptr, stride, p.data(), bytes), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, n, k, w.data(), stride, nullptr, bytes), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, SIZE_MAX / 2, k, w.data(), stride, p.data(), bytes), VLAK_ERROR_OVERFLOW);
    EXPECT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, 1000, k, w.data(), SIZE_MAX / 100, p.data(), SIZE_MAX), VLAK_ERROR_OVERFLOW);
    EXPECT_TRUE(untouched());
    ASSERT_EQ(vlak_matmul_q_pack(VLAK_Q4_1, n, k, w.data(), stride, p.data(), bytes), VLAK_OK);
    const auto a = Normal(2 * k, 0.0f, 1.0f, 2);
    std::vector<float> c(2 * n, kSentinel);
    auto c_untouched = [&] {
      for (float v : c)
        if (!SameBits(&v, &kSentinel, 1)) return false;
      return true;
    };
    const vlak_matmul_epilogue bad_act{nullptr, VLAK_EPILOGUE_ACTIVATION, static_cast<vlak_activation>(17)};
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, a.data(), k, p.data(), c.data(), n, 2u, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n + 1, k, a.data(), k, p.data(), c.data(), n + 1, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, 32, a.data(), k, p.data(), c.data(), n, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, a.data(), k - 1, p.data(), c.data(), n, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, a.data(), k, p.data(), c.data(), n - 1, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, a.data(), k, p.data(), c.data(), n, 0, &bad_act), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, nullptr, k, p.data(), c.data(), n, 0, nullptr), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, a.data(), k, nullptr, c.data(), n, 0, nullptr), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, a.data(), k, p.data(), nullptr, n, 0, nullptr), VLAK_ERROR_NULL_POINTER);
    std::vector<uint8_t> junk(p);
    junk[0] ^= 1;
    EXPECT_EQ(vlak_matmul_q_packed_f32(2, n, k, a.data(), k, junk.data(), c.data(), n, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(c_untouched());
    EXPECT_EQ(vlak_matmul_q_packed_f32(0, n, k, nullptr, k, nullptr, nullptr, n, 0, nullptr), VLAK_OK);
  });
  // A buffer packed on one target is refused by every other.
  const size_t n = 5, k = 32;
  size_t stride;
  const auto w = RandomW(VLAK_Q8_0, n, k, 3, &stride);
  const vlak_target saved = vlak_active_target();
  ASSERT_EQ(vlak_set_target(VLAK_TARGET_SCALAR), VLAK_OK);
  const auto scalar_packed = Pack(VLAK_Q8_0, n, k, w, stride);
  const auto a = Normal(k, 0.0f, 1.0f, 4);
  std::vector<float> c(n, kSentinel);
  ForEachTarget([&] {
    const vlak_status s = vlak_matmul_q_packed_f32(1, n, k, a.data(), k, scalar_packed.data(), c.data(), n, 0, nullptr);
    EXPECT_EQ(s, vlak_active_target() == VLAK_TARGET_SCALAR ? VLAK_OK : VLAK_ERROR_INVALID_ARGUMENT);
  });
  ASSERT_EQ(vlak_set_target(saved), VLAK_OK);
}

// The packed weights and A ending at an inaccessible page, the last group partial.
TEST(GuardPages, QuantPacked) {
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) {
      for (size_t n : {5, 16, 19}) {
        for (size_t m : {1, 3, 16, 17}) {  // 16 and 17: AMX tiles where the CPU has them, then VNNI
          const size_t k = 96, rb = vlak_qtype_row_bytes(t, k), bytes = vlak_matmul_q_packed_size(t, n, k);
          GuardedFloats a(m * k), c(m * n), y(n * k);
          GuardedBytes w(n * rb), p(bytes);
          for (size_t i = 0; i < m * k; ++i) a.data()[i] = std::sin(0.3f * static_cast<float>(i));
          for (size_t i = 0; i < n * k; ++i) y.data()[i] = std::cos(0.7f * static_cast<float>(i));
          ASSERT_EQ(vlak_quantize_f32(t, n, k, y.data(), k, w.u8(), rb), VLAK_OK);
          ASSERT_EQ(vlak_matmul_q_pack(t, n, k, w.u8(), rb, p.u8(), bytes), VLAK_OK);
          for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
            ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), k, p.u8(), c.data(), n, flags, nullptr), VLAK_OK);
            ASSERT_TRUE(std::isfinite(c.data()[m * n - 1]));
          }
        }
      }
    }
  });
}

// vlak::PackQ / MatmulQPacked (vlak.hpp): the C calls' bits and the shape checks.
TEST(CppApi, QuantPackedMatchesTheCApi) {
  const size_t m = 2, n = 19, k = 64;
  size_t stride;
  const auto w = RandomW(VLAK_Q4_0, n, k, 5, &stride);
  std::vector<uint8_t> dense(n * 36);
  for (size_t j = 0; j < n; ++j) std::memcpy(dense.data() + j * 36, w.data() + j * stride, 36);
  const auto a = Normal(m * k, 0.0f, 1.0f, 6);
  std::vector<uint8_t> packed;
  ASSERT_EQ(vlak::PackQ(VLAK_Q4_0, dense, n, k, packed), VLAK_OK);
  std::vector<float> c(m * n), want(m * n);
  ASSERT_EQ(vlak::MatmulQPacked(a, packed, c, m, n, k, VLAK_MATMUL_Q_QUANTIZE_A), VLAK_OK);
  ASSERT_EQ(vlak_matmul_q_packed_f32(m, n, k, a.data(), k, packed.data(), want.data(), n, VLAK_MATMUL_Q_QUANTIZE_A,
                                     nullptr),
            VLAK_OK);
  EXPECT_TRUE(SameBits(c.data(), want.data(), c.size()));
  EXPECT_EQ(vlak::PackQ(VLAK_Q4_0, dense, n + 1, k, packed), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::MatmulQPacked(a, packed, c, m, n + 1, k), VLAK_ERROR_INVALID_ARGUMENT);
}

}  // namespace
