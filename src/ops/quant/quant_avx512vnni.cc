// Quantized activations on AVX-512 VNNI (vpdpbusd): the avx512 target's specialisation of
// MatmulQActColsF32, used when the CPU has AVX512_VNNI (quant.cc decides).
//
// Algorithm: one block of 32 per ymm (vpdpbusd on 256 bits, AVX512_VL), W's values made unsigned
//   (q4 nibbles as stored, offset 8 for q4_0 and 0 for q4_1; q8_0 xor 0x80, offset 128). Per row
//   of A and block the lanes start at -offset * (4-byte sums of q_a), so each int32 lane holds
//   sum (q_w - offset) q_a exactly; c_lanes += float(lanes) * fl(d_w d_a), and one horizontal sum
//   per C element at the end; q4_1's m_w d_a sum q_a in a 4-lane vector per row of A, added after.
// Bound: lanes exact; per block 2 (q4_1: 4) roundings and one add per lane; then the 8-lane sum:
//   within vlak.h's 2k * 2^-24 * S. Special values: the scales' NaN/inf propagate through the
//   products.
// Cost per block and row of W: 1 load and 1 (q8_0) or 4 (q4) unpack ops, the scale's load and
//   convert; per pair of rows 1 vpdpbusd, 1 convert, a broadcast multiply and 1 fma.
// The pass's rows and the measurements: docs/ops/quant.md, "quant_avx512vnni.cc".
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ops/quant/quant.h"
#include "ops/quant/quant_kernels.h"

namespace vlak {
namespace {

constexpr size_t kRowsW = 4;  // rows of W per pass
constexpr size_t kRowsA = 4;  // rows of A per pass
constexpr size_t kWideMinM = 16;  // from this many rows of A on: ColsWide (depends on m only)

inline float Half(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

// An fp16 scale converted into all 8 lanes: vpbroadcastw from memory, vcvtph2ps.
inline __m256 HalfBroadcast(const uint8_t* p) {
  int16_t h;
  std::memcpy(&h, p, 2);
  return _mm256_cvtph_ps(_mm_set1_epi16(h));
}

// One block of a row of W as 32 unsigned bytes in A's element order.
template <int kType>
inline __m256i LoadW(const uint8_t* blk) {
  if constexpr (kType == VLAK_Q8_0) {
    return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 2)),
                            _mm256_set1_epi8(static_cast<char>(0x80)));
  } else {
    const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + (kType == VLAK_Q4_1 ? 4 : 2)));
    return _mm256_and_si256(_mm256_inserti128_si256(_mm256_castsi128_si256(q), _mm_srli_epi16(q, 4), 1),
                            _mm256_set1_epi8(0x0F));
  }
}

