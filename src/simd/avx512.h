// vlak vector layer, AVX-512 target (F, BW, DQ, VL; no VBMI).
//
// A group of 2^kPow2 zmm registers; a mask is one k-register value per register (__mmask64 for
// bytes down to __mmask8 for 64-bit lanes). Lane i of a group lives in register i / L, lane
// i % L, with L = 64 / sizeof(T). Semantics are scalar.h's; comments here explain only where
// the hardware differs from the contract and how that is fixed up. Besides the contract's eight
// lane types, int64_t/uint64_t lanes work for the integer ops (what BitCast of f64 gives).
//
// Strip tags (SimdN) turn every memory access into a masked one: AVX-512 masked loads and
// stores suppress faults on masked-off lanes, so a strip never touches memory at or beyond n.
// Registers of a strip that hold no active lane are not accessed at all.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "tags.h"

// Everything is force-inlined: a group is up to 8 zmm registers (512 bytes), and an out-of-line
// call would pass and return it through memory.
#define VLAK_AVX512_API inline __attribute__((always_inline))

namespace vlak::VLAK_NS {
using namespace ::vlak::simd;

inline constexpr size_t kRegisterBytes = 64;
inline constexpr size_t kAlignment = 64;

}  // namespace vlak::VLAK_NS
#include "fixed_lanes.h"
namespace vlak::VLAK_NS {

namespace detail {
// Specializations rather than std::conditional_t: GCC drops the vector types' attributes when
// they are passed as template arguments (-Wignored-attributes).
template <typename T>
struct RawOf { using type = __m512i; };
template <>
struct RawOf<float> { using type = __m512; };
template <>
struct RawOf<double> { using type = __m512d; };
template <typename T>
using Raw = typename RawOf<T>::type;
template <typename T>
using RawMask = std::conditional_t<sizeof(T) == 1, __mmask64,
                std::conditional_t<sizeof(T) == 2, __mmask32,
                std::conditional_t<sizeof(T) == 4, __mmask16, __mmask8>>>;
template <typename T>
inline constexpr size_t kRegLanes = kRegisterBytes / sizeof(T);
template <typename T>
constexpr bool IsFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr bool IsSigned = std::is_signed_v<T>;
}  // namespace detail

template <typename T, int kPow2>
struct Vec {
  static constexpr int kRegs = 1 << kPow2;
  static constexpr size_t N = detail::kRegLanes<T> << kPow2;
  detail::Raw<T> raw[kRegs];
};
template <typename T, int kPow2>
struct Mask {
  static constexpr int kRegs = 1 << kPow2;
  static constexpr size_t N = detail::kRegLanes<T> << kPow2;
  detail::RawMask<T> raw[kRegs];
};

template <class D>
using VFromD = Vec<TFromD<D>, Pow2FromD<D>>;
template <class D>
using MFromD = Mask<TFromD<D>, Pow2FromD<D>>;

// ------------------------------------------------------------------- per-register primitives
namespace detail {

// Calls f(std::integral_constant<int, i>) for i in [0, N): for intrinsics that need an
// immediate derived from the register index.
template <class F, int... I>
VLAK_AVX512_API void ForImpl(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
VLAK_AVX512_API void For(F&& f) {
  ForImpl(f, std::make_integer_sequence<int, N>{});
}

template <typename T>
VLAK_AVX512_API __m512i ToBits(Raw<T> v) {
  if constexpr (std::is_same_v<T, float>) return _mm512_castps_si512(v);
  else if constexpr (std::is_same_v<T, double>) return _mm512_castpd_si512(v);
  else return v;
}
template <typename T>
VLAK_AVX512_API Raw<T> FromBits(__m512i v) {
  if constexpr (std::is_same_v<T, float>) return _mm512_castsi512_ps(v);
  else if constexpr (std::is_same_v<T, double>) return _mm512_castsi512_pd(v);
  else return v;
}

template <typename T>
constexpr RawMask<T> kAllLanes = static_cast<RawMask<T>>(~0ull);

// Lanes [0, n) of the group, restricted to register j; any size_t n. A full register returns
// before the shift: 1ull << 64 (64 byte lanes) would be undefined.
template <typename T>
VLAK_AVX512_API RawMask<T> FirstNRaw(size_t n, int j) {
  constexpr size_t L = kRegLanes<T>;
  const size_t base = static_cast<size_t>(j) * L;
  if (n <= base) return 0;
  const size_t c = n - base;
  if (c >= L) return kAllLanes<T>;
  return static_cast<RawMask<T>>((1ull << c) - 1);
}
// Active lanes of register j: all of them for a whole group.
template <class D>
VLAK_AVX512_API RawMask<TFromD<D>> Active(D d, int j) {
  if constexpr (D::kIsStrip) return FirstNRaw<TFromD<D>>(d.n, j);
  else { (void)d; (void)j; return kAllLanes<TFromD<D>>; }
}

template <typename T>
VLAK_AVX512_API Raw<T> RZero() { return FromBits<T>(_mm512_setzero_si512()); }

template <typename T>
VLAK_AVX512_API Raw<T> RSet(T x) {
  if constexpr (std::is_same_v<T, float>) return _mm512_set1_ps(x);
  else if constexpr (std::is_same_v<T, double>) return _mm512_set1_pd(x);
  else if constexpr (sizeof(T) == 1) return _mm512_set1_epi8(static_cast<char>(x));
  else if constexpr (sizeof(T) == 2) return _mm512_set1_epi16(static_cast<short>(x));
  else if constexpr (sizeof(T) == 4) return _mm512_set1_epi32(static_cast<int>(x));
  else return _mm512_set1_epi64(static_cast<long long>(x));
}

template <typename T>
VLAK_AVX512_API Raw<T> RLoadU(const T* p) {
  if constexpr (std::is_same_v<T, float>) return _mm512_loadu_ps(p);
  else if constexpr (std::is_same_v<T, double>) return _mm512_loadu_pd(p);
  else return _mm512_loadu_si512(p);
}
template <typename T>
VLAK_AVX512_API Raw<T> RMaskzLoadU(RawMask<T> k, const T* p) {
  if constexpr (std::is_same_v<T, float>) return _mm512_maskz_loadu_ps(k, p);
  else if constexpr (std::is_same_v<T, double>) return _mm512_maskz_loadu_pd(k, p);
  else if constexpr (sizeof(T) == 1) return _mm512_maskz_loadu_epi8(k, p);
  else if constexpr (sizeof(T) == 2) return _mm512_maskz_loadu_epi16(k, p);
  else if constexpr (sizeof(T) == 4) return _mm512_maskz_loadu_epi32(k, p);
  else return _mm512_maskz_loadu_epi64(k, p);
}
template <typename T>
VLAK_AVX512_API void RStoreU(Raw<T> v, T* p) {
  if constexpr (std::is_same_v<T, float>) _mm512_storeu_ps(p, v);
  else if constexpr (std::is_same_v<T, double>) _mm512_storeu_pd(p, v);
  else _mm512_storeu_si512(p, v);
}
template <typename T>
VLAK_AVX512_API void RMaskStoreU(RawMask<T> k, Raw<T> v, T* p) {
  if constexpr (std::is_same_v<T, float>) _mm512_mask_storeu_ps(p, k, v);
  else if constexpr (std::is_same_v<T, double>) _mm512_mask_storeu_pd(p, k, v);
  else if constexpr (sizeof(T) == 1) _mm512_mask_storeu_epi8(p, k, v);
  else if constexpr (sizeof(T) == 2) _mm512_mask_storeu_epi16(p, k, v);
  else if constexpr (sizeof(T) == 4) _mm512_mask_storeu_epi32(p, k, v);
  else _mm512_mask_storeu_epi64(p, k, v);
}

// Lanes where k is set come from yes, the others from no.
template <typename T>
VLAK_AVX512_API Raw<T> RBlend(RawMask<T> k, Raw<T> no, Raw<T> yes) {
  if constexpr (std::is_same_v<T, float>) return _mm512_mask_blend_ps(k, no, yes);
  else if constexpr (std::is_same_v<T, double>) return _mm512_mask_blend_pd(k, no, yes);
  else if constexpr (sizeof(T) == 1) return _mm512_mask_blend_epi8(k, no, yes);
  else if constexpr (sizeof(T) == 2) return _mm512_mask_blend_epi16(k, no, yes);
  else if constexpr (sizeof(T) == 4) return _mm512_mask_blend_epi32(k, no, yes);
  else return _mm512_mask_blend_epi64(k, no, yes);
}
template <typename T>
VLAK_AVX512_API Raw<T> RMaskz(RawMask<T> k, Raw<T> v) {
  if constexpr (std::is_same_v<T, float>) return _mm512_maskz_mov_ps(k, v);
  else if constexpr (std::is_same_v<T, double>) return _mm512_maskz_mov_pd(k, v);
  else if constexpr (sizeof(T) == 1) return _mm512_maskz_mov_epi8(k, v);
  else if constexpr (sizeof(T) == 2) return _mm512_maskz_mov_epi16(k, v);
  else if constexpr (sizeof(T) == 4) return _mm512_maskz_mov_epi32(k, v);
  else return _mm512_maskz_mov_epi64(k, v);
}

template <typename T>
VLAK_AVX512_API Raw<T> RAdd(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm512_add_ps(a, b);
  else if constexpr (std::is_same_v<T, double>) return _mm512_add_pd(a, b);
  else if constexpr (sizeof(T) == 1) return _mm512_add_epi8(a, b);
  else if constexpr (sizeof(T) == 2) return _mm512_add_epi16(a, b);
  else if constexpr (sizeof(T) == 4) return _mm512_add_epi32(a, b);
  else return _mm512_add_epi64(a, b);
}
template <typename T>
VLAK_AVX512_API Raw<T> RSub(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm512_sub_ps(a, b);
  else if constexpr (std::is_same_v<T, double>) return _mm512_sub_pd(a, b);
  else if constexpr (sizeof(T) == 1) return _mm512_sub_epi8(a, b);
  else if constexpr (sizeof(T) == 2) return _mm512_sub_epi16(a, b);
  else if constexpr (sizeof(T) == 4) return _mm512_sub_epi32(a, b);
  else return _mm512_sub_epi64(a, b);
}
template <typename T>
VLAK_AVX512_API Raw<T> RMul(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm512_mul_ps(a, b);
  else if constexpr (std::is_same_v<T, double>) return _mm512_mul_pd(a, b);
  else if constexpr (sizeof(T) == 1) {
    // No byte multiply: the low byte of a 16-bit product is the product of the low bytes, and
    // a_hi * (b_hi << 8) puts the product of the high bytes in the high byte.
    const __m512i even = _mm512_mullo_epi16(a, b);
    const __m512i odd = _mm512_mullo_epi16(_mm512_srli_epi16(a, 8),
                                           _mm512_andnot_si512(_mm512_set1_epi16(0x00FF), b));
    return _mm512_mask_blend_epi8(0xAAAAAAAAAAAAAAAAull, even, odd);
  } else if constexpr (sizeof(T) == 2) return _mm512_mullo_epi16(a, b);
  else if constexpr (sizeof(T) == 4) return _mm512_mullo_epi32(a, b);
  else return _mm512_mullo_epi64(a, b);
}

// IEEE minimumNumber: x86 min returns its second operand when either is NaN, so where b is NaN
// take a (which is then the answer, or NaN if both are).
template <typename T>
VLAK_AVX512_API Raw<T> RMin(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_mask_mov_ps(_mm512_min_ps(a, b), _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q), a);
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm512_mask_mov_pd(_mm512_min_pd(a, b), _mm512_cmp_pd_mask(b, b, _CMP_UNORD_Q), a);
  } else if constexpr (sizeof(T) == 1) {
    return IsSigned<T> ? _mm512_min_epi8(a, b) : _mm512_min_epu8(a, b);
  } else if constexpr (sizeof(T) == 2) {
    return IsSigned<T> ? _mm512_min_epi16(a, b) : _mm512_min_epu16(a, b);
  } else if constexpr (sizeof(T) == 4) {
    return IsSigned<T> ? _mm512_min_epi32(a, b) : _mm512_min_epu32(a, b);
  } else {
    return IsSigned<T> ? _mm512_min_epi64(a, b) : _mm512_min_epu64(a, b);
  }
}
template <typename T>
VLAK_AVX512_API Raw<T> RMax(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_mask_mov_ps(_mm512_max_ps(a, b), _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q), a);
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm512_mask_mov_pd(_mm512_max_pd(a, b), _mm512_cmp_pd_mask(b, b, _CMP_UNORD_Q), a);
  } else if constexpr (sizeof(T) == 1) {
    return IsSigned<T> ? _mm512_max_epi8(a, b) : _mm512_max_epu8(a, b);
  } else if constexpr (sizeof(T) == 2) {
    return IsSigned<T> ? _mm512_max_epi16(a, b) : _mm512_max_epu16(a, b);
  } else if constexpr (sizeof(T) == 4) {
    return IsSigned<T> ? _mm512_max_epi32(a, b) : _mm512_max_epu32(a, b);
  } else {
    return IsSigned<T> ? _mm512_max_epi64(a, b) : _mm512_max_epu64(a, b);
  }
}

