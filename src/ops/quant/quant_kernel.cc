// Quantized-weight kernels, generic over the tag: compiled once per target.
//
// Quantize / dequantize: ggml's per-block arithmetic, value by value in binary32 (quant.h's
// fp16 conversions), so the bytes and floats are the same on every target.
// Exact weights, m < 16 (MatmulQExactColsF32): W is read once. Per group of kRows rows of W and
//   chunk of kChunk values, the blocks are dequantized (exactly, q * d; q4_1 + m rounded once) into
//   an L1 buffer, then every row of A runs its fma strips over it into two vector accumulators per
//   C element: one chain per lane in k order, then one ReduceSum of the two; the order depends on
//   k and the target only. Bound: a chain of <= k / L fmas (L lanes) and a reduction of log2(2L)
//   adds: within vlak.h's 2k * 2^-24 * sum |a||w|.
// Quantized activations (MatmulQActColsF32): per block the integer dot of the int8 values is exact
//   (|sum| <= 32 * 128 * 127), then c += fl(fl(d_w d_a) * s) (+ fl(fl(m_w d_a) * sum q_a) for
//   q4_1), block after block: 2 or 4 roundings per block, within vlak.h's 2k * 2^-24 * S.
// Cost: decode is bounded by W's bytes (0.56, 0.63, 1.06 bytes per value); the dequantize pass
//   adds a store and a load per value in L1. Details, measurements: docs/ops/quant.md, "Kernels".
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/quant/quant_kernels.h"
#include "simd/simd.h"
#if defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_AVX2)
#include "ops/quant/quant_x86.h"
#endif
#if defined(VLAK_SIMD_RVV)
#include "ops/quant/quant_rvv.h"
#endif

namespace vlak::VLAK_NS {
namespace {

using DF = Simd<float, 0>;
constexpr size_t kRows = 4;      // rows of W per pass
constexpr size_t kChunk = 256;   // values of k per dequantized chunk
constexpr size_t kMaxM = kQPanelMinM;

// One block of 32 values dequantized into y: vlak_dequantize_f32's floats.
inline void DequantBlock(int t, const uint8_t* blk, float* y) {
  const float d = HalfToFloat(LoadHalf(blk));
  if (t == VLAK_Q8_0) {
    const int8_t* q = reinterpret_cast<const int8_t*>(blk + 2);
    for (size_t j = 0; j < 32; ++j) y[j] = static_cast<float>(q[j]) * d;
  } else if (t == VLAK_Q4_0) {
    const uint8_t* q = blk + 2;
    for (size_t j = 0; j < 16; ++j) {
      y[j] = static_cast<float>(static_cast<int>(q[j] & 0x0F) - 8) * d;
      y[j + 16] = static_cast<float>(static_cast<int>(q[j] >> 4) - 8) * d;
    }
  } else {
    const float m = HalfToFloat(LoadHalf(blk + 2));
    const uint8_t* q = blk + 4;
    for (size_t j = 0; j < 16; ++j) {
      const float p0 = static_cast<float>(q[j] & 0x0F) * d, p1 = static_cast<float>(q[j] >> 4) * d;
      y[j] = p0 + m;
      y[j + 16] = p1 + m;
    }
  }
}

// RISC-V: the loops whose float -> int conversions truncate stay scalar. Vectorised, each would
// be a vfcvt.rtz.x.f.v, which Debian 12's qemu 7.2 (our tests' RISC-V machine) aborts translating
// when it starts a translation block (ctest rvv.no_rtz checks the library for it). Rounded
// conversions (the q8_0 loop's std::round) vectorise with a static rounding mode instead.
#if defined(__riscv)
#define VLAK_QUANT_TRUNCATING_LOOP _Pragma("clang loop vectorize(disable)")
#else
#define VLAK_QUANT_TRUNCATING_LOOP
#endif

void QuantizeBlock(int t, const float* x, uint8_t* blk) {
  if (t == VLAK_Q8_0) {
    float amax = 0.0f;
    for (size_t j = 0; j < 32; ++j) amax = std::fabs(x[j]) > amax ? std::fabs(x[j]) : amax;
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreHalf(blk, FloatToHalf(d));
    for (size_t j = 0; j < 32; ++j) blk[2 + j] = static_cast<uint8_t>(TruncToI8Bits(std::round(x[j] * id)));
  } else if (t == VLAK_Q4_0) {
    float amax = 0.0f, vmax = 0.0f;
    for (size_t j = 0; j < 32; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        vmax = x[j];
      }
    }
    const float d = vmax / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreHalf(blk, FloatToHalf(d));
    VLAK_QUANT_TRUNCATING_LOOP
    for (size_t j = 0; j < 16; ++j) {
      int32_t q0 = TruncToI8Bits(x[j] * id + 8.5f), q1 = TruncToI8Bits(x[j + 16] * id + 8.5f);
      q0 = q0 < 15 ? q0 : 15;
      q1 = q1 < 15 ? q1 : 15;
      blk[2 + j] = static_cast<uint8_t>((q0 & 0xFF) | ((q1 << 4) & 0xFF));
    }
  } else {
    float lo = 3.40282347e38f, hi = -3.40282347e38f;
    for (size_t j = 0; j < 32; ++j) {
      lo = x[j] < lo ? x[j] : lo;
      hi = x[j] > hi ? x[j] : hi;
    }
    const float d = (hi - lo) / 15.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreHalf(blk, FloatToHalf(d));
    StoreHalf(blk + 2, FloatToHalf(lo));
    VLAK_QUANT_TRUNCATING_LOOP
    for (size_t j = 0; j < 16; ++j) {
      int32_t q0 = TruncToI8Bits((x[j] - lo) * id + 0.5f), q1 = TruncToI8Bits((x[j + 16] - lo) * id + 0.5f);
      q0 = q0 < 15 ? q0 : 15;
      q1 = q1 < 15 ? q1 : 15;
      blk[4 + j] = static_cast<uint8_t>((q0 & 0xFF) | ((q1 << 4) & 0xFF));
    }
  }
}

}  // namespace

