// Quantized activations times an x16-packed W on AVX-512 VNNI, m < 16 (decode): the avx512
// target's kernel for vlak_matmul_q_packed_f32 (quant.cc calls it where the buffer is x16, which
// vlak_matmul_q_pack writes only on that target with AVX512_VNNI on).
//
// Algorithm: per group of 16 rows of W and block of 32, piece p (4 bytes) of the 16 rows fills one
//   zmm; vpdpbusd of it (unsigned: q4 nibbles as stored, q8_0 xor 0x80) with A's 4 int8 broadcast
//   adds 4 products to each row's lane, and 8 of them, from a start of -offset * sum q_a (q4_0 8,
//   q8_0 128, q4_1 0), give exactly s = sum (q_w - offset) q_a. Then acc += float(s) * fl(d_w d_a)
//   and q4_1 acc += m_w * fl(d_a sum q_a): lane r of acc is C[i][j + r], no horizontal sum. 1-3
//   rows of A take two groups a pass: twice the independent fma chains, A's broadcasts shared.
// Bound: s exact; per block 2 roundings (q4_1 4) on a chain of k / 32 adds: within vlak.h's
//   2k 2^-24 S. Special values: the scales' and d_a's NaN/inf propagate through the products.
// Cost: about 22 ops per 512 weights at m = 1, against about 60 in the rows layout's kernel.
// The record, the ops one by one and the speed: docs/ops/quant.md, "quant_packed_avx512vnni.cc".
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ops/quant/quant.h"
#include "ops/quant/quant_kernels.h"

namespace vlak {
namespace {

constexpr size_t kRowsA = 8;  // rows of A per pass over a group's blocks (then 4, then 1-3)
#ifndef VLAK_QPACK_AHEAD
#define VLAK_QPACK_AHEAD 4096
#endif
constexpr size_t kAhead = VLAK_QPACK_AHEAD;

inline __m512i Bcast32(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// kRa rows of A (from row i0) against kG groups of 16 rows of W (the first one's records at grp,
// the next one's gstride bytes on): C's 16 kG columns from j, the first `store` of them written
// (store: the last group's mask; earlier groups are whole). Each lane's chain is the same for any
// kG; kG > 1 gives 1-3 rows of A independent chains to interleave (one fma chain per block would
// otherwise wait on its latency) and shares A's broadcasts between the groups.
template <int kType, size_t kRa, size_t kG>
[[gnu::always_inline]] inline void Pass(const QMatmulArgs& g, uint8_t* act, const uint8_t* grp, size_t gstride,
                                        size_t i0, size_t j, __mmask16 store) {
  constexpr size_t rec = kQGroup * QBlockBytes(kType);
  constexpr size_t quants = kType == VLAK_Q4_1 ? 64 : 32;  // the record's scale bytes
  constexpr int kOffset = kType == VLAK_Q8_0 ? 128 : kType == VLAK_Q4_0 ? 8 : 0;
  constexpr bool kHighInPlace = kType != VLAK_Q8_0 && kRa <= 2;
  const size_t nb = g.k / kQBlock;
  const __m512i low = _mm512_set1_epi8(0x0F);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  QActRow ar[kRa];
  for (size_t i = 0; i < kRa; ++i) ar[i] = QActRowAt(act, g.k, i0 + i);
  __m512 acc[kRa][kG];
  for (auto& row : acc) {
    for (auto& x : row) x = _mm512_setzero_ps();
  }
  for (size_t b = 0; b < nb; ++b) {
    __m512 dw[kG];
    __m512i u[kG][8];
    for (size_t q = 0; q < kG; ++q) {
      const uint8_t* const r = grp + q * gstride + b * rec;
      if (i0 == 0) {
        for (size_t line = 0; line < rec; line += 64) _mm_prefetch(reinterpret_cast<const char*>(r + kAhead + line), _MM_HINT_T0);
      }
      dw[q] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r)));
      if constexpr (kType == VLAK_Q8_0) {
        for (int p = 0; p < 8; ++p) u[q][p] = _mm512_xor_si512(_mm512_loadu_si512(r + quants + 64 * p), flip);
      } else {
        for (int p = 0; p < 4; ++p) {
          const __m512i v = _mm512_loadu_si512(r + quants + 64 * p);
          u[q][p] = _mm512_and_si512(v, low);
          // High nibbles: in place (16 q) for one or two rows of A, whose sums are then
          // shifted right by 4 (exact); shifted down here for more rows.
          u[q][p + 4] = kHighInPlace ? _mm512_andnot_si512(low, v) : _mm512_and_si512(_mm512_srli_epi16(v, 4), low);
        }
      }
    }
    for (size_t i = 0; i < kRa; ++i) {
      const int8_t* const qa = ar[i].qs + b * kQBlock;
      const float da = ar[i].d[b];
      for (size_t q = 0; q < kG; ++q) {
        // Piece p holds values 4p..4p+3 (q8_0 all 8 pieces; q4: u[p + 4] the high nibbles, 16 + 4p..),
        // in two chains of 4 (half the latency of one), added exactly.
        __m512i s0 = kOffset != 0 ? _mm512_set1_epi32(-kOffset * ar[i].sum[b]) : _mm512_setzero_si512();
        __m512i s1 = _mm512_setzero_si512();
        for (int p = 0; p < 4; ++p) {
          s0 = _mm512_dpbusd_epi32(s0, u[q][p], Bcast32(qa + 4 * p));
          s1 = _mm512_dpbusd_epi32(s1, u[q][p + 4], Bcast32(qa + 16 + 4 * p));
        }
        if constexpr (kHighInPlace) s1 = _mm512_srai_epi32(s1, 4);
        acc[i][q] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(s0, s1)), _mm512_mul_ps(dw[q], _mm512_set1_ps(da)),
                                    acc[i][q]);
        if constexpr (kType == VLAK_Q4_1) {
          const uint8_t* const r = grp + q * gstride + b * rec;
          const __m512 mw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 32)));
          acc[i][q] = _mm512_fmadd_ps(mw, _mm512_set1_ps(da * static_cast<float>(ar[i].sum[b])), acc[i][q]);
        }
      }
    }
  }
  for (size_t i = 0; i < kRa; ++i) {
    for (size_t q = 0; q < kG; ++q) {
      _mm512_mask_storeu_ps(g.c + (i0 + i) * g.ldc + j + q * kQGroup, q + 1 < kG ? __mmask16(0xFFFF) : store, acc[i][q]);
    }
  }
}