// Integer ordered compare, kPred one of _MM_CMPINT_*.
template <typename T, int kPred>
VLAK_AVX512_API RawMask<T> RCmpInt(__m512i a, __m512i b) {
  if constexpr (sizeof(T) == 1) {
    if constexpr (IsSigned<T>) return _mm512_cmp_epi8_mask(a, b, kPred);
    else return _mm512_cmp_epu8_mask(a, b, kPred);
  } else if constexpr (sizeof(T) == 2) {
    if constexpr (IsSigned<T>) return _mm512_cmp_epi16_mask(a, b, kPred);
    else return _mm512_cmp_epu16_mask(a, b, kPred);
  } else if constexpr (sizeof(T) == 4) {
    if constexpr (IsSigned<T>) return _mm512_cmp_epi32_mask(a, b, kPred);
    else return _mm512_cmp_epu32_mask(a, b, kPred);
  } else {
    if constexpr (IsSigned<T>) return _mm512_cmp_epi64_mask(a, b, kPred);
    else return _mm512_cmp_epu64_mask(a, b, kPred);
  }
}
// kFloat is a _CMP_* predicate, kInt the matching _MM_CMPINT_* one.
template <typename T, int kFloat, int kInt>
VLAK_AVX512_API RawMask<T> RCmp(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm512_cmp_ps_mask(a, b, kFloat);
  else if constexpr (std::is_same_v<T, double>) return _mm512_cmp_pd_mask(a, b, kFloat);
  else return RCmpInt<T, kInt>(a, b);
}

// Bytes have no shifts: shift 16-bit words and mask off what crossed into the other byte.
template <int kBits, typename T>
VLAK_AVX512_API __m512i RShiftLeft(__m512i a) {
  if constexpr (kBits == 0) return a;
  else if constexpr (sizeof(T) == 1) {
    return _mm512_and_si512(_mm512_slli_epi16(a, kBits),
                            _mm512_set1_epi8(static_cast<char>((0xFF << kBits) & 0xFF)));
  } else if constexpr (sizeof(T) == 2) return _mm512_slli_epi16(a, kBits);
  else if constexpr (sizeof(T) == 4) return _mm512_slli_epi32(a, kBits);
  else return _mm512_slli_epi64(a, kBits);
}
template <int kBits, typename T>
VLAK_AVX512_API __m512i RShiftRight(__m512i a) {
  if constexpr (kBits == 0) return a;
  else if constexpr (sizeof(T) == 1) {
    const __m512i logical = _mm512_and_si512(_mm512_srli_epi16(a, kBits),
                                             _mm512_set1_epi8(static_cast<char>(0xFF >> kBits)));
    if constexpr (!IsSigned<T>) return logical;
    // Sign-extend from bit 7 - kBits: (x ^ s) - s with s that bit.
    const __m512i s = _mm512_set1_epi8(static_cast<char>(0x80 >> kBits));
    return _mm512_sub_epi8(_mm512_xor_si512(logical, s), s);
  } else if constexpr (sizeof(T) == 2) {
    return IsSigned<T> ? _mm512_srai_epi16(a, kBits) : _mm512_srli_epi16(a, kBits);
  } else if constexpr (sizeof(T) == 4) {
    return IsSigned<T> ? _mm512_srai_epi32(a, kBits) : _mm512_srli_epi32(a, kBits);
  } else {
    return IsSigned<T> ? _mm512_srai_epi64(a, kBits) : _mm512_srli_epi64(a, kBits);
  }
}
// Per-lane counts. Bytes: even bytes are shifted as the low half of a 16-bit word, odd bytes as
// the high half, each with its own count, and the halves recombined.
inline constexpr __mmask64 kOddBytes = 0xAAAAAAAAAAAAAAAAull;
template <typename T>
VLAK_AVX512_API __m512i RShl(__m512i a, __m512i c) {
  if constexpr (sizeof(T) == 1) {
    const __m512i lo8 = _mm512_set1_epi16(0x00FF);
    const __m512i even = _mm512_sllv_epi16(a, _mm512_and_si512(c, lo8));
    const __m512i odd = _mm512_sllv_epi16(_mm512_andnot_si512(lo8, a), _mm512_srli_epi16(c, 8));
    return _mm512_mask_blend_epi8(kOddBytes, even, odd);
  } else if constexpr (sizeof(T) == 2) return _mm512_sllv_epi16(a, c);
  else if constexpr (sizeof(T) == 4) return _mm512_sllv_epi32(a, c);
  else return _mm512_sllv_epi64(a, c);
}
template <typename T>
VLAK_AVX512_API __m512i RShr(__m512i a, __m512i c) {
  if constexpr (sizeof(T) == 1) {
    const __m512i lo8 = _mm512_set1_epi16(0x00FF);
    const __m512i c_even = _mm512_and_si512(c, lo8);
    const __m512i c_odd = _mm512_srli_epi16(c, 8);
    __m512i even, odd;
    if constexpr (IsSigned<T>) {
      // Move the even byte to the top of the word so the arithmetic shift sees its sign.
      even = _mm512_srav_epi16(_mm512_slli_epi16(a, 8), _mm512_add_epi16(c_even, _mm512_set1_epi16(8)));
      odd = _mm512_srav_epi16(a, c_odd);
    } else {
      even = _mm512_srlv_epi16(_mm512_and_si512(a, lo8), c_even);
      odd = _mm512_srlv_epi16(a, c_odd);
    }
    return _mm512_mask_blend_epi8(kOddBytes, even, odd);
  } else if constexpr (sizeof(T) == 2) {
    return IsSigned<T> ? _mm512_srav_epi16(a, c) : _mm512_srlv_epi16(a, c);
  } else if constexpr (sizeof(T) == 4) {
    return IsSigned<T> ? _mm512_srav_epi32(a, c) : _mm512_srlv_epi32(a, c);
  } else {
    return IsSigned<T> ? _mm512_srav_epi64(a, c) : _mm512_srlv_epi64(a, c);
  }
}

