// The x86 targets' decode kernels (included by quant_kernel.cc for the avx512 and avx2 targets):
// where the block's unpacking instruction matters, in registers, never storing w.
//
// Exact weights (ExactColsX86): per block of 32 and row of W, q is widened to int32, converted and
//   scaled: w = q * d (q4_0, q8_0, exact) or fma(q, d, m) (q4_1), vlak_dequantize_f32's floats,
//   special scales included; then c += a * w (fma). Element p of a dot lands in lane p % V of
//   accumulator (p % 32) / V: one chain per lane in k order, then one sum of the accumulators and
//   one horizontal sum.
// Quantized activations on AVX2 (ActColsAvx2): per block vpmaddubsw of unsigned W bytes against
//   signed A bytes (q8_0: ggml's sign trick, no int16 saturation), vpmaddwd with ones to int32
//   lanes, minus offset * (the lanes' A sums) for q4_0; then c += float(lanes) * (d_w d_a) per
//   block, one horizontal sum per C element at the end; q4_1's m_w d_a sum q_a in a 4-lane vector
//   (the 4 rows of W), added after.
// Bounds: as the generic kernels' (quant_kernel.cc). Details: docs/ops/quant.md, "quant_x86.h".
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ops/quant/quant_kernels.h"

namespace vlak::VLAK_NS::x86 {

#if defined(VLAK_SIMD_AVX512)
// 16 vectors reduced by op, lane by lane of each: lane i of the result is op over v[i]'s 16 lanes
// (an op that is associative and commutative on these values: max of non-negatives, integer add).
// Four steps of shuffles, each pairing halves of two vectors (45 shuffles and ops for 16 rows,
// against 8 per row for a reduction each), then one permute into block order.
template <class Op>
[[gnu::always_inline]] inline __m512 Reduce16(__m512* v, Op op) {
  for (int i = 0; i < 8; ++i) {  // 256-bit halves: [v2i (L0 L2), v2i (L1 L3), v2i+1 ...]
    v[i] = op(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44), _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xEE));
  }
  for (int i = 0; i < 4; ++i) {  // 128-bit lane l of v[i]: row 4i + l, 4 partials
    v[i] = op(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x88), _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xDD));
  }
  for (int i = 0; i < 2; ++i) {  // lane l: rows 8i + l and 8i + 4 + l, 2 partials each
    v[i] = op(_mm512_shuffle_ps(v[2 * i], v[2 * i + 1], 0x44), _mm512_shuffle_ps(v[2 * i], v[2 * i + 1], 0xEE));
  }
  // Element q of 128-bit lane l: row 4q + l.
  const __m512 r = op(_mm512_shuffle_ps(v[0], v[1], 0x88), _mm512_shuffle_ps(v[0], v[1], 0xDD));
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), r);
}

