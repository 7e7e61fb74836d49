// Warp on AVX2 without gathers, for rows whose displacements vary little from pixel to pixel:
// the avx2 and avx512 targets' specialisation (warp.cc decides per row; the generic kernel is
// warp_kernel.cc, whose avx512 form gathers one load per lane as avx2's does).
//
// Per pixel (vlak.h): n = o >> 8, f = (int8)o, out = bits 8..15 of R * 256 + (L - R) * f with
// R = src[w - n], L = src[w - n - 1] (0 outside the row): the generic kernel's bits (warp_test.cc).
// Algorithm: per group of 32 pixels, M = max n; when every n is >= M - kSpread (kSpread = 47), the
//   R taps of each half lie within the 64 bytes starting M + 1 columns left of its first pixel (L's
//   one byte further left); vpshufb fetches them from four 16-byte chunks and two vpblendvb pick
//   the chunk, then the generic kernel's int16 arithmetic. Rows are copied by kBlock columns into
//   a zero-padded stack buffer. Up to kScalarGroups wider groups a row, and the last width mod 32
//   pixels, take the scalar definition; one more returns false: warp.cc gives the row to the
//   generic kernel.
// Cost per 32 pixels and channel: 8 loads, 8 vpshufb, 6 vpblendvb and the int16 arithmetic; M, the
//   spread check, the index and the masks once per 32 pixels for up to kGroup channels.
// The window in detail and the measurements: docs/ops/warp.md, "AVX2 window kernel".
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX2)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ops/warp/warp.h"

namespace vlak {
namespace {

constexpr int kSpread = 47;    // n >= M - kSpread in every group of 32 pixels (M: the group's max n)
constexpr size_t kBlock = 1024;
constexpr size_t kPre = 160;   // >= 128 + 2: a window starts up to M + 2 <= 129 columns left of its pixel
constexpr size_t kPost = 224;  // chunk loads end <= 128 + 48 + 32 columns right of a vector's start
constexpr size_t kScalarGroups = 4;  // groups of 32 pixels wider than kSpread per call, in scalar code
constexpr size_t kGroup = 4;  // channels sharing one pass over an offsets row (stack: 4 row buffers)

// Lanes of the max of a and b, across all 16 int16 lanes, in every lane.
inline __m256i MaxAcross(__m256i a, __m256i b) {
  __m256i m = _mm256_max_epi16(a, b);
  m = _mm256_max_epi16(m, _mm256_permute2x128_si256(m, m, 1));
  m = _mm256_max_epi16(m, _mm256_shuffle_epi32(m, 0x4E));
  m = _mm256_max_epi16(m, _mm256_shuffle_epi32(m, 0xB1));
  return _mm256_max_epi16(m, _mm256_shufflelo_epi16(_mm256_shufflehi_epi16(m, 0xB1), 0xB1));
}

// Whether the 32 pixels of n0, n1 spread over more than kSpread columns; *top = their max in
// every lane.
inline bool Wide(__m256i n0, __m256i n1, __m256i* top) {
  const __m256i spread = _mm256_set1_epi16(kSpread);
  *top = MaxAcross(n0, n1);
  const __m256i wide = _mm256_or_si256(_mm256_cmpgt_epi16(_mm256_sub_epi16(*top, n0), spread),
                                       _mm256_cmpgt_epi16(_mm256_sub_epi16(*top, n1), spread));
  return !_mm256_testz_si256(wide, wide);
}

// Wide for the 32 offsets at off.
inline bool WideAt(const int16_t* off) {
  const __m256i n0 = _mm256_srai_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(off)), 8);
  const __m256i n1 = _mm256_srai_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + 16)), 8);
  __m256i top;
  return Wide(n0, n1, &top);
}

// Whether more than kScalarGroups of the groups starting at columns from, from + 32, ... (whole
// groups only) are wide.
bool TooManyWide(const int16_t* off, size_t from, size_t width) {
  size_t count = 0;
  for (size_t g = from; g + 32 <= width; g += 32) {
    if (WideAt(off + g) && ++count > kScalarGroups) return true;
  }
  return false;
}

// The definition for pixel w (the row's last pixels).
int8_t WarpPixel(const int8_t* row, size_t width, int16_t o, size_t w) {
  const int n = o >> 8;
  const int f = static_cast<int8_t>(o & 0xFF);
  const long r = static_cast<long>(w) - n, l = r - 1;
  const int right = r >= 0 && r < static_cast<long>(width) ? row[r] : 0;
  const int left = l >= 0 && l < static_cast<long>(width) ? row[l] : 0;
  return static_cast<int8_t>(static_cast<uint16_t>(right * 256 + (left - right) * f) >> 8);
}

// The byte of window position idx (0..63) per lane: chunks c[k] hold positions 16 k .. 16 k + 15.
inline __m256i Lookup64(const __m256i c[4], __m256i idx, __m256i bit4, __m256i bit5) {
  const __m256i v01 = _mm256_blendv_epi8(_mm256_shuffle_epi8(c[0], idx), _mm256_shuffle_epi8(c[1], idx), bit4);
  const __m256i v23 = _mm256_blendv_epi8(_mm256_shuffle_epi8(c[2], idx), _mm256_shuffle_epi8(c[3], idx), bit4);
  return _mm256_blendv_epi8(v01, v23, bit5);
}

}  // namespace