// Combine all lanes of one register with op (associative, commutative): halve the width
// log2(L) times; lane 0 ends up holding the result.
template <typename T, class Op>
VLAK_AVX512_API T RReduce(Raw<T> x, Op op) {
  auto step = [&](__m512i y) { x = op(x, FromBits<T>(y)); };
  step(_mm512_shuffle_i64x2(ToBits<T>(x), ToBits<T>(x), _MM_SHUFFLE(1, 0, 3, 2)));
  step(_mm512_shuffle_i64x2(ToBits<T>(x), ToBits<T>(x), _MM_SHUFFLE(2, 3, 0, 1)));
  step(_mm512_shuffle_epi32(ToBits<T>(x), static_cast<_MM_PERM_ENUM>(_MM_SHUFFLE(1, 0, 3, 2))));
  if constexpr (sizeof(T) <= 4) {
    step(_mm512_shuffle_epi32(ToBits<T>(x), static_cast<_MM_PERM_ENUM>(_MM_SHUFFLE(2, 3, 0, 1))));
  }
  if constexpr (sizeof(T) <= 2) step(_mm512_srli_epi32(ToBits<T>(x), 16));
  if constexpr (sizeof(T) == 1) step(_mm512_srli_epi16(ToBits<T>(x), 8));
  if constexpr (std::is_same_v<T, float>) return _mm512_cvtss_f32(x);
  else if constexpr (std::is_same_v<T, double>) return _mm512_cvtsd_f64(x);
  else if constexpr (sizeof(T) == 8) return static_cast<T>(_mm_cvtsi128_si64(_mm512_castsi512_si128(x)));
  else return static_cast<T>(_mm_cvtsi128_si32(_mm512_castsi512_si128(x)));
}

// Registers of d that hold at least one active lane (all of them for a whole group).
template <class D>
VLAK_AVX512_API bool RegActive(D d, int j) {
  if constexpr (D::kIsStrip) return d.n > static_cast<size_t>(j) * kRegLanes<TFromD<D>>;
  else { (void)d; (void)j; return true; }
}

}  // namespace detail

// ---------------------------------------------------------------------------------- creation
template <class D>
VLAK_AVX512_API VFromD<D> Zero(D) {
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = detail::RZero<TFromD<D>>();
  return r;
}

template <class D>
VLAK_AVX512_API VFromD<D> Set(D, TFromD<D> x) {
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = detail::RSet<TFromD<D>>(x);
  return r;
}

// Lane i = first + i (wrapping for integers).
template <class D>
VLAK_AVX512_API VFromD<D> Iota(D, TFromD<D> first) {
  using T = TFromD<D>;
  using Bits = typename std::conditional_t<detail::IsFloat<T>, std::type_identity<T>, std::make_unsigned<T>>::type;
  constexpr size_t L = detail::kRegLanes<T>;
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) {
    alignas(64) T offsets[L];
    for (size_t i = 0; i < L; ++i) offsets[i] = static_cast<T>(static_cast<Bits>(j * L + i));
    r.raw[j] = detail::RAdd<T>(detail::RSet<T>(first), detail::RLoadU<T>(offsets));
  }
  return r;
}

template <class D>
VLAK_AVX512_API TFromD<D> GetLane(D, const VFromD<D>& v) {
  using T = TFromD<D>;
  if constexpr (std::is_same_v<T, float>) return _mm512_cvtss_f32(v.raw[0]);
  else if constexpr (std::is_same_v<T, double>) return _mm512_cvtsd_f64(v.raw[0]);
  else if constexpr (sizeof(T) == 8) return static_cast<T>(_mm_cvtsi128_si64(_mm512_castsi512_si128(v.raw[0])));
  else return static_cast<T>(_mm_cvtsi128_si32(_mm512_castsi512_si128(v.raw[0])));
}

// ------------------------------------------------------------------------------------ memory
// Load does not require more alignment than LoadU: unaligned zmm loads cost the same on
// aligned data, and the contract's 64-byte alignment is then a promise we need not check.
template <class D>
VLAK_AVX512_API VFromD<D> LoadU(D d, const TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) {
    if constexpr (D::kIsStrip) {
      r.raw[j] = detail::RegActive(d, j) ? detail::RMaskzLoadU<T>(detail::Active(d, j), p + j * L)
                                          : detail::RZero<T>();
    } else {
      r.raw[j] = detail::RLoadU<T>(p + j * L);
    }
  }
  return r;
}
template <class D>
VLAK_AVX512_API VFromD<D> Load(D d, const TFromD<D>* p) { return LoadU(d, p); }

template <class D>
VLAK_AVX512_API void StoreU(D d, const VFromD<D>& v, TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  for (int j = 0; j < v.kRegs; ++j) {
    if constexpr (D::kIsStrip) {
      if (detail::RegActive(d, j)) detail::RMaskStoreU<T>(detail::Active(d, j), v.raw[j], p + j * L);
    } else {
      detail::RStoreU<T>(v.raw[j], p + j * L);
    }
  }
}
template <class D>
VLAK_AVX512_API void Store(D d, const VFromD<D>& v, TFromD<D>* p) { StoreU(d, v, p); }
// Non-temporal (vmovntps/pd/dq) for whole groups; a strip is a masked store (there is no masked
// non-temporal store).
template <class D>
VLAK_AVX512_API void Stream(D d, const VFromD<D>& v, TFromD<D>* p) {
  using T = TFromD<D>;
  if constexpr (D::kIsStrip) {
    StoreU(d, v, p);
  } else {
    for (int j = 0; j < v.kRegs; ++j) {
      T* q = p + j * detail::kRegLanes<T>;
      if constexpr (std::is_same_v<T, float>) _mm512_stream_ps(q, v.raw[j]);
      else if constexpr (std::is_same_v<T, double>) _mm512_stream_pd(q, v.raw[j]);
      else _mm512_stream_si512(reinterpret_cast<__m512i*>(q), v.raw[j]);
    }
  }
}
inline void StreamFence() { _mm_sfence(); }

// First min(n, Lanes(d)) lanes from p, the rest zero; nothing beyond them is read.
template <class D>
VLAK_AVX512_API VFromD<D> LoadN(D d, const TFromD<D>* p, size_t n) {
  return LoadU(SimdN<TFromD<D>, Pow2FromD<D>>{n < Lanes(d) ? n : Lanes(d)}, p);
}
template <class D>
VLAK_AVX512_API void StoreN(D d, const VFromD<D>& v, TFromD<D>* p, size_t n) {
  StoreU(SimdN<TFromD<D>, Pow2FromD<D>>{n < Lanes(d) ? n : Lanes(d)}, v, p);
}

// Masked-off lanes are neither read nor written (AVX-512 suppresses their faults).
template <class D>
VLAK_AVX512_API VFromD<D> MaskedLoad(D d, const MFromD<D>& m, const TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) {
    r.raw[j] = detail::RMaskzLoadU<T>(static_cast<detail::RawMask<T>>(m.raw[j] & detail::Active(d, j)), p + j * L);
  }
  return r;
}
template <class D>
VLAK_AVX512_API void MaskedStore(D d, const MFromD<D>& m, const VFromD<D>& v, TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  for (int j = 0; j < v.kRegs; ++j) {
    detail::RMaskStoreU<T>(static_cast<detail::RawMask<T>>(m.raw[j] & detail::Active(d, j)), v.raw[j], p + j * L);
  }
}