// Blocks [0, n) of 32 activations at x (n <= 16) quantized as QuantizeActRowsF32's scalar loop
// does, bit for bit: amax = max |x| per block (Reduce16), d = amax / 127 and id = 1 / d (one
// division each for the 16 blocks, correctly rounded as the loop's), d's fp16 round trip by
// vcvtps2ph / vcvtph2ps (round to nearest even, overflow to inf: FloatToHalf's), q = x * id
// rounded half away from zero (truncate, then +-1 where |x id - trunc| >= 0.5: std::round's
// integer; the product is one rounding in both), the low byte stored (vpmovdb), the sums exact in
// int32 (Reduce16). Returns the blocks it did not write: those holding a NaN or an infinity, or
// whose d is subnormal (1 / d may overflow, and the loop's byte of an infinite product is kept
// there); the scalar loop handles them. About 35 vector ops per block, against about 5 per value
// in the loop.
inline uint32_t QuantizeActBlocks(const float* x, size_t n, int8_t* q, float* d_out, int32_t* sum_out) {
  const __m512 big = _mm512_set1_ps(3.40282347e38f);
  uint32_t bad = 0;
  __m512 v[16];
  for (size_t i = 0; i < 16; ++i) {
    if (i >= n) {
      v[i] = _mm512_setzero_ps();
      continue;
    }
    const __m512 a0 = _mm512_abs_ps(_mm512_loadu_ps(x + 32 * i)), a1 = _mm512_abs_ps(_mm512_loadu_ps(x + 32 * i + 16));
    // Not (|x| <= FLT_MAX): NaN or infinity.
    const bool nonfinite = (_mm512_cmp_ps_mask(a0, big, _CMP_NLE_UQ) | _mm512_cmp_ps_mask(a1, big, _CMP_NLE_UQ)) != 0;
    bad |= static_cast<uint32_t>(nonfinite) << i;
    v[i] = nonfinite ? _mm512_setzero_ps() : _mm512_max_ps(a0, a1);
  }
  const __m512 amax = Reduce16(v, [](__m512 a, __m512 b) { return _mm512_max_ps(a, b); });
  const __m512 d = _mm512_div_ps(amax, _mm512_set1_ps(127.0f));
  const __mmask16 nonzero = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_NEQ_OQ);
  bad |= _mm512_mask_cmp_ps_mask(nonzero, d, _mm512_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
  const __m512 id = _mm512_maskz_div_ps(nonzero, _mm512_set1_ps(1.0f), d);
  const __mmask16 good = static_cast<__mmask16>(~bad & ((1u << n) - 1u));
  _mm512_mask_storeu_ps(d_out, good, _mm512_cvtph_ps(_mm512_cvtps_ph(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
  const __m512 sign = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
  for (size_t i = 0; i < 16; ++i) {
    if (((good >> i) & 1u) == 0) {
      v[i] = _mm512_setzero_ps();
      continue;
    }
    const __m512 vid = _mm512_permutexvar_ps(_mm512_set1_epi32(static_cast<int>(i)), id);
    __m512i qi[2];
    for (int h = 0; h < 2; ++h) {
      const __m512 p = _mm512_mul_ps(_mm512_loadu_ps(x + 32 * i + 16 * h), vid);
      const __m512 t = _mm512_roundscale_ps(p, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
      const __mmask16 up = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(p, t)), half, _CMP_GE_OQ);
      const __m512 r = _mm512_mask_add_ps(t, up, t, _mm512_or_ps(_mm512_and_ps(p, sign), one));
      qi[h] = _mm512_cvttps_epi32(r);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 32 * i + 16 * h), _mm512_cvtepi32_epi8(qi[h]));
    }
    v[i] = _mm512_castsi512_ps(_mm512_add_epi32(qi[0], qi[1]));
  }
  const __m512 sums = Reduce16(v, [](__m512 a, __m512 b) {
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b)));
  });
  _mm512_mask_storeu_epi32(sum_out, good, _mm512_castps_si512(sums));
  return bad;
}
#endif