template <int kType>
void Cols(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr int kOffset = kType == VLAK_Q8_0 ? 128 : kType == VLAK_Q4_0 ? 8 : 0;
  const size_t nb = g.k / kQBlock;
  uint8_t* const actm = const_cast<uint8_t*>(act);
  const __m256i offset = _mm256_set1_epi8(static_cast<char>(kOffset));
  static_assert(kRowsW == 4, "q4_1's extra vector holds 4 rows of W");
  for (size_t j = j0; j < j1; j += kRowsW) {
    const size_t rw = j1 - j < kRowsW ? j1 - j : kRowsW;
    const uint8_t* wr[kRowsW];
    for (size_t r = 0; r < kRowsW; ++r) wr[r] = g.w + (j + (r < rw ? r : 0)) * g.w_stride;
    // The next group's rows, prefetched a block at a time alongside: short rows (SmolLM2's 576
    // values: 10 to 20 cache lines) end before the hardware prefetcher has followed them.
    const uint8_t* nx = j + 2 * kRowsW <= j1 ? g.w + (j + kRowsW) * g.w_stride : nullptr;
    for (size_t i0 = 0; i0 < g.m; i0 += kRowsA) {
      const size_t ra = g.m - i0 < kRowsA ? g.m - i0 : kRowsA;
      QActRow ar[kRowsA];
      for (size_t i = 0; i < kRowsA; ++i) ar[i] = QActRowAt(actm, g.k, i0 + (i < ra ? i : 0));
      __m256 acc[kRowsA][kRowsW];
      for (auto& x : acc)
        for (auto& y : x) y = _mm256_setzero_ps();
      // q4_1's m_w d_a sum q_a, the kRowsW rows of W in the lanes of one xmm per row of A.
      __m128 extra[kRowsA];
      for (auto& x : extra) x = _mm_setzero_ps();
      for (size_t b = 0; b < nb; ++b) {
        __m256i u[kRowsW];
        __m256 dw[kRowsW];
        float mw[kRowsW];
        if (nx != nullptr && i0 == 0) {
          for (size_t r = 0; r < kRowsW; ++r) _mm_prefetch(reinterpret_cast<const char*>(nx + r * g.w_stride + b * bb), _MM_HINT_T0);
        }
        for (size_t r = 0; r < kRowsW; ++r) {
          const uint8_t* blk = wr[r] + b * bb;
          u[r] = LoadW<kType>(blk);
          dw[r] = HalfBroadcast(blk);
          if constexpr (kType == VLAK_Q4_1) mw[r] = Half(blk + 2);
        }
        for (size_t i = 0; i < kRowsA; ++i) {
          if (i >= ra) break;
          const __m256i qa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ar[i].qs + b * kQBlock));
          const float da = ar[i].d[b];
          const __m256 dav = _mm256_set1_ps(da);
          __m256i base = _mm256_setzero_si256();
          if constexpr (kOffset != 0) base = _mm256_sub_epi32(base, _mm256_dpbusd_epi32(_mm256_setzero_si256(), offset, qa));
          if constexpr (kType == VLAK_Q4_1) {
            const __m128 mv = _mm_setr_ps(mw[0], mw[1], mw[2], mw[3]);
            extra[i] = _mm_fmadd_ps(mv, _mm_set1_ps(da * static_cast<float>(ar[i].sum[b])), extra[i]);
          }
          for (size_t r = 0; r < kRowsW; ++r) {
            const __m256 lanes = _mm256_cvtepi32_ps(_mm256_dpbusd_epi32(base, u[r], qa));
            acc[i][r] = _mm256_fmadd_ps(lanes, _mm256_mul_ps(dw[r], dav), acc[i][r]);
          }
        }
      }
      for (size_t i = 0; i < ra; ++i) {
        for (size_t r = 0; r < rw; ++r) {
          const __m256 v = acc[i][r];
          const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
          const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
          float c = _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
          if constexpr (kType == VLAK_Q4_1) {
            alignas(16) float e[4];
            _mm_store_ps(e, extra[i]);
            c += e[r];
          }
          g.c[(i0 + i) * g.ldc + j + r] = c;
        }
      }
    }
  }
}

// Prefill (m >= kWideMinM): two blocks per zmm, so a row pair's step is 1 vpdpbusd, 1 convert, 1
// multiply of the two blocks' scales (lanes 0..7 block b, 8..15 block b + 1) and 1 fma per 64
// values; the scale vectors (vpermps of the two fp16 scales) and the nibbles' unpacking (vpermq +
// blend) are paid once per row of W or A for the 4 x 4 tile. An odd last block runs on masked
// halves whose other lanes are 0 (never 0 * inf). At decode (one row of A) those shuffles, all on
// one port, cost more than they save: Cols above.

// Two blocks (b, b + 1; only b when !two) of a row of W as 64 unsigned bytes in A's element order.
template <int kType>
inline __m512i LoadW2(const uint8_t* blk, size_t bb, bool two) {
  constexpr size_t off = kType == VLAK_Q4_1 ? 4 : 2;
  if constexpr (kType == VLAK_Q8_0) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + off));
    const __m256i hi = two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + bb + off)) : _mm256_setzero_si256();
    const __m512i v = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    return _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80)));
  } else {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + off));
    const __m128i b = two ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + bb + off)) : _mm_setzero_si128();
    const __m256i ab = _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
    const __m512i v = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 1, 0, 1, 2, 3, 2, 3), _mm512_castsi256_si512(ab));
    const __m512i sh = _mm512_mask_blend_epi64(0xCC, v, _mm512_srli_epi16(v, 4));
    return _mm512_and_si512(sh, _mm512_set1_epi8(0x0F));
  }
}

// Lanes 0..7 = the float at p[0], lanes 8..15 = the float at p[1] (0 when !two), from fp16.
inline __m512 HalfPair(const uint8_t* p0, const uint8_t* p1, bool two) {
  uint16_t h0, h1 = 0;
  std::memcpy(&h0, p0, 2);
  if (two) std::memcpy(&h1, p1, 2);
  const __m128 f = _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(h0 | (static_cast<uint32_t>(h1) << 16))));
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
                               _mm512_castps128_ps512(f));
}