namespace detail {
// Strided access is a gather/scatter with 32-bit lane offsets i * stride (per register, from
// that register's first element), which needs the largest offset to fit in int32.
template <typename T>
VLAK_AVX512_API bool StrideFitsGather(ptrdiff_t stride) {
  constexpr ptrdiff_t kMax = std::numeric_limits<int32_t>::max() / static_cast<ptrdiff_t>(kRegLanes<T> - 1);
  return (sizeof(T) == 4 || sizeof(T) == 8) && stride <= kMax && stride >= -kMax;
}
// 32-bit offsets 0, stride, 2 * stride, ... for one register's lanes.
template <typename T>
VLAK_AVX512_API __m512i StrideOffsets(ptrdiff_t stride) {
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm512_mullo_epi32(iota, _mm512_set1_epi32(static_cast<int32_t>(stride)));
}
template <typename T>
VLAK_AVX512_API Raw<T> RGather(RawMask<T> k, const T* base, __m512i idx) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), k, idx, base, 4);
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), k, _mm512_castsi512_si256(idx), base, 8);
  } else if constexpr (sizeof(T) == 4) {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), k, idx, base, 4);
  } else {
    static_assert(sizeof(T) == 8);
    return _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), k, _mm512_castsi512_si256(idx), base, 8);
  }
}
template <typename T>
VLAK_AVX512_API void RScatter(RawMask<T> k, Raw<T> v, T* base, __m512i idx) {
  if constexpr (std::is_same_v<T, float>) {
    _mm512_mask_i32scatter_ps(base, k, idx, v, 4);
  } else if constexpr (std::is_same_v<T, double>) {
    _mm512_mask_i32scatter_pd(base, k, _mm512_castsi512_si256(idx), v, 8);
  } else if constexpr (sizeof(T) == 4) {
    _mm512_mask_i32scatter_epi32(base, k, idx, v, 4);
  } else {
    static_assert(sizeof(T) == 8);
    _mm512_mask_i32scatter_epi64(base, k, _mm512_castsi512_si256(idx), v, 8);
  }
}
}  // namespace detail

// Lane i = p[i * stride]; stride in elements, may be zero or negative.
template <class D>
VLAK_AVX512_API VFromD<D> LoadStrided(D d, const TFromD<D>* p, ptrdiff_t stride) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  VFromD<D> r;
  if constexpr (sizeof(T) >= 4) {
    if (detail::StrideFitsGather<T>(stride)) {
      const __m512i idx = detail::StrideOffsets<T>(stride);
      for (int j = 0; j < r.kRegs; ++j) {
        r.raw[j] = detail::RegActive(d, j)
                       ? detail::RGather<T>(detail::Active(d, j), p + static_cast<ptrdiff_t>(j * L) * stride, idx)
                       : detail::RZero<T>();
      }
      return r;
    }
  }
  // 8/16-bit lanes (no gather; a wider gather could read past the last element) or offsets
  // beyond int32: one element at a time.
  alignas(64) T buf[VFromD<D>::N];
  const size_t n = Lanes(d);
  for (size_t i = 0; i < n; ++i) buf[i] = p[static_cast<ptrdiff_t>(i) * stride];
  for (size_t i = n; i < VFromD<D>::N; ++i) buf[i] = T{0};
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = detail::RLoadU<T>(buf + j * L);
  return r;
}
// Lanes that land on the same address are written in lane order (the last one wins), as in
// scalar.h. Stride 0 stores the last active lane alone (rather than scattering every lane to one
// address, which the ordering rule of scatters would also get right, one write per lane).
template <class D>
VLAK_AVX512_API void StoreStrided(D d, const VFromD<D>& v, TFromD<D>* p, ptrdiff_t stride) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  if (stride == 0) {
    const size_t n = Lanes(d);
    if (n != 0) {
      alignas(64) T reg[L];
      detail::RStoreU<T>(v.raw[(n - 1) / L], reg);
      *p = reg[(n - 1) % L];
    }
    return;
  }
  if constexpr (sizeof(T) >= 4) {
    if (detail::StrideFitsGather<T>(stride)) {
      const __m512i idx = detail::StrideOffsets<T>(stride);
      for (int j = 0; j < v.kRegs; ++j) {
        if (detail::RegActive(d, j)) {
          detail::RScatter<T>(detail::Active(d, j), v.raw[j], p + static_cast<ptrdiff_t>(j * L) * stride, idx);
        }
      }
      return;
    }
  }
  alignas(64) T buf[VFromD<D>::N];
  for (int j = 0; j < v.kRegs; ++j) detail::RStoreU<T>(v.raw[j], buf + j * L);
  const size_t n = Lanes(d);
  for (size_t i = 0; i < n; ++i) p[static_cast<ptrdiff_t>(i) * stride] = buf[i];
}

// ------------------------------------------------------------------------------ interleaved
// Per register j of the group: the 2L elements at p + 2jL (L lanes per register) are two
// registers' worth, lo and hi. 16/32/64-bit lanes split them with one two-source permute each
// (vpermt2w/d/q/ps/pd; a = the even positions of lo:hi, b = the odd ones) and join them back
// the same way; that replaces the gather/scatter LoadStrided/StoreStrided do for stride 2.
// Bytes have no two-source byte permute without VBMI: they are taken as the low and high bytes
// of 16-bit words and packed (vpackuswb), and interleaved by vpunpck{l,h}bw; both of those work
// within 128-bit blocks, so one 64-bit permute puts the blocks back in order.
// A strip of n lanes covers 2n elements: lo and hi are masked loads/stores of lanes [0, 2n) of
// the doubled group, which never touch memory beyond them (masked lanes do not fault).
namespace detail {
template <typename T>
using LaneBits = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
// Permute indices (16/32/64-bit lanes) over the pair (x, y), index L + i meaning y[i]: even and
// odd positions (de-interleave), and the low and high halves of the zip of x and y (interleave).
template <typename T>
struct Interleave2Index {
  static constexpr size_t L = kRegLanes<T>;
  alignas(64) LaneBits<T> even[L], odd[L], zip_lo[L], zip_hi[L];
  constexpr Interleave2Index() : even{}, odd{}, zip_lo{}, zip_hi{} {
    for (size_t i = 0; i < L; ++i) {
      even[i] = static_cast<LaneBits<T>>(2 * i);
      odd[i] = static_cast<LaneBits<T>>(2 * i + 1);
      zip_lo[i] = static_cast<LaneBits<T>>(i / 2 + (i % 2 ? L : 0));
      zip_hi[i] = static_cast<LaneBits<T>>(L / 2 + i / 2 + (i % 2 ? L : 0));
    }
  }
};
template <typename T>
inline constexpr Interleave2Index<T> kInterleave2Index{};

template <typename T>
VLAK_AVX512_API Raw<T> RPermute2(Raw<T> x, const LaneBits<T>* idx_table, Raw<T> y) {
  const __m512i idx = _mm512_load_si512(idx_table);
  if constexpr (std::is_same_v<T, float>) return _mm512_permutex2var_ps(x, idx, y);
  else if constexpr (std::is_same_v<T, double>) return _mm512_permutex2var_pd(x, idx, y);
  else if constexpr (sizeof(T) == 2) return _mm512_permutex2var_epi16(x, idx, y);
  else if constexpr (sizeof(T) == 4) return _mm512_permutex2var_epi32(x, idx, y);
  else return _mm512_permutex2var_epi64(x, idx, y);
}

template <typename T>
VLAK_AVX512_API void RDeinterleave2(Raw<T> lo, Raw<T> hi, Raw<T>& a, Raw<T>& b) {
  if constexpr (sizeof(T) == 1) {
    // packus per 128-bit block k gives [lo block k, hi block k] as 64-bit halves.
    const __m512i low_byte = _mm512_set1_epi16(0x00FF);
    const __m512i order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    a = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(_mm512_and_si512(lo, low_byte), _mm512_and_si512(hi, low_byte)));
    b = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(_mm512_srli_epi16(lo, 8), _mm512_srli_epi16(hi, 8)));
  } else {
    a = RPermute2<T>(lo, kInterleave2Index<T>.even, hi);
    b = RPermute2<T>(lo, kInterleave2Index<T>.odd, hi);
  }
}
template <typename T>
VLAK_AVX512_API void RInterleave2(Raw<T> a, Raw<T> b, Raw<T>& lo, Raw<T>& hi) {
  if constexpr (sizeof(T) == 1) {
    // unpack per 128-bit block k: ul = pairs 16k..16k+7, uh = pairs 16k+8..16k+15.
    const __m512i ul = _mm512_unpacklo_epi8(a, b);
    const __m512i uh = _mm512_unpackhi_epi8(a, b);
    lo = _mm512_permutex2var_epi64(ul, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), uh);
    hi = _mm512_permutex2var_epi64(ul, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), uh);
  } else {
    lo = RPermute2<T>(a, kInterleave2Index<T>.zip_lo, b);
    hi = RPermute2<T>(a, kInterleave2Index<T>.zip_hi, b);
  }
}
}  // namespace detail

template <class D>
VLAK_AVX512_API void LoadInterleaved2(D d, const TFromD<D>* p, VFromD<D>& a, VFromD<D>& b) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    const T* pj = p + 2 * L * static_cast<size_t>(j);
    detail::Raw<T> lo, hi;
    if constexpr (D::kIsStrip) {
      if (!detail::RegActive(d, j)) {
        a.raw[j] = b.raw[j] = detail::RZero<T>();
        continue;
      }
      lo = detail::RMaskzLoadU<T>(detail::FirstNRaw<T>(2 * d.n, 2 * j), pj);
      hi = detail::RMaskzLoadU<T>(detail::FirstNRaw<T>(2 * d.n, 2 * j + 1), pj + L);
    } else {
      lo = detail::RLoadU<T>(pj);
      hi = detail::RLoadU<T>(pj + L);
    }
    detail::RDeinterleave2<T>(lo, hi, a.raw[j], b.raw[j]);
  }
}
template <class D>
VLAK_AVX512_API void StoreInterleaved2(D d, const VFromD<D>& a, const VFromD<D>& b, TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kRegLanes<T>;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    if (!detail::RegActive(d, j)) break;
    T* pj = p + 2 * L * static_cast<size_t>(j);
    detail::Raw<T> lo, hi;
    detail::RInterleave2<T>(a.raw[j], b.raw[j], lo, hi);
    if constexpr (D::kIsStrip) {
      detail::RMaskStoreU<T>(detail::FirstNRaw<T>(2 * d.n, 2 * j), lo, pj);
      detail::RMaskStoreU<T>(detail::FirstNRaw<T>(2 * d.n, 2 * j + 1), hi, pj + L);
    } else {
      detail::RStoreU<T>(lo, pj);
      detail::RStoreU<T>(hi, pj + L);
    }
  }
}

