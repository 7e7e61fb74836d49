// vlak vector layer, AVX2 + FMA target (-mavx2 -mfma -mf16c; no AVX-512 instructions).
//
// A group Simd<T, kPow2> is 2^kPow2 ymm registers: (32 / sizeof(T)) << kPow2 lanes. A mask is a
// group of the same native registers with all-ones / all-zero lanes, so blends, ANDs and
// movemask work on it directly. scalar.h states every op's contract; this file only explains
// where AVX2 needs help to meet it.
//
// Strip tags (SimdN) are masked only where memory or the result's defined lanes demand it:
// loads/stores/gathers, reductions, counts and the *TU ops. Arithmetic runs on whole registers
// (garbage in lanes >= n is allowed; FP exceptions are masked by default in MXCSR).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "tags.h"

namespace vlak::VLAK_NS {
using namespace ::vlak::simd;

inline constexpr size_t kRegisterBytes = 32;
inline constexpr size_t kAlignment = 64;

}  // namespace vlak::VLAK_NS
#include "fixed_lanes.h"
namespace vlak::VLAK_NS {

namespace detail {
template <typename T> struct RawT { using type = __m256i; };
template <> struct RawT<float> { using type = __m256; };
template <> struct RawT<double> { using type = __m256d; };
template <typename T>
using Raw = typename RawT<T>::type;

template <typename T>
constexpr bool IsFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr size_t kLanesPerReg = kRegisterBytes / sizeof(T);
}  // namespace detail

template <typename T, int kPow2>
struct Vec {
  static constexpr int kRegs = 1 << kPow2;
  static constexpr size_t N = detail::kLanesPerReg<T> << kPow2;
  detail::Raw<T> raw[kRegs];
};
template <typename T, int kPow2>
struct Mask {
  static constexpr int kRegs = 1 << kPow2;
  static constexpr size_t N = detail::kLanesPerReg<T> << kPow2;
  detail::Raw<T> raw[kRegs];
};

template <class D>
using VFromD = Vec<TFromD<D>, Pow2FromD<D>>;
template <class D>
using MFromD = Mask<TFromD<D>, Pow2FromD<D>>;

// ===================================================================== single-register helpers
namespace detail {

inline __m256i AsInt(__m256i v) { return v; }
inline __m256i AsInt(__m256 v) { return _mm256_castps_si256(v); }
inline __m256i AsInt(__m256d v) { return _mm256_castpd_si256(v); }
template <typename T>
Raw<T> FromInt(__m256i v) {
  if constexpr (std::is_same_v<T, float>) return _mm256_castsi256_ps(v);
  else if constexpr (std::is_same_v<T, double>) return _mm256_castsi256_pd(v);
  else return v;
}

inline __m256i BitAnd(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
inline __m256 BitAnd(__m256 a, __m256 b) { return _mm256_and_ps(a, b); }
inline __m256d BitAnd(__m256d a, __m256d b) { return _mm256_and_pd(a, b); }
inline __m256i BitOr(__m256i a, __m256i b) { return _mm256_or_si256(a, b); }
inline __m256 BitOr(__m256 a, __m256 b) { return _mm256_or_ps(a, b); }
inline __m256d BitOr(__m256d a, __m256d b) { return _mm256_or_pd(a, b); }
inline __m256i BitXor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
inline __m256 BitXor(__m256 a, __m256 b) { return _mm256_xor_ps(a, b); }
inline __m256d BitXor(__m256d a, __m256d b) { return _mm256_xor_pd(a, b); }
// ~a & b
inline __m256i BitAndNot(__m256i a, __m256i b) { return _mm256_andnot_si256(a, b); }
inline __m256 BitAndNot(__m256 a, __m256 b) { return _mm256_andnot_ps(a, b); }
inline __m256d BitAndNot(__m256d a, __m256d b) { return _mm256_andnot_pd(a, b); }
// m ? yes : no, m with all-ones / all-zero lanes.
inline __m256i Select(__m256i m, __m256i yes, __m256i no) { return _mm256_blendv_epi8(no, yes, m); }
inline __m256 Select(__m256 m, __m256 yes, __m256 no) { return _mm256_blendv_ps(no, yes, m); }
inline __m256d Select(__m256d m, __m256d yes, __m256d no) { return _mm256_blendv_pd(no, yes, m); }

template <typename T>
Raw<T> ZeroR() { return FromInt<T>(_mm256_setzero_si256()); }
template <typename T>
Raw<T> OnesR() { return FromInt<T>(_mm256_set1_epi32(-1)); }

template <typename T>
Raw<T> Set1(T x) {
  if constexpr (std::is_same_v<T, float>) return _mm256_set1_ps(x);
  else if constexpr (std::is_same_v<T, double>) return _mm256_set1_pd(x);
  else if constexpr (sizeof(T) == 1) return _mm256_set1_epi8(static_cast<char>(x));
  else if constexpr (sizeof(T) == 2) return _mm256_set1_epi16(static_cast<short>(x));
  else return _mm256_set1_epi32(static_cast<int>(x));
}

template <typename T>
Raw<T> LoadUR(const T* p) {
  if constexpr (std::is_same_v<T, float>) return _mm256_loadu_ps(p);
  else if constexpr (std::is_same_v<T, double>) return _mm256_loadu_pd(p);
  else return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
template <typename T>
Raw<T> LoadAR(const T* p) {
  if constexpr (std::is_same_v<T, float>) return _mm256_load_ps(p);
  else if constexpr (std::is_same_v<T, double>) return _mm256_load_pd(p);
  else return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
}
template <typename T>
void StoreUR(Raw<T> v, T* p) {
  if constexpr (std::is_same_v<T, float>) _mm256_storeu_ps(p, v);
  else if constexpr (std::is_same_v<T, double>) _mm256_storeu_pd(p, v);
  else _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}
template <typename T>
void StoreAR(Raw<T> v, T* p) {
  if constexpr (std::is_same_v<T, float>) _mm256_store_ps(p, v);
  else if constexpr (std::is_same_v<T, double>) _mm256_store_pd(p, v);
  else _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
}

// Mask of the first `lanes` (<= kLanesPerReg) lanes: an unaligned load from 32 bytes of 0xFF
// followed by 32 zero bytes works for every lane size.
struct FirstNTable {
  alignas(64) uint8_t bytes[64];
  constexpr FirstNTable() : bytes{} {
    for (int i = 0; i < 32; ++i) bytes[i] = 0xFF;
  }
};
inline constexpr FirstNTable kFirstNTable{};

template <typename T>
Raw<T> FirstNR(size_t lanes) {
  const size_t bytes = lanes * sizeof(T);
  return FromInt<T>(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(kFirstNTable.bytes + 32 - bytes)));
}
// Active lanes of register j of a group with `n` active lanes.
template <typename T>
size_t LanesInReg(size_t n, int j) {
  const size_t start = static_cast<size_t>(j) * kLanesPerReg<T>;
  return n <= start ? 0 : std::min(n - start, kLanesPerReg<T>);
}

template <typename T>
Raw<T> AddR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm256_add_ps(a, b);
  else if constexpr (std::is_same_v<T, double>) return _mm256_add_pd(a, b);
  else if constexpr (sizeof(T) == 1) return _mm256_add_epi8(a, b);
  else if constexpr (sizeof(T) == 2) return _mm256_add_epi16(a, b);
  else return _mm256_add_epi32(a, b);
}
template <typename T>
Raw<T> SubR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm256_sub_ps(a, b);
  else if constexpr (std::is_same_v<T, double>) return _mm256_sub_pd(a, b);
  else if constexpr (sizeof(T) == 1) return _mm256_sub_epi8(a, b);
  else if constexpr (sizeof(T) == 2) return _mm256_sub_epi16(a, b);
  else return _mm256_sub_epi32(a, b);
}
template <typename T>
Raw<T> MulR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm256_mul_ps(a, b);
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm256_mul_pd(a, b);
  } else if constexpr (sizeof(T) == 1) {
    // No 8-bit multiply: the low byte of a 16-bit product is the 8-bit product, so multiply
    // even and odd bytes separately in 16-bit lanes.
    const __m256i lo_mask = _mm256_set1_epi16(0x00FF);
    const __m256i even = _mm256_and_si256(_mm256_mullo_epi16(a, b), lo_mask);
    const __m256i odd = _mm256_mullo_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    return _mm256_or_si256(even, _mm256_slli_epi16(odd, 8));
  } else if constexpr (sizeof(T) == 2) {
    return _mm256_mullo_epi16(a, b);
  } else {
    return _mm256_mullo_epi32(a, b);
  }
}