#if defined(VLAK_SIMD_AVX2)
// One block of 32 activations quantized as QuantizeActRowsF32's scalar loop does, bit for bit
// (AVX2): amax = max |x| (three vmaxps, then across the register), d = amax / 127 and id = 1 / d
// in scalar float, q = x * id rounded half away from zero (truncate, then +-1 where |x id -
// trunc| >= 0.5: std::round's integer), packed to bytes (|q| <= 127, so the saturating packs are
// exact), the sum exact in int32. false (nothing written) when the block holds a NaN or an
// infinity, or its d is subnormal: the scalar loop handles those. About 45 vector ops per block.
inline bool QuantizeActBlockAvx2(const float* x, int8_t* q, float* d_out, int32_t* sum_out) {
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  const __m256 big = _mm256_set1_ps(3.40282347e38f);
  __m256 xv[4], m = _mm256_setzero_ps();
  int nonfinite = 0;
  for (int h = 0; h < 4; ++h) {
    xv[h] = _mm256_loadu_ps(x + 8 * h);
    const __m256 a = _mm256_and_ps(xv[h], magnitude);
    nonfinite |= _mm256_movemask_ps(_mm256_cmp_ps(a, big, _CMP_NLE_UQ));  // not (|x| <= FLT_MAX)
    m = _mm256_max_ps(m, a);
  }
  if (nonfinite != 0) return false;
  __m128 t = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  t = _mm_max_ps(t, _mm_movehl_ps(t, t));
  t = _mm_max_ss(t, _mm_shuffle_ps(t, t, 1));
  const float amax = _mm_cvtss_f32(t);
  const float d = amax / 127.0f;
  if (d != 0.0f && d < 1.17549435e-38f) return false;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  const __m256 vid = _mm256_set1_ps(id);
  const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
  __m256i qi[4];
  for (int h = 0; h < 4; ++h) {
    const __m256 p = _mm256_mul_ps(xv[h], vid);
    const __m256 tr = _mm256_round_ps(p, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 up = _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(p, tr), magnitude), half, _CMP_GE_OQ);
    qi[h] = _mm256_cvttps_epi32(_mm256_add_ps(tr, _mm256_and_ps(up, _mm256_or_ps(_mm256_and_ps(p, sign), one))));
  }
  // Bytes in 128-bit lanes (q0 0-3, q1 0-3, q2 0-3, q3 0-3 | the same of 4-7), then in order.
  const __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(qi[0], qi[1]), _mm256_packs_epi32(qi[2], qi[3]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  const __m256i s8 = _mm256_add_epi32(_mm256_add_epi32(qi[0], qi[1]), _mm256_add_epi32(qi[2], qi[3]));
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  *d_out = d;
  *sum_out = _mm_cvtsi128_si32(s);
  return true;
}
#endif

// The next group of rows of W, block by block beside the current one: short rows (SmolLM2's 576
// values, 10 to 20 cache lines) end before the hardware prefetcher has followed them (1x49152x576
// q8_0: 3.34 -> 1.73 ms, docs/ops/quant.md).
inline void Prefetch(const uint8_t* next, size_t stride, size_t rows, size_t offset) {
  if (next == nullptr) return;
  for (size_t r = 0; r < rows; ++r) _mm_prefetch(reinterpret_cast<const char*>(next + r * stride + offset), _MM_HINT_T0);
}

inline float Half(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

#if defined(VLAK_SIMD_AVX512)
using VF = __m512;
constexpr size_t kV = 16;
constexpr size_t kAcc = 2;     // accumulators per C element (32 / kV)
constexpr size_t kRowsW = 4;
constexpr size_t kRowsA = 2;
inline VF Set1(float v) { return _mm512_set1_ps(v); }
inline VF Zero() { return _mm512_setzero_ps(); }
inline VF Load(const float* p) { return _mm512_loadu_ps(p); }
inline void Store(float* p, VF v) { _mm512_storeu_ps(p, v); }
inline VF Fma(VF a, VF b, VF c) { return _mm512_fmadd_ps(a, b, c); }
inline VF AddV(VF a, VF b) { return _mm512_add_ps(a, b); }
inline VF MulV(VF a, VF b) { return _mm512_mul_ps(a, b); }
inline float Sum(VF v) { return _mm512_reduce_add_ps(v); }
// 16 values of the block (part h of 32 / kV) as floats (unscaled q, or q as stored).
template <int kType>
inline VF Q(const uint8_t* qs, size_t h) {
  if constexpr (kType == VLAK_Q8_0) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + 16 * h))));
  } else {
    const __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)));
    __m512i u = h == 0 ? _mm512_and_si512(v, _mm512_set1_epi32(15)) : _mm512_srli_epi32(v, 4);
    if constexpr (kType == VLAK_Q4_0) u = _mm512_sub_epi32(u, _mm512_set1_epi32(8));
    return _mm512_cvtepi32_ps(u);
  }
}
#else
using VF = __m256;
constexpr size_t kV = 8;
constexpr size_t kAcc = 4;
constexpr size_t kRowsW = 2;
constexpr size_t kRowsA = 1;
inline VF Set1(float v) { return _mm256_set1_ps(v); }
inline VF Zero() { return _mm256_setzero_ps(); }
inline VF Load(const float* p) { return _mm256_loadu_ps(p); }
inline void Store(float* p, VF v) { _mm256_storeu_ps(p, v); }
inline VF Fma(VF a, VF b, VF c) { return _mm256_fmadd_ps(a, b, c); }
inline VF AddV(VF a, VF b) { return _mm256_add_ps(a, b); }
inline VF MulV(VF a, VF b) { return _mm256_mul_ps(a, b); }
inline float Sum(VF v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
}
template <int kType>
inline VF Q(const uint8_t* qs, size_t h) {
  if constexpr (kType == VLAK_Q8_0) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(qs + 8 * h))));
  } else {
    const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(qs + 8 * (h & 1))));
    __m256i u = h < 2 ? _mm256_and_si256(v, _mm256_set1_epi32(15)) : _mm256_srli_epi32(v, 4);
    if constexpr (kType == VLAK_Q4_0) u = _mm256_sub_epi32(u, _mm256_set1_epi32(8));
    return _mm256_cvtepi32_ps(u);
  }
}
#endif

