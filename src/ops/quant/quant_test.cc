// vlak_quantize_f32, vlak_dequantize_f32, vlak_matmul_q_f32 on every target: ggml's bytes and floats
// against the reference, both product modes within vlak.h's bounds (odd sizes, strides, every m of
// decode, prefill), the same bits for every thread count, adversarial fp16 scales, special values,
// bad arguments; guard pages and concurrency jobs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "ops/quant/quant.h"
#include "ops/quant/quant_kernels.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

constexpr vlak_qtype kTypes[] = {VLAK_Q8_0, VLAK_Q4_0, VLAK_Q4_1};

// Rows of random blocks: values N(0, 1) with block scales spread over 2^-10 .. 2^10.
std::vector<float> Values(size_t n, uint32_t seed) {
  auto v = Normal(n, 0.0f, 1.0f, seed);
  std::mt19937 rng(seed ^ 0x5a5a);
  for (size_t b = 0; b < n / 32; ++b) {
    const float s = std::ldexp(1.0f, static_cast<int>(rng() % 21) - 10);
    for (size_t j = 0; j < 32; ++j) v[32 * b + j] *= s;
  }
  return v;
}

std::vector<uint8_t> Quantized(vlak_qtype t, size_t rows, size_t k, const std::vector<float>& x) {
  std::vector<uint8_t> q(rows * vlak_qtype_row_bytes(t, k));
  EXPECT_EQ(vlak_quantize_f32(t, rows, k, x.data(), k, q.data(), vlak_qtype_row_bytes(t, k)), VLAK_OK);
  return q;
}

TEST(Quant, RowBytes) {
  EXPECT_EQ(vlak_qtype_row_bytes(VLAK_Q8_0, 64), 68u);
  EXPECT_EQ(vlak_qtype_row_bytes(VLAK_Q4_0, 64), 36u);
  EXPECT_EQ(vlak_qtype_row_bytes(VLAK_Q4_1, 64), 40u);
  EXPECT_EQ(vlak_qtype_row_bytes(VLAK_Q4_1, 0), 0u);
  EXPECT_EQ(vlak_qtype_row_bytes(VLAK_Q4_1, 33), 0u);
  EXPECT_EQ(vlak_qtype_row_bytes(static_cast<vlak_qtype>(1), 32), 0u);
  EXPECT_EQ(vlak_qtype_row_bytes(VLAK_Q8_0, SIZE_MAX / 32 * 32), 0u);
}