// Lane i = base[idx[i]] for 32-bit element types; idx in elements, non-negative.
template <class D>
VLAK_AVX512_API VFromD<D> Gather(D d, const TFromD<D>* base, const VFromD<RebindD<D, int32_t>>& idx) {
  using T = TFromD<D>;
  static_assert(sizeof(T) == 4, "Gather takes 32-bit elements with 32-bit indices");
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) {
    if constexpr (D::kIsStrip) {
      r.raw[j] = detail::RegActive(d, j) ? detail::RGather<T>(detail::Active(d, j), base, idx.raw[j])
                                          : detail::RZero<T>();
    } else if constexpr (std::is_same_v<T, float>) {
      r.raw[j] = _mm512_i32gather_ps(idx.raw[j], base, 4);
    } else {
      r.raw[j] = _mm512_i32gather_epi32(idx.raw[j], base, 4);
    }
  }
  return r;
}

// Lane i = table[idx[i]]. Without VBMI there is no byte permute across 256 entries, so the
// table is read as 128 16-bit words: two 64-word permutes (vpermt2w) per half of the table find
// the word holding each byte, bit 7 of the index picks the half, bit 0 the byte in the word.
// Even and odd bytes of the index vector are done separately, as the low and high bytes of the
// 16-bit index lanes. The table is read whole (it has 256 bytes); lanes of a strip at and
// above n only compute garbage.
template <class D>
VLAK_AVX512_API VFromD<D> TableLookup256(D, const uint8_t* table, const VFromD<D>& idx) {
  static_assert(std::is_same_v<TFromD<D>, uint8_t>, "TableLookup256 takes u8 indices");
  const __m512i t0 = _mm512_loadu_si512(table);
  const __m512i t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128);
  const __m512i t3 = _mm512_loadu_si512(table + 192);
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) {
    const __m512i x = idx.raw[j];
    // Even bytes: word index = x_lo >> 1 (vpermt2w reads only the low 6 bits).
    const __m512i we_idx = _mm512_srli_epi16(x, 1);
    __m512i we = _mm512_mask_blend_epi16(_mm512_test_epi16_mask(x, _mm512_set1_epi16(0x0080)),
                                         _mm512_permutex2var_epi16(t0, we_idx, t1),
                                         _mm512_permutex2var_epi16(t2, we_idx, t3));
    we = _mm512_mask_srli_epi16(we, _mm512_test_epi16_mask(x, _mm512_set1_epi16(0x0001)), we, 8);
    // Odd bytes: word index = x_hi >> 1, half from bit 15, the byte goes to the high half.
    const __m512i wo_idx = _mm512_srli_epi16(x, 9);
    __m512i wo = _mm512_mask_blend_epi16(_mm512_movepi16_mask(x),
                                         _mm512_permutex2var_epi16(t0, wo_idx, t1),
                                         _mm512_permutex2var_epi16(t2, wo_idx, t3));
    wo = _mm512_mask_slli_epi16(wo, _mm512_testn_epi16_mask(x, _mm512_set1_epi16(0x0100)), wo, 8);
    r.raw[j] = _mm512_mask_blend_epi8(detail::kOddBytes, we, wo);
  }
  return r;
}

// -------------------------------------------------------------------------------- arithmetic
namespace detail {
template <class D, class F>
VLAK_AVX512_API VFromD<D> Map1(const VFromD<D>& a, F f) {
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = f(a.raw[j]);
  return r;
}
template <class D, class F>
VLAK_AVX512_API VFromD<D> Map2(const VFromD<D>& a, const VFromD<D>& b, F f) {
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = f(a.raw[j], b.raw[j]);
  return r;
}
template <class D, class F>
VLAK_AVX512_API VFromD<D> Map3(const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c, F f) {
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = f(a.raw[j], b.raw[j], c.raw[j]);
  return r;
}
}  // namespace detail

#define VLAK_AVX512_LAMBDA __attribute__((always_inline))

template <class D>
VLAK_AVX512_API VFromD<D> Add(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return detail::RAdd<TFromD<D>>(x, y); });
}
template <class D>
VLAK_AVX512_API VFromD<D> Sub(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return detail::RSub<TFromD<D>>(x, y); });
}
namespace detail {
// (a + b + 1) >> 1 of 8- and 16-bit lanes read as unsigned (vpavgb / vpavgw); AverageFloor
// (fixed_generic.h) is built on it.
template <class D>
VLAK_AVX512_API VFromD<D> AverageCeilUnsigned(D, const VFromD<D>& a, const VFromD<D>& b) {
  static_assert(sizeof(TFromD<D>) <= 2);
  return Map2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA {
    if constexpr (sizeof(TFromD<D>) == 1) return _mm512_avg_epu8(x, y);
    else return _mm512_avg_epu16(x, y);
  });
}
}  // namespace detail
template <class D>
VLAK_AVX512_API VFromD<D> Mul(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return detail::RMul<TFromD<D>>(x, y); });
}
template <class D>
VLAK_AVX512_API VFromD<D> Div(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  return detail::Map2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA {
    if constexpr (std::is_same_v<T, float>) return _mm512_div_ps(x, y); else return _mm512_div_pd(x, y);
  });
}
// a * b + c, fused for floats; wrapping for integers.
template <class D>
VLAK_AVX512_API VFromD<D> MulAdd(D, const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c) {
  using T = TFromD<D>;
  return detail::Map3<D>(a, b, c, [](auto x, auto y, auto z) VLAK_AVX512_LAMBDA {
    if constexpr (std::is_same_v<T, float>) return _mm512_fmadd_ps(x, y, z);
    else if constexpr (std::is_same_v<T, double>) return _mm512_fmadd_pd(x, y, z);
    else return detail::RAdd<T>(detail::RMul<T>(x, y), z);
  });
}
// c - a * b.
template <class D>
VLAK_AVX512_API VFromD<D> NegMulAdd(D, const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c) {
  using T = TFromD<D>;
  return detail::Map3<D>(a, b, c, [](auto x, auto y, auto z) VLAK_AVX512_LAMBDA {
    if constexpr (std::is_same_v<T, float>) return _mm512_fnmadd_ps(x, y, z);
    else if constexpr (std::is_same_v<T, double>) return _mm512_fnmadd_pd(x, y, z);
    else return detail::RSub<T>(z, detail::RMul<T>(x, y));
  });
}
template <class D>
VLAK_AVX512_API VFromD<D> Neg(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  return detail::Map1<D>(a, [](auto x) VLAK_AVX512_LAMBDA {
    if constexpr (detail::IsFloat<T>) {
      return detail::FromBits<T>(_mm512_xor_si512(detail::ToBits<T>(x), detail::ToBits<T>(detail::RSet<T>(T(-0.0)))));
    } else {
      return detail::RSub<T>(_mm512_setzero_si512(), x);
    }
  });
}
template <class D>
VLAK_AVX512_API VFromD<D> Abs(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  return detail::Map1<D>(a, [](auto x) VLAK_AVX512_LAMBDA {
    if constexpr (std::is_same_v<T, float>) return _mm512_abs_ps(x);
    else if constexpr (std::is_same_v<T, double>) return _mm512_abs_pd(x);
    else if constexpr (!detail::IsSigned<T>) return x;
    else if constexpr (sizeof(T) == 1) return _mm512_abs_epi8(x);
    else if constexpr (sizeof(T) == 2) return _mm512_abs_epi16(x);
    else if constexpr (sizeof(T) == 4) return _mm512_abs_epi32(x);
    else return _mm512_abs_epi64(x);
  });
}
template <class D>
VLAK_AVX512_API VFromD<D> Min(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return detail::RMin<TFromD<D>>(x, y); });
}
template <class D>
VLAK_AVX512_API VFromD<D> Max(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return detail::RMax<TFromD<D>>(x, y); });
}
// max(v, acc) for MaxAccumulate (fixed_generic.h): vmaxps(v, acc) returns acc whenever either is
// NaN, so with acc never NaN it is maximumNumber without Max's fix-up (one instruction).
#define VLAK_HAVE_MAX_UNFIXED 1
namespace detail {
template <class D>
VLAK_AVX512_API VFromD<D> MaxUnfixed(D d, const VFromD<D>& v, const VFromD<D>& acc) {
  using T = TFromD<D>;
  if constexpr (std::is_same_v<T, float>) {
    return Map2<D>(v, acc, [](auto x, auto y) VLAK_AVX512_LAMBDA { return _mm512_max_ps(x, y); });
  } else if constexpr (std::is_same_v<T, double>) {
    return Map2<D>(v, acc, [](auto x, auto y) VLAK_AVX512_LAMBDA { return _mm512_max_pd(x, y); });
  } else {
    return Max(d, acc, v);
  }
}
}  // namespace detail
template <class D>
VLAK_AVX512_API VFromD<D> Sqrt(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  return detail::Map1<D>(a, [](auto x) VLAK_AVX512_LAMBDA {
    if constexpr (std::is_same_v<T, float>) return _mm512_sqrt_ps(x); else return _mm512_sqrt_pd(x);
  });
}