template <int kType, size_t kRa>
void ExactCols(const QMatmulArgs& g, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr size_t qoff = kType == VLAK_Q4_1 ? 4 : 2;
  const size_t nb = g.k / kQBlock;
  for (size_t j = j0; j < j1; j += kRowsW) {
    const size_t rw = j1 - j < kRowsW ? j1 - j : kRowsW;
    const uint8_t* wr[kRowsW];
    for (size_t r = 0; r < kRowsW; ++r) wr[r] = g.w + (j + (r < rw ? r : 0)) * g.w_stride;
    const uint8_t* nx = j + 2 * kRowsW <= j1 ? g.w + (j + kRowsW) * g.w_stride : nullptr;  // Prefetch()
    for (size_t i0 = 0; i0 < g.m; i0 += kRa) {
      const size_t ra = g.m - i0 < kRa ? g.m - i0 : kRa;
      const float* ar[kRa];
      for (size_t i = 0; i < kRa; ++i) ar[i] = g.a + (i0 + (i < ra ? i : 0)) * g.lda;
      VF acc[kRa][kRowsW][kAcc];
      for (auto& x : acc)
        for (auto& y : x)
          for (auto& z : y) z = Zero();
      for (size_t b = 0; b < nb; ++b) {
        if (i0 == 0) Prefetch(nx, g.w_stride, kRowsW, b * bb);
        VF w[kRowsW][kAcc];
#if defined(VLAK_SIMD_AVX512)
        // q4_1 and q4_0: the 4 rows' d (and m) in one conversion, then broadcast from memory: the
        // per-row scalar conversions and register broadcasts were the loop's port-5 bottleneck on
        // Sapphire Rapids. q4_1's d, m pairs fill a 256-bit store; q4_0's four d a 128-bit one
        // (faster than the 256-bit form on Zen 4). q8_0's lighter loop converts and broadcasts per
        // row: on Zen 4 it waited on the round trip through memory. Figures: docs/ops/quant.md.
        alignas(32) float sc[2 * kRowsW];
        if constexpr (kType == VLAK_Q4_1) {
          uint32_t dm[kRowsW];
          for (size_t r = 0; r < kRowsW; ++r) std::memcpy(&dm[r], wr[r] + b * bb, 4);
          __m128i h;
          std::memcpy(&h, dm, sizeof h);
          _mm256_store_ps(sc, _mm256_cvtph_ps(h));
        } else if constexpr (kType == VLAK_Q4_0) {
          uint16_t dh[kRowsW];
          for (size_t r = 0; r < kRowsW; ++r) std::memcpy(&dh[r], wr[r] + b * bb, 2);
          __m128i h = _mm_setzero_si128();
          std::memcpy(&h, dh, sizeof dh);
          _mm_store_ps(sc, _mm_cvtph_ps(h));
        }
        if constexpr (kType != VLAK_Q8_0) {
          // Kept in memory: clang would otherwise turn the broadcasts into port-5 shuffles.
          __asm__ volatile("" : : "r"(sc) : "memory");
        }
#endif
        for (size_t r = 0; r < kRowsW; ++r) {
          const uint8_t* blk = wr[r] + b * bb;
#if defined(VLAK_SIMD_AVX512)
          VF vd, off;
          if constexpr (kType == VLAK_Q4_1) {
            vd = _mm512_broadcastss_ps(_mm_load_ss(sc + 2 * r));
            off = _mm512_broadcastss_ps(_mm_load_ss(sc + 2 * r + 1));
          } else if constexpr (kType == VLAK_Q4_0) {
            vd = _mm512_broadcastss_ps(_mm_load_ss(sc + r));
          } else {
            vd = Set1(Half(blk));
          }
#else
          const VF vd = Set1(Half(blk));
          VF off;
          if constexpr (kType == VLAK_Q4_1) off = Set1(Half(blk + 2));
#endif
          for (size_t h = 0; h < kAcc; ++h) {
            const VF q = Q<kType>(blk + qoff, h);
            if constexpr (kType == VLAK_Q4_1) {
              w[r][h] = Fma(q, vd, off);
            } else {
              w[r][h] = MulV(q, vd);
            }
          }
        }
        for (size_t i = 0; i < kRa; ++i) {
          for (size_t h = 0; h < kAcc; ++h) {
            const VF a = Load(ar[i] + b * kQBlock + h * kV);
            for (size_t r = 0; r < kRowsW; ++r) acc[i][r][h] = Fma(a, w[r][h], acc[i][r][h]);
          }
        }
      }
      for (size_t i = 0; i < ra; ++i) {
        for (size_t r = 0; r < rw; ++r) {
          VF s = acc[i][r][0];
          for (size_t h = 1; h < kAcc; ++h) s = AddV(s, acc[i][r][h]);
          g.c[(i0 + i) * g.ldc + j + r] = Sum(s);
        }
      }
    }
  }
}

