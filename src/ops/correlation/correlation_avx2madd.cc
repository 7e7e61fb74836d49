// Correlation on AVX2 with vpmaddwd: the avx2 target's specialisation (correlation.cc decides; the
// generic kernel is correlation_kernel.cc, the avx512 target's VNNI one correlation_avx512vnni.cc).
//
// out[d][i][j] = sat8((sum_k a[k][i][j] * b[k][i][j - d]) >> shift), or WRAP16's int16 reading of
// the same sum. The int32 sum is exact (|sum| <= C 2^14) or wraps modulo 2^32 as the generic
// kernel's does, so the bytes are the generic kernel's; correlation_test.cc runs both
// against one oracle.
// Algorithm: vpmaddwd, 16 int16 pairs, each pair's two products into an int32 lane. Per row i, each
//   pair of channels of a and of b is interleaved once into an int16 buffer, shared by every
//   displacement (odd C: b's missing channel is 0). Strips of 8 outputs; b's 32 bytes per pair feed
//   the accumulators of up to 8 displacements. Then an arithmetic shift and int8 saturation by two
//   packs, or WRAP16's low byte of (sum << 16) >> (16 + s).
// Cost per pair and strip: 1 + D loads, D vpmaddwd and D vpaddd for 16 D multiply-accumulates.
// The layout and the measurements: docs/ops/correlation.md, "AVX2 with vpmaddwd".
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX2)

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

constexpr size_t kStrip = 8;    // int32 lanes of a ymm: output columns per accumulator
constexpr size_t kChunk = 16;   // pixels per packing step
constexpr size_t kMaxAcc = 8;   // displacements per pass

// Interleaves channel rows r0 and r1 (r1 null: zeros) over pixels [0, n) into dst[pixel][2] as
// int16. Pixels past n are never written: dst starts zeroed and they stay so. Whole 16-pixel
// chunks; a partial last chunk is the 16 pixels ending at n (rewriting some of the chunk before
// with the same values), or, for n < 16, a copy through the stack. (The stack copy of every
// row's tail, reloaded 16 bytes wide, stalled on store forwarding: a third of the time at 88
// columns.)
void Pack2(const int8_t* r0, const int8_t* r1, size_t n, int16_t* dst) {
  for (size_t j0 = 0; j0 < n; j0 += kChunk) {
    const size_t j = n - j0 >= kChunk || n < kChunk ? j0 : n - kChunk;
    // The same pixels of the next image row: one row of each of C channels per output row is
    // more streams than the hardware prefetcher follows (a prefetch never faults).
    _mm_prefetch(reinterpret_cast<const char*>(r0 + j + n), _MM_HINT_T0);
    if (r1 != nullptr) _mm_prefetch(reinterpret_cast<const char*>(r1 + j + n), _MM_HINT_T0);
    __m128i x0, x1;
    if (n - j >= kChunk) {
      x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + j));
      x1 = r1 != nullptr ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + j)) : _mm_setzero_si128();
    } else {  // n < 16: no read past the row
      alignas(16) int8_t t0[kChunk] = {}, t1[kChunk] = {};
      std::memcpy(t0, r0 + j, n - j);
      if (r1 != nullptr) std::memcpy(t1, r1 + j, n - j);
      x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(t0));
      x1 = _mm_load_si128(reinterpret_cast<const __m128i*>(t1));
    }
    // Bytes (r0[p], r1[p]) adjacent for pixels p = 0..7 and 8..15, then each byte to int16.
    const __m256i lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x0, x1));
    const __m256i hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(x0, x1));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * j), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * j + 16), hi);
  }
}