// fp16 conversions: every half round-trips; float -> half matches the reference's rounding at
// boundaries (ties, subnormals, overflow).
TEST(Quant, HalfConversions) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = vlak::HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(vlak::FloatToHalf(f), h) << h;
  }
  EXPECT_EQ(vlak::FloatToHalf(65519.99f), 0x7BFF);
  EXPECT_EQ(vlak::FloatToHalf(65520.0f), 0x7C00);
  EXPECT_EQ(vlak::FloatToHalf(0x1p-25f), 0);
  EXPECT_EQ(vlak::FloatToHalf(0x1.000002p-25f), 1);
  EXPECT_EQ(vlak::FloatToHalf(0x1.8p-24f), 2);  // tie to even
  EXPECT_EQ(vlak::FloatToHalf(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_EQ(vlak::FloatToHalf(1.0f + 0x1.8p-10f), 0x3C02);  // tie to even
}

// The bytes of ggml's quantizers (the reference restates them) on random rows and edge blocks.
TEST(Quant, QuantizeBytesMatchReference) {
  ForEachTarget([] {
    std::vector<float> x = Values(32 * 40, 7);
    // Edge blocks: zeros, one value, ties, huge (fp16 overflow), tiny (id overflow), subnormal scales,
    // a block whose largest magnitude is negative, equal values (q4_1 span 0).
    for (size_t j = 0; j < 32; ++j) {
      x[j] = 0.0f;
      x[32 + j] = j == 5 ? -3.0f : 0.0f;
      x[64 + j] = (static_cast<float>(j) - 16.0f) * 0.5f;
      x[96 + j] = 1e7f * (j % 3 == 0 ? -1.0f : 0.7f);
      x[128 + j] = 1e-38f * static_cast<float>(j);
      x[160 + j] = 3e-6f * static_cast<float>(static_cast<int>(j) - 20);
      x[192 + j] = -2.5f;
      x[224 + j] = 3.4e38f * (j % 2 ? 1.0f : -1.0f);
      x[256 + j] = 65504.0f * 127.0f * (j == 3 ? 1.0f : 0.1f);
    }
    for (vlak_qtype t : kTypes) {
      const size_t rb = vlak_qtype_row_bytes(t, 320);
      std::vector<uint8_t> q(4 * rb), want(4 * rb);
      ASSERT_EQ(vlak_quantize_f32(t, 4, 320, x.data(), 320, q.data(), rb), VLAK_OK);
      for (size_t i = 0; i < 4; ++i) vlak::QuantizeRowReference(t, 320, x.data() + 320 * i, want.data() + rb * i);
      for (size_t b = 0; b < q.size(); ++b) ASSERT_EQ(q[b], want[b]) << "type " << t << " byte " << b;
    }
  });
}

// Known bytes (ggml's arithmetic worked by hand).
TEST(Quant, QuantizeKnownBlocks) {
  std::vector<float> x(32, 0.0f);
  x[0] = 127.0f;
  x[1] = -63.5f;  // ties away from zero: -63.5 -> -64
  x[2] = 0.5f;    // 0.5 -> 1
  uint8_t q8[34];
  ASSERT_EQ(vlak_quantize_f32(VLAK_Q8_0, 1, 32, x.data(), 32, q8, 34), VLAK_OK);
  EXPECT_EQ(q8[0] | (q8[1] << 8), 0x3C00);  // d = 1
  EXPECT_EQ(static_cast<int8_t>(q8[2]), 127);
  EXPECT_EQ(static_cast<int8_t>(q8[3]), -64);
  EXPECT_EQ(static_cast<int8_t>(q8[4]), 1);
  // q4_0: max |x| = -8 at element 17: d = 1, element 17 -> 0, element 0 (= 7) -> 15.
  std::vector<float> y(32, 0.0f);
  y[17] = -8.0f;
  y[0] = 7.0f;
  uint8_t q4[18];
  ASSERT_EQ(vlak_quantize_f32(VLAK_Q4_0, 1, 32, y.data(), 32, q4, 18), VLAK_OK);
  EXPECT_EQ(q4[0] | (q4[1] << 8), 0x3C00);
  EXPECT_EQ(q4[2] & 0x0F, 15);  // element 0: 7 + 8.5 -> 15
  EXPECT_EQ(q4[3] >> 4, 0);     // element 17: -8 + 8.5 -> 0
  EXPECT_EQ(q4[4] & 0x0F, 8);   // zeros: 8
}

TEST(Quant, DequantizeMatchesReference) {
  ForEachTarget([] {
    const size_t k = 32 * 9, rows = 3;
    const auto x = Values(rows * k, 11);
    for (vlak_qtype t : kTypes) {
      auto q = Quantized(t, rows, k, x);
      // Adversarial scales in some blocks: subnormal, 65504, 0, -0, inf, NaN; and q4_1 mins.
      const size_t bb = vlak::QBlockBytes(t), rb = vlak_qtype_row_bytes(t, k);
      const uint16_t scales[] = {0x0001, 0x03FF, 0x7BFF, 0x0000, 0x8000, 0x7C00, 0x7E00, 0xFBFF};
      for (size_t s = 0; s < 8; ++s) {
        vlak::StoreHalf(&q[rb + s * bb], scales[s]);
        if (t == VLAK_Q4_1) vlak::StoreHalf(&q[2 * rb + s * bb + 2], scales[s]);
      }
      std::vector<float> y(rows * (k + 3), kSentinel);
      ASSERT_EQ(vlak_dequantize_f32(t, rows, k, q.data(), rb, y.data(), k + 3), VLAK_OK);
      std::vector<double> want(k);
      for (size_t i = 0; i < rows; ++i) {
        vlak::DequantizeRowReference(t, k, q.data() + i * rb, want.data());
        for (size_t p = 0; p < k; ++p) {
          const float got = y[i * (k + 3) + p];
          if (std::isnan(want[p])) {
            ASSERT_TRUE(std::isnan(got)) << t << " " << i << " " << p;
          } else {
            ASSERT_EQ(static_cast<double>(got), want[p]) << t << " " << i << " " << p;
          }
        }
        for (size_t p = k; p < k + 3; ++p) ASSERT_TRUE(SameBits(&y[i * (k + 3) + p], &kSentinel, 1));
      }
    }
  });
}

// Checks one call of vlak_matmul_q_f32 against the reference bound; returns C.
std::vector<float> CheckMatmul(vlak_qtype t, size_t m, size_t n, size_t k, unsigned flags, uint32_t seed,
                               const std::vector<uint8_t>* wq = nullptr, const std::vector<float>* av = nullptr) {
  const size_t lda = k + 5, ldc = n + 3, rb = vlak_qtype_row_bytes(t, k), ws = rb + 7;
  std::vector<float> a = av ? *av : Normal(m * lda, 0.0f, 1.0f, seed);
  std::vector<uint8_t> w(n * ws, 0xEE);
  if (wq != nullptr) {
    w = *wq;
  } else {
    const auto wv = Values(n * k, seed + 1);
    for (size_t j = 0; j < n; ++j) vlak_quantize_f32(t, 1, k, wv.data() + j * k, k, w.data() + j * ws, rb);
  }
  const size_t wstride = wq != nullptr ? rb : ws;
  std::vector<float> c(m * ldc, kSentinel);
  EXPECT_EQ(vlak_matmul_q_f32(m, n, k, a.data(), lda, t, w.data(), wstride, c.data(), ldc, flags, nullptr), VLAK_OK);
  const vlak::QMatmulArgs g{m, n, k, a.data(), lda, t, w.data(), wstride, c.data(), ldc};
  const bool qa = (flags & VLAK_MATMUL_Q_QUANTIZE_A) != 0;
  std::vector<double> c64(m * n), abs64(m * n), err64(m * n), s64(m * n);
  vlak::MatmulQReferenceF64(g, false, c64.data(), abs64.data(), nullptr, nullptr);
  if (qa) {
    std::vector<double> cq(m * n);
    vlak::MatmulQReferenceF64(g, true, cq.data(), nullptr, err64.data(), s64.data());
  }
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const double got = c[i * ldc + j], want = c64[i * n + j];
      const double bound = qa ? err64[i * n + j] + 2.0 * k * 0x1p-24 * s64[i * n + j] + 1e-30
                              : 2.0 * k * 0x1p-24 * abs64[i * n + j] + 1e-30;
      EXPECT_LE(std::fabs(got - want), bound) << "type " << t << " m " << m << " n " << n << " k " << k << " flags "
                                              << flags << " at " << i << "," << j;
    }
    for (size_t j = n; j < ldc; ++j) EXPECT_TRUE(SameBits(&c[i * ldc + j], &kSentinel, 1));
  }
  return c;
}