// Rows of blocks dequantized with the exact kernel's w (the scalar kernel's floats, see ExactCols),
// stored kV at a time.
template <int kType>
void DequantRows(size_t rows, size_t k, const uint8_t* q, size_t q_stride, float* y, size_t y_stride) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr size_t qoff = kType == VLAK_Q4_1 ? 4 : 2;
  for (size_t i = 0; i < rows; ++i) {
    for (size_t b = 0; b < k / kQBlock; ++b) {
      const uint8_t* blk = q + i * q_stride + b * bb;
      float* out = y + i * y_stride + b * kQBlock;
      const float d = Half(blk);
      const VF vd = Set1(d);
      VF off = Zero();
      if constexpr (kType == VLAK_Q4_1) off = Set1(Half(blk + 2));
      for (size_t h = 0; h < kAcc; ++h) {
        const VF qv = Q<kType>(blk + qoff, h);
        VF w;
        if constexpr (kType == VLAK_Q4_1) {
          w = Fma(qv, vd, off);
        } else {
          w = MulV(qv, vd);
        }
        Store(out + h * kV, w);
      }
    }
  }
}

inline void DequantRowsX86(int t, size_t rows, size_t k, const uint8_t* q, size_t q_stride, float* y, size_t y_stride) {
  if (t == VLAK_Q8_0) return DequantRows<VLAK_Q8_0>(rows, k, q, q_stride, y, y_stride);
  if (t == VLAK_Q4_0) return DequantRows<VLAK_Q4_0>(rows, k, q, q_stride, y, y_stride);
  DequantRows<VLAK_Q4_1>(rows, k, q, q_stride, y, y_stride);
}

