// Correlation on AVX-512 VNNI (vpdpbusd): the avx512 target's specialisation, used when the CPU
// has AVX512_VNNI (correlation.cc decides; the generic kernel is correlation_kernel.cc).
//
// out[d][i][j] = sat8((sum_k a[k][i][j] * b[k][i][j - d]) >> shift), or WRAP16's int16 reading of
// the same sum; as in the generic kernel the int32 sum is exact or wraps modulo 2^32, so the bytes
// are the generic kernel's (correlation_test.cc runs both against one oracle).
// Algorithm: vpdpbusd, 4 unsigned by 4 signed bytes into an int32 lane. Per row i, each group of 4
//   channels of a and of b is interleaved once into a per-pixel buffer, shared by every
//   displacement; a is made unsigned (a ^ 0x80) and each sum starts at -128 sum_k b (one more
//   vpdpbusd per group): exact modulo 2^32. Strips of 16 outputs; b's 64 bytes per group feed the
//   accumulators of up to 8 displacements.
// Cost: per group and strip 1 + D loads and 1 + D vpdpbusd for 64 D multiply-accumulates; the
//   interleave 24 instructions per 64 pixels x 4 channels.
// The layout, the padding and the measurements: docs/ops/correlation.md, "AVX-512 VNNI".
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "ops/correlation/correlation.h"
#include "vlak/vlak.h"

namespace vlak {
namespace {

constexpr size_t kStrip = 16;   // int32 lanes of a zmm: output columns per accumulator
constexpr size_t kChunk = 64;   // pixels per packing step (one zmm of bytes per channel)
constexpr size_t kMaxAcc = 8;   // displacements per pass

// Interleaves 4 channel rows (row r at src + r * plane, r < rows; missing rows are `fill`) over
// pixels [0, n) into dst[pixel][4], XOR `flip` on every byte; writes whole 64-pixel chunks
// (dst holds RoundUp(n, 64) pixels).
void Pack4(const int8_t* src, size_t plane, size_t rows, size_t n, __m512i flip, int8_t* dst) {
  for (size_t j = 0; j < n; j += kChunk) {
    const __mmask64 m = n - j >= kChunk ? ~__mmask64{0} : (__mmask64{1} << (n - j)) - 1;
    __m512i r[4];
    for (size_t t = 0; t < 4; ++t) {
      r[t] = t < rows ? _mm512_maskz_loadu_epi8(m, src + t * plane + j) : _mm512_setzero_si512();
      r[t] = _mm512_xor_si512(r[t], flip);
    }
    // Per 128-bit lane L (pixels 16 L .. 16 L + 15 of the chunk): u_q holds pixels 16 L + 4 q ..
    // 16 L + 4 q + 3, 4 channels each.
    const __m512i t0 = _mm512_unpacklo_epi8(r[0], r[1]), t1 = _mm512_unpackhi_epi8(r[0], r[1]);
    const __m512i t2 = _mm512_unpacklo_epi8(r[2], r[3]), t3 = _mm512_unpackhi_epi8(r[2], r[3]);
    const __m512i u0 = _mm512_unpacklo_epi16(t0, t2), u1 = _mm512_unpackhi_epi16(t0, t2);
    const __m512i u2 = _mm512_unpacklo_epi16(t1, t3), u3 = _mm512_unpackhi_epi16(t1, t3);
    // Transpose the 4 x 4 lanes: output o_L = (u0.L, u1.L, u2.L, u3.L) = pixels 16 L .. 16 L + 15.
    const __m512i v0 = _mm512_shuffle_i64x2(u0, u1, 0x44), v1 = _mm512_shuffle_i64x2(u2, u3, 0x44);
    const __m512i v2 = _mm512_shuffle_i64x2(u0, u1, 0xEE), v3 = _mm512_shuffle_i64x2(u2, u3, 0xEE);
    int8_t* out = dst + 4 * j;
    _mm512_storeu_si512(out, _mm512_shuffle_i64x2(v0, v1, 0x88));
    _mm512_storeu_si512(out + 64, _mm512_shuffle_i64x2(v0, v1, 0xDD));
    _mm512_storeu_si512(out + 128, _mm512_shuffle_i64x2(v2, v3, 0x88));
    _mm512_storeu_si512(out + 192, _mm512_shuffle_i64x2(v2, v3, 0xDD));
  }
}

// 16 int32 sums -> 16 output bytes at out (the first `valid` of them).
inline void StoreSums(__m512i sum, unsigned shift, bool wrap16, int8_t* out, size_t valid) {
  const __mmask16 m = valid >= kStrip ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << valid) - 1);
  __m128i bytes;
  if (wrap16) {
    // The low 16 bits as int16, >> min(shift, 15), low 8 bits: (sum << 16) >> (16 + s).
    const __m512i s16 = _mm512_slli_epi32(sum, 16);
    bytes = _mm512_cvtepi32_epi8(_mm512_sra_epi32(s16, _mm_cvtsi32_si128(static_cast<int>(16 + std::min(shift, 15u)))));
  } else {
    bytes = _mm512_cvtsepi32_epi8(_mm512_sra_epi32(sum, _mm_cvtsi32_si128(static_cast<int>(shift))));
  }
  _mm_mask_storeu_epi8(out, m, bytes);
}