// The activations' int8 quantization (VLAK_MATMUL_Q_QUANTIZE_A) gives the scalar loop's bytes on
// every target: ties of x / d at .5 (rounded away from zero), values at +-127 d, all-zero blocks,
// subnormal and huge scales, NaN and infinities (their block: d NaN, q 0), random blocks.
TEST(Quant, ActivationQuantizationSameOnEveryTarget) {
  // 12 blocks a row, and 37 (AVX-512 takes 16 at a time: two groups and a tail of 5), the special
  // blocks in the first group and again in the second.
  for (const size_t nb : {12, 37}) {
    const size_t k = 32 * nb;
    std::vector<float> a(3 * k, 0.0f);
    std::mt19937 rng(17);
    auto block = [&](size_t b) { return a.data() + 32 * b; };
    for (size_t j = 0; j < 32; ++j) {
      block(0)[j] = (static_cast<float>(j) - 15.5f);           // x / d lands on .5 for some j
      block(1)[j] = (j % 2 ? 1.0f : -1.0f) * (127.0f - static_cast<float>(j)) * 0.5f;  // ties
      block(3)[j] = std::ldexp(static_cast<float>(j) + 1.0f, -140);  // d subnormal, 1 / d infinite
      block(4)[j] = std::ldexp(static_cast<float>(j) - 16.0f, -125);  // d subnormal, 1 / d finite
      block(5)[j] = (j % 3 ? 1.0f : -1.0f) * 3.0e38f * static_cast<float>(j) / 32.0f;  // huge
      block(6)[j] = static_cast<float>(j) - 16.0f;
      block(7)[j] = static_cast<float>(j);
      block(8)[j] = -static_cast<float>(j) * 0.25f;
    }
    // block 2 stays zero
    block(6)[5] = std::numeric_limits<float>::quiet_NaN();
    block(7)[31] = std::numeric_limits<float>::infinity();
    block(8)[0] = -std::numeric_limits<float>::infinity();
    for (size_t i = 9 * 32; i < a.size(); ++i) {
      a[i] = std::ldexp(static_cast<float>(static_cast<int32_t>(rng() >> 8) - (1 << 23)), -23 + static_cast<int>(rng() % 40) - 20);
    }
    if (nb > 25) std::copy(block(0), block(9), block(17));  // blocks 17..25: the same specials
    const size_t rows = a.size() / k;
    std::vector<uint8_t> want(rows * vlak::QActBytes(k)), got(want.size());
    vlak::QuantizeActRowsForTest(true, rows, k, a.data(), k, want.data());
    ForEachTarget([&] {
      std::fill(got.begin(), got.end(), uint8_t{0xA5});
      vlak::QuantizeActRowsForTest(false, rows, k, a.data(), k, got.data());
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "blocks " << nb << " byte " << i;
    });
  }
}