// m = 1 (decode) takes the one-row pass: the kRowsA-row one would compute row 0 twice.
template <size_t kRa>
inline void ExactColsRows(const QMatmulArgs& g, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return ExactCols<VLAK_Q8_0, kRa>(g, j0, j1);
  if (g.wtype == VLAK_Q4_0) return ExactCols<VLAK_Q4_0, kRa>(g, j0, j1);
  ExactCols<VLAK_Q4_1, kRa>(g, j0, j1);
}
inline void ExactColsX86(const QMatmulArgs& g, size_t j0, size_t j1) {
  if (g.m == 1) return ExactColsRows<1>(g, j0, j1);
  ExactColsRows<kRowsA>(g, j0, j1);
}


#if defined(VLAK_SIMD_AVX2)
template <int kType>
void ActColsAvx2(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr size_t qoff = kType == VLAK_Q4_1 ? 4 : 2;
  constexpr size_t kRw = 4;
  const size_t nb = g.k / kQBlock;
  uint8_t* const actm = const_cast<uint8_t*>(act);
  const __m256i ones16 = _mm256_set1_epi16(1);
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  const __m256i eights = _mm256_set1_epi8(8);
  for (size_t j = j0; j < j1; j += kRw) {
    const size_t rw = j1 - j < kRw ? j1 - j : kRw;
    const uint8_t* wr[kRw];
    for (size_t r = 0; r < kRw; ++r) wr[r] = g.w + (j + (r < rw ? r : 0)) * g.w_stride;
    const uint8_t* nx = j + 2 * kRw <= j1 ? g.w + (j + kRw) * g.w_stride : nullptr;  // Prefetch()
    for (size_t i = 0; i < g.m; ++i) {
      const QActRow ar = QActRowAt(actm, g.k, i);
      __m256 acc[kRw];
      for (auto& x : acc) x = _mm256_setzero_ps();
      __m128 extra = _mm_setzero_ps();  // q4_1's m_w d_a sum q_a, the 4 rows of W in its lanes
      for (size_t b = 0; b < nb; ++b) {
        if (i == 0) Prefetch(nx, g.w_stride, kRw, b * bb);
        const __m256i qa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ar.qs + b * kQBlock));
        const float da = ar.d[b];
        __m256i base = _mm256_setzero_si256();
        if constexpr (kType == VLAK_Q4_0) base = _mm256_madd_epi16(_mm256_maddubs_epi16(eights, qa), ones16);
        if constexpr (kType == VLAK_Q4_1) {
          const __m128 mv = _mm_setr_ps(Half(wr[0] + b * bb + 2), Half(wr[1] + b * bb + 2), Half(wr[2] + b * bb + 2),
                                        Half(wr[3] + b * bb + 2));
          extra = _mm_fmadd_ps(mv, _mm_set1_ps(da * static_cast<float>(ar.sum[b])), extra);
        }
        for (size_t r = 0; r < kRw; ++r) {
          const uint8_t* blk = wr[r] + b * bb;
          __m256i p16;
          if constexpr (kType == VLAK_Q8_0) {
            const __m256i qw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + qoff));
            p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(qw, qw), _mm256_sign_epi8(qa, qw));
          } else {
            const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + qoff));
            const __m256i u = _mm256_and_si256(
                _mm256_inserti128_si256(_mm256_castsi128_si256(q), _mm_srli_epi16(q, 4), 1), low4);
            p16 = _mm256_maddubs_epi16(u, qa);
          }
          __m256i lanes = _mm256_madd_epi16(p16, ones16);
          if constexpr (kType == VLAK_Q4_0) lanes = _mm256_sub_epi32(lanes, base);
          acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lanes), _mm256_set1_ps(Half(blk) * da), acc[r]);
        }
      }
      alignas(16) float e[4];
      _mm_store_ps(e, extra);
      for (size_t r = 0; r < rw; ++r) g.c[i * g.ldc + j + r] = kType == VLAK_Q4_1 ? Sum(acc[r]) + e[r] : Sum(acc[r]);
    }
  }
}