template <typename T>
Raw<T> MinR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    // minps returns its second operand when either is NaN: fix the case b = NaN.
    return _mm256_blendv_ps(_mm256_min_ps(a, b), a, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm256_blendv_pd(_mm256_min_pd(a, b), a, _mm256_cmp_pd(b, b, _CMP_UNORD_Q));
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return _mm256_min_epi8(a, b);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return _mm256_min_epu8(a, b);
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return _mm256_min_epi16(a, b);
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return _mm256_min_epu16(a, b);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return _mm256_min_epi32(a, b);
  } else {
    static_assert(std::is_same_v<T, uint32_t>);
    return _mm256_min_epu32(a, b);
  }
}
template <typename T>
Raw<T> MaxR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm256_blendv_pd(_mm256_max_pd(a, b), a, _mm256_cmp_pd(b, b, _CMP_UNORD_Q));
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return _mm256_max_epi8(a, b);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return _mm256_max_epu8(a, b);
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return _mm256_max_epi16(a, b);
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return _mm256_max_epu16(a, b);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return _mm256_max_epi32(a, b);
  } else {
    static_assert(std::is_same_v<T, uint32_t>);
    return _mm256_max_epu32(a, b);
  }
}

template <typename T>
Raw<T> EqR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
  else if constexpr (std::is_same_v<T, double>) return _mm256_cmp_pd(a, b, _CMP_EQ_OQ);
  else if constexpr (sizeof(T) == 1) return _mm256_cmpeq_epi8(a, b);
  else if constexpr (sizeof(T) == 2) return _mm256_cmpeq_epi16(a, b);
  else return _mm256_cmpeq_epi32(a, b);
}
// a > b. Unsigned: flip the sign bits and compare signed.
template <typename T>
Raw<T> GtR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm256_cmp_pd(a, b, _CMP_GT_OQ);
  } else {
    if constexpr (std::is_unsigned_v<T>) {
      const __m256i sign = Set1<T>(static_cast<T>(T{1} << (sizeof(T) * 8 - 1)));
      a = _mm256_xor_si256(a, sign);
      b = _mm256_xor_si256(b, sign);
    }
    if constexpr (sizeof(T) == 1) return _mm256_cmpgt_epi8(a, b);
    else if constexpr (sizeof(T) == 2) return _mm256_cmpgt_epi16(a, b);
    else return _mm256_cmpgt_epi32(a, b);
  }
}
// a >= b.
template <typename T>
Raw<T> GeR(Raw<T> a, Raw<T> b) {
  if constexpr (std::is_same_v<T, float>) return _mm256_cmp_ps(a, b, _CMP_GE_OQ);
  else if constexpr (std::is_same_v<T, double>) return _mm256_cmp_pd(a, b, _CMP_GE_OQ);
  else return EqR<T>(MaxR<T>(a, b), a);  // integers: no native >=, but max(a, b) == a is
}

// Right shift of bytes by a constant (AVX2 shifts 16-bit lanes at the narrowest).
template <int kBits>
__m256i ShrU8(__m256i x) {
  return _mm256_and_si256(_mm256_srli_epi16(x, kBits), _mm256_set1_epi8(static_cast<char>(0xFF >> kBits)));
}
template <int kBits>
__m256i ShrI8(__m256i x) {
  // Logical shift, then sign-extend from bit 7 - kBits: (x ^ m) - m.
  const __m256i m = _mm256_set1_epi8(static_cast<char>(0x80 >> kBits));
  return _mm256_sub_epi8(_mm256_xor_si256(ShrU8<kBits>(x), m), m);
}
template <int kBits>
__m256i ShlU8(__m256i x) {
  return _mm256_and_si256(_mm256_slli_epi16(x, kBits), _mm256_set1_epi8(static_cast<char>((0xFF << kBits) & 0xFF)));
}

// Variable 8-bit shift, count in [0, 8): apply shifts by 4, 2, 1 where the count has that bit.
// slli_epi16(count, 7 - b) moves bit b of every byte to its bit 7 (what blendv reads); bits
// spilling into the next byte land below its bit 7.
template <bool kLeft, bool kSigned>
__m256i VarShift8(__m256i x, __m256i count) {
  auto step = [&](auto shifted, __m256i sel) { return _mm256_blendv_epi8(x, shifted, sel); };
  if constexpr (kLeft) {
    x = step(ShlU8<4>(x), _mm256_slli_epi16(count, 5));
    x = step(ShlU8<2>(x), _mm256_slli_epi16(count, 6));
    x = step(ShlU8<1>(x), _mm256_slli_epi16(count, 7));
  } else if constexpr (kSigned) {
    x = step(ShrI8<4>(x), _mm256_slli_epi16(count, 5));
    x = step(ShrI8<2>(x), _mm256_slli_epi16(count, 6));
    x = step(ShrI8<1>(x), _mm256_slli_epi16(count, 7));
  } else {
    x = step(ShrU8<4>(x), _mm256_slli_epi16(count, 5));
    x = step(ShrU8<2>(x), _mm256_slli_epi16(count, 6));
    x = step(ShrU8<1>(x), _mm256_slli_epi16(count, 7));
  }
  return x;
}

// Variable 16-bit shift via the 32-bit variable shifts: the low and high halves of each 32-bit
// lane are shifted separately (high half with its own count, low half isolated so nothing
// crosses), then recombined with a 16-bit blend.
template <bool kLeft, bool kSigned>
__m256i VarShift16(__m256i x, __m256i count) {
  const __m256i lo16 = _mm256_set1_epi32(0xFFFF);
  const __m256i count_lo = _mm256_and_si256(count, lo16);
  const __m256i count_hi = _mm256_srli_epi32(count, 16);
  __m256i lo, hi;
  if constexpr (kLeft) {
    lo = _mm256_sllv_epi32(x, count_lo);
    hi = _mm256_sllv_epi32(_mm256_andnot_si256(lo16, x), count_hi);
  } else if constexpr (kSigned) {
    lo = _mm256_srav_epi32(_mm256_srai_epi32(_mm256_slli_epi32(x, 16), 16), count_lo);
    hi = _mm256_srav_epi32(x, count_hi);
  } else {
    lo = _mm256_srlv_epi32(_mm256_and_si256(x, lo16), count_lo);
    hi = _mm256_srlv_epi32(x, count_hi);
  }
  return _mm256_blend_epi16(lo, hi, 0xAA);
}

// Lane bits of a mask register: one bit per lane, except 16-bit lanes get two.
template <typename T>
uint32_t MaskBits(Raw<T> m) {
  if constexpr (std::is_same_v<T, float>) return static_cast<uint32_t>(_mm256_movemask_ps(m));
  else if constexpr (std::is_same_v<T, double>) return static_cast<uint32_t>(_mm256_movemask_pd(m));
  else if constexpr (sizeof(T) == 4) return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(m)));
  else return static_cast<uint32_t>(_mm256_movemask_epi8(m));
}
template <typename T>
constexpr int kBitsPerLane = sizeof(T) == 2 ? 2 : 1;

// Folds a register so that every lane holds op over all its lanes (op commutative and
// associative on the values involved).
template <typename T, class F>
Raw<T> AllReduceR(Raw<T> v, F op) {
  if constexpr (std::is_same_v<T, float>) {
    v = op(v, _mm256_permute2f128_ps(v, v, 1));
    v = op(v, _mm256_permute_ps(v, 0x4E));
    return op(v, _mm256_permute_ps(v, 0xB1));
  } else if constexpr (std::is_same_v<T, double>) {
    v = op(v, _mm256_permute2f128_pd(v, v, 1));
    return op(v, _mm256_permute_pd(v, 0x5));
  } else {
    v = op(v, _mm256_permute2x128_si256(v, v, 1));
    v = op(v, _mm256_shuffle_epi32(v, 0x4E));
    v = op(v, _mm256_shuffle_epi32(v, 0xB1));
    if constexpr (sizeof(T) <= 2) v = op(v, _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(v, 0xB1), 0xB1));
    if constexpr (sizeof(T) == 1) v = op(v, _mm256_or_si256(_mm256_slli_epi16(v, 8), _mm256_srli_epi16(v, 8)));
    return v;
  }
}

template <typename T>
T FirstLaneR(Raw<T> v) {
  if constexpr (std::is_same_v<T, float>) return _mm256_cvtss_f32(v);
  else if constexpr (std::is_same_v<T, double>) return _mm256_cvtsd_f64(v);
  else return static_cast<T>(_mm256_cvtsi256_si32(v));
}