void QuantizeRowsF32(int t, size_t rows, size_t k, const float* x, size_t x_stride, uint8_t* q, size_t q_stride) {
  const size_t bb = QBlockBytes(t);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t b = 0; b < k / kQBlock; ++b) QuantizeBlock(t, x + i * x_stride + b * kQBlock, q + i * q_stride + b * bb);
  }
}

void DequantizeRowsF32(int t, size_t rows, size_t k, const uint8_t* q, size_t q_stride, float* y, size_t y_stride) {
#if defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_AVX2)
  return x86::DequantRowsX86(t, rows, k, q, q_stride, y, y_stride);
#endif
  const size_t bb = QBlockBytes(t);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t b = 0; b < k / kQBlock; ++b) DequantBlock(t, q + i * q_stride + b * bb, y + i * y_stride + b * kQBlock);
  }
}

namespace {
// Block b of row r from its 32 values at xb: the reference loop (ggml's quantize_row_q8_0 with
// round-half-away-from-zero): amax, d = amax / 127, q = round(x / d) by the inverse, d kept as
// fp16; a block with a NaN or an infinity gets d = NaN, q = 0, sum 0.
void QuantizeActBlockScalar(const float* xb, const QActRow& r, size_t b) {
  int8_t* const qb = r.qs + b * kQBlock;
  float amax = 0.0f;
  bool finite = true;
  for (size_t j = 0; j < kQBlock; ++j) {
    const float v = std::fabs(xb[j]);
    finite = finite && v <= 3.40282347e38f;
    amax = v > amax ? v : amax;
  }
  if (!finite) {
    r.d[b] = std::numeric_limits<float>::quiet_NaN();
    r.sum[b] = 0;
    std::memset(qb, 0, kQBlock);
    return;
  }
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  int32_t s = 0;
  for (size_t j = 0; j < kQBlock; ++j) {
    const int32_t v = TruncToI8Bits(std::round(xb[j] * id));
    qb[j] = static_cast<int8_t>(v);
    s += v;
  }
  r.d[b] = HalfToFloat(FloatToHalf(d));
  r.sum[b] = s;
}
}  // namespace