namespace detail {
// vrndscale with scale 0: round to an integer in the given mode, no precision exception.
template <int kMode, class D>
VLAK_AVX512_API VFromD<D> RoundScale(const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(IsFloat<T>);
  return Map1<D>(a, [](auto x) VLAK_AVX512_LAMBDA {
    if constexpr (std::is_same_v<T, float>) return _mm512_roundscale_ps(x, kMode | _MM_FROUND_NO_EXC);
    else return _mm512_roundscale_pd(x, kMode | _MM_FROUND_NO_EXC);
  });
}
}  // namespace detail
template <class D>
VLAK_AVX512_API VFromD<D> Floor(D, const VFromD<D>& a) { return detail::RoundScale<_MM_FROUND_TO_NEG_INF, D>(a); }
template <class D>
VLAK_AVX512_API VFromD<D> Ceil(D, const VFromD<D>& a) { return detail::RoundScale<_MM_FROUND_TO_POS_INF, D>(a); }
template <class D>
VLAK_AVX512_API VFromD<D> Trunc(D, const VFromD<D>& a) { return detail::RoundScale<_MM_FROUND_TO_ZERO, D>(a); }
template <class D>
VLAK_AVX512_API VFromD<D> Round(D, const VFromD<D>& a) { return detail::RoundScale<_MM_FROUND_TO_NEAREST_INT, D>(a); }

// 8- and 16-bit integers: clamp to the type's range.
template <class D>
VLAK_AVX512_API VFromD<D> SaturatedAdd(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  return detail::Map2<D>(a, b, [](__m512i x, __m512i y) VLAK_AVX512_LAMBDA {
    if constexpr (sizeof(T) == 1) return detail::IsSigned<T> ? _mm512_adds_epi8(x, y) : _mm512_adds_epu8(x, y);
    else return detail::IsSigned<T> ? _mm512_adds_epi16(x, y) : _mm512_adds_epu16(x, y);
  });
}
template <class D>
VLAK_AVX512_API VFromD<D> SaturatedSub(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  return detail::Map2<D>(a, b, [](__m512i x, __m512i y) VLAK_AVX512_LAMBDA {
    if constexpr (sizeof(T) == 1) return detail::IsSigned<T> ? _mm512_subs_epi8(x, y) : _mm512_subs_epu8(x, y);
    else return detail::IsSigned<T> ? _mm512_subs_epi16(x, y) : _mm512_subs_epu16(x, y);
  });
}

// ------------------------------------------------------------------------------ integer bits
// Counts in [0, bits); right shifts are arithmetic for signed types.
template <int kBits, class D>
VLAK_AVX512_API VFromD<D> ShiftLeft(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  return detail::Map1<D>(a, [](__m512i x) VLAK_AVX512_LAMBDA { return detail::RShiftLeft<kBits, T>(x); });
}
template <int kBits, class D>
VLAK_AVX512_API VFromD<D> ShiftRight(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  return detail::Map1<D>(a, [](__m512i x) VLAK_AVX512_LAMBDA { return detail::RShiftRight<kBits, T>(x); });
}
template <class D>
VLAK_AVX512_API VFromD<D> Shl(D, const VFromD<D>& a, const VFromD<D>& count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  return detail::Map2<D>(a, count, [](__m512i x, __m512i c) VLAK_AVX512_LAMBDA { return detail::RShl<T>(x, c); });
}
template <class D>
VLAK_AVX512_API VFromD<D> Shr(D, const VFromD<D>& a, const VFromD<D>& count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  return detail::Map2<D>(a, count, [](__m512i x, __m512i c) VLAK_AVX512_LAMBDA { return detail::RShr<T>(x, c); });
}

// Bitwise ops on integers and (bit patterns of) floats. AndNot(a, b) = ~a & b.
namespace detail {
template <class D, class F>
VLAK_AVX512_API VFromD<D> Bits2(const VFromD<D>& a, const VFromD<D>& b, F f) {
  using T = TFromD<D>;
  return Map2<D>(a, b, [&](Raw<T> x, Raw<T> y) VLAK_AVX512_LAMBDA {
    return FromBits<T>(f(ToBits<T>(x), ToBits<T>(y)));
  });
}
}  // namespace detail
template <class D>
VLAK_AVX512_API VFromD<D> And(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Bits2<D>(a, b, [](__m512i x, __m512i y) VLAK_AVX512_LAMBDA { return _mm512_and_si512(x, y); });
}
template <class D>
VLAK_AVX512_API VFromD<D> Or(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Bits2<D>(a, b, [](__m512i x, __m512i y) VLAK_AVX512_LAMBDA { return _mm512_or_si512(x, y); });
}
template <class D>
VLAK_AVX512_API VFromD<D> Xor(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Bits2<D>(a, b, [](__m512i x, __m512i y) VLAK_AVX512_LAMBDA { return _mm512_xor_si512(x, y); });
}
template <class D>
VLAK_AVX512_API VFromD<D> AndNot(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Bits2<D>(a, b, [](__m512i x, __m512i y) VLAK_AVX512_LAMBDA { return _mm512_andnot_si512(x, y); });
}

// ------------------------------------------------------------------------------ comparisons
// Floats: ordered compares (false when either is NaN) except Ne, which is true then.
namespace detail {
template <int kFloat, int kInt, class D>
VLAK_AVX512_API MFromD<D> Cmp(const VFromD<D>& a, const VFromD<D>& b) {
  MFromD<D> m;
  for (int j = 0; j < m.kRegs; ++j) m.raw[j] = RCmp<TFromD<D>, kFloat, kInt>(a.raw[j], b.raw[j]);
  return m;
}
}  // namespace detail
template <class D>
VLAK_AVX512_API MFromD<D> Eq(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<_CMP_EQ_OQ, _MM_CMPINT_EQ, D>(a, b); }
template <class D>
VLAK_AVX512_API MFromD<D> Ne(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<_CMP_NEQ_UQ, _MM_CMPINT_NE, D>(a, b); }
template <class D>
VLAK_AVX512_API MFromD<D> Lt(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<_CMP_LT_OQ, _MM_CMPINT_LT, D>(a, b); }
template <class D>
VLAK_AVX512_API MFromD<D> Le(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<_CMP_LE_OQ, _MM_CMPINT_LE, D>(a, b); }
template <class D>
VLAK_AVX512_API MFromD<D> Gt(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<_CMP_GT_OQ, _MM_CMPINT_NLE, D>(a, b); }
template <class D>
VLAK_AVX512_API MFromD<D> Ge(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<_CMP_GE_OQ, _MM_CMPINT_NLT, D>(a, b); }
// True where a is NaN (never for integers).
template <class D>
VLAK_AVX512_API MFromD<D> IsNaN(D, const VFromD<D>& a) {
  MFromD<D> m;
  for (int j = 0; j < m.kRegs; ++j) {
    if constexpr (detail::IsFloat<TFromD<D>>) m.raw[j] = detail::RCmp<TFromD<D>, _CMP_UNORD_Q, 0>(a.raw[j], a.raw[j]);
    else m.raw[j] = 0;
  }
  return m;
}

// -------------------------------------------------------------------------------------- masks
template <class D>
VLAK_AVX512_API MFromD<D> FirstN(D, size_t n) {
  MFromD<D> m;
  for (int j = 0; j < m.kRegs; ++j) m.raw[j] = detail::FirstNRaw<TFromD<D>>(n, j);
  return m;
}