template <class V, class F>
V Map1(const V& a, F f) {
  V r;
  for (int j = 0; j < V::kRegs; ++j) r.raw[j] = f(a.raw[j]);
  return r;
}
template <class V, class F>
V Map2(const V& a, const V& b, F f) {
  V r;
  for (int j = 0; j < V::kRegs; ++j) r.raw[j] = f(a.raw[j], b.raw[j]);
  return r;
}
template <class V, class F>
V Map3(const V& a, const V& b, const V& c, F f) {
  V r;
  for (int j = 0; j < V::kRegs; ++j) r.raw[j] = f(a.raw[j], b.raw[j], c.raw[j]);
  return r;
}
template <class D, class F>
MFromD<D> Cmp(const VFromD<D>& a, const VFromD<D>& b, F f) {
  MFromD<D> m;
  for (int j = 0; j < MFromD<D>::kRegs; ++j) m.raw[j] = f(a.raw[j], b.raw[j]);
  return m;
}

}  // namespace detail

// ---------------------------------------------------------------------------------- creation
template <class D>
VFromD<D> Zero(D) {
  VFromD<D> r;
  for (auto& x : r.raw) x = detail::ZeroR<TFromD<D>>();
  return r;
}

template <class D>
VFromD<D> Set(D, TFromD<D> x) {
  VFromD<D> r;
  const auto v = detail::Set1(x);
  for (auto& reg : r.raw) reg = v;
  return r;
}

// Lane i = first + i (wrapping for integers).
template <class D>
VFromD<D> Iota(D, TFromD<D> first) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  VFromD<D> r;
  const auto base = detail::Set1(first);
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    alignas(32) T offsets[L];
    for (size_t i = 0; i < L; ++i) offsets[i] = static_cast<T>(j * L + i);
    r.raw[j] = detail::AddR<T>(base, detail::LoadAR(offsets));
  }
  return r;
}

// First lane.
template <class D>
TFromD<D> GetLane(D, const VFromD<D>& v) { return detail::FirstLaneR<TFromD<D>>(v.raw[0]); }

// ------------------------------------------------------------------------------------ memory
// First min(n, Lanes(d)) lanes from p, the rest zero; nothing beyond them is read.
namespace detail {
// One register from its first `lanes` (<= kLanesPerReg) elements, the rest zero; nothing beyond
// them is read.
template <typename T>
Raw<T> LoadPartR(const T* p, size_t lanes) {
  if (lanes == kLanesPerReg<T>) {
    return LoadUR(p);
  } else if (lanes == 0) {
    return ZeroR<T>();
  } else if constexpr (std::is_same_v<T, float>) {
    return _mm256_maskload_ps(p, AsInt(FirstNR<T>(lanes)));
  } else if constexpr (std::is_same_v<T, double>) {
    return _mm256_maskload_pd(p, AsInt(FirstNR<T>(lanes)));
  } else if constexpr (sizeof(T) == 4) {
    return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), FirstNR<T>(lanes));
  } else {
    // No byte/word maskload: the whole dwords by vpmaskmovd (masked-off dwords are not read and
    // do not fault), the last 1-3 bytes by scalar loads blended into their dword. Copying the
    // bytes to a stack buffer and reloading it 32 bytes wide stalls on store forwarding instead
    // (measured: half of resize's time at 128 columns, Zen 3).
    const size_t bytes = lanes * sizeof(T), dwords = bytes / 4, rest = bytes % 4;
    __m256i r = _mm256_maskload_epi32(reinterpret_cast<const int*>(p), FirstNR<int32_t>(dwords));
    if (rest != 0) {
      const auto* q = reinterpret_cast<const unsigned char*>(p) + 4 * dwords;
      uint32_t t = q[0];
      if (rest > 1) t |= uint32_t{q[1]} << 8;
      if (rest > 2) t |= uint32_t{q[2]} << 16;
      const __m256i at = _mm256_cmpeq_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                            _mm256_set1_epi32(static_cast<int>(dwords)));
      r = _mm256_blendv_epi8(r, _mm256_set1_epi32(static_cast<int>(t)), at);
    }
    return r;
  }
}
// Writes the first `lanes` (<= kLanesPerReg) lanes of one register; nothing beyond them.
template <typename T>
void StorePartR(Raw<T> v, T* p, size_t lanes) {
  if (lanes == kLanesPerReg<T>) {
    StoreUR<T>(v, p);
  } else if (lanes == 0) {
    return;
  } else if constexpr (std::is_same_v<T, float>) {
    _mm256_maskstore_ps(p, AsInt(FirstNR<T>(lanes)), v);
  } else if constexpr (std::is_same_v<T, double>) {
    _mm256_maskstore_pd(p, AsInt(FirstNR<T>(lanes)), v);
  } else if constexpr (sizeof(T) == 4) {
    _mm256_maskstore_epi32(reinterpret_cast<int*>(p), FirstNR<T>(lanes), v);
  } else {
    // Power-of-two pieces from the low end: 16, 8, 4, 2 and 1 bytes by plain stores. A masked
    // vpmaskmovd store costs several times more on Zen 3 (measured), and a stack buffer copied
    // by memcpy costs a call.
    const size_t bytes = lanes * sizeof(T);
    auto* q = reinterpret_cast<unsigned char*>(p);
    __m128i x = _mm256_castsi256_si128(v);
    if (bytes & 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q), x);
      x = _mm256_extracti128_si256(v, 1);
      q += 16;
    }
    if (bytes & 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(q), x);
      x = _mm_srli_si128(x, 8);
      q += 8;
    }
    const auto t = static_cast<uint64_t>(_mm_cvtsi128_si64(x));  // the last 0-7 bytes
    unsigned shift = 0;
    if (bytes & 4) {
      const auto w = static_cast<uint32_t>(t);
      std::memcpy(q, &w, 4);
      q += 4;
      shift = 32;
    }
    if (bytes & 2) {
      const auto w = static_cast<uint16_t>(t >> shift);
      std::memcpy(q, &w, 2);
      q += 2;
      shift += 16;
    }
    if (bytes & 1) *q = static_cast<unsigned char>(t >> shift);
  }
}
}  // namespace detail

template <class D>
VFromD<D> LoadN(D d, const TFromD<D>* p, size_t n) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  n = std::min(n, Lanes(d));
  VFromD<D> r;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) r.raw[j] = detail::LoadPartR(p + j * L, detail::LanesInReg<T>(n, j));
  return r;
}

// Writes the first min(n, Lanes(d)) lanes; memory beyond them is untouched.
template <class D>
void StoreN(D d, const VFromD<D>& v, TFromD<D>* p, size_t n) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  n = std::min(n, Lanes(d));
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    const size_t lanes = detail::LanesInReg<T>(n, j);
    if (lanes == 0) break;
    detail::StorePartR<T>(v.raw[j], p + j * L, lanes);
  }
}

// Load/Store: `p` aligned to kAlignment; LoadU/StoreU: any alignment. On a strip tag only the
// first n lanes are read or written (the others of a loaded vector are zero here).
template <class D>
VFromD<D> LoadU(D d, const TFromD<D>* p) {
  if constexpr (D::kIsStrip) {
    return LoadN(d, p, d.n);
  } else {
    VFromD<D> r;
    for (int j = 0; j < VFromD<D>::kRegs; ++j) r.raw[j] = detail::LoadUR(p + j * detail::kLanesPerReg<TFromD<D>>);
    return r;
  }
}
template <class D>
VFromD<D> Load(D d, const TFromD<D>* p) {
  if constexpr (D::kIsStrip) {
    return LoadN(d, p, d.n);
  } else {
    VFromD<D> r;
    for (int j = 0; j < VFromD<D>::kRegs; ++j) r.raw[j] = detail::LoadAR(p + j * detail::kLanesPerReg<TFromD<D>>);
    return r;
  }
}
template <class D>
void StoreU(D d, const VFromD<D>& v, TFromD<D>* p) {
  if constexpr (D::kIsStrip) {
    StoreN(d, v, p, d.n);
  } else {
    for (int j = 0; j < VFromD<D>::kRegs; ++j) detail::StoreUR<TFromD<D>>(v.raw[j], p + j * detail::kLanesPerReg<TFromD<D>>);
  }
}
template <class D>
void Store(D d, const VFromD<D>& v, TFromD<D>* p) {
  if constexpr (D::kIsStrip) {
    StoreN(d, v, p, d.n);
  } else {
    for (int j = 0; j < VFromD<D>::kRegs; ++j) detail::StoreAR<TFromD<D>>(v.raw[j], p + j * detail::kLanesPerReg<TFromD<D>>);
  }
}
// Non-temporal (vmovntps/pd/dq) for whole groups; a strip is a masked store (there is no masked
// non-temporal store).
template <class D>
void Stream(D d, const VFromD<D>& v, TFromD<D>* p) {
  using T = TFromD<D>;
  if constexpr (D::kIsStrip) {
    StoreN(d, v, p, d.n);
  } else {
    for (int j = 0; j < VFromD<D>::kRegs; ++j) {
      T* q = p + j * detail::kLanesPerReg<T>;
      if constexpr (std::is_same_v<T, float>) _mm256_stream_ps(q, v.raw[j]);
      else if constexpr (std::is_same_v<T, double>) _mm256_stream_pd(q, v.raw[j]);
      else _mm256_stream_si256(reinterpret_cast<__m256i*>(q), v.raw[j]);
    }
  }
}
inline void StreamFence() { _mm_sfence(); }