TEST(Quant, MatmulWithinBound) {
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) {
      for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
        for (size_t m : {1, 2, 5, 15, 16, 17}) {
          for (size_t n : {1, 4, 7, 21}) {
            for (size_t k : {32, 96, 288}) CheckMatmul(t, m, n, k, flags, static_cast<uint32_t>(m * 7 + n * 3 + k));
          }
        }
        CheckMatmul(t, 1, 70, 2048, flags, 5);
        CheckMatmul(t, 64, 40, 576, flags, 6);
      }
    }
  });
}

TEST(Quant, MatmulVnniAndGenericBothWithinBound) {
  const bool was = vlak::SetQuantVnni(false);
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) CheckMatmul(t, 3, 9, 96, VLAK_MATMUL_Q_QUANTIZE_A, 3);
  });
  vlak::SetQuantVnni(was);
}

// Adversarial fp16 scales in W (subnormal, 65504, zero) and activations of extreme range: within
// the bounds; inf and NaN scales give non-finite columns, NaN in A non-finite rows.
TEST(Quant, AdversarialScales) {
  ForEachTarget([] {
    const size_t k = 128, n = 8;
    for (vlak_qtype t : kTypes) {
      const size_t rb = vlak_qtype_row_bytes(t, k), bb = vlak::QBlockBytes(t);
      auto w = Quantized(t, n, k, Values(n * k, 21));
      const uint16_t finite_scales[] = {0x0001, 0x0200, 0x7BFF, 0x0000, 0xFBFF, 0x0400};
      for (size_t j = 0; j < 6; ++j)
        for (size_t b = 0; b < k / 32; ++b) {
          vlak::StoreHalf(&w[j * rb + b * bb], finite_scales[j]);
          if (t == VLAK_Q4_1) vlak::StoreHalf(&w[j * rb + b * bb + 2], finite_scales[(j + b) % 6]);
        }
      vlak::StoreHalf(&w[6 * rb + bb], 0x7C00);  // inf in row 6
      vlak::StoreHalf(&w[7 * rb], 0x7E00);       // NaN in row 7
      for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
        for (float scale : {1.0f, 1e-20f, 3e4f}) {
          auto a = Normal(3 * (k + 5), 0.0f, scale, 4);
          std::vector<float> c(3 * (n + 3));
          // Rows 0..5 within the bound (CheckMatmul on the first 6 rows of W only).
          std::vector<uint8_t> w6(w.begin(), w.begin() + 6 * rb);
          CheckMatmul(t, 3, 6, k, flags, 9, &w6, &a);
          ASSERT_EQ(vlak_matmul_q_f32(3, n, k, a.data(), k + 5, t, w.data(), rb, c.data(), n + 3, flags, nullptr),
                    VLAK_OK);
          for (size_t i = 0; i < 3; ++i) {
            EXPECT_FALSE(std::isfinite(c[i * (n + 3) + 6])) << t << " " << flags;
            EXPECT_TRUE(std::isnan(c[i * (n + 3) + 7])) << t << " " << flags;
          }
        }
      }
      // NaN / inf in A.
      auto a = Normal(2 * k, 0.0f, 1.0f, 5);
      a[40] = std::numeric_limits<float>::quiet_NaN();
      a[k + 3] = std::numeric_limits<float>::infinity();
      std::vector<uint8_t> w6(w.begin(), w.begin() + 6 * rb);
      std::vector<float> c(2 * 6);
      for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
        ASSERT_EQ(vlak_matmul_q_f32(2, 6, k, a.data(), k, t, w6.data(), rb, c.data(), 6, flags, nullptr), VLAK_OK);
        for (size_t j = 0; j < 6; ++j) {
          if (flags != 0) {
            EXPECT_TRUE(std::isnan(c[j]) && std::isnan(c[6 + j])) << t << " " << j;
          }
          EXPECT_FALSE(std::isfinite(c[j])) << t;
        }
      }
    }
  });
}