namespace detail {
template <class D, class F>
VLAK_AVX512_API MFromD<D> MaskMap2(const MFromD<D>& a, const MFromD<D>& b, F f) {
  MFromD<D> m;
  for (int j = 0; j < m.kRegs; ++j) m.raw[j] = static_cast<RawMask<TFromD<D>>>(f(a.raw[j], b.raw[j]));
  return m;
}
}  // namespace detail
template <class D>
VLAK_AVX512_API MFromD<D> MaskAnd(D, const MFromD<D>& a, const MFromD<D>& b) {
  return detail::MaskMap2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return x & y; });
}
template <class D>
VLAK_AVX512_API MFromD<D> MaskOr(D, const MFromD<D>& a, const MFromD<D>& b) {
  return detail::MaskMap2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return x | y; });
}
template <class D>
VLAK_AVX512_API MFromD<D> MaskXor(D, const MFromD<D>& a, const MFromD<D>& b) {
  return detail::MaskMap2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return x ^ y; });
}
template <class D>
VLAK_AVX512_API MFromD<D> MaskAndNot(D, const MFromD<D>& a, const MFromD<D>& b) {
  return detail::MaskMap2<D>(a, b, [](auto x, auto y) VLAK_AVX512_LAMBDA { return ~x & y; });
}
template <class D>
VLAK_AVX512_API MFromD<D> MaskNot(D, const MFromD<D>& a) {
  return detail::MaskMap2<D>(a, a, [](auto x, auto) VLAK_AVX512_LAMBDA { return ~x; });
}
// Counts and tests look at active lanes only.
template <class D>
VLAK_AVX512_API size_t CountTrue(D d, const MFromD<D>& m) {
  size_t c = 0;
  for (int j = 0; j < m.kRegs; ++j) {
    c += static_cast<size_t>(__builtin_popcountll(static_cast<unsigned long long>(m.raw[j] & detail::Active(d, j))));
  }
  return c;
}
template <class D>
VLAK_AVX512_API bool AllTrue(D d, const MFromD<D>& m) {
  bool all = true;
  for (int j = 0; j < m.kRegs; ++j) {
    const auto act = detail::Active(d, j);
    all = all && static_cast<decltype(act)>(m.raw[j] & act) == act;
  }
  return all;
}
template <class D>
VLAK_AVX512_API bool AllFalse(D d, const MFromD<D>& m) {
  bool none = true;
  for (int j = 0; j < m.kRegs; ++j) none = none && (m.raw[j] & detail::Active(d, j)) == 0;
  return none;
}

template <class D>
VLAK_AVX512_API VFromD<D> IfThenElse(D, const MFromD<D>& m, const VFromD<D>& yes, const VFromD<D>& no) {
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = detail::RBlend<TFromD<D>>(m.raw[j], no.raw[j], yes.raw[j]);
  return r;
}
template <class D>
VLAK_AVX512_API VFromD<D> IfThenElseZero(D, const MFromD<D>& m, const VFromD<D>& yes) {
  VFromD<D> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = detail::RMaskz<TFromD<D>>(m.raw[j], yes.raw[j]);
  return r;
}

// Accumulating (*TU) ops and scalar-operand forms: fixed_generic.h.

// -------------------------------------------------------------------------------- reductions
// Inactive lanes become the op's identity, the registers of the group are folded into one and
// that register is reduced by halving.
template <class D>
VLAK_AVX512_API TFromD<D> ReduceSum(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  detail::Raw<T> acc = detail::RMaskz<T>(detail::Active(d, 0), v.raw[0]);
  for (int j = 1; j < v.kRegs; ++j) acc = detail::RAdd<T>(acc, detail::RMaskz<T>(detail::Active(d, j), v.raw[j]));
  if constexpr (detail::IsFloat<T>) {
    // The scalar order starts from +0, so its sum is never -0; a tree of -0 lanes would be.
    return detail::RReduce<T>(acc, [](auto x, auto y) VLAK_AVX512_LAMBDA { return detail::RAdd<T>(x, y); }) + T(0);
  } else if constexpr (sizeof(T) == 1) {
    // Sums of 8 bytes into 64-bit lanes; the wrapped total is the low byte of their sum.
    return static_cast<T>(_mm512_reduce_add_epi64(_mm512_sad_epu8(acc, _mm512_setzero_si512())));
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(_mm512_reduce_add_epi32(_mm512_madd_epi16(acc, _mm512_set1_epi16(1))));
  } else {
    return detail::RReduce<T>(acc, [](auto x, auto y) VLAK_AVX512_LAMBDA { return detail::RAdd<T>(x, y); });
  }
}
// Lane order is a serial dependency chain anyway: add from memory in a scalar loop.
template <class D>
VLAK_AVX512_API TFromD<D> ReduceSumOrdered(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  alignas(64) T buf[VFromD<D>::N];
  for (int j = 0; j < v.kRegs; ++j) detail::RStoreU<T>(v.raw[j], buf + j * detail::kRegLanes<T>);
  T s{0};
  const size_t n = Lanes(d);
  for (size_t i = 0; i < n; ++i) s += buf[i];
  return s;
}

namespace detail {
// kMin: ReduceMin, else ReduceMax. Float NaN lanes are treated like inactive ones; if no lane
// is left and some lane was active, every active lane was NaN.
template <bool kMin, class D>
VLAK_AVX512_API TFromD<D> ReduceMinMax(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  constexpr T kIdentity = IsFloat<T> ? (kMin ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity())
                                     : (kMin ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest());
  auto op = [](Raw<T> x, Raw<T> y) VLAK_AVX512_LAMBDA {
    // NaN-free by construction, so the plain instructions suffice for floats.
    if constexpr (std::is_same_v<T, float>) return kMin ? _mm512_min_ps(x, y) : _mm512_max_ps(x, y);
    else if constexpr (std::is_same_v<T, double>) return kMin ? _mm512_min_pd(x, y) : _mm512_max_pd(x, y);
    else return kMin ? RMin<T>(x, y) : RMax<T>(x, y);
  };
  const Raw<T> identity = RSet<T>(kIdentity);
  Raw<T> acc = identity;
  RawMask<T> any = 0;
  for (int j = 0; j < v.kRegs; ++j) {
    RawMask<T> k = Active(d, j);
    if constexpr (IsFloat<T>) k = static_cast<RawMask<T>>(k & RCmp<T, _CMP_ORD_Q, 0>(v.raw[j], v.raw[j]));
    any = static_cast<RawMask<T>>(any | k);
    acc = op(acc, RBlend<T>(k, identity, v.raw[j]));
  }
  if constexpr (IsFloat<T>) {
    if (any == 0 && Lanes(d) > 0) return std::numeric_limits<T>::quiet_NaN();
  } else {
    (void)any;
  }
  return RReduce<T>(acc, op);
}
}  // namespace detail
template <class D>
VLAK_AVX512_API TFromD<D> ReduceMin(D d, const VFromD<D>& v) { return detail::ReduceMinMax<true>(d, v); }
template <class D>
VLAK_AVX512_API TFromD<D> ReduceMax(D d, const VFromD<D>& v) { return detail::ReduceMinMax<false>(d, v); }

// ------------------------------------------------------------------------------- conversions
template <class DTo, class DFrom>
VLAK_AVX512_API VFromD<DTo> BitCast(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) == sizeof(TF) && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  VFromD<DTo> r;
  for (int j = 0; j < r.kRegs; ++j) r.raw[j] = detail::FromBits<TT>(detail::ToBits<TF>(v.raw[j]));
  return r;
}

namespace detail {
// The hardware gives INT_MIN for NaN and for every out-of-range input; the contract wants
// INT_MAX above the range and 0 for NaN (below the range INT_MIN is already right).
VLAK_AVX512_API __m512i FixF32ToI32(__m512 x, __m512i converted) {
  const __mmask16 big = _mm512_cmp_ps_mask(x, _mm512_set1_ps(2147483648.0f), _CMP_GE_OQ);
  const __mmask16 ordered = _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
  return _mm512_maskz_mov_epi32(ordered, _mm512_mask_mov_epi32(converted, big, _mm512_set1_epi32(0x7FFFFFFF)));
}
}  // namespace detail