inline void ActColsX86(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return ActColsAvx2<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return ActColsAvx2<VLAK_Q4_0>(g, act, j0, j1);
  ActColsAvx2<VLAK_Q4_1>(g, act, j0, j1);
}

#endif

// Also compiled for the avx512 target: its decode kernel on CPUs that split 512-bit operations
// (quant.cc, QuantZmmDecode).
#if defined(VLAK_SIMD_AVX2) || defined(VLAK_SIMD_AVX512)
// Quantized activations times an x16 W on AVX2 (vlak_matmul_q_pack's layout for the avx2 target,
// quant.h): the 16 rows' 4-byte pieces are two ymm of 8 rows each. Per half, block and row of A:
// q4: vpmaddubsw of each piece's low and high nibbles against A's 4 bytes (broadcast), the 8
// products summed in int16 lanes (exact: 8 * 2 * 15 * 127 < 2^15), one vpmaddwd to int32 (q4_0:
// minus 8 sum q_a); q8_0: ggml's sign trick per piece (|q_w| against sign(q_a, q_w), |pair| <=
// 2 * 128 * 127) and vpmaddwd, added in int32. Then acc = fma(float(s), fl(d_w d_a), acc) (q4_1:
// then fma(m_w, fl(d_a sum q_a), acc)) on the 8 rows' lanes: the plain form's bits
// (MatmulQActGroupedColsF32). Up to kGroupedRowsA rows of A share each piece's load and nibble
// split (prefill); each row's chain is the one-row pass's. Prefetch 4 KiB ahead, as the VNNI
// kernel. Cost per block and half: q4 4 loads and 12 unpack ops for the rows of a pass, then per
// row 8 vpmaddubsw, 8 adds, 1 vpmaddwd, ~6 for the scales.
constexpr size_t kGroupedRowsA = 4;

// kRa rows of A (from i0) against kH halves of a group (from half h0) into out (16 floats a row).
// One row, or two, takes both halves in one pass over the blocks (decode: W's records read once,
// two chains); more take a half a pass (their accumulators and A's broadcasts fill the registers).
template <int kType, size_t kRa, size_t kH>
[[gnu::always_inline]] inline void GroupedPassAvx2(const QMatmulArgs& g, uint8_t* act, const uint8_t* grp, size_t i0,
                                                   size_t h0, float* out) {
  constexpr size_t rec = 16 * QBlockBytes(kType), quants = kType == VLAK_Q4_1 ? 64 : 32;
  const size_t nb = g.k / kQBlock;
  const __m256i ones16 = _mm256_set1_epi16(1);
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  auto bcast = [](const int8_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
  };
  QActRow ar[kRa];
  for (size_t i = 0; i < kRa; ++i) ar[i] = QActRowAt(act, g.k, i0 + i);
  __m256 acc[kRa][kH];
  for (auto& row : acc) {
    for (auto& x : row) x = _mm256_setzero_ps();
  }
  for (size_t b = 0; b < nb; ++b) {
    const uint8_t* const r = grp + b * rec;
    if (i0 == 0 && h0 == 0) {
      for (size_t line = 0; line < rec; line += 64) _mm_prefetch(reinterpret_cast<const char*>(r + 4096 + line), _MM_HINT_T0);
    }
    for (size_t hh = 0; hh < kH; ++hh) {
      const size_t h = h0 + hh;
      __m256i s[kRa];
      if constexpr (kType == VLAK_Q8_0) {
        for (auto& x : s) x = _mm256_setzero_si256();
        for (size_t p = 0; p < 8; ++p) {
          const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + quants + 64 * p + 32 * h));
          const __m256i aw = _mm256_sign_epi8(w, w);
          for (size_t i = 0; i < kRa; ++i) {
            const __m256i a = bcast(ar[i].qs + b * kQBlock + 4 * p);
            s[i] = _mm256_add_epi32(s[i], _mm256_madd_epi16(_mm256_maddubs_epi16(aw, _mm256_sign_epi8(a, w)), ones16));
          }
        }
      } else {
        __m256i s16[kRa];
        for (auto& x : s16) x = _mm256_setzero_si256();
        for (size_t p = 0; p < 4; ++p) {
          const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + quants + 64 * p + 32 * h));
          const __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
          for (size_t i = 0; i < kRa; ++i) {
            const int8_t* const qa = ar[i].qs + b * kQBlock;
            s16[i] = _mm256_add_epi16(s16[i], _mm256_maddubs_epi16(lo, bcast(qa + 4 * p)));
            s16[i] = _mm256_add_epi16(s16[i], _mm256_maddubs_epi16(hi, bcast(qa + 16 + 4 * p)));
          }
        }
        for (size_t i = 0; i < kRa; ++i) {
          s[i] = _mm256_madd_epi16(s16[i], ones16);
          if constexpr (kType == VLAK_Q4_0) s[i] = _mm256_add_epi32(s[i], _mm256_set1_epi32(-8 * ar[i].sum[b]));
        }
      }
      const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 16 * h)));
      [[maybe_unused]] __m256 mw;
      if constexpr (kType == VLAK_Q4_1) mw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 32 + 16 * h)));
      for (size_t i = 0; i < kRa; ++i) {
        const float da = ar[i].d[b];
        acc[i][hh] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s[i]), _mm256_mul_ps(dw, _mm256_set1_ps(da)), acc[i][hh]);
        if constexpr (kType == VLAK_Q4_1) {
          acc[i][hh] = _mm256_fmadd_ps(mw, _mm256_set1_ps(da * static_cast<float>(ar[i].sum[b])), acc[i][hh]);
        }
      }
    }
  }
  for (size_t i = 0; i < kRa; ++i) {
    for (size_t hh = 0; hh < kH; ++hh) _mm256_store_ps(out + i * 16 + 8 * (h0 + hh), acc[i][hh]);
  }
}