void QuantizeActRowsF32(size_t rows, size_t k, const float* a, size_t lda, uint8_t* act) {
  const size_t nb = k / kQBlock;
  for (size_t i = 0; i < rows; ++i) {
    const QActRow r = QActRowAt(act, k, i);
    const float* const x = a + i * lda;
#if defined(VLAK_SIMD_AVX512)
    // 16 blocks at a time; the blocks it leaves (non-finite, or d subnormal) by the scalar form.
    for (size_t b0 = 0; b0 < nb; b0 += 16) {
      const size_t n = nb - b0 < 16 ? nb - b0 : 16;
      const uint32_t left = x86::QuantizeActBlocks(x + b0 * kQBlock, n, r.qs + b0 * kQBlock, r.d + b0, r.sum + b0);
      for (uint32_t m = left; m != 0; m &= m - 1) {
        const size_t b = b0 + static_cast<size_t>(__builtin_ctz(m));
        QuantizeActBlockScalar(x + b * kQBlock, r, b);
      }
    }
#elif defined(VLAK_SIMD_AVX2)
    for (size_t b = 0; b < nb; ++b) {
      float d;
      if (x86::QuantizeActBlockAvx2(x + b * kQBlock, r.qs + b * kQBlock, &d, &r.sum[b])) {
        r.d[b] = HalfToFloat(FloatToHalf(d));
      } else {
        QuantizeActBlockScalar(x + b * kQBlock, r, b);
      }
    }
#else
    for (size_t b = 0; b < nb; ++b) QuantizeActBlockScalar(x + b * kQBlock, r, b);
#endif
  }
}