namespace detail {
// Mask register j of m restricted to the active lanes of d.
template <class D>
Raw<TFromD<D>> ActiveMaskR(D d, const MFromD<D>& m, int j) {
  if constexpr (D::kIsStrip) {
    return BitAnd(m.raw[j], FirstNR<TFromD<D>>(LanesInReg<TFromD<D>>(d.n, j)));
  } else {
    (void)d;
    return m.raw[j];
  }
}
}  // namespace detail

// Active lanes of m are read, the others are zero and their memory is not accessed.
template <class D>
VFromD<D> MaskedLoad(D d, const MFromD<D>& m, const TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  VFromD<D> r;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    const auto mj = detail::ActiveMaskR(d, m, j);
    const T* pj = p + j * L;
    if constexpr (std::is_same_v<T, float>) {
      r.raw[j] = _mm256_maskload_ps(pj, detail::AsInt(mj));
    } else if constexpr (std::is_same_v<T, double>) {
      r.raw[j] = _mm256_maskload_pd(pj, detail::AsInt(mj));
    } else if constexpr (sizeof(T) == 4) {
      r.raw[j] = _mm256_maskload_epi32(reinterpret_cast<const int*>(pj), mj);
    } else {
      // No byte/word maskload: one scalar load per active lane.
      alignas(32) T buf[L] = {};
      uint32_t bits = detail::MaskBits<T>(mj);
      if constexpr (sizeof(T) == 2) bits &= 0x55555555u;
      for (; bits != 0; bits &= bits - 1) {
        const size_t i = static_cast<size_t>(__builtin_ctz(bits)) / sizeof(T);
        buf[i] = pj[i];
      }
      r.raw[j] = detail::LoadAR(buf);
    }
  }
  return r;
}
// Only active lanes of m are written.
template <class D>
void MaskedStore(D d, const MFromD<D>& m, const VFromD<D>& v, TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    const auto mj = detail::ActiveMaskR(d, m, j);
    T* pj = p + j * L;
    if constexpr (std::is_same_v<T, float>) {
      _mm256_maskstore_ps(pj, detail::AsInt(mj), v.raw[j]);
    } else if constexpr (std::is_same_v<T, double>) {
      _mm256_maskstore_pd(pj, detail::AsInt(mj), v.raw[j]);
    } else if constexpr (sizeof(T) == 4) {
      _mm256_maskstore_epi32(reinterpret_cast<int*>(pj), mj, v.raw[j]);
    } else {
      uint32_t bits = detail::MaskBits<T>(mj);
      if constexpr (sizeof(T) == 2) bits &= 0x55555555u;
      if (bits == 0) continue;
      alignas(32) T buf[L];
      detail::StoreAR<T>(v.raw[j], buf);
      for (; bits != 0; bits &= bits - 1) {
        const size_t i = static_cast<size_t>(__builtin_ctz(bits)) / sizeof(T);
        pj[i] = buf[i];
      }
    }
  }
}

namespace detail {
// Gathers lane i = base[idx_i] of register j, masked to d's active lanes for strips. 32-bit
// elements take a ymm of indices, 64-bit elements an xmm.
template <class D, class Idx>
Raw<TFromD<D>> GatherR(D d, const TFromD<D>* base, Idx idx, int j) {
  using T = TFromD<D>;
  (void)d;
  (void)j;
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (D::kIsStrip) {
      return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, idx, FirstNR<T>(LanesInReg<T>(d.n, j)), 4);
    } else {
      return _mm256_i32gather_ps(base, idx, 4);
    }
  } else if constexpr (std::is_same_v<T, double>) {
    if constexpr (D::kIsStrip) {
      return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), base, idx, FirstNR<T>(LanesInReg<T>(d.n, j)), 8);
    } else {
      return _mm256_i32gather_pd(base, idx, 8);
    }
  } else {
    static_assert(sizeof(T) == 4);
    const int* b = reinterpret_cast<const int*>(base);
    if constexpr (D::kIsStrip) {
      return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), b, idx, FirstNR<T>(LanesInReg<T>(d.n, j)), 4);
    } else {
      return _mm256_i32gather_epi32(b, idx, 4);
    }
  }
}
}  // namespace detail

// Lane i = p[i * stride]; stride in elements, may be zero or negative.
template <class D>
VFromD<D> LoadStrided(D d, const TFromD<D>* p, ptrdiff_t stride) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  constexpr size_t N = VFromD<D>::N;
  VFromD<D> r;
  if constexpr (sizeof(T) >= 4) {
    // Gather while every lane index i * stride fits the 32-bit index.
    constexpr ptrdiff_t kMaxStride = std::numeric_limits<int32_t>::max() / static_cast<ptrdiff_t>(N);
    if (stride >= -kMaxStride && stride <= kMaxStride) {
      const int s = static_cast<int>(stride);
      for (int j = 0; j < VFromD<D>::kRegs; ++j) {
        const int i0 = static_cast<int>(j * L);
        if constexpr (sizeof(T) == 4) {
          const __m256i lane = _mm256_add_epi32(_mm256_set1_epi32(i0), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
          r.raw[j] = detail::GatherR(d, p, _mm256_mullo_epi32(lane, _mm256_set1_epi32(s)), j);
        } else {
          const __m128i lane = _mm_add_epi32(_mm_set1_epi32(i0), _mm_setr_epi32(0, 1, 2, 3));
          r.raw[j] = detail::GatherR(d, p, _mm_mullo_epi32(lane, _mm_set1_epi32(s)), j);
        }
      }
      return r;
    }
  }
  alignas(32) T buf[N] = {};
  for (size_t i = 0; i < Lanes(d); ++i) buf[i] = p[static_cast<ptrdiff_t>(i) * stride];
  for (int j = 0; j < VFromD<D>::kRegs; ++j) r.raw[j] = detail::LoadAR(buf + j * L);
  return r;
}
// Lanes are written in lane order, so with stride 0 the last active lane's value stays
// (scalar.h); stride 0 stores that lane alone.
template <class D>
void StoreStrided(D d, const VFromD<D>& v, TFromD<D>* p, ptrdiff_t stride) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  if (stride == 0) {
    const size_t n = Lanes(d);
    if (n != 0) {
      alignas(32) T reg[L];
      detail::StoreAR<T>(v.raw[(n - 1) / L], reg);
      *p = reg[(n - 1) % L];
    }
    return;
  }
  alignas(32) T buf[VFromD<D>::N];
  for (int j = 0; j < VFromD<D>::kRegs; ++j) detail::StoreAR<T>(v.raw[j], buf + j * L);
  for (size_t i = 0; i < Lanes(d); ++i) p[static_cast<ptrdiff_t>(i) * stride] = buf[i];
}