template <int kType>
void GroupedColsAvx2(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  constexpr size_t rec = 16 * QBlockBytes(kType);
  const size_t nb = g.k / kQBlock;
  uint8_t* const actm = const_cast<uint8_t*>(act);
  alignas(32) float out[kGroupedRowsA * 16];
  for (size_t j = j0; j < j1; j += 16) {
    const uint8_t* const grp = g.w + j / 16 * nb * rec;
    const size_t cols = j1 - j < 16 ? j1 - j : 16;
    for (size_t i0 = 0; i0 < g.m;) {
      const size_t rows = g.m - i0 >= kGroupedRowsA ? kGroupedRowsA : g.m - i0;
      switch (rows) {
        case 1: GroupedPassAvx2<kType, 1, 2>(g, actm, grp, i0, 0, out); break;
        case 2: GroupedPassAvx2<kType, 2, 2>(g, actm, grp, i0, 0, out); break;
        case 3:
          GroupedPassAvx2<kType, 3, 1>(g, actm, grp, i0, 0, out);
          GroupedPassAvx2<kType, 3, 1>(g, actm, grp, i0, 1, out);
          break;
        default:
          GroupedPassAvx2<kType, kGroupedRowsA, 1>(g, actm, grp, i0, 0, out);
          GroupedPassAvx2<kType, kGroupedRowsA, 1>(g, actm, grp, i0, 1, out);
          break;
      }
      for (size_t i = 0; i < rows; ++i) std::memcpy(g.c + (i0 + i) * g.ldc + j, out + i * 16, cols * sizeof(float));
      i0 += rows;
    }
  }
}

inline void GroupedColsX86(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return GroupedColsAvx2<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return GroupedColsAvx2<VLAK_Q4_0>(g, act, j0, j1);
  GroupedColsAvx2<VLAK_Q4_1>(g, act, j0, j1);
}
#endif

}  // namespace vlak::VLAK_NS::x86