TEST(Quant, SameBitsForEveryThreadCount) {
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) {
      for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
        for (size_t m : {1, 4, 20}) {
          const size_t n = 100, k = 256;
          const auto a = Normal(m * k, 0.0f, 1.0f, 3);
          const auto w = Quantized(t, n, k, Values(n * k, 4));
          std::vector<float> c1(m * n), c(m * n);
          const vlak::QMatmulArgs g1{m, n, k, a.data(), k, t, w.data(), vlak_qtype_row_bytes(t, k), c1.data(), n};
          ASSERT_EQ(vlak::MatmulQF32(g1, flags, 1), VLAK_OK);
          for (int th : {2, 3, 7}) {
            vlak::QMatmulArgs g = g1;
            g.c = c.data();
            ASSERT_EQ(vlak::MatmulQF32(g, flags, th), VLAK_OK);
            ASSERT_TRUE(SameBits(c.data(), c1.data(), c.size())) << t << " flags " << flags << " m " << m << " threads " << th;
          }
          ASSERT_EQ(vlak_matmul_q_f32(m, n, k, a.data(), k, t, w.data(), vlak_qtype_row_bytes(t, k), c.data(), n,
                                      flags, nullptr),
                    VLAK_OK);
          ASSERT_TRUE(SameBits(c.data(), c1.data(), c.size()));
        }
      }
    }
  });
}