// ------------------------------------------------------------------------------ interleaved
// Per register j of the group: the 2L elements at p + 2jL (L lanes per register) are two
// registers' worth, lo and hi. AVX2 shuffles work within 128-bit halves, so each op is an
// in-half step and one cross-half fix-up:
// - de-interleave: 32-bit lanes vshufps picks the even (odd) positions of lo and hi, 64-bit
//   lanes vunpck{l,h}pd; 8/16-bit lanes keep the low (high) half of each 16/32-bit word and
//   pack them (vpackus{wb,dw}). All give the halves' results in the order 0, 2, 1, 3 of 64-bit
//   chunks, which one vpermq/vpermpd (0xD8) restores.
// - interleave: vunpck{l,h} zips a and b within each half; vperm2f128/vperm2i128 pick the halves
//   for lo and hi.
// That replaces LoadStrided/StoreStrided's gather and element-wise scatter for stride 2. A strip
// of n lanes covers 2n elements: lo and hi load/store their share of them exactly (LoadPartR).
namespace detail {
template <typename T>
void Deinterleave2R(Raw<T> lo, Raw<T> hi, Raw<T>& a, Raw<T>& b) {
  constexpr int kFix = 0xD8;  // 64-bit chunks 0, 2, 1, 3
  if constexpr (sizeof(T) == 4) {
    const __m256 l = _mm256_castsi256_ps(AsInt(lo)), h = _mm256_castsi256_ps(AsInt(hi));
    const __m256d even = _mm256_castps_pd(_mm256_shuffle_ps(l, h, _MM_SHUFFLE(2, 0, 2, 0)));
    const __m256d odd = _mm256_castps_pd(_mm256_shuffle_ps(l, h, _MM_SHUFFLE(3, 1, 3, 1)));
    a = FromInt<T>(_mm256_castpd_si256(_mm256_permute4x64_pd(even, kFix)));
    b = FromInt<T>(_mm256_castpd_si256(_mm256_permute4x64_pd(odd, kFix)));
  } else if constexpr (sizeof(T) == 8) {
    a = _mm256_permute4x64_pd(_mm256_unpacklo_pd(lo, hi), kFix);
    b = _mm256_permute4x64_pd(_mm256_unpackhi_pd(lo, hi), kFix);
  } else if constexpr (sizeof(T) == 2) {
    // Halves of 32-bit words, zero-extended: packus's unsigned saturation keeps them exact.
    const __m256i low = _mm256_set1_epi32(0xFFFF);
    a = _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_and_si256(lo, low), _mm256_and_si256(hi, low)), kFix);
    b = _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(lo, 16), _mm256_srli_epi32(hi, 16)), kFix);
  } else {
    const __m256i low = _mm256_set1_epi16(0x00FF);
    a = _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_and_si256(lo, low), _mm256_and_si256(hi, low)), kFix);
    b = _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_srli_epi16(lo, 8), _mm256_srli_epi16(hi, 8)), kFix);
  }
}
template <typename T>
void Interleave2R(Raw<T> a, Raw<T> b, Raw<T>& lo, Raw<T>& hi) {
  if constexpr (std::is_same_v<T, float>) {
    const __m256 ul = _mm256_unpacklo_ps(a, b), uh = _mm256_unpackhi_ps(a, b);
    lo = _mm256_permute2f128_ps(ul, uh, 0x20);
    hi = _mm256_permute2f128_ps(ul, uh, 0x31);
  } else if constexpr (std::is_same_v<T, double>) {
    const __m256d ul = _mm256_unpacklo_pd(a, b), uh = _mm256_unpackhi_pd(a, b);
    lo = _mm256_permute2f128_pd(ul, uh, 0x20);
    hi = _mm256_permute2f128_pd(ul, uh, 0x31);
  } else {
    __m256i ul, uh;
    if constexpr (sizeof(T) == 4) {
      ul = _mm256_unpacklo_epi32(a, b);
      uh = _mm256_unpackhi_epi32(a, b);
    } else if constexpr (sizeof(T) == 2) {
      ul = _mm256_unpacklo_epi16(a, b);
      uh = _mm256_unpackhi_epi16(a, b);
    } else {
      ul = _mm256_unpacklo_epi8(a, b);
      uh = _mm256_unpackhi_epi8(a, b);
    }
    lo = _mm256_permute2x128_si256(ul, uh, 0x20);
    hi = _mm256_permute2x128_si256(ul, uh, 0x31);
  }
}
}  // namespace detail

template <class D>
void LoadInterleaved2(D d, const TFromD<D>* p, VFromD<D>& a, VFromD<D>& b) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    const T* pj = p + 2 * L * static_cast<size_t>(j);
    detail::Raw<T> lo, hi;
    if constexpr (D::kIsStrip) {
      const size_t n2 = 2 * detail::LanesInReg<T>(d.n, j);  // elements of register j's pairs
      lo = detail::LoadPartR(pj, std::min(n2, L));
      hi = detail::LoadPartR(pj + L, n2 - std::min(n2, L));
    } else {
      lo = detail::LoadUR(pj);
      hi = detail::LoadUR(pj + L);
    }
    detail::Deinterleave2R<T>(lo, hi, a.raw[j], b.raw[j]);
  }
}
template <class D>
void StoreInterleaved2(D d, const VFromD<D>& a, const VFromD<D>& b, TFromD<D>* p) {
  using T = TFromD<D>;
  constexpr size_t L = detail::kLanesPerReg<T>;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    T* pj = p + 2 * L * static_cast<size_t>(j);
    detail::Raw<T> lo, hi;
    if constexpr (D::kIsStrip) {
      const size_t n2 = 2 * detail::LanesInReg<T>(d.n, j);
      if (n2 == 0) break;
      detail::Interleave2R<T>(a.raw[j], b.raw[j], lo, hi);
      detail::StorePartR<T>(lo, pj, std::min(n2, L));
      detail::StorePartR<T>(hi, pj + L, n2 - std::min(n2, L));
    } else {
      detail::Interleave2R<T>(a.raw[j], b.raw[j], lo, hi);
      detail::StoreUR<T>(lo, pj);
      detail::StoreUR<T>(hi, pj + L);
    }
  }
}

// Lane i = base[idx[i]] for 32-bit element types; idx in elements, non-negative.
template <class D>
VFromD<D> Gather(D d, const TFromD<D>* base, const VFromD<RebindD<D, int32_t>>& idx) {
  static_assert(sizeof(TFromD<D>) == 4, "Gather takes 32-bit elements with 32-bit indices");
  VFromD<D> r;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) r.raw[j] = detail::GatherR(d, base, idx.raw[j], j);
  return r;
}

// Lane i = table[idx[i]]: a 256-entry byte table in memory. pshufb looks up the low nibble in
// each of the 16 table rows (broadcast to both 128-bit halves); a blend tree on the high
// nibble's bits picks the row. Only the table itself is read.
template <class D>
VFromD<D> TableLookup256(D, const uint8_t* table, const VFromD<D>& idx) {
  static_assert(std::is_same_v<TFromD<D>, uint8_t>, "TableLookup256 takes u8 indices");
  __m256i rows[16];
  for (int c = 0; c < 16; ++c) {
    rows[c] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * c)));
  }
  const __m256i low_nibble = _mm256_set1_epi8(0x0F);
  VFromD<D> r;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    const __m256i x = idx.raw[j];
    const __m256i lo = _mm256_and_si256(x, low_nibble);
    __m256i t[16];
    for (int c = 0; c < 16; ++c) t[c] = _mm256_shuffle_epi8(rows[c], lo);
    // Bit 4 + b of each byte moved to bit 7, where blendv reads it.
    const __m256i sel4 = _mm256_slli_epi16(x, 3);
    for (int c = 0; c < 8; ++c) t[c] = _mm256_blendv_epi8(t[2 * c], t[2 * c + 1], sel4);
    const __m256i sel5 = _mm256_slli_epi16(x, 2);
    for (int c = 0; c < 4; ++c) t[c] = _mm256_blendv_epi8(t[2 * c], t[2 * c + 1], sel5);
    const __m256i sel6 = _mm256_slli_epi16(x, 1);
    for (int c = 0; c < 2; ++c) t[c] = _mm256_blendv_epi8(t[2 * c], t[2 * c + 1], sel6);
    r.raw[j] = _mm256_blendv_epi8(t[0], t[1], x);
  }
  return r;
}