void MatmulQExactColsF32(const QMatmulArgs& g, size_t j0, size_t j1) {
#if defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_AVX2)
  if (g.m < kMaxM) return x86::ExactColsX86(g, j0, j1);
#elif defined(VLAK_SIMD_RVV)
  if (g.m < kMaxM) return rvv_quant::ExactColsRvv(g, j0, j1);
#endif
  const DF df;
  const size_t L = Lanes(df);
  const size_t bb = QBlockBytes(g.wtype);
  const size_t m = g.m;  // < kMaxM
  alignas(64) float buf[kRows][kChunk];
  // Accumulators between chunks: [row of A][row of W][2][L].
  alignas(64) float acc[kMaxM * kRows * 2 * MaxLanes(DF())];
  for (size_t j = j0; j < j1; j += kRows) {
    const size_t rows = j1 - j < kRows ? j1 - j : kRows;
    std::memset(acc, 0, m * kRows * 2 * L * sizeof(float));
    for (size_t p0 = 0; p0 < g.k; p0 += kChunk) {
      const size_t kc = g.k - p0 < kChunk ? g.k - p0 : kChunk;
      for (size_t r = 0; r < rows; ++r) {
        const uint8_t* wr = g.w + (j + r) * g.w_stride + p0 / kQBlock * bb;
        for (size_t b = 0; b < kc / kQBlock; ++b) DequantBlock(g.wtype, wr + b * bb, buf[r] + b * kQBlock);
      }
      for (size_t i = 0; i < m; ++i) {
        const float* ar = g.a + i * g.lda + p0;
        float* ai = acc + i * kRows * 2 * L;
        if (rows == kRows) {
          auto c00 = LoadU(df, ai), c01 = LoadU(df, ai + L), c10 = LoadU(df, ai + 2 * L), c11 = LoadU(df, ai + 3 * L);
          auto c20 = LoadU(df, ai + 4 * L), c21 = LoadU(df, ai + 5 * L), c30 = LoadU(df, ai + 6 * L),
               c31 = LoadU(df, ai + 7 * L);
          size_t p = 0;
          for (; p + 2 * L <= kc; p += 2 * L) {
            const auto a0 = LoadU(df, ar + p), a1 = LoadU(df, ar + p + L);
            c00 = MulAdd(df, a0, LoadU(df, buf[0] + p), c00);
            c01 = MulAdd(df, a1, LoadU(df, buf[0] + p + L), c01);
            c10 = MulAdd(df, a0, LoadU(df, buf[1] + p), c10);
            c11 = MulAdd(df, a1, LoadU(df, buf[1] + p + L), c11);
            c20 = MulAdd(df, a0, LoadU(df, buf[2] + p), c20);
            c21 = MulAdd(df, a1, LoadU(df, buf[2] + p + L), c21);
            c30 = MulAdd(df, a0, LoadU(df, buf[3] + p), c30);
            c31 = MulAdd(df, a1, LoadU(df, buf[3] + p + L), c31);
          }
          if (p < kc) {  // one strip left (L = 32 and a chunk of one block)
            const auto a0 = LoadU(df, ar + p);
            c00 = MulAdd(df, a0, LoadU(df, buf[0] + p), c00);
            c10 = MulAdd(df, a0, LoadU(df, buf[1] + p), c10);
            c20 = MulAdd(df, a0, LoadU(df, buf[2] + p), c20);
            c30 = MulAdd(df, a0, LoadU(df, buf[3] + p), c30);
          }
          StoreU(df, c00, ai), StoreU(df, c01, ai + L), StoreU(df, c10, ai + 2 * L), StoreU(df, c11, ai + 3 * L);
          StoreU(df, c20, ai + 4 * L), StoreU(df, c21, ai + 5 * L), StoreU(df, c30, ai + 6 * L),
              StoreU(df, c31, ai + 7 * L);
        } else {
          for (size_t r = 0; r < rows; ++r) {
            auto c0 = LoadU(df, ai + 2 * r * L), c1 = LoadU(df, ai + (2 * r + 1) * L);
            size_t p = 0;
            for (; p + 2 * L <= kc; p += 2 * L) {
              c0 = MulAdd(df, LoadU(df, ar + p), LoadU(df, buf[r] + p), c0);
              c1 = MulAdd(df, LoadU(df, ar + p + L), LoadU(df, buf[r] + p + L), c1);
            }
            if (p < kc) c0 = MulAdd(df, LoadU(df, ar + p), LoadU(df, buf[r] + p), c0);
            StoreU(df, c0, ai + 2 * r * L), StoreU(df, c1, ai + (2 * r + 1) * L);
          }
        }
      }
    }
    for (size_t i = 0; i < m; ++i) {
      for (size_t r = 0; r < rows; ++r) {
        const float* ac = acc + (i * kRows + r) * 2 * L;
        g.c[i * g.ldc + j + r] = ReduceSum(df, Add(df, LoadU(df, ac), LoadU(df, ac + L)));
      }
    }
  }
}

// One block's exact integer sum (q_w - offset) q_a (q4_0's offset 8, else 0), from the block's
// bytes in GGUF's layout; sum_qa is the block's sum of q_a.
inline int32_t BlockDot(int t, const uint8_t* blk, const int8_t* qa, int32_t sum_qa) {
  int32_t s = 0;
  if (t == VLAK_Q8_0) {
    const int8_t* qw = reinterpret_cast<const int8_t*>(blk + 2);
    for (size_t p = 0; p < kQBlock; ++p) s += static_cast<int32_t>(qw[p]) * qa[p];
    return s;
  }
  const uint8_t* qw = blk + (t == VLAK_Q4_1 ? 4 : 2);
  for (size_t p = 0; p < 16; ++p) {
    s += static_cast<int32_t>(qw[p] & 0x0F) * qa[p] + static_cast<int32_t>(qw[p] >> 4) * qa[p + 16];
  }
  return t == VLAK_Q4_0 ? s - 8 * sum_qa : s;
}