// The epilogue: the bits of the product, then + bias in float, then vlak_activation_f32 (vlak.h), in
// both modes, at decode and through the panels; k == 0 gives act(bias).
TEST(Quant, EpilogueIsBiasThenActivation) {
  ForEachTarget([] {
    const size_t n = 37, k = 96;
    const auto bias = Normal(n, 0.0f, 1.0f, 8);
    for (vlak_qtype t : kTypes) {
      const auto w = Quantized(t, n, k, Values(n * k, 9));
      const size_t rb = vlak_qtype_row_bytes(t, k);
      for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
        for (size_t m : {1, 3, 20}) {
          const auto a = Normal(m * k, 0.0f, 1.0f, static_cast<uint32_t>(m));
          for (int with_act : {0, 1}) {
            const vlak_matmul_epilogue e{bias.data(), with_act ? VLAK_EPILOGUE_ACTIVATION : 0u, VLAK_ACT_SILU};
            std::vector<float> c(m * n), want(m * n);
            ASSERT_EQ(vlak_matmul_q_f32(m, n, k, a.data(), k, t, w.data(), rb, want.data(), n, flags, nullptr), VLAK_OK);
            for (size_t i = 0; i < m; ++i)
              for (size_t j = 0; j < n; ++j) want[i * n + j] += bias[j];
            if (with_act) ASSERT_EQ(vlak_activation_f32(m * n, want.data(), want.data(), VLAK_ACT_SILU), VLAK_OK);
            ASSERT_EQ(vlak_matmul_q_f32(m, n, k, a.data(), k, t, w.data(), rb, c.data(), n, flags, &e), VLAK_OK);
            ASSERT_TRUE(SameBits(c.data(), want.data(), c.size())) << t << " flags " << flags << " m " << m;
          }
        }
      }
    }
    const vlak_matmul_epilogue e{bias.data(), VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_TANH};
    std::vector<float> c(2 * n, 5.0f), want(bias);
    ASSERT_EQ(vlak_activation_f32(n, want.data(), want.data(), VLAK_ACT_TANH), VLAK_OK);
    ASSERT_EQ(vlak_matmul_q_f32(2, n, 0, nullptr, 0, VLAK_Q4_0, nullptr, 0, c.data(), n, 0, &e), VLAK_OK);
    EXPECT_TRUE(SameBits(c.data(), want.data(), n) && SameBits(c.data() + n, want.data(), n));
  });
}