template <int kType>
void ColsWide(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr int kOffset = kType == VLAK_Q8_0 ? 128 : kType == VLAK_Q4_0 ? 8 : 0;
  const size_t nb = g.k / kQBlock;
  uint8_t* const actm = const_cast<uint8_t*>(act);
  const __m512i offset = _mm512_set1_epi8(static_cast<char>(kOffset));
  const __m512i ones = _mm512_set1_epi8(1);
  const __m512i pair_idx = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  for (size_t j = j0; j < j1; j += kRowsW) {
    const size_t rw = j1 - j < kRowsW ? j1 - j : kRowsW;
    const uint8_t* wr[kRowsW];
    for (size_t r = 0; r < kRowsW; ++r) wr[r] = g.w + (j + (r < rw ? r : 0)) * g.w_stride;
    for (size_t i0 = 0; i0 < g.m; i0 += kRowsA) {
      const size_t ra = g.m - i0 < kRowsA ? g.m - i0 : kRowsA;
      QActRow ar[kRowsA];
      for (size_t i = 0; i < kRowsA; ++i) ar[i] = QActRowAt(actm, g.k, i0 + (i < ra ? i : 0));
      __m512 acc[kRowsA][kRowsW];
      for (size_t i = 0; i < kRowsA; ++i)
        for (size_t r = 0; r < kRowsW; ++r) acc[i][r] = _mm512_setzero_ps();
      for (size_t b = 0; b < nb; b += 2) {
        const bool two = b + 1 < nb;
        const __mmask16 half = two ? __mmask16(0xFFFF) : __mmask16(0x00FF);
        __m512i u[kRowsW];
        __m512 dw[kRowsW], mw[kRowsW];
        for (size_t r = 0; r < kRowsW; ++r) {
          const uint8_t* blk = wr[r] + b * bb;
          u[r] = LoadW2<kType>(blk, bb, two);
          dw[r] = HalfPair(blk, blk + bb, two);
          if constexpr (kType == VLAK_Q4_1) mw[r] = HalfPair(blk + 2, blk + bb + 2, two);
        }
        for (size_t i = 0; i < kRowsA; ++i) {
          const __m512i qa = _mm512_maskz_loadu_epi8(two ? ~__mmask64{0} : __mmask64{0xFFFFFFFFu}, ar[i].qs + b * kQBlock);
          const __m512 da = _mm512_maskz_permutexvar_ps(
              half, pair_idx, _mm512_castps128_ps512(_mm_castsi128_ps(_mm_loadl_epi64(
                                  reinterpret_cast<const __m128i*>(ar[i].d + b)))));
          __m512i base = _mm512_setzero_si512();
          if constexpr (kOffset != 0) base = _mm512_sub_epi32(base, _mm512_dpbusd_epi32(_mm512_setzero_si512(), offset, qa));
          __m512 sa;
          if constexpr (kType == VLAK_Q4_1) sa = _mm512_cvtepi32_ps(_mm512_dpbusd_epi32(_mm512_setzero_si512(), ones, qa));
          for (size_t r = 0; r < kRowsW; ++r) {
            const __m512 lanes = _mm512_cvtepi32_ps(_mm512_dpbusd_epi32(base, u[r], qa));
            acc[i][r] = _mm512_fmadd_ps(lanes, _mm512_maskz_mul_ps(half, dw[r], da), acc[i][r]);
            if constexpr (kType == VLAK_Q4_1) acc[i][r] = _mm512_fmadd_ps(sa, _mm512_maskz_mul_ps(half, mw[r], da), acc[i][r]);
          }
        }
      }
      for (size_t i = 0; i < ra; ++i)
        for (size_t r = 0; r < rw; ++r) g.c[(i0 + i) * g.ldc + j + r] = _mm512_reduce_add_ps(acc[i][r]);
    }
  }
}

}  // namespace

void MatmulQActColsAvx512Vnni(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.m >= kWideMinM) {
    if (g.wtype == VLAK_Q8_0) return ColsWide<VLAK_Q8_0>(g, act, j0, j1);
    if (g.wtype == VLAK_Q4_0) return ColsWide<VLAK_Q4_0>(g, act, j0, j1);
    return ColsWide<VLAK_Q4_1>(g, act, j0, j1);
  }
  if (g.wtype == VLAK_Q8_0) return Cols<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return Cols<VLAK_Q4_0>(g, act, j0, j1);
  Cols<VLAK_Q4_1>(g, act, j0, j1);
}

bool QuantCpuHasVnni() { return __builtin_cpu_supports("avx512vnni"); }

}  // namespace vlak

#endif