// -------------------------------------------------------------------------------- arithmetic
// Integers wrap on overflow.
template <class D>
VFromD<D> Add(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2(a, b, [](auto x, auto y) { return detail::AddR<TFromD<D>>(x, y); });
}
template <class D>
VFromD<D> Sub(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2(a, b, [](auto x, auto y) { return detail::SubR<TFromD<D>>(x, y); });
}
namespace detail {
// (a + b + 1) >> 1 of 8- and 16-bit lanes read as unsigned (vpavgb / vpavgw); AverageFloor
// (fixed_generic.h) is built on it.
template <class D>
VFromD<D> AverageCeilUnsigned(D, const VFromD<D>& a, const VFromD<D>& b) {
  static_assert(sizeof(TFromD<D>) <= 2);
  return Map2(a, b, [](auto x, auto y) {
    if constexpr (sizeof(TFromD<D>) == 1) return _mm256_avg_epu8(x, y);
    else return _mm256_avg_epu16(x, y);
  });
}
}  // namespace detail
template <class D>
VFromD<D> Mul(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2(a, b, [](auto x, auto y) { return detail::MulR<TFromD<D>>(x, y); });
}
// Floats only.
template <class D>
VFromD<D> Div(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  return detail::Map2(a, b, [](auto x, auto y) {
    if constexpr (std::is_same_v<T, float>) return _mm256_div_ps(x, y); else return _mm256_div_pd(x, y);
  });
}
// a * b + c, fused (one rounding) for floats; wrapping for integers.
template <class D>
VFromD<D> MulAdd(D, const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c) {
  using T = TFromD<D>;
  return detail::Map3(a, b, c, [](auto x, auto y, auto z) {
    if constexpr (std::is_same_v<T, float>) return _mm256_fmadd_ps(x, y, z);
    else if constexpr (std::is_same_v<T, double>) return _mm256_fmadd_pd(x, y, z);
    else return detail::AddR<T>(detail::MulR<T>(x, y), z);
  });
}
// c - a * b, fused for floats; wrapping for integers.
template <class D>
VFromD<D> NegMulAdd(D, const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c) {
  using T = TFromD<D>;
  return detail::Map3(a, b, c, [](auto x, auto y, auto z) {
    if constexpr (std::is_same_v<T, float>) return _mm256_fnmadd_ps(x, y, z);
    else if constexpr (std::is_same_v<T, double>) return _mm256_fnmadd_pd(x, y, z);
    else return detail::SubR<T>(z, detail::MulR<T>(x, y));
  });
}
// Floats flip the sign bit (Neg(NaN) is NaN, Neg(0) = -0); integers wrap (Neg(MIN) = MIN).
template <class D>
VFromD<D> Neg(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  return detail::Map1(a, [](auto x) {
    if constexpr (detail::IsFloat<T>) return detail::BitXor(x, detail::Set1<T>(T(-0.0)));
    else return detail::SubR<T>(detail::ZeroR<T>(), x);
  });
}
// Floats clear the sign bit; signed integers wrap (Abs(MIN) = MIN); unsigned: identity.
template <class D>
VFromD<D> Abs(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  return detail::Map1(a, [](auto x) {
    if constexpr (detail::IsFloat<T>) return detail::BitAndNot(detail::Set1<T>(T(-0.0)), x);
    else if constexpr (std::is_unsigned_v<T>) return x;
    else if constexpr (sizeof(T) == 1) return _mm256_abs_epi8(x);
    else if constexpr (sizeof(T) == 2) return _mm256_abs_epi16(x);
    else return _mm256_abs_epi32(x);
  });
}
// Floats: IEEE-754 minimumNumber/maximumNumber: a NaN operand is ignored unless both are NaN
// (then NaN); Min(-0, +0) may return either zero.
template <class D>
VFromD<D> Min(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2(a, b, [](auto x, auto y) { return detail::MinR<TFromD<D>>(x, y); });
}
template <class D>
VFromD<D> Max(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Map2(a, b, [](auto x, auto y) { return detail::MaxR<TFromD<D>>(x, y); });
}
// max(v, acc) for MaxAccumulate (fixed_generic.h): vmaxps(v, acc) returns acc whenever either is
// NaN, so with acc never NaN it is maximumNumber without Max's compare and blend.
#define VLAK_HAVE_MAX_UNFIXED 1
namespace detail {
template <class D>
VFromD<D> MaxUnfixed(D d, const VFromD<D>& v, const VFromD<D>& acc) {
  using T = TFromD<D>;
  if constexpr (std::is_same_v<T, float>) {
    return Map2(v, acc, [](auto x, auto y) { return _mm256_max_ps(x, y); });
  } else if constexpr (std::is_same_v<T, double>) {
    return Map2(v, acc, [](auto x, auto y) { return _mm256_max_pd(x, y); });
  } else {
    return Max(d, acc, v);
  }
}
}  // namespace detail
// Floats only: correctly rounded.
template <class D>
VFromD<D> Sqrt(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  return detail::Map1(a, [](auto x) {
    if constexpr (std::is_same_v<T, float>) return _mm256_sqrt_ps(x); else return _mm256_sqrt_pd(x);
  });
}

namespace detail {
template <int kMode, typename T, int kPow2>
Vec<T, kPow2> RoundV(const Vec<T, kPow2>& a) {
  return Map1(a, [](auto x) {
    if constexpr (std::is_same_v<T, float>) return _mm256_round_ps(x, kMode | _MM_FROUND_NO_EXC);
    else return _mm256_round_pd(x, kMode | _MM_FROUND_NO_EXC);
  });
}
}  // namespace detail

// Floats only: integral values stay, NaN stays NaN, the sign of zero is kept.
template <class D>
VFromD<D> Floor(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::RoundV<_MM_FROUND_TO_NEG_INF>(a);
}
template <class D>
VFromD<D> Ceil(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::RoundV<_MM_FROUND_TO_POS_INF>(a);
}
template <class D>
VFromD<D> Trunc(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::RoundV<_MM_FROUND_TO_ZERO>(a);
}
// Round to nearest, ties to even.
template <class D>
VFromD<D> Round(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::RoundV<_MM_FROUND_TO_NEAREST_INT>(a);
}

// 8- and 16-bit integers: clamp to the type's range instead of wrapping.
template <class D>
VFromD<D> SaturatedAdd(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  return detail::Map2(a, b, [](__m256i x, __m256i y) {
    if constexpr (std::is_same_v<T, int8_t>) return _mm256_adds_epi8(x, y);
    else if constexpr (std::is_same_v<T, uint8_t>) return _mm256_adds_epu8(x, y);
    else if constexpr (std::is_same_v<T, int16_t>) return _mm256_adds_epi16(x, y);
    else return _mm256_adds_epu16(x, y);
  });
}
template <class D>
VFromD<D> SaturatedSub(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  return detail::Map2(a, b, [](__m256i x, __m256i y) {
    if constexpr (std::is_same_v<T, int8_t>) return _mm256_subs_epi8(x, y);
    else if constexpr (std::is_same_v<T, uint8_t>) return _mm256_subs_epu8(x, y);
    else if constexpr (std::is_same_v<T, int16_t>) return _mm256_subs_epi16(x, y);
    else return _mm256_subs_epu16(x, y);
  });
}

// ------------------------------------------------------------------------------ integer bits
// Shifts: counts in [0, bits); right shifts are arithmetic for signed types, logical otherwise.
template <int kBits, class D>
VFromD<D> ShiftLeft(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  return detail::Map1(a, [](__m256i x) {
    if constexpr (sizeof(T) == 1) return detail::ShlU8<kBits>(x);
    else if constexpr (sizeof(T) == 2) return _mm256_slli_epi16(x, kBits);
    else return _mm256_slli_epi32(x, kBits);
  });
}
template <int kBits, class D>
VFromD<D> ShiftRight(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  return detail::Map1(a, [](__m256i x) {
    if constexpr (std::is_same_v<T, int8_t>) return detail::ShrI8<kBits>(x);
    else if constexpr (std::is_same_v<T, uint8_t>) return detail::ShrU8<kBits>(x);
    else if constexpr (std::is_same_v<T, int16_t>) return _mm256_srai_epi16(x, kBits);
    else if constexpr (std::is_same_v<T, uint16_t>) return _mm256_srli_epi16(x, kBits);
    else if constexpr (std::is_same_v<T, int32_t>) return _mm256_srai_epi32(x, kBits);
    else return _mm256_srli_epi32(x, kBits);
  });
}
template <class D>
VFromD<D> Shl(D, const VFromD<D>& a, const VFromD<D>& count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  return detail::Map2(a, count, [](__m256i x, __m256i s) {
    if constexpr (sizeof(T) == 1) return detail::VarShift8<true, false>(x, s);
    else if constexpr (sizeof(T) == 2) return detail::VarShift16<true, false>(x, s);
    else return _mm256_sllv_epi32(x, s);
  });
}
template <class D>
VFromD<D> Shr(D, const VFromD<D>& a, const VFromD<D>& count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  constexpr bool kSigned = std::is_signed_v<T>;
  return detail::Map2(a, count, [](__m256i x, __m256i s) {
    if constexpr (sizeof(T) == 1) return detail::VarShift8<false, kSigned>(x, s);
    else if constexpr (sizeof(T) == 2) return detail::VarShift16<false, kSigned>(x, s);
    else if constexpr (kSigned) return _mm256_srav_epi32(x, s);
    else return _mm256_srlv_epi32(x, s);
  });
}

// Bitwise ops, on integers and (bit pattern) floats. AndNot(a, b) = ~a & b.
template <class D>
VFromD<D> And(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitAnd(x, y); }); }
template <class D>
VFromD<D> Or(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitOr(x, y); }); }
template <class D>
VFromD<D> Xor(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitXor(x, y); }); }
template <class D>
VFromD<D> AndNot(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitAndNot(x, y); }); }