// 1-3 rows of A (from i0) against the groups of W from j: two groups a pass while two remain.
template <int kType, size_t kRa>
void FewRows(const QMatmulArgs& g, uint8_t* act, size_t i0, size_t j0, size_t j1) {
  const size_t rec = kQGroup * QBlockBytes(kType), nb = g.k / kQBlock, gstride = nb * rec;
  size_t j = j0;
  for (; j + kQGroup < j1; j += 2 * kQGroup) {  // a second group, whole or partial, follows
    const size_t cols = j1 - j - kQGroup < kQGroup ? j1 - j - kQGroup : kQGroup;
    Pass<kType, kRa, 2>(g, act, g.w + j / kQGroup * gstride, gstride, i0, j, static_cast<__mmask16>((1u << cols) - 1u));
  }
  if (j < j1) {  // one group, whole or partial
    const size_t cols = j1 - j;
    Pass<kType, kRa, 1>(g, act, g.w + j / kQGroup * gstride, gstride, i0, j, static_cast<__mmask16>((1u << cols) - 1u));
  }
}

template <int kType>
void Packed(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  uint8_t* const actm = const_cast<uint8_t*>(act);
  switch (g.m) {  // decode: two groups of W a pass
    case 1: return FewRows<kType, 1>(g, actm, 0, j0, j1);
    case 2: return FewRows<kType, 2>(g, actm, 0, j0, j1);
    case 3: return FewRows<kType, 3>(g, actm, 0, j0, j1);
    default: break;
  }
  const size_t rec = kQGroup * QBlockBytes(kType), nb = g.k / kQBlock;
  for (size_t j = j0; j < j1; j += kQGroup) {
    const uint8_t* const grp = g.w + j / kQGroup * nb * rec;
    const size_t cols = j1 - j < kQGroup ? j1 - j : kQGroup;
    const __mmask16 store = static_cast<__mmask16>((1u << cols) - 1u);
    size_t i0 = 0;
    for (; i0 + kRowsA <= g.m; i0 += kRowsA) Pass<kType, kRowsA, 1>(g, actm, grp, 0, i0, j, store);
    if (g.m - i0 >= 4) {
      Pass<kType, 4, 1>(g, actm, grp, 0, i0, j, store);
      i0 += 4;
    }
    switch (g.m - i0) {
      case 1: Pass<kType, 1, 1>(g, actm, grp, 0, i0, j, store); break;
      case 2: Pass<kType, 2, 1>(g, actm, grp, 0, i0, j, store); break;
      case 3: Pass<kType, 3, 1>(g, actm, grp, 0, i0, j, store); break;
      default: break;
    }
  }
}

}  // namespace

void MatmulQActPackedAvx512Vnni(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return Packed<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return Packed<VLAK_Q4_0>(g, act, j0, j1);
  Packed<VLAK_Q4_1>(g, act, j0, j1);
}

}  // namespace vlak

#endif