void MatmulQActColsF32(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
#if defined(VLAK_SIMD_AVX2)
  return x86::ActColsX86(g, act, j0, j1);
#elif defined(VLAK_SIMD_RVV)
  return rvv_quant::ActColsRvv(g, act, j0, j1);
#endif
  const size_t nb = g.k / kQBlock, bb = QBlockBytes(g.wtype);
  uint8_t* const actm = const_cast<uint8_t*>(act);
  for (size_t j = j0; j < j1; ++j) {
    const uint8_t* wr = g.w + j * g.w_stride;
    for (size_t i = 0; i < g.m; ++i) {
      const QActRow ar = QActRowAt(actm, g.k, i);
      float c = 0.0f;
      for (size_t b = 0; b < nb; ++b) {
        const uint8_t* blk = wr + b * bb;
        const int8_t* qa = ar.qs + b * kQBlock;
        const float dw = HalfToFloat(LoadHalf(blk));
        const int32_t s = BlockDot(g.wtype, blk, qa, ar.sum[b]);
        c += static_cast<float>(s) * (dw * ar.d[b]);
        if (g.wtype == VLAK_Q4_1) c += static_cast<float>(ar.sum[b]) * (HalfToFloat(LoadHalf(blk + 2)) * ar.d[b]);
      }
      g.c[i * g.ldc + j] = c;
    }
  }
}

// Quantized activations times a grouped W (vlak_matmul_q_pack's x16 or RVV layout, quant.h):
// per row of W and block the exact integer s = sum (q_w - offset) q_a, then c = fma(float(s),
// fl(d_w d_a), c) and for q4_1 c = fma(m_w, fl(d_a sum q_a), c), block after block. This is the
// arithmetic of the grouped kernels (quant_packed_avx512vnni.cc, quant_x86.h's GroupedColsAvx2,
// quant_rvv.h's GroupedCols), bit for bit: the x86 and RVV targets run their vector forms (avx512
// the AVX2 one, quant.cc picks it or VNNI); scalar the plain form of the same sums (tests compare
// it with the vector kernels).
void MatmulQActGroupedColsF32(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
#if defined(VLAK_SIMD_RVV)
  return rvv_quant::GroupedColsRvv(g, act, j0, j1);
#elif defined(VLAK_SIMD_AVX2) || defined(VLAK_SIMD_AVX512)
  return x86::GroupedColsX86(g, act, j0, j1);
#endif
  const size_t nb = g.k / kQBlock, bb = QBlockBytes(g.wtype);
  uint8_t* const actm = const_cast<uint8_t*>(act);
  uint8_t blk[34];
  for (size_t j = j0; j < j1; ++j) {
    for (size_t i = 0; i < g.m; ++i) {
      const QActRow ar = QActRowAt(actm, g.k, i);
      float c = 0.0f;
      for (size_t b = 0; b < nb; ++b) {
        // Row j's block b, gathered from its group's record (its d, m and pieces).
        UnpackGroupBlock(g.wtype, g.w + (j / g.group * nb + b) * g.group * bb, j % g.group, g.group, g.piece, blk);
        const int32_t s = BlockDot(g.wtype, blk, ar.qs + b * kQBlock, ar.sum[b]);
        const float da = ar.d[b];
        c = std::fma(static_cast<float>(s), HalfToFloat(LoadHalf(blk)) * da, c);
        if (g.wtype == VLAK_Q4_1) c = std::fma(HalfToFloat(LoadHalf(blk + 2)), da * static_cast<float>(ar.sum[b]), c);
      }
      g.c[i * g.ldc + j] = c;
    }
  }
}

VLAK_KERNELS_DEFINED(VLAK_QUANT_KERNELS)

}  // namespace vlak::VLAK_NS