// int32/uint32 -> f32 (round to nearest even); f32 -> int32 toward zero (saturating, NaN -> 0).
template <class DTo, class DFrom>
VLAK_AVX512_API VFromD<DTo> ConvertTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) == 4 && sizeof(TF) == 4 && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  VFromD<DTo> r;
  for (int j = 0; j < r.kRegs; ++j) {
    if constexpr (std::is_same_v<TT, float>) {
      static_assert(std::is_integral_v<TF>);
      r.raw[j] = detail::IsSigned<TF> ? _mm512_cvtepi32_ps(v.raw[j]) : _mm512_cvtepu32_ps(v.raw[j]);
    } else {
      static_assert(std::is_same_v<TT, int32_t> && std::is_same_v<TF, float>);
      r.raw[j] = detail::FixF32ToI32(v.raw[j], _mm512_cvtt_roundps_epi32(v.raw[j], _MM_FROUND_NO_EXC));
    }
  }
  return r;
}
// f32 -> int32 rounding to nearest even (saturating, NaN -> 0).
template <class D>
VLAK_AVX512_API VFromD<RebindD<D, int32_t>> NearestInt(D, const VFromD<D>& v) {
  static_assert(std::is_same_v<TFromD<D>, float>);
  VFromD<RebindD<D, int32_t>> r;
  for (int j = 0; j < r.kRegs; ++j) {
    r.raw[j] = detail::FixF32ToI32(
        v.raw[j], _mm512_cvt_roundps_epi32(v.raw[j], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  return r;
}

namespace detail {
// Bytes [64 / R * c, 64 / R * (c + 1)) of v, widened to a whole register (R = 2, 4 or 8).
template <typename TT, typename TF, int c>
VLAK_AVX512_API __m512i WidenChunk(__m512i v) {
  constexpr int R = sizeof(TT) / sizeof(TF);
  constexpr bool kSigned = IsSigned<TF>;
  if constexpr (R == 2) {
    const __m256i x = _mm512_extracti64x4_epi64(v, c);
    if constexpr (sizeof(TF) == 1) return kSigned ? _mm512_cvtepi8_epi16(x) : _mm512_cvtepu8_epi16(x);
    else if constexpr (sizeof(TF) == 2) return kSigned ? _mm512_cvtepi16_epi32(x) : _mm512_cvtepu16_epi32(x);
    else return kSigned ? _mm512_cvtepi32_epi64(x) : _mm512_cvtepu32_epi64(x);
  } else if constexpr (R == 4) {
    const __m128i x = _mm512_extracti32x4_epi32(v, c);
    if constexpr (sizeof(TF) == 1) return kSigned ? _mm512_cvtepi8_epi32(x) : _mm512_cvtepu8_epi32(x);
    else return kSigned ? _mm512_cvtepi16_epi64(x) : _mm512_cvtepu16_epi64(x);
  } else {
    static_assert(R == 8 && sizeof(TF) == 1);
    __m128i x = _mm512_extracti32x4_epi32(v, c / 2);
    if constexpr (c % 2) x = _mm_unpackhi_epi64(x, x);
    return kSigned ? _mm512_cvtepi8_epi64(x) : _mm512_cvtepu8_epi64(x);
  }
}

// Clamp v (lanes TF) to TT's range, unless kSaturate is false, then narrow keeping low bits.
// Result: 64 / R bytes in the low part of the returned register.
template <typename TT, typename TF, bool kSaturate>
VLAK_AVX512_API __m512i NarrowToChunk(__m512i v) {
  if constexpr (kSaturate) {
    // Bring the mixed-sign cases to a clamp the narrowing instruction cannot do alone.
    if constexpr (IsSigned<TF> && !IsSigned<TT>) {
      v = RMax<TF>(v, _mm512_setzero_si512());  // then unsigned saturation is right
    } else if constexpr (!IsSigned<TF> && IsSigned<TT>) {
      v = RMin<TF>(v, RSet<TF>(static_cast<TF>(std::numeric_limits<TT>::max())));
      return NarrowToChunk<TT, TF, false>(v);
    }
  }
  constexpr int kMode = !kSaturate ? 0 : (IsSigned<TT> ? 1 : 2);  // truncate, signed, unsigned
  auto widen = [](auto x) { return _mm512_castsi256_si512(x); };
  auto widen128 = [](__m128i x) { return _mm512_castsi128_si512(x); };
  if constexpr (sizeof(TF) == 2) {  // -> 8
    return widen(kMode == 0 ? _mm512_cvtepi16_epi8(v) : kMode == 1 ? _mm512_cvtsepi16_epi8(v) : _mm512_cvtusepi16_epi8(v));
  } else if constexpr (sizeof(TF) == 4 && sizeof(TT) == 2) {
    return widen(kMode == 0 ? _mm512_cvtepi32_epi16(v) : kMode == 1 ? _mm512_cvtsepi32_epi16(v) : _mm512_cvtusepi32_epi16(v));
  } else if constexpr (sizeof(TF) == 4) {  // -> 8
    return widen128(kMode == 0 ? _mm512_cvtepi32_epi8(v) : kMode == 1 ? _mm512_cvtsepi32_epi8(v) : _mm512_cvtusepi32_epi8(v));
  } else if constexpr (sizeof(TT) == 4) {  // 64 -> 32
    return widen(kMode == 0 ? _mm512_cvtepi64_epi32(v) : kMode == 1 ? _mm512_cvtsepi64_epi32(v) : _mm512_cvtusepi64_epi32(v));
  } else if constexpr (sizeof(TT) == 2) {  // 64 -> 16
    return widen128(kMode == 0 ? _mm512_cvtepi64_epi16(v) : kMode == 1 ? _mm512_cvtsepi64_epi16(v) : _mm512_cvtusepi64_epi16(v));
  } else {  // 64 -> 8
    return widen128(kMode == 0 ? _mm512_cvtepi64_epi8(v) : kMode == 1 ? _mm512_cvtsepi64_epi8(v) : _mm512_cvtusepi64_epi8(v));
  }
}

// Destination register d is made of source registers d * R .. d * R + R - 1, each narrowed.
template <typename TT, typename TF, bool kSaturate, class VTo, class VFrom>
VLAK_AVX512_API void NarrowGroup(VTo& r, const VFrom& v) {
  constexpr int R = sizeof(TF) / sizeof(TT);
  For<VTo::kRegs>([&](auto dc) VLAK_AVX512_LAMBDA {
    constexpr int d = decltype(dc)::value;
    __m512i out;
    if constexpr (R == 2) {
      const __m512i lo = NarrowToChunk<TT, TF, kSaturate>(v.raw[2 * d]);
      const __m512i hi = NarrowToChunk<TT, TF, kSaturate>(v.raw[2 * d + 1]);
      out = _mm512_inserti64x4(lo, _mm512_castsi512_si256(hi), 1);
    } else if constexpr (R == 4) {
      out = NarrowToChunk<TT, TF, kSaturate>(v.raw[4 * d]);
      out = _mm512_inserti32x4(out, _mm512_castsi512_si128(NarrowToChunk<TT, TF, kSaturate>(v.raw[4 * d + 1])), 1);
      out = _mm512_inserti32x4(out, _mm512_castsi512_si128(NarrowToChunk<TT, TF, kSaturate>(v.raw[4 * d + 2])), 2);
      out = _mm512_inserti32x4(out, _mm512_castsi512_si128(NarrowToChunk<TT, TF, kSaturate>(v.raw[4 * d + 3])), 3);
    } else {
      static_assert(R == 8);
      __m128i q[4];
      for (int i = 0; i < 4; ++i) {
        q[i] = _mm_unpacklo_epi64(_mm512_castsi512_si128(NarrowToChunk<TT, TF, kSaturate>(v.raw[8 * d + 2 * i])),
                                  _mm512_castsi512_si128(NarrowToChunk<TT, TF, kSaturate>(v.raw[8 * d + 2 * i + 1])));
      }
      out = _mm512_inserti32x4(_mm512_castsi128_si512(q[0]), q[1], 1);
      out = _mm512_inserti32x4(out, q[2], 2);
      out = _mm512_inserti32x4(out, q[3], 3);
    }
    r.raw[d] = out;
  });
}
}  // namespace detail

// Widen: same lane count, wider type. Signed sources sign-extend, unsigned zero-extend; f32->f64.
template <class DTo, class DFrom>
VLAK_AVX512_API VFromD<DTo> PromoteTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) > sizeof(TF) && VFromD<DTo>::N == VFromD<DFrom>::N);
  static_assert(std::is_floating_point_v<TT> == std::is_floating_point_v<TF>);
  static_assert(!(std::is_signed_v<TF> && std::is_unsigned_v<TT>), "sign-extending into unsigned");
  constexpr int R = sizeof(TT) / sizeof(TF);
  VFromD<DTo> r;
  detail::For<VFromD<DTo>::kRegs>([&](auto dc) VLAK_AVX512_LAMBDA {
    constexpr int d = decltype(dc)::value;
    if constexpr (std::is_same_v<TT, double>) {
      static_assert(std::is_same_v<TF, float>);
      const __m512 x = v.raw[d / 2];
      r.raw[d] = _mm512_cvtps_pd(d % 2 ? _mm512_extractf32x8_ps(x, 1) : _mm512_castps512_ps256(x));
    } else {
      r.raw[d] = detail::WidenChunk<TT, TF, d % R>(v.raw[d / R]);
    }
  });
  return r;
}
// Narrow with saturation to the destination's range; f64->f32 rounds to nearest even under the
// default MXCSR (vcvtpd2ps: denormal results kept, overflow to inf, NaN quietened). Other float
// forms do not compile (scalar.h).
template <class DTo, class DFrom>
VLAK_AVX512_API VFromD<DTo> DemoteTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) < sizeof(TF) && VFromD<DTo>::N == VFromD<DFrom>::N);
  static_assert(simd::detail::kDemoteFloatOk<TT, TF>, VLAK_DEMOTE_FLOAT_MESSAGE);
  VFromD<DTo> r;
  if constexpr (std::is_floating_point_v<TF>) {
    for (int j = 0; j < r.kRegs; ++j) {
      r.raw[j] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(v.raw[2 * j])),
                                    _mm512_cvtpd_ps(v.raw[2 * j + 1]), 1);
    }
  } else {
    static_assert(std::is_integral_v<TT>);
    detail::NarrowGroup<TT, TF, true>(r, v);
  }
  return r;
}
// Narrow keeping the low bits (integers).
template <class DTo, class DFrom>
VLAK_AVX512_API VFromD<DTo> TruncateTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(std::is_integral_v<TT> && std::is_integral_v<TF> && sizeof(TT) < sizeof(TF));
  VFromD<DTo> r;
  detail::NarrowGroup<TT, TF, false>(r, v);
  return r;
}

}  // namespace vlak::VLAK_NS

#undef VLAK_AVX512_LAMBDA
#define VLAK_FIXED_API VLAK_AVX512_API
#include "fixed_generic.h"
#undef VLAK_AVX512_API