// ------------------------------------------------------------------------------ comparisons
// Floats: ordered compares (false when either is NaN) except Ne, which is true then.
template <class D>
MFromD<D> Eq(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Cmp<D>(a, b, [](auto x, auto y) { return detail::EqR<TFromD<D>>(x, y); });
}
template <class D>
MFromD<D> Ne(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  return detail::Cmp<D>(a, b, [](auto x, auto y) {
    if constexpr (std::is_same_v<T, float>) return _mm256_cmp_ps(x, y, _CMP_NEQ_UQ);
    else if constexpr (std::is_same_v<T, double>) return _mm256_cmp_pd(x, y, _CMP_NEQ_UQ);
    else return detail::BitXor(detail::EqR<T>(x, y), detail::OnesR<T>());
  });
}
template <class D>
MFromD<D> Lt(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Cmp<D>(a, b, [](auto x, auto y) { return detail::GtR<TFromD<D>>(y, x); });
}
template <class D>
MFromD<D> Le(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Cmp<D>(a, b, [](auto x, auto y) { return detail::GeR<TFromD<D>>(y, x); });
}
template <class D>
MFromD<D> Gt(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Cmp<D>(a, b, [](auto x, auto y) { return detail::GtR<TFromD<D>>(x, y); });
}
template <class D>
MFromD<D> Ge(D, const VFromD<D>& a, const VFromD<D>& b) {
  return detail::Cmp<D>(a, b, [](auto x, auto y) { return detail::GeR<TFromD<D>>(x, y); });
}
// True where a is NaN (never for integers).
template <class D>
MFromD<D> IsNaN(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  return detail::Cmp<D>(a, a, [](auto x, auto) {
    if constexpr (std::is_same_v<T, float>) return _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    else if constexpr (std::is_same_v<T, double>) return _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
    else return detail::ZeroR<T>();
  });
}

// -------------------------------------------------------------------------------------- masks
template <class D>
MFromD<D> FirstN(D, size_t n) {
  MFromD<D> m;
  for (int j = 0; j < MFromD<D>::kRegs; ++j) m.raw[j] = detail::FirstNR<TFromD<D>>(detail::LanesInReg<TFromD<D>>(n, j));
  return m;
}
template <class D>
MFromD<D> MaskAnd(D, const MFromD<D>& a, const MFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitAnd(x, y); }); }
template <class D>
MFromD<D> MaskOr(D, const MFromD<D>& a, const MFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitOr(x, y); }); }
template <class D>
MFromD<D> MaskXor(D, const MFromD<D>& a, const MFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitXor(x, y); }); }
template <class D>
MFromD<D> MaskAndNot(D, const MFromD<D>& a, const MFromD<D>& b) { return detail::Map2(a, b, [](auto x, auto y) { return detail::BitAndNot(x, y); }); }
template <class D>
MFromD<D> MaskNot(D, const MFromD<D>& a) {
  return detail::Map1(a, [](auto x) { return detail::BitXor(x, detail::OnesR<TFromD<D>>()); });
}
// Counts and tests look at active lanes only.
template <class D>
size_t CountTrue(D d, const MFromD<D>& m) {
  using T = TFromD<D>;
  size_t bits = 0;
  for (int j = 0; j < MFromD<D>::kRegs; ++j) {
    bits += static_cast<size_t>(__builtin_popcount(detail::MaskBits<T>(detail::ActiveMaskR(d, m, j))));
  }
  return bits / detail::kBitsPerLane<T>;
}
template <class D>
bool AllTrue(D d, const MFromD<D>& m) {
  if constexpr (D::kIsStrip) {
    return CountTrue(d, m) == Lanes(d);
  } else {
    __m256i all = detail::AsInt(m.raw[0]);
    for (int j = 1; j < MFromD<D>::kRegs; ++j) all = _mm256_and_si256(all, detail::AsInt(m.raw[j]));
    return _mm256_movemask_epi8(all) == -1;
  }
}
template <class D>
bool AllFalse(D d, const MFromD<D>& m) {
  if constexpr (D::kIsStrip) {
    return CountTrue(d, m) == 0;
  } else {
    __m256i any = detail::AsInt(m.raw[0]);
    for (int j = 1; j < MFromD<D>::kRegs; ++j) any = _mm256_or_si256(any, detail::AsInt(m.raw[j]));
    return _mm256_testz_si256(any, any) != 0;
  }
}

template <class D>
VFromD<D> IfThenElse(D, const MFromD<D>& m, const VFromD<D>& yes, const VFromD<D>& no) {
  VFromD<D> r;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) r.raw[j] = detail::Select(m.raw[j], yes.raw[j], no.raw[j]);
  return r;
}
template <class D>
VFromD<D> IfThenElseZero(D, const MFromD<D>& m, const VFromD<D>& yes) {
  VFromD<D> r;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) r.raw[j] = detail::BitAnd(m.raw[j], yes.raw[j]);
  return r;
}

// Accumulating (*TU) ops and scalar-operand forms: fixed_generic.h.

// -------------------------------------------------------------------------------- reductions
// Over active lanes. ReduceSum: any association order (integers wrap, so exact); ReduceSumOrdered
// (floats): ((+0 + v0) + v1) + ... in lane order. Min/Max of zero lanes: +inf/-inf for floats,
// the type's max/min for integers; NaN lanes are ignored unless all lanes are NaN.
namespace detail {
// Inactive lanes of a strip replaced by `fill`.
template <class D>
VFromD<D> FillInactive(D d, const VFromD<D>& v, TFromD<D> fill) {
  if constexpr (D::kIsStrip) {
    return IfThenElse(d, FirstN(d, d.n), v, Set(d, fill));
  } else {
    (void)d;
    (void)fill;
    return v;
  }
}
// op over all lanes of a group: registers first, then within the register.
template <typename T, class V, class F>
T FoldLanes(const V& v, F op) {
  Raw<T> acc = v.raw[0];
  for (int j = 1; j < V::kRegs; ++j) acc = op(acc, v.raw[j]);
  return FirstLaneR<T>(AllReduceR<T>(acc, op));
}
}  // namespace detail

template <class D>
TFromD<D> ReduceSum(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  const VFromD<D> x = detail::FillInactive(d, v, T{0});
  if constexpr (detail::IsFloat<T>) {
    // A tree of -0 lanes sums to -0; the sequential definition starts from +0.
    return detail::FoldLanes<T>(x, [](auto p, auto q) { return detail::AddR<T>(p, q); }) + T{0};
  } else {
    __m256i acc = x.raw[0];
    for (int j = 1; j < VFromD<D>::kRegs; ++j) acc = detail::AddR<T>(acc, x.raw[j]);
    if constexpr (sizeof(T) == 1) {
      // Byte sums as four 64-bit partial sums; the low byte of the total wraps correctly.
      __m256i s = _mm256_sad_epu8(acc, _mm256_setzero_si256());
      s = _mm256_add_epi64(s, _mm256_permute2x128_si256(s, s, 1));
      s = _mm256_add_epi64(s, _mm256_shuffle_epi32(s, 0x4E));
      return static_cast<T>(_mm256_cvtsi256_si32(s));
    } else {
      if constexpr (sizeof(T) == 2) acc = _mm256_madd_epi16(acc, _mm256_set1_epi16(1));  // pairs -> 32-bit
      const __m256i s = detail::AllReduceR<int32_t>(acc, [](__m256i p, __m256i q) { return _mm256_add_epi32(p, q); });
      return static_cast<T>(_mm256_cvtsi256_si32(s));
    }
  }
}
template <class D>
TFromD<D> ReduceSumOrdered(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  alignas(32) T buf[VFromD<D>::N];
  for (int j = 0; j < VFromD<D>::kRegs; ++j) detail::StoreAR<T>(v.raw[j], buf + j * detail::kLanesPerReg<T>);
  T s{0};
  for (size_t i = 0; i < Lanes(d); ++i) s += buf[i];
  return s;
}

namespace detail {
template <bool kMin, class D>
TFromD<D> ReduceMinMax(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  using Lim = std::numeric_limits<T>;
  auto op = [](auto p, auto q) { if constexpr (kMin) return MinR<T>(p, q); else return MaxR<T>(p, q); };
  if constexpr (IsFloat<T>) {
    // Inactive lanes become NaN, which the NaN-ignoring op skips; the result is NaN only if
    // every active lane is NaN too.
    if (Lanes(d) == 0) return kMin ? Lim::infinity() : -Lim::infinity();
    const T r = FoldLanes<T>(FillInactive(d, v, Lim::quiet_NaN()), op);
    return r != r ? Lim::quiet_NaN() : r;
  } else {
    return FoldLanes<T>(FillInactive(d, v, kMin ? Lim::max() : Lim::min()), op);
  }
}
}  // namespace detail
template <class D>
TFromD<D> ReduceMin(D d, const VFromD<D>& v) { return detail::ReduceMinMax<true>(d, v); }
template <class D>
TFromD<D> ReduceMax(D d, const VFromD<D>& v) { return detail::ReduceMinMax<false>(d, v); }

