// Quantized activations on AVX-512 VNNI (vpdpbusd): the avx512 target's specialisation of
// MatmulQActColsF32, used when the CPU has AVX512_VNNI (quant.cc decides).
//
// Algorithm: one block of 32 per ymm (vpdpbusd on 256 bits, AVX512_VL). vpdpbusd multiplies 4
// unsigned bytes of W by 4 signed bytes of A and adds to an int32 lane, so W's values are made
// unsigned: q4 nibbles as stored (q4_0: q - 8, offset 8; q4_1: offset 0), q8_0's int8 + 128 (xor
// 0x80, offset 128). Per row of A and block the lanes start at -offset * (4-byte sums of q_a) (one
// vpdpbusd of the offset bytes against q_a, shared by every row of W), so each int32 lane holds
// sum (q_w - offset) q_a over its 4 values exactly; then c_lanes += float(lanes) * fl(d_w d_a) (q4_1
// also + float(A's 4-byte sums) * fl(m_w d_a)), and one horizontal sum per C element at the end,
// not one per block. kRowsW rows of W x kRowsA rows of A per pass: W's bytes are unpacked once per
// block for kRowsA rows of A.
// Bound: lanes exact; per block 2 (q4_1: 4) roundings and one add per lane; then the 8-lane sum:
// within vlak.h's 2k * 2^-24 * S. Special values: the scales' NaN/inf propagate through the
// products.
// Cost per block and row of W: 1 load and 1 (q8_0) or 4 (q4) unpack ops, the scale's load and
// convert; per pair of rows 1 vpdpbusd, 1 convert, a broadcast multiply and 1 fma.
// Measurements: docs/ops/quant.md.
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

inline float Half(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
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
  const __m256i ones = _mm256_set1_epi8(1);
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
      for (size_t b = 0; b < nb; ++b) {
        __m256i u[kRowsW];
        float dw[kRowsW], mw[kRowsW];
        if (nx != nullptr && i0 == 0) {
          for (size_t r = 0; r < kRowsW; ++r) _mm_prefetch(reinterpret_cast<const char*>(nx + r * g.w_stride + b * bb), _MM_HINT_T0);
        }
        for (size_t r = 0; r < kRowsW; ++r) {
          const uint8_t* blk = wr[r] + b * bb;
          u[r] = LoadW<kType>(blk);
          dw[r] = Half(blk);
          if constexpr (kType == VLAK_Q4_1) mw[r] = Half(blk + 2);
        }
        for (size_t i = 0; i < kRowsA; ++i) {
          if (i >= ra) break;
          const __m256i qa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ar[i].qs + b * kQBlock));
          const float da = ar[i].d[b];
          __m256i base = _mm256_setzero_si256();
          if constexpr (kOffset != 0) base = _mm256_sub_epi32(base, _mm256_dpbusd_epi32(_mm256_setzero_si256(), offset, qa));
          __m256 sa;
          if constexpr (kType == VLAK_Q4_1) sa = _mm256_cvtepi32_ps(_mm256_dpbusd_epi32(_mm256_setzero_si256(), ones, qa));
          for (size_t r = 0; r < kRowsW; ++r) {
            const __m256 lanes = _mm256_cvtepi32_ps(_mm256_dpbusd_epi32(base, u[r], qa));
            acc[i][r] = _mm256_fmadd_ps(lanes, _mm256_set1_ps(dw[r] * da), acc[i][r]);
            if constexpr (kType == VLAK_Q4_1) acc[i][r] = _mm256_fmadd_ps(sa, _mm256_set1_ps(mw[r] * da), acc[i][r]);
          }
        }
      }
      for (size_t i = 0; i < ra; ++i) {
        for (size_t r = 0; r < rw; ++r) {
          const __m256 v = acc[i][r];
          const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
          const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
          g.c[(i0 + i) * g.ldc + j + r] = _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
        }
      }
    }
  }
}

}  // namespace

void MatmulQActColsAvx512Vnni(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return Cols<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return Cols<VLAK_Q4_0>(g, act, j0, j1);
  Cols<VLAK_Q4_1>(g, act, j0, j1);
}

bool QuantCpuHasVnni() { return __builtin_cpu_supports("avx512vnni"); }

}  // namespace vlak

#endif