TEST(Quant, BadArgumentsWriteNothing) {
  ForEachTarget([] {
    const size_t k = 64;
    auto x = Normal(2 * k, 0.0f, 1.0f, 1);
    std::vector<uint8_t> q(2 * 68, 0xAB);
    std::vector<float> y(2 * k, kSentinel);
    auto untouched = [&] {
      for (uint8_t b : q)
        if (b != 0xAB) return false;
      for (float v : y)
        if (!SameBits(&v, &kSentinel, 1)) return false;
      return true;
    };
    EXPECT_EQ(vlak_quantize_f32(static_cast<vlak_qtype>(7), 2, k, x.data(), k, q.data(), 68), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, 2, 48, x.data(), k, q.data(), 68), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, 2, k, x.data(), k - 1, q.data(), 68), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, 2, k, x.data(), k, q.data(), 67), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, 2, k, nullptr, k, q.data(), 68), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, 2, k, x.data(), k, nullptr, 68), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, SIZE_MAX / 4, k, x.data(), k, q.data(), 68), VLAK_ERROR_OVERFLOW);
    x[k + 7] = std::numeric_limits<float>::infinity();
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, 2, k, x.data(), k, q.data(), 68), VLAK_ERROR_INVALID_ARGUMENT);
    x[k + 7] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q4_1, 2, k, x.data(), k, q.data(), 40), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(untouched());
    EXPECT_EQ(vlak_quantize_f32(VLAK_Q8_0, 0, k, nullptr, 0, nullptr, 0), VLAK_OK);
    EXPECT_EQ(vlak_dequantize_f32(VLAK_Q8_0, 2, k, q.data(), 67, y.data(), k), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_dequantize_f32(VLAK_Q8_0, 2, k, q.data(), 68, y.data(), k - 1), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(vlak_dequantize_f32(VLAK_Q8_0, 2, k, nullptr, 68, y.data(), k), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(vlak_dequantize_f32(static_cast<vlak_qtype>(0), 2, k, q.data(), 68, y.data(), k), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(untouched());
    // matmul
    auto a = Normal(2 * k, 0.0f, 1.0f, 1);
    std::vector<uint8_t> w(3 * 68, 0);
    auto call = [&](size_t m, size_t n, size_t kk, const float* ap, size_t lda, int t, const void* wp, size_t ws,
                    float* c, size_t ldc, unsigned flags, const vlak_matmul_epilogue* e) {
      return vlak_matmul_q_f32(m, n, kk, ap, lda, static_cast<vlak_qtype>(t), wp, ws, c, ldc, flags, e);
    };
    EXPECT_EQ(call(2, 3, k, a.data(), k, VLAK_Q8_0, w.data(), 68, y.data(), 3, 2u, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 3, k, a.data(), k, 9, w.data(), 68, y.data(), 3, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 3, 40, a.data(), k, VLAK_Q8_0, w.data(), 68, y.data(), 3, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 3, k, a.data(), k - 1, VLAK_Q8_0, w.data(), 68, y.data(), 3, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 3, k, a.data(), k, VLAK_Q8_0, w.data(), 67, y.data(), 3, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 3, k, a.data(), k, VLAK_Q8_0, w.data(), 68, y.data(), 2, 0, nullptr), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 3, k, nullptr, k, VLAK_Q8_0, w.data(), 68, y.data(), 3, 0, nullptr), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(call(2, 3, k, a.data(), k, VLAK_Q8_0, nullptr, 68, y.data(), 3, 0, nullptr), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(call(2, 3, k, a.data(), k, VLAK_Q8_0, w.data(), 68, nullptr, 3, 0, nullptr), VLAK_ERROR_NULL_POINTER);
    EXPECT_EQ(call(SIZE_MAX / 8, 3, k, a.data(), k, VLAK_Q8_0, w.data(), 68, y.data(), 3, 0, nullptr), VLAK_ERROR_OVERFLOW);
    const vlak_matmul_epilogue bad_flags{nullptr, 0x2u, VLAK_ACT_SILU};
    const vlak_matmul_epilogue bad_act{nullptr, VLAK_EPILOGUE_ACTIVATION, static_cast<vlak_activation>(17)};
    EXPECT_EQ(call(2, 3, k, a.data(), k, VLAK_Q8_0, w.data(), 68, y.data(), 3, 0, &bad_flags), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(call(2, 3, k, a.data(), k, VLAK_Q8_0, w.data(), 68, y.data(), 3, 0, &bad_act), VLAK_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(untouched());
    EXPECT_EQ(call(0, 3, k, nullptr, k, VLAK_Q8_0, nullptr, 68, nullptr, 3, 0, nullptr), VLAK_OK);
    // k == 0: C = 0.
    std::vector<float> c0(6, 1.0f);
    EXPECT_EQ(call(2, 3, 0, nullptr, 0, VLAK_Q4_0, nullptr, 0, c0.data(), 3, 0, nullptr), VLAK_OK);
    for (float v : c0) EXPECT_EQ(v, 0.0f);
  });
}

// Buffers ending at an inaccessible page: W's last block, A's last row, C's last element.
TEST(GuardPages, Quant) {
  ForEachTarget([] {
    for (vlak_qtype t : kTypes) {
      for (size_t k : {32, 64, 96, 160}) {
        for (size_t m : {1, 3, 16}) {
          const size_t n = 5, rb = vlak_qtype_row_bytes(t, k);
          GuardedFloats a(m * k), c(m * n), y(n * k);
          GuardedBytes w(n * rb);
          for (size_t i = 0; i < m * k; ++i) a.data()[i] = std::sin(0.3f * static_cast<float>(i));
          ASSERT_EQ(vlak_quantize_f32(t, n, k, y.data(), k, w.u8(), rb), VLAK_OK);
          for (unsigned flags : {0u, VLAK_MATMUL_Q_QUANTIZE_A}) {
            ASSERT_EQ(vlak_matmul_q_f32(m, n, k, a.data(), k, t, w.u8(), rb, c.data(), n, flags, nullptr), VLAK_OK);
            ASSERT_TRUE(std::isfinite(c.data()[m * n - 1]));
          }
          ASSERT_EQ(vlak_dequantize_f32(t, n, k, w.u8(), rb, y.data(), k), VLAK_OK);
        }
      }
    }
  });
}

VLAK_CONCURRENCY_JOBS(quant, in) {
  const size_t k = in.c / 32 * 32, rows = in.r;
  const auto x = in.x;
  std::vector<vlak_test::ConcurrencyJob> jobs;
  if (k == 0) return jobs;
  // One target-dependent call per job (the target may change between calls): quantize and
  // dequantize give the same bits on every target; each product mode is its own job, and the packed
  // product (pack and product in one job).
  for (vlak_qtype t : kTypes) {
    for (int mode = 0; mode < 4; ++mode) {  // dequantize, exact, quantized A, packed W
      jobs.push_back({[=](std::vector<float>& out) {
                        const size_t rb = vlak_qtype_row_bytes(t, k);
                        std::vector<uint8_t> q(rows * rb);
                        vlak_status s = vlak_quantize_f32(t, rows, k, x->data(), in.c, q.data(), rb);
                        if (s != VLAK_OK) return s;
                        if (mode == 0) {
                          out.resize(rows * k);
                          return vlak_dequantize_f32(t, rows, k, q.data(), rb, out.data(), k);
                        }
                        out.resize(2 * rows);  // C = x[0:2] * W^T
                        if (mode == 3) {
                          // W packed, then the product: packed again when the target changed in
                          // between (the size depends on the target's group, and the product
                          // refuses another target's buffer).
                          std::vector<uint8_t> p;
                          for (int tries = 0;; ++tries) {
                            p.resize(vlak_matmul_q_packed_size(t, rows, k));
                            s = vlak_matmul_q_pack(t, rows, k, q.data(), rb, p.data(), p.size());
                            if (s == VLAK_ERROR_INVALID_ARGUMENT && tries < 100) continue;
                            if (s != VLAK_OK) return s;
                            s = vlak_matmul_q_packed_f32(2, rows, k, x->data(), in.c, p.data(), out.data(), rows,
                                                         VLAK_MATMUL_Q_QUANTIZE_A, nullptr);
                            if (s != VLAK_ERROR_INVALID_ARGUMENT || tries == 100) return s;
                          }
                        }
                        return vlak_matmul_q_f32(2, rows, k, x->data(), in.c, t, q.data(), rb, out.data(), rows,
                                                 mode == 2 ? VLAK_MATMUL_Q_QUANTIZE_A : 0u, nullptr);
                      },
                      mode == 0});
    }
  }
  return jobs;
}

}  // namespace

namespace {
// vlak::Quantize / Dequantize / MatmulQ (vlak.hpp): shape checks and the C calls' bits.
TEST(CppApi, QuantMatchesTheCApiAndChecksShapes) {
  const size_t m = 2, n = 3, k = 64;
  const auto x = Normal(n * k, 0.0f, 1.0f, 1), a = Normal(m * k, 0.0f, 1.0f, 2);
  std::vector<uint8_t> q(n * 36), qc(n * 36);
  ASSERT_EQ(vlak::Quantize(VLAK_Q4_0, x, q, k), VLAK_OK);
  ASSERT_EQ(vlak_quantize_f32(VLAK_Q4_0, n, k, x.data(), k, qc.data(), 36), VLAK_OK);
  EXPECT_EQ(q, qc);
  std::vector<float> y(n * k), c(m * n), cc(m * n);
  ASSERT_EQ(vlak::Dequantize(VLAK_Q4_0, q, y, k), VLAK_OK);
  ASSERT_EQ(vlak::MatmulQ(a, VLAK_Q4_0, q, c, m, n, k), VLAK_OK);
  ASSERT_EQ(vlak_matmul_q_f32(m, n, k, a.data(), k, VLAK_Q4_0, q.data(), 36, cc.data(), n, 0, nullptr), VLAK_OK);
  EXPECT_TRUE(SameBits(c.data(), cc.data(), c.size()));
  EXPECT_EQ(vlak::MatmulQ(a, VLAK_Q4_0, q, c, m, n + 1, k), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Quantize(VLAK_Q4_0, x, q, 48), VLAK_ERROR_INVALID_ARGUMENT);
}
}  // namespace