// ------------------------------------------------------------------------------- conversions
// Same lane count and lane size, bits reinterpreted.
template <class DTo, class DFrom>
VFromD<DTo> BitCast(DTo, DFrom, const VFromD<DFrom>& v) {
  static_assert(sizeof(TFromD<DTo>) == sizeof(TFromD<DFrom>) && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  VFromD<DTo> r;
  for (int j = 0; j < VFromD<DTo>::kRegs; ++j) r.raw[j] = detail::FromInt<TFromD<DTo>>(detail::AsInt(v.raw[j]));
  return r;
}

namespace detail {
// f32 (already integral) -> int32, saturating with NaN -> 0. cvttps gives INT_MIN for NaN and
// out-of-range inputs, which is already right for x < -2^31.
inline __m256i SaturateToI32R(__m256 x) {
  __m256i r = _mm256_cvttps_epi32(x);
  const __m256 too_big = _mm256_cmp_ps(x, _mm256_set1_ps(2147483648.0f), _CMP_GE_OQ);
  r = _mm256_xor_si256(r, _mm256_castps_si256(too_big));  // INT_MIN ^ ~0 = INT_MAX
  return _mm256_and_si256(r, _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_ORD_Q)));
}
}  // namespace detail

// int32/uint32 -> f32 (round to nearest even); f32 -> int32 toward zero (saturating, NaN -> 0).
template <class DTo, class DFrom>
VFromD<DTo> ConvertTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) == 4 && sizeof(TF) == 4 && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  VFromD<DTo> r;
  for (int j = 0; j < VFromD<DTo>::kRegs; ++j) {
    if constexpr (std::is_same_v<TT, float>) {
      static_assert(std::is_integral_v<TF>);
      if constexpr (std::is_signed_v<TF>) {
        r.raw[j] = _mm256_cvtepi32_ps(v.raw[j]);
      } else {
        // No u32 -> f32: hi * 2^16 and lo are both exact in f32, so their sum rounds once.
        const __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(v.raw[j], 16));
        const __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(v.raw[j], _mm256_set1_epi32(0xFFFF)));
        r.raw[j] = _mm256_fmadd_ps(hi, _mm256_set1_ps(65536.0f), lo);
      }
    } else {
      static_assert(std::is_same_v<TT, int32_t> && std::is_same_v<TF, float>);
      r.raw[j] = detail::SaturateToI32R(_mm256_round_ps(v.raw[j], _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
    }
  }
  return r;
}
// f32 -> int32 rounding to nearest even (saturating, NaN -> 0).
template <class D>
VFromD<RebindD<D, int32_t>> NearestInt(D, const VFromD<D>& v) {
  static_assert(std::is_same_v<TFromD<D>, float>);
  VFromD<RebindD<D, int32_t>> r;
  for (int j = 0; j < VFromD<D>::kRegs; ++j) {
    r.raw[j] = detail::SaturateToI32R(_mm256_round_ps(v.raw[j], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  return r;
}

// Widen: same lane count, wider type. Signed sources sign-extend, unsigned zero-extend; f32->f64.
// Each source register feeds kRatio destination registers, in lane order.
template <class DTo, class DFrom>
VFromD<DTo> PromoteTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) > sizeof(TF) && VFromD<DTo>::N == VFromD<DFrom>::N);
  static_assert(std::is_floating_point_v<TT> == std::is_floating_point_v<TF>);
  static_assert(!(std::is_signed_v<TF> && std::is_unsigned_v<TT>), "sign-extending into unsigned");
  constexpr int kRatio = static_cast<int>(sizeof(TT) / sizeof(TF));
  VFromD<DTo> r;
  for (int s = 0; s < VFromD<DFrom>::kRegs; ++s) {
    const __m256i src = detail::AsInt(v.raw[s]);
    for (int q = 0; q < kRatio; ++q) {
      // The 32 / kRatio source bytes of destination register q, at the bottom of an xmm.
      __m128i part = q * 2 < kRatio ? _mm256_castsi256_si128(src) : _mm256_extracti128_si256(src, 1);
      if (kRatio == 4 && (q & 1)) part = _mm_srli_si128(part, 8);
      auto& out = r.raw[s * kRatio + q];
      if constexpr (std::is_same_v<TT, double>) {
        out = _mm256_cvtps_pd(_mm_castsi128_ps(part));
      } else if constexpr (sizeof(TF) == 1 && sizeof(TT) == 2) {
        out = std::is_signed_v<TF> ? _mm256_cvtepi8_epi16(part) : _mm256_cvtepu8_epi16(part);
      } else if constexpr (sizeof(TF) == 1) {
        out = std::is_signed_v<TF> ? _mm256_cvtepi8_epi32(part) : _mm256_cvtepu8_epi32(part);
      } else {
        out = std::is_signed_v<TF> ? _mm256_cvtepi16_epi32(part) : _mm256_cvtepu16_epi32(part);
      }
    }
  }
  return r;
}

// Narrow keeping the low bits (integers). Masking to the destination width first makes the
// unsigned-saturating packs exact; packs work per 128-bit half, so a permute restores order.
template <class DTo, class DFrom>
VFromD<DTo> TruncateTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(std::is_integral_v<TT> && std::is_integral_v<TF> && sizeof(TT) < sizeof(TF));
  static_assert(VFromD<DTo>::N == VFromD<DFrom>::N);
  constexpr int kRatio = static_cast<int>(sizeof(TF) / sizeof(TT));
  VFromD<DTo> r;
  for (int t = 0; t < VFromD<DTo>::kRegs; ++t) {
    const __m256i* src = &v.raw[t * kRatio];
    if constexpr (sizeof(TF) == 2) {
      const __m256i m = _mm256_set1_epi16(0xFF);
      const __m256i packed = _mm256_packus_epi16(_mm256_and_si256(src[0], m), _mm256_and_si256(src[1], m));
      r.raw[t] = _mm256_permute4x64_epi64(packed, 0xD8);
    } else if constexpr (sizeof(TT) == 2) {
      const __m256i m = _mm256_set1_epi32(0xFFFF);
      const __m256i packed = _mm256_packus_epi32(_mm256_and_si256(src[0], m), _mm256_and_si256(src[1], m));
      r.raw[t] = _mm256_permute4x64_epi64(packed, 0xD8);
    } else {
      const __m256i m = _mm256_set1_epi32(0xFF);
      const __m256i ab = _mm256_packus_epi32(_mm256_and_si256(src[0], m), _mm256_and_si256(src[1], m));
      const __m256i cd = _mm256_packus_epi32(_mm256_and_si256(src[2], m), _mm256_and_si256(src[3], m));
      // Dwords now hold source quarters in the order a0 b0 c0 d0 a1 b1 c1 d1.
      r.raw[t] = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
  }
  return r;
}

// Narrow with saturation to the destination's range; f64->f32 rounds to nearest even under the
// default MXCSR (vcvtpd2ps: denormal results kept, overflow to inf, NaN quietened). Other float
// forms do not compile (scalar.h). Integers: clamp in the source type, then truncate.
template <class DTo, class DFrom>
VFromD<DTo> DemoteTo(DTo dto, DFrom dfrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) < sizeof(TF) && VFromD<DTo>::N == VFromD<DFrom>::N);
  static_assert(simd::detail::kDemoteFloatOk<TT, TF>, VLAK_DEMOTE_FLOAT_MESSAGE);
  if constexpr (std::is_floating_point_v<TF>) {
    VFromD<DTo> r;
    for (int t = 0; t < VFromD<DTo>::kRegs; ++t) {
      r.raw[t] = _mm256_set_m128(_mm256_cvtpd_ps(v.raw[2 * t + 1]), _mm256_cvtpd_ps(v.raw[2 * t]));
    }
    return r;
  } else {
    static_assert(std::is_integral_v<TT>);
    // TT's range fits TF's (TF is wider), so both bounds are exact in TF; an unsigned source
    // needs no lower bound.
    const VFromD<DFrom> clamped = detail::Map1(v, [](__m256i x) {
      x = detail::MinR<TF>(x, detail::Set1<TF>(static_cast<TF>(std::numeric_limits<TT>::max())));
      if constexpr (std::is_signed_v<TF>) {
        x = detail::MaxR<TF>(x, detail::Set1<TF>(static_cast<TF>(std::numeric_limits<TT>::min())));
      }
      return x;
    });
    return TruncateTo(dto, dfrom, clamped);
  }
}

}  // namespace vlak::VLAK_NS

#include "fixed_generic.h"