// acc[t] = sum over groups of vpdpbusd(a at column t, b) for t < ND (a, b: a strip's first pixel
// in group 0; `step` bytes between groups); returns 128 x the column sums of b. ND is a template
// argument so the ND accumulators live in registers.
template <size_t ND>
__m512i StripSums(const int8_t* a, const int8_t* b, size_t groups, size_t step, __m512i* acc) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum[ND];
  for (size_t t = 0; t < ND; ++t) sum[t] = _mm512_setzero_si512();
  __m512i colsum = _mm512_setzero_si512();
  for (size_t g = 0; g < groups; ++g, a += step, b += step) {
    const __m512i vb = _mm512_loadu_si512(b);
    colsum = _mm512_dpbusd_epi32(colsum, ones, vb);
    for (size_t t = 0; t < ND; ++t) sum[t] = _mm512_dpbusd_epi32(sum[t], _mm512_loadu_si512(a + 4 * t), vb);
  }
  for (size_t t = 0; t < ND; ++t) acc[t] = sum[t];
  return _mm512_slli_epi32(colsum, 7);
}

using StripSumsFn = __m512i (*)(const int8_t*, const int8_t*, size_t, size_t, __m512i*);
constexpr StripSumsFn kSums[kMaxAcc] = {StripSums<1>, StripSums<2>, StripSums<3>, StripSums<4>,
                                        StripSums<5>, StripSums<6>, StripSums<7>, StripSums<8>};

}  // namespace

bool CorrelationRowsI8Avx512Vnni(size_t begin, size_t end, size_t displacements, size_t channels, size_t height,
                                 size_t width, const int8_t* a, const int8_t* b, unsigned shift, int8_t* out,
                                 unsigned flags) {
  const size_t plane = height * width;
  const bool wrap16 = (flags & VLAK_CORRELATION_WRAP16) != 0;
  const size_t groups = (channels + 3) / 4;
  const size_t padded = (width + kChunk - 1) / kChunk * kChunk + kChunk;  // >= width + 16, whole chunks
  const size_t bytes = groups * padded * 4;
  std::unique_ptr<int8_t[]> pa(new (std::nothrow) int8_t[bytes]), pb(new (std::nothrow) int8_t[bytes]);
  if (!pa || !pb) return false;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80)), none = _mm512_setzero_si512();
  const size_t live_d = std::min(displacements, width);  // d >= width: rows of zeros
  for (size_t i = begin; i < end; ++i) {
    for (size_t g = 0; g < groups; ++g) {
      const size_t rows = std::min<size_t>(4, channels - 4 * g);
      const size_t at = 4 * g * plane + i * width;
      Pack4(a + at, plane, rows, width, flip, pa.get() + g * padded * 4);
      Pack4(b + at, plane, rows, width, none, pb.get() + g * padded * 4);
    }
    for (size_t d = 0; d < displacements; ++d) {
      int8_t* row = out + (d * height + i) * width;
      std::memset(row, 0, std::min(d, width));
    }
    for (size_t m = 0; m < width; m += kStrip) {
      // Displacements whose output column m + d is still inside the row.
      const size_t dn = std::min(live_d, width - m);
      for (size_t d0 = 0; d0 < dn; d0 += kMaxAcc) {
        const size_t nd = std::min(kMaxAcc, dn - d0);
        __m512i acc[kMaxAcc];
        const __m512i corr = kSums[nd - 1](pa.get() + (m + d0) * 4, pb.get() + m * 4, groups, padded * 4, acc);
        for (size_t t = 0; t < nd; ++t) {
          const size_t d = d0 + t;
          int8_t* row = out + (d * height + i) * width;
          StoreSums(_mm512_sub_epi32(acc[t], corr), shift, wrap16, row + m + d, width - (m + d));
        }
      }
    }
  }
  return true;
}

bool CpuHasAvx512Vnni() { return __builtin_cpu_supports("avx512vnni"); }

}  // namespace vlak

#endif