// 8 int32 sums -> 8 output bytes at out (the first `valid` of them).
inline void StoreSums(__m256i sum, unsigned shift, bool wrap16, int8_t* out, size_t valid) {
  __m256i bytes;
  if (wrap16) {
    // The low 16 bits as int16, >> min(shift, 15), low 8 bits: (sum << 16) >> (16 + s), masked to
    // a byte so that the unsigned packs keep it unchanged.
    const __m256i s = _mm256_sra_epi32(_mm256_slli_epi32(sum, 16), _mm_cvtsi32_si128(static_cast<int>(16 + std::min(shift, 15u))));
    const __m256i b = _mm256_and_si256(s, _mm256_set1_epi32(0xFF));
    bytes = _mm256_packus_epi16(_mm256_packus_epi32(b, b), _mm256_setzero_si256());
  } else {
    const __m256i s = _mm256_sra_epi32(sum, _mm_cvtsi32_si128(static_cast<int>(shift)));
    bytes = _mm256_packs_epi16(_mm256_packs_epi32(s, s), _mm256_setzero_si256());
  }
  // Per 128-bit lane the packs leave that lane's 4 results in its first 4 bytes.
  const __m256i joined = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
  const uint64_t eight = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm256_castsi256_si128(joined)));
  if (valid >= kStrip) {
    std::memcpy(out, &eight, kStrip);  // one 8-byte store
  } else {
    std::memcpy(out, &eight, valid);
  }
}

// acc[t] = sum over pairs of vpmaddwd(a at column t, b) for t < ND (a, b: a strip's first pixel
// in pair 0; `step` int16 between pairs). ND is a template argument so the ND accumulators live
// in registers.
template <size_t ND>
void StripSums(const int16_t* a, const int16_t* b, size_t pairs, size_t step, __m256i* acc) {
  __m256i sum[ND];
  for (size_t t = 0; t < ND; ++t) sum[t] = _mm256_setzero_si256();
  for (size_t g = 0; g < pairs; ++g, a += step, b += step) {
    const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    for (size_t t = 0; t < ND; ++t) {
      const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 2 * t));
      sum[t] = _mm256_add_epi32(sum[t], _mm256_madd_epi16(va, vb));
    }
  }
  for (size_t t = 0; t < ND; ++t) acc[t] = sum[t];
}

using StripSumsFn = void (*)(const int16_t*, const int16_t*, size_t, size_t, __m256i*);
constexpr StripSumsFn kSums[kMaxAcc] = {StripSums<1>, StripSums<2>, StripSums<3>, StripSums<4>,
                                        StripSums<5>, StripSums<6>, StripSums<7>, StripSums<8>};

}  // namespace

bool CorrelationRowsI8Avx2Madd(size_t begin, size_t end, size_t displacements, size_t channels, size_t height,
                               size_t width, const int8_t* a, const int8_t* b, unsigned shift, int8_t* out,
                               unsigned flags) {
  const size_t plane = height * width;
  const bool wrap16 = (flags & VLAK_CORRELATION_WRAP16) != 0;
  const size_t pairs = (channels + 1) / 2;
  // Whole chunks plus one spare: a is read up to column m + d + 7 < width + 8.
  const size_t padded = (width + kChunk - 1) / kChunk * kChunk + kChunk;
  const size_t elems = pairs * padded * 2;
  std::unique_ptr<int16_t[]> pa(new (std::nothrow) int16_t[elems]()), pb(new (std::nothrow) int16_t[elems]());
  if (!pa || !pb) return false;
  const size_t live_d = std::min(displacements, width);  // d >= width: rows of zeros
  for (size_t i = begin; i < end; ++i) {
    for (size_t g = 0; g < pairs; ++g) {
      const size_t at = 2 * g * plane + i * width;
      const bool second = 2 * g + 1 < channels;
      Pack2(a + at, second ? a + at + plane : nullptr, width, pa.get() + g * padded * 2);
      Pack2(b + at, second ? b + at + plane : nullptr, width, pb.get() + g * padded * 2);
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
        __m256i acc[kMaxAcc];
        kSums[nd - 1](pa.get() + (m + d0) * 2, pb.get() + m * 2, pairs, padded * 2, acc);
        for (size_t t = 0; t < nd; ++t) {
          const size_t d = d0 + t;
          int8_t* row = out + (d * height + i) * width;
          StoreSums(acc[t], shift, wrap16, row + m + d, width - (m + d));
        }
      }
    }
  }
  return true;
}

}  // namespace vlak

#endif