bool WarpRowsI8Avx2Window(const int8_t* src, int8_t* dst, size_t channels, size_t plane, const int16_t* off,
                          size_t width) {
  alignas(32) int8_t buf[kGroup][kPre + kBlock + kPost];
  const __m256i lane_q = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m256i one = _mm256_set1_epi16(1);
  bool counted = false;  // the row's wide groups are at most kScalarGroups
  if (width >= 32 && WideAt(off)) {
    // A field without coherence is wide at once: give it up before copying any row.
    if (TooManyWide(off, 0, width)) return false;
    counted = true;
  }
  for (size_t c0 = 0; c0 < channels; c0 += kGroup) {
    const size_t nc = std::min(kGroup, channels - c0);
    for (size_t w0 = 0; w0 < width; w0 += kBlock) {
      const size_t columns = std::min(kBlock, width - w0);
      // buf[k][p] = row k of the group at column w0 - kPre + p, 0 outside the row.
      const size_t first = w0 >= kPre ? 0 : kPre - w0;
      const size_t last = std::min(kPre + kBlock + kPost, width + kPre - w0);
      for (size_t k = 0; k < nc; ++k) {
        std::memset(buf[k], 0, first);
        std::memcpy(buf[k] + first, src + (c0 + k) * plane + w0 + first - kPre, last - first);
        std::memset(buf[k] + last, 0, kPre + kBlock + kPost - last);
      }
      size_t j = 0;
      for (; j + 32 <= columns; j += 32) {
        // Per 32 pixels, shared by the group's channels: the window index of R per pixel
        // (1..63, bytes in pixel order), its chunk-select bits and the weights f.
        const __m256i o0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + w0 + j));
        const __m256i o1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + w0 + j + 16));
        const __m256i n0 = _mm256_srai_epi16(o0, 8), n1 = _mm256_srai_epi16(o1, 8);
        __m256i top;  // M in every lane
        if (Wide(n0, n1, &top)) {
          // A motion boundary, say: a few such groups per row take the definition in scalar code
          // (about 10 cycles a pixel). At the row's first one, the rest of the row is counted:
          // beyond kScalarGroups the whole row gathers (the caller redoes it), which is cheaper
          // for fields without coherence.
          if (!counted) {
            if (TooManyWide(off, w0 + j, width)) return false;
            counted = true;
          }
          for (size_t k = 0; k < nc; ++k) {
            const int8_t* row = src + (c0 + k) * plane;
            for (size_t p = j; p < j + 32; ++p) dst[(c0 + k) * plane + w0 + p] = WarpPixel(row, width, off[w0 + p], w0 + p);
          }
          continue;
        }
        const __m256i back = _mm256_add_epi16(top, one);     // M + 1
        const __m256i i0 = _mm256_sub_epi16(_mm256_add_epi16(lane_q, back), n0);
        const __m256i i1 = _mm256_sub_epi16(_mm256_add_epi16(lane_q, back), n1);
        const long m1 = static_cast<int16_t>(_mm256_extract_epi16(back, 0));
        const __m256i idx = _mm256_permute4x64_epi64(_mm256_packus_epi16(i0, i1), 0xD8);
        const __m256i bit4 = _mm256_slli_epi16(idx, 3), bit5 = _mm256_slli_epi16(idx, 2);
        const __m256i f0 = _mm256_srai_epi16(_mm256_slli_epi16(o0, 8), 8);
        const __m256i f1 = _mm256_srai_epi16(_mm256_slli_epi16(o1, 8), 8);
        for (size_t k = 0; k < nc; ++k) {
          const int8_t* win = buf[k] + kPre + j - m1;  // lane 0's window; lane 1's is 16 further
          __m256i cr[4], cl[4];
          for (int t = 0; t < 4; ++t) {
            cr[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(win + 16 * t));
            cl[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(win + 16 * t - 1));
          }
          const __m256i r8 = Lookup64(cr, idx, bit4, bit5);
          const __m256i l8 = Lookup64(cl, idx, bit4, bit5);
          // bits 8..15 of R * 256 + (L - R) * f in int16 lanes, pixels 0..15 and 16..31.
          const __m256i r0 = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(r8));
          const __m256i r1 = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(r8, 1));
          const __m256i l0 = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(l8));
          const __m256i l1 = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(l8, 1));
          const __m256i s0 = _mm256_add_epi16(_mm256_mullo_epi16(_mm256_sub_epi16(l0, r0), f0), _mm256_slli_epi16(r0, 8));
          const __m256i s1 = _mm256_add_epi16(_mm256_mullo_epi16(_mm256_sub_epi16(l1, r1), f1), _mm256_slli_epi16(r1, 8));
          const __m256i bytes =
              _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_srli_epi16(s0, 8), _mm256_srli_epi16(s1, 8)), 0xD8);
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + (c0 + k) * plane + w0 + j), bytes);
        }
      }
      for (size_t k = 0; k < nc; ++k) {
        const int8_t* row = src + (c0 + k) * plane;
        for (size_t p = j; p < columns; ++p) dst[(c0 + k) * plane + w0 + p] = WarpPixel(row, width, off[w0 + p], w0 + p);
      }
    }
  }
  return true;
}

}  // namespace vlak

#endif
