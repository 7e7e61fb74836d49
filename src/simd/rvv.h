// vlak vector layer, RISC-V Vector 1.0 target (clang >= 19 `__riscv_` intrinsics, rv64gcv).
//
// Vectors are the native sizeless types (vfloat32m2_t, ...), which cannot be class members or
// array elements, so there are no wrappers: VFromD/MFromD map a tag to the native type through
// trait specialisations, and the few intrinsics whose name must spell the type (loads, splats,
// vid, vsetvlmax) are generated per type and LMUL by macros. Everything else uses the overloaded
// intrinsics, which pick the instruction from the argument types.
//
// Every op takes the tag and runs on vl = VL(d): VLMAX for Simd, n for SimdN, so a strip body
// needs one vsetvli. The mask of (T, kPow2) is vbool{SEW / LMUL}_t; it depends only on the lane
// count, so masks stay valid across Rebind.
//
// Vectors and masks are passed by value (they live in registers); calls read the same as with
// the scalar target's const references.
//
// Policies: ops are tail- and mask-agnostic (lanes >= vl are unspecified) except where the
// contract keeps lanes: the *TU ops use the tail-undisturbed intrinsics, LoadN loads on top of a
// zero vector, MaskedLoad loads on top of a zero vector with mask-undisturbed.
#pragma once

#include <riscv_vector.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tags.h"

namespace vlak::VLAK_NS {
using namespace ::vlak::simd;

inline constexpr size_t kAlignment = 64;

// vlak supports VLEN up to 1024 bits: MaxLanes is then a true bound on Lanes() (the run-time
// count), safe for sizing stack buffers. A machine with a longer VLEN is not supported.
inline constexpr size_t kMaxVlenBits = 1024;

template <class D>
constexpr size_t MaxLanes(D) {
  return (kMaxVlenBits / 8 / sizeof(TFromD<D>)) << Pow2FromD<D>;
}

namespace detail {

template <typename T, int kPow2>
struct VecTraits;  // V: vector type, M: mask type
template <class V>
struct VecInfo;  // T: lane type, kPow2

template <typename T>
constexpr bool IsFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr bool IsSigned = std::is_signed_v<T> && !IsFloat<T>;

template <typename T>
using UnsignedOf = std::conditional_t<sizeof(T) == 1, uint8_t,
                   std::conditional_t<sizeof(T) == 2, uint16_t,
                   std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

template <class V>
using LaneOf = typename VecInfo<V>::T_;
template <class V>
inline constexpr int Pow2Of = VecInfo<V>::kPow2;

}  // namespace detail

template <class D>
using VFromD = typename detail::VecTraits<TFromD<D>, Pow2FromD<D>>::V;
template <class D>
using MFromD = typename detail::VecTraits<TFromD<D>, Pow2FromD<D>>::M;

// ------------------------------------------------------------------- per-type generated code
// X(short name, long name, lane type, SEW, LMUL, kPow2, SEW/LMUL)
#define VLAK_RVV_L8(X, S, L, T) \
  X(S, L, T, 8, 1, 0, 8) X(S, L, T, 8, 2, 1, 4) X(S, L, T, 8, 4, 2, 2) X(S, L, T, 8, 8, 3, 1)
#define VLAK_RVV_L16(X, S, L, T) \
  X(S, L, T, 16, 1, 0, 16) X(S, L, T, 16, 2, 1, 8) X(S, L, T, 16, 4, 2, 4) X(S, L, T, 16, 8, 3, 2)
#define VLAK_RVV_L32(X, S, L, T) \
  X(S, L, T, 32, 1, 0, 32) X(S, L, T, 32, 2, 1, 16) X(S, L, T, 32, 4, 2, 8) X(S, L, T, 32, 8, 3, 4)
#define VLAK_RVV_L64(X, S, L, T) \
  X(S, L, T, 64, 1, 0, 64) X(S, L, T, 64, 2, 1, 32) X(S, L, T, 64, 4, 2, 16) X(S, L, T, 64, 8, 3, 8)

#define VLAK_RVV_FOREACH_U(X)                                                      \
  VLAK_RVV_L8(X, u8, uint8, uint8_t) VLAK_RVV_L16(X, u16, uint16, uint16_t)        \
  VLAK_RVV_L32(X, u32, uint32, uint32_t) VLAK_RVV_L64(X, u64, uint64, uint64_t)
#define VLAK_RVV_FOREACH_I(X)                                                      \
  VLAK_RVV_L8(X, i8, int8, int8_t) VLAK_RVV_L16(X, i16, int16, int16_t)            \
  VLAK_RVV_L32(X, i32, int32, int32_t) VLAK_RVV_L64(X, i64, int64, int64_t)
#define VLAK_RVV_FOREACH_F(X) VLAK_RVV_L32(X, f32, float32, float) VLAK_RVV_L64(X, f64, float64, double)
#define VLAK_RVV_FOREACH(X) VLAK_RVV_FOREACH_U(X) VLAK_RVV_FOREACH_I(X) VLAK_RVV_FOREACH_F(X)

#define VLAK_RVV_V(L, LMUL) v##L##m##LMUL##_t

#define VLAK_RVV_COMMON(S, L, T, SEW, LMUL, POW2, MLEN)                                           \
  template <>                                                                                     \
  struct VecTraits<T, POW2> {                                                                     \
    using V = VLAK_RVV_V(L, LMUL);                                                                \
    using M = vbool##MLEN##_t;                                                                    \
  };                                                                                              \
  template <>                                                                                     \
  struct VecInfo<VLAK_RVV_V(L, LMUL)> {                                                           \
    using T_ = T;                                                                                 \
    static constexpr int kPow2 = POW2;                                                            \
  };                                                                                              \
  inline size_t VlMax(Simd<T, POW2>) { return __riscv_vsetvlmax_e##SEW##m##LMUL(); }              \
  inline VLAK_RVV_V(L, LMUL) LoadU(Simd<T, POW2>, const T* p, size_t vl) {                        \
    return __riscv_vle##SEW##_v_##S##m##LMUL(p, vl);                                              \
  }                                                                                               \
  inline VLAK_RVV_V(L, LMUL) LoadStrided(Simd<T, POW2>, const T* p, ptrdiff_t bytes, size_t vl) { \
    return __riscv_vlse##SEW##_v_##S##m##LMUL(p, bytes, vl);                                      \
  }                                                                                               \
  inline VLAK_RVV_V(L, LMUL) LoadTU(VLAK_RVV_V(L, LMUL) keep, const T* p, size_t vl) {            \
    return __riscv_vle##SEW##_tu(keep, p, vl);                                                    \
  }                                                                                               \
  inline VLAK_RVV_V(L, LMUL) LoadMU(vbool##MLEN##_t m, VLAK_RVV_V(L, LMUL) keep, const T* p,      \
                                    size_t vl) {                                                  \
    return __riscv_vle##SEW##_mu(m, keep, p, vl);                                                 \
  }                                                                                               \
  inline void StoreU(VLAK_RVV_V(L, LMUL) v, T* p, size_t vl) { __riscv_vse##SEW(p, v, vl); }      \
  inline void StoreM(vbool##MLEN##_t m, VLAK_RVV_V(L, LMUL) v, T* p, size_t vl) {                 \
    __riscv_vse##SEW(m, p, v, vl);                                                                \
  }                                                                                               \
  inline void StoreStrided(VLAK_RVV_V(L, LMUL) v, T* p, ptrdiff_t bytes, size_t vl) {             \
    __riscv_vsse##SEW(p, bytes, v, vl);                                                           \
  }                                                                                               \
  /* Same SEW and LMUL, bits reinterpreted (identity for the same type). */                       \
  template <class V>                                                                              \
  inline VLAK_RVV_V(L, LMUL) BitCastTo(Simd<T, POW2>, V v) {                                      \
    if constexpr (std::is_same_v<V, VLAK_RVV_V(L, LMUL)>) {                                       \
      return v;                                                                                   \
    } else {                                                                                      \
      return __riscv_vreinterpret_##S##m##LMUL(v);                                                \
    }                                                                                             \
  }

#define VLAK_RVV_SPLAT_INT(S, L, T, SEW, LMUL, POW2, MLEN)               \
  inline VLAK_RVV_V(L, LMUL) Splat(Simd<T, POW2>, T x, size_t vl) {      \
    return __riscv_vmv_v_x_##S##m##LMUL(x, vl);                          \
  }
#define VLAK_RVV_SPLAT_FLOAT(S, L, T, SEW, LMUL, POW2, MLEN)             \
  inline VLAK_RVV_V(L, LMUL) Splat(Simd<T, POW2>, T x, size_t vl) {      \
    return __riscv_vfmv_v_f_##S##m##LMUL(x, vl);                         \
  }
// Lane index (modulo 2^SEW), unsigned types only.
#define VLAK_RVV_INDEX(S, L, T, SEW, LMUL, POW2, MLEN)                   \
  inline VLAK_RVV_V(L, LMUL) Index(Simd<T, POW2>, size_t vl) {           \
    return __riscv_vid_v_##S##m##LMUL(vl);                               \
  }
// Indexed load with unsigned 32-bit byte offsets (32-bit lane types).
#define VLAK_RVV_GATHER32(S, L, T, SEW, LMUL, POW2, MLEN)                                 \
  inline VLAK_RVV_V(L, LMUL) GatherBytes(Simd<T, POW2>, const T* base,                    \
                                         VLAK_RVV_V(uint32, LMUL) offsets, size_t vl) {   \
    return __riscv_vluxei32_v_##S##m##LMUL(base, offsets, vl);                            \
  }
// Indexed byte load with 16-bit element indices (= byte offsets): index group at 2 x LMUL.
#define VLAK_RVV_GATHER8_IDX16(S, L, T, SEW, LMUL, LMUL2)                                  \
  inline VLAK_RVV_V(L, LMUL) Gather8Idx16(const T* base, VLAK_RVV_V(uint16, LMUL2) idx,   \
                                          size_t vl) {                                    \
    return __riscv_vluxei16_v_##S##m##LMUL(base, idx, vl);                                \
  }
#define VLAK_RVV_LUT8(S, L, T, SEW, LMUL, POW2, MLEN)                                      \
  inline VLAK_RVV_V(L, LMUL) Lut8(const T* table, VLAK_RVV_V(L, LMUL) idx, size_t vl) {    \
    return __riscv_vluxei8_v_##S##m##LMUL(table, idx, vl);                                 \
  }

// The first register of a group as an LMUL-1 vector.
#define VLAK_RVV_TRUNC_1(S, LMUL, v) v
#define VLAK_RVV_TRUNC_2(S, LMUL, v) __riscv_vlmul_trunc_v_##S##m##LMUL##_##S##m1(v)
#define VLAK_RVV_TRUNC_4(S, LMUL, v) __riscv_vlmul_trunc_v_##S##m##LMUL##_##S##m1(v)
#define VLAK_RVV_TRUNC_8(S, LMUL, v) __riscv_vlmul_trunc_v_##S##m##LMUL##_##S##m1(v)
#define VLAK_RVV_LOW_REGISTER(S, L, T, SEW, LMUL, POW2, MLEN)                      \
  inline VLAK_RVV_V(L, 1) LowRegister(VLAK_RVV_V(L, LMUL) v) {                     \
    return VLAK_RVV_TRUNC_##LMUL(S, LMUL, v);                                      \
  }

// Two-field segment accesses (vlseg2/vsseg2): one unit-stride access that splits or joins the
// pairs in the load/store unit. A segment group needs NFIELDS * LMUL <= 8 registers, so LMUL 8
// has no 2-field form: it does two LMUL-4 segment accesses, on the low and high halves of the
// group (vl split at the LMUL-4 VLMAX), and joins the fields' halves into LMUL-8 groups, which
// costs whole-register moves (vmv4r). That keeps the memory access unit-stride; the alternative,
// two strided vlse/vsse at LMUL 8 (stride 2 elements), walks every cache line twice.
#define VLAK_RVV_SEG2_1(S, L, T, SEW, LMUL, POW2) VLAK_RVV_SEG2_FORM(S, L, T, SEW, LMUL, POW2)
#define VLAK_RVV_SEG2_2(S, L, T, SEW, LMUL, POW2) VLAK_RVV_SEG2_FORM(S, L, T, SEW, LMUL, POW2)
#define VLAK_RVV_SEG2_4(S, L, T, SEW, LMUL, POW2) VLAK_RVV_SEG2_FORM(S, L, T, SEW, LMUL, POW2)
#define VLAK_RVV_SEG2_FORM(S, L, T, SEW, LMUL, POW2)                                                \
  inline void LoadSeg2(Simd<T, POW2>, const T* p, VLAK_RVV_V(L, LMUL) & a, VLAK_RVV_V(L, LMUL) & b, \
                       size_t vl) {                                                                 \
    const auto t = __riscv_vlseg2e##SEW##_v_##S##m##LMUL##x2(p, vl);                                \
    a = __riscv_vget_v_##S##m##LMUL##x2_##S##m##LMUL(t, 0);                                         \
    b = __riscv_vget_v_##S##m##LMUL##x2_##S##m##LMUL(t, 1);                                         \
  }                                                                                                 \
  inline void StoreSeg2(VLAK_RVV_V(L, LMUL) a, VLAK_RVV_V(L, LMUL) b, T* p, size_t vl) {            \
    __riscv_vsseg2e##SEW(p, __riscv_vcreate_v_##S##m##LMUL##x2(a, b), vl);                          \
  }
#define VLAK_RVV_SEG2_8(S, L, T, SEW, LMUL, POW2)                                                   \
  inline void LoadSeg2(Simd<T, POW2>, const T* p, VLAK_RVV_V(L, 8) & a, VLAK_RVV_V(L, 8) & b,       \
                       size_t vl) {                                                                 \
    const size_t h = __riscv_vsetvlmax_e##SEW##m4();                                                \
    const size_t vl0 = vl < h ? vl : h;                                                             \
    const auto lo = __riscv_vlseg2e##SEW##_v_##S##m4x2(p, vl0);                                     \
    const auto hi = __riscv_vlseg2e##SEW##_v_##S##m4x2(p + 2 * h, vl - vl0);                        \
    a = __riscv_vcreate_v_##S##m4_##S##m8(__riscv_vget_v_##S##m4x2_##S##m4(lo, 0),                  \
                                          __riscv_vget_v_##S##m4x2_##S##m4(hi, 0));                 \
    b = __riscv_vcreate_v_##S##m4_##S##m8(__riscv_vget_v_##S##m4x2_##S##m4(lo, 1),                  \
                                          __riscv_vget_v_##S##m4x2_##S##m4(hi, 1));                 \
  }                                                                                                 \
  inline void StoreSeg2(VLAK_RVV_V(L, 8) a, VLAK_RVV_V(L, 8) b, T* p, size_t vl) {                  \
    const size_t h = __riscv_vsetvlmax_e##SEW##m4();                                                \
    const size_t vl0 = vl < h ? vl : h;                                                             \
    __riscv_vsseg2e##SEW(p, __riscv_vcreate_v_##S##m4x2(__riscv_vget_v_##S##m8_##S##m4(a, 0),       \
                                                        __riscv_vget_v_##S##m8_##S##m4(b, 0)), vl0); \
    __riscv_vsseg2e##SEW(p + 2 * h,                                                                 \
                         __riscv_vcreate_v_##S##m4x2(__riscv_vget_v_##S##m8_##S##m4(a, 1),          \
                                                     __riscv_vget_v_##S##m8_##S##m4(b, 1)),         \
                         vl - vl0);                                                                 \
  }
#define VLAK_RVV_SEG2(S, L, T, SEW, LMUL, POW2, MLEN) VLAK_RVV_SEG2_##LMUL(S, L, T, SEW, LMUL, POW2)

namespace detail {
VLAK_RVV_FOREACH(VLAK_RVV_COMMON)
VLAK_RVV_FOREACH(VLAK_RVV_LOW_REGISTER)
VLAK_RVV_FOREACH(VLAK_RVV_SEG2)
VLAK_RVV_FOREACH_U(VLAK_RVV_SPLAT_INT)
VLAK_RVV_FOREACH_I(VLAK_RVV_SPLAT_INT)
VLAK_RVV_FOREACH_F(VLAK_RVV_SPLAT_FLOAT)
VLAK_RVV_FOREACH_U(VLAK_RVV_INDEX)
VLAK_RVV_L32(VLAK_RVV_GATHER32, u32, uint32, uint32_t)
VLAK_RVV_L32(VLAK_RVV_GATHER32, i32, int32, int32_t)
VLAK_RVV_L32(VLAK_RVV_GATHER32, f32, float32, float)
VLAK_RVV_L8(VLAK_RVV_LUT8, u8, uint8, uint8_t)
VLAK_RVV_GATHER8_IDX16(i8, int8, int8_t, 8, 1, 2)
VLAK_RVV_GATHER8_IDX16(i8, int8, int8_t, 8, 2, 4)
VLAK_RVV_GATHER8_IDX16(i8, int8, int8_t, 8, 4, 8)
VLAK_RVV_GATHER8_IDX16(u8, uint8, uint8_t, 8, 1, 2)
VLAK_RVV_GATHER8_IDX16(u8, uint8, uint8_t, 8, 2, 4)
VLAK_RVV_GATHER8_IDX16(u8, uint8, uint8_t, 8, 4, 8)
}  // namespace detail
#undef VLAK_RVV_GATHER8_IDX16

#undef VLAK_RVV_LUT8
#undef VLAK_RVV_SEG2
#undef VLAK_RVV_SEG2_1
#undef VLAK_RVV_SEG2_2
#undef VLAK_RVV_SEG2_4
#undef VLAK_RVV_SEG2_8
#undef VLAK_RVV_SEG2_FORM
#undef VLAK_RVV_LOW_REGISTER
#undef VLAK_RVV_TRUNC_1
#undef VLAK_RVV_TRUNC_2
#undef VLAK_RVV_TRUNC_4
#undef VLAK_RVV_TRUNC_8
#undef VLAK_RVV_GATHER32
#undef VLAK_RVV_INDEX
#undef VLAK_RVV_SPLAT_FLOAT
#undef VLAK_RVV_SPLAT_INT
#undef VLAK_RVV_COMMON
#undef VLAK_RVV_V
#undef VLAK_RVV_FOREACH
#undef VLAK_RVV_FOREACH_F
#undef VLAK_RVV_FOREACH_I
#undef VLAK_RVV_FOREACH_U
#undef VLAK_RVV_L64
#undef VLAK_RVV_L32
#undef VLAK_RVV_L16
#undef VLAK_RVV_L8

namespace detail {

// The vl every op of a tag runs on.
template <typename T, int k>
inline size_t VL(Simd<T, k> d) { return VlMax(d); }
template <typename T, int k>
inline size_t VL(SimdN<T, k> d) { return d.n; }

// Reinterpret a vector's lanes as U (same size).
template <typename U, class V>
inline auto As(V v) {
  return BitCastTo(Simd<U, Pow2Of<V>>{}, v);
}

}  // namespace detail

// Active lanes: the whole group (VLMAX, known at run time) for Simd, n for a strip.
template <typename T, int k>
inline size_t Lanes(Simd<T, k> d) { return detail::VlMax(d); }
template <typename T, int k>
constexpr size_t Lanes(SimdN<T, k> d) { return d.n; }

// ---------------------------------------------------------------------------------- creation
template <class D>
VFromD<D> Zero(D d) { return detail::Splat(FullTag<D>{}, TFromD<D>{0}, detail::VL(d)); }

template <class D>
VFromD<D> Set(D d, TFromD<D> x) { return detail::Splat(FullTag<D>{}, x, detail::VL(d)); }

// Lane i = first + i (wrapping for integers).
template <class D>
VFromD<D> Iota(D d, TFromD<D> first) {
  using T = TFromD<D>;
  using U = detail::UnsignedOf<T>;
  const size_t vl = detail::VL(d);
  const auto idx = detail::Index(Simd<U, Pow2FromD<D>>{}, vl);
  if constexpr (detail::IsFloat<T>) {
    return __riscv_vfadd(__riscv_vfcvt_f(idx, vl), first, vl);
  } else {
    return detail::As<T>(__riscv_vadd(idx, static_cast<U>(first), vl));
  }
}

// First lane.
template <class D>
TFromD<D> GetLane(D, VFromD<D> v) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfmv_f(v);
  } else {
    return __riscv_vmv_x(v);
  }
}

// ------------------------------------------------------------------------------------ memory
template <class D>
VFromD<D> LoadU(D d, const TFromD<D>* p) { return detail::LoadU(FullTag<D>{}, p, detail::VL(d)); }
template <class D>
VFromD<D> Load(D d, const TFromD<D>* p) { return LoadU(d, p); }

template <class D>
void StoreU(D d, VFromD<D> v, TFromD<D>* p) { detail::StoreU(v, p, detail::VL(d)); }
template <class D>
void Store(D d, VFromD<D> v, TFromD<D>* p) { StoreU(d, v, p); }
// No non-temporal hint in RVV 1.0: a plain store.
template <class D>
void Stream(D d, VFromD<D> v, TFromD<D>* p) { StoreU(d, v, p); }
inline void StreamFence() {}

// Lanes >= n are zero in the whole group (also beyond a strip's n), like the scalar target.
template <class D>
VFromD<D> LoadN(D d, const TFromD<D>* p, size_t n) {
  const FullTag<D> df;
  const size_t vl = n < Lanes(d) ? n : Lanes(d);
  return detail::LoadTU(Zero(df), p, vl);
}
template <class D>
void StoreN(D d, VFromD<D> v, TFromD<D>* p, size_t n) {
  detail::StoreU(v, p, n < Lanes(d) ? n : Lanes(d));
}

template <class D>
VFromD<D> MaskedLoad(D d, MFromD<D> m, const TFromD<D>* p) {
  return detail::LoadMU(m, Zero(d), p, detail::VL(d));
}
template <class D>
void MaskedStore(D d, MFromD<D> m, VFromD<D> v, TFromD<D>* p) {
  detail::StoreM(m, v, p, detail::VL(d));
}

// Stride in elements; vlse/vsse take bytes.
template <class D>
VFromD<D> LoadStrided(D d, const TFromD<D>* p, ptrdiff_t stride) {
  const ptrdiff_t bytes = stride * static_cast<ptrdiff_t>(sizeof(TFromD<D>));
  return detail::LoadStrided(FullTag<D>{}, p, bytes, detail::VL(d));
}
// With stride 0 every lane hits one address, and vsse leaves the order of such writes (and
// their number) unspecified; the contract wants the last active lane's value there (scalar.h).
// So stride 0 slides lane vl - 1 down to lane 0 and stores that one lane: both at vl = 1, since
// vslidedown reads its source up to VLMAX whatever vl is.
template <class D>
void StoreStrided(D d, VFromD<D> v, TFromD<D>* p, ptrdiff_t stride) {
  const size_t vl = detail::VL(d);
  if (stride == 0) {
    if (vl != 0) detail::StoreU(__riscv_vslidedown(v, vl - 1, 1), p, 1);
    return;
  }
  const ptrdiff_t bytes = stride * static_cast<ptrdiff_t>(sizeof(TFromD<D>));
  detail::StoreStrided(v, p, bytes, vl);
}

// Segment loads/stores (vlseg2/vsseg2, LMUL 8 in two halves: detail::LoadSeg2) on vl = VL(d),
// so a strip reads or writes exactly its 2n elements.
template <class D>
void LoadInterleaved2(D d, const TFromD<D>* p, VFromD<D>& a, VFromD<D>& b) {
  detail::LoadSeg2(FullTag<D>{}, p, a, b, detail::VL(d));
}
template <class D>
void StoreInterleaved2(D d, VFromD<D> a, VFromD<D> b, TFromD<D>* p) {
  detail::StoreSeg2(a, b, p, detail::VL(d));
}

// Byte offsets are idx * 4 in 32 bits (vluxei32 zero-extends them): indices below 2^30.
template <class D>
VFromD<D> Gather(D d, const TFromD<D>* base, VFromD<RebindD<D, int32_t>> idx) {
  static_assert(sizeof(TFromD<D>) == 4, "Gather takes 32-bit elements with 32-bit indices");
  const size_t vl = detail::VL(d);
  const auto offsets = __riscv_vsll(detail::As<uint32_t>(idx), 2, vl);
  return detail::GatherBytes(FullTag<D>{}, base, offsets, vl);
}

// One vluxei16: the 16-bit indices are the byte offsets (zero-extended). Byte lanes up to LMUL 4
// (the indices take twice the registers).
template <class D>
VFromD<D> Gather8(D d, const TFromD<D>* base, VFromD<RebindD<D, uint16_t>> idx) {
  static_assert(sizeof(TFromD<D>) == 1, "Gather8 takes 8-bit elements with 16-bit indices");
  return detail::Gather8Idx16(base, idx, detail::VL(d));
}

// The u8 indices are the byte offsets into the table.
template <class D>
VFromD<D> TableLookup256(D d, const uint8_t* table, VFromD<D> idx) {
  static_assert(std::is_same_v<TFromD<D>, uint8_t>, "TableLookup256 takes u8 indices");
  return detail::Lut8(table, idx, detail::VL(d));
}

// -------------------------------------------------------------------------------- arithmetic
// Integers wrap on overflow.
template <class D>
VFromD<D> Add(D d, VFromD<D> a, VFromD<D> b) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfadd(a, b, detail::VL(d));
  } else {
    return __riscv_vadd(a, b, detail::VL(d));
  }
}
template <class D>
VFromD<D> Sub(D d, VFromD<D> a, VFromD<D> b) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfsub(a, b, detail::VL(d));
  } else {
    return __riscv_vsub(a, b, detail::VL(d));
  }
}
template <class D>
VFromD<D> Mul(D d, VFromD<D> a, VFromD<D> b) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfmul(a, b, detail::VL(d));
  } else {
    return __riscv_vmul(a, b, detail::VL(d));
  }
}
template <class D>
VFromD<D> Div(D d, VFromD<D> a, VFromD<D> b) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return __riscv_vfdiv(a, b, detail::VL(d));
}
// a * b + c, fused for floats.
template <class D>
VFromD<D> MulAdd(D d, VFromD<D> a, VFromD<D> b, VFromD<D> c) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfmacc(c, a, b, detail::VL(d));
  } else {
    return __riscv_vmacc(c, a, b, detail::VL(d));
  }
}
// c - a * b, fused for floats.
template <class D>
VFromD<D> NegMulAdd(D d, VFromD<D> a, VFromD<D> b, VFromD<D> c) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfnmsac(c, a, b, detail::VL(d));
  } else {
    return __riscv_vnmsac(c, a, b, detail::VL(d));
  }
}
template <class D>
VFromD<D> Neg(D d, VFromD<D> a) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfneg(a, detail::VL(d));
  } else {
    return __riscv_vrsub(a, TFromD<D>{0}, detail::VL(d));
  }
}
// Signed: max(a, -a), which keeps MIN as the contract asks.
template <class D>
VFromD<D> Abs(D d, VFromD<D> a) {
  using T = TFromD<D>;
  const size_t vl = detail::VL(d);
  if constexpr (detail::IsFloat<T>) {
    return __riscv_vfabs(a, vl);
  } else if constexpr (detail::IsSigned<T>) {
    return __riscv_vmax(a, __riscv_vrsub(a, T{0}, vl), vl);
  } else {
    return a;
  }
}
// vfmin/vfmax are IEEE-754 minimumNumber/maximumNumber.
template <class D>
VFromD<D> Min(D d, VFromD<D> a, VFromD<D> b) {
  using T = TFromD<D>;
  if constexpr (detail::IsFloat<T>) {
    return __riscv_vfmin(a, b, detail::VL(d));
  } else if constexpr (detail::IsSigned<T>) {
    return __riscv_vmin(a, b, detail::VL(d));
  } else {
    return __riscv_vminu(a, b, detail::VL(d));
  }
}
template <class D>
VFromD<D> Max(D d, VFromD<D> a, VFromD<D> b) {
  using T = TFromD<D>;
  if constexpr (detail::IsFloat<T>) {
    return __riscv_vfmax(a, b, detail::VL(d));
  } else if constexpr (detail::IsSigned<T>) {
    return __riscv_vmax(a, b, detail::VL(d));
  } else {
    return __riscv_vmaxu(a, b, detail::VL(d));
  }
}
template <class D>
VFromD<D> Sqrt(D d, VFromD<D> a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return __riscv_vfsqrt(a, detail::VL(d));
}

namespace detail {
// RVV 1.0 has no float-to-integral-float instruction: convert to an integer with a static
// rounding mode and back. Lanes with |x| >= 2^(mantissa bits) are already integral (and may not
// fit the integer), as are inf; NaN fails the compare too; all those keep x. Every result has
// the sign of x (ceil(-0.3) = -0.0), so the sign is copied back.
//
// No vfcvt.rtz.* anywhere in this target (clang also turns a static RTZ into it): qemu 7.2
// (Debian 12's qemu-user, which runs our tests) aborts translating it. Trunc rounds |x| down
// instead, and ConvertTo rounds each sign toward zero with RDN/RUP.
template <unsigned kFrm, class D>
VFromD<D> RoundWith(D d, VFromD<D> x) {
  using T = TFromD<D>;
  static_assert(IsFloat<T>);
  const size_t vl = VL(d);
  constexpr T kIntegral = sizeof(T) == 4 ? T(8388608.0) : T(4503599627370496.0);
  const auto ax = __riscv_vfabs(x, vl);
  const auto small = __riscv_vmflt(ax, kIntegral, vl);
  const auto i = kFrm == __RISCV_FRM_RTZ ? __riscv_vfcvt_x(ax, __RISCV_FRM_RDN, vl)
                                         : __riscv_vfcvt_x(x, kFrm, vl);
  const auto r = __riscv_vfcvt_f_mu(small, x, i, vl);
  return __riscv_vfsgnj(r, x, vl);
}
}  // namespace detail

template <class D>
VFromD<D> Floor(D d, VFromD<D> a) { return detail::RoundWith<__RISCV_FRM_RDN>(d, a); }
template <class D>
VFromD<D> Ceil(D d, VFromD<D> a) { return detail::RoundWith<__RISCV_FRM_RUP>(d, a); }
template <class D>
VFromD<D> Trunc(D d, VFromD<D> a) { return detail::RoundWith<__RISCV_FRM_RTZ>(d, a); }
// Ties to even.
template <class D>
VFromD<D> Round(D d, VFromD<D> a) { return detail::RoundWith<__RISCV_FRM_RNE>(d, a); }

// 8- and 16-bit integers, clamping.
template <class D>
VFromD<D> SaturatedAdd(D d, VFromD<D> a, VFromD<D> b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  if constexpr (detail::IsSigned<T>) {
    return __riscv_vsadd(a, b, detail::VL(d));
  } else {
    return __riscv_vsaddu(a, b, detail::VL(d));
  }
}
template <class D>
VFromD<D> SaturatedSub(D d, VFromD<D> a, VFromD<D> b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  if constexpr (detail::IsSigned<T>) {
    return __riscv_vssub(a, b, detail::VL(d));
  } else {
    return __riscv_vssubu(a, b, detail::VL(d));
  }
}

// floor((a + b) / 2) exactly: vaadd(u) computes (a + b) >> 1 in a wider internal precision and
// rounds by vxrm; round-down (RDN) is the floor (scalar.h's contract).
template <class D>
VFromD<D> AverageFloor(D d, VFromD<D> a, VFromD<D> b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2, "AverageFloor: 8- and 16-bit integers");
  if constexpr (detail::IsSigned<T>) {
    return __riscv_vaadd(a, b, __RISCV_VXRM_RDN, detail::VL(d));
  } else {
    return __riscv_vaaddu(a, b, __RISCV_VXRM_RDN, detail::VL(d));
  }
}

// ------------------------------------------------------------------------------ integer bits
template <int kBits, class D>
VFromD<D> ShiftLeft(D d, VFromD<D> a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  return __riscv_vsll(a, kBits, detail::VL(d));
}
template <int kBits, class D>
VFromD<D> ShiftRight(D d, VFromD<D> a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  if constexpr (detail::IsSigned<T>) {
    return __riscv_vsra(a, kBits, detail::VL(d));
  } else {
    return __riscv_vsrl(a, kBits, detail::VL(d));
  }
}
// The shift-count operand of vsll/vsra/vsrl is unsigned.
template <class D>
VFromD<D> Shl(D d, VFromD<D> a, VFromD<D> count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  return __riscv_vsll(a, detail::As<detail::UnsignedOf<T>>(count), detail::VL(d));
}
template <class D>
VFromD<D> Shr(D d, VFromD<D> a, VFromD<D> count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  const auto s = detail::As<detail::UnsignedOf<T>>(count);
  if constexpr (detail::IsSigned<T>) {
    return __riscv_vsra(a, s, detail::VL(d));
  } else {
    return __riscv_vsrl(a, s, detail::VL(d));
  }
}

// Bitwise ops run on the unsigned view (floats have no bitwise instructions).
namespace detail {
template <class D, class F>
VFromD<D> BitOp(D d, VFromD<D> a, VFromD<D> b, F op) {
  using T = TFromD<D>;
  using U = UnsignedOf<T>;
  return As<T>(op(As<U>(a), As<U>(b), VL(d)));
}
}  // namespace detail
template <class D>
VFromD<D> And(D d, VFromD<D> a, VFromD<D> b) {
  return detail::BitOp(d, a, b, [](auto x, auto y, size_t vl) { return __riscv_vand(x, y, vl); });
}
template <class D>
VFromD<D> Or(D d, VFromD<D> a, VFromD<D> b) {
  return detail::BitOp(d, a, b, [](auto x, auto y, size_t vl) { return __riscv_vor(x, y, vl); });
}
template <class D>
VFromD<D> Xor(D d, VFromD<D> a, VFromD<D> b) {
  return detail::BitOp(d, a, b, [](auto x, auto y, size_t vl) { return __riscv_vxor(x, y, vl); });
}
// ~a & b
template <class D>
VFromD<D> AndNot(D d, VFromD<D> a, VFromD<D> b) {
  return detail::BitOp(d, a, b, [](auto x, auto y, size_t vl) {
    return __riscv_vand(__riscv_vnot(x, vl), y, vl);
  });
}

// ------------------------------------------------------------------------------ comparisons
// vmf{eq,lt,le,gt,ge} are false on NaN, vmfne true, as the contract asks.
template <class D>
MFromD<D> Eq(D d, VFromD<D> a, VFromD<D> b) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vmfeq(a, b, detail::VL(d));
  } else {
    return __riscv_vmseq(a, b, detail::VL(d));
  }
}
template <class D>
MFromD<D> Ne(D d, VFromD<D> a, VFromD<D> b) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vmfne(a, b, detail::VL(d));
  } else {
    return __riscv_vmsne(a, b, detail::VL(d));
  }
}
template <class D>
MFromD<D> Lt(D d, VFromD<D> a, VFromD<D> b) {
  using T = TFromD<D>;
  if constexpr (detail::IsFloat<T>) {
    return __riscv_vmflt(a, b, detail::VL(d));
  } else if constexpr (detail::IsSigned<T>) {
    return __riscv_vmslt(a, b, detail::VL(d));
  } else {
    return __riscv_vmsltu(a, b, detail::VL(d));
  }
}
template <class D>
MFromD<D> Le(D d, VFromD<D> a, VFromD<D> b) {
  using T = TFromD<D>;
  if constexpr (detail::IsFloat<T>) {
    return __riscv_vmfle(a, b, detail::VL(d));
  } else if constexpr (detail::IsSigned<T>) {
    return __riscv_vmsle(a, b, detail::VL(d));
  } else {
    return __riscv_vmsleu(a, b, detail::VL(d));
  }
}
template <class D>
MFromD<D> Gt(D d, VFromD<D> a, VFromD<D> b) { return Lt(d, b, a); }
template <class D>
MFromD<D> Ge(D d, VFromD<D> a, VFromD<D> b) { return Le(d, b, a); }
template <class D>
MFromD<D> IsNaN(D d, VFromD<D> a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return __riscv_vmfne(a, a, detail::VL(d));
}

// -------------------------------------------------------------------------------------- masks
// vid < k with k = min(n, vl): clamped first, so any size_t n (SIZE_MAX too) works and the SEW-bit
// scalar of vmsltu.vx never sees a truncated n (u16 lanes, n = 65536 + 3 would give 3 lanes).
// An 8-bit vid wraps once a group has more than 256 lanes (VLEN >= 512 at LMUL 8), so 8-bit types
// instead set the first k lanes of a zero vector (tail-undisturbed) and test.
template <class D>
MFromD<D> FirstN(D d, size_t n) {
  using U = detail::UnsignedOf<TFromD<D>>;
  const Simd<U, Pow2FromD<D>> du;
  const size_t vl = detail::VL(d);
  const size_t k = n < vl ? n : vl;
  if constexpr (sizeof(U) == 1) {
    const auto zero = detail::Splat(du, U{0}, vl);
    return __riscv_vmsne(__riscv_vadd_tu(zero, zero, U{1}, k), U{0}, vl);
  } else {
    return __riscv_vmsltu(detail::Index(du, vl), static_cast<U>(k), vl);
  }
}
template <class D>
MFromD<D> MaskAnd(D d, MFromD<D> a, MFromD<D> b) { return __riscv_vmand(a, b, detail::VL(d)); }
template <class D>
MFromD<D> MaskOr(D d, MFromD<D> a, MFromD<D> b) { return __riscv_vmor(a, b, detail::VL(d)); }
template <class D>
MFromD<D> MaskXor(D d, MFromD<D> a, MFromD<D> b) { return __riscv_vmxor(a, b, detail::VL(d)); }
// !a && b: vmandn computes its first operand and not its second.
template <class D>
MFromD<D> MaskAndNot(D d, MFromD<D> a, MFromD<D> b) { return __riscv_vmandn(b, a, detail::VL(d)); }
template <class D>
MFromD<D> MaskNot(D d, MFromD<D> a) { return __riscv_vmnot(a, detail::VL(d)); }

template <class D>
size_t CountTrue(D d, MFromD<D> m) { return __riscv_vcpop(m, detail::VL(d)); }
template <class D>
bool AllTrue(D d, MFromD<D> m) {
  const size_t vl = detail::VL(d);
  return __riscv_vcpop(m, vl) == vl;
}
template <class D>
bool AllFalse(D d, MFromD<D> m) { return __riscv_vfirst(m, detail::VL(d)) < 0; }

template <class D>
VFromD<D> IfThenElse(D d, MFromD<D> m, VFromD<D> yes, VFromD<D> no) {
  return __riscv_vmerge(no, yes, m, detail::VL(d));
}
template <class D>
VFromD<D> IfThenElseZero(D d, MFromD<D> m, VFromD<D> yes) { return IfThenElse(d, m, yes, Zero(d)); }
// m ? 0 : no: vmerge.vxm with x0 on the bits, so no zero vector group is needed.
template <class D>
VFromD<D> IfThenZeroElse(D d, MFromD<D> m, VFromD<D> no) {
  using U = detail::UnsignedOf<TFromD<D>>;
  return detail::As<TFromD<D>>(__riscv_vmerge(detail::As<U>(no), U{0}, m, detail::VL(d)));
}

// --------------------------------------------------------------------------- scalar operands
// The .vf/.vx instructions: the scalar stays in an f/x register, so a kernel's constants cost no
// vector register group and no splat per strip. RVV has no multiply-add whose addend is a
// scalar, so MulAdd/NegMulAdd(d, a, b, s) splat s (one vfmv.v.f/vmv.v.x) into the accumulator
// operand; (d, a, s, c) are single vfmacc/vfnmsac.vf (.vx) instructions.
namespace detail {
template <class D, class FF, class FS, class FU>
auto ScalarOp(D d, VFromD<D> a, TFromD<D> b, FF ff, FS fs, FU fu) {
  using T = TFromD<D>;
  if constexpr (IsFloat<T>) {
    return ff(a, b, VL(d));
  } else if constexpr (IsSigned<T>) {
    return fs(a, b, VL(d));
  } else {
    return fu(a, b, VL(d));
  }
}
}  // namespace detail
#define VLAK_RVV_SCALAR_OP(Name, RetD, fop, sop, uop)                                            \
  template <class D>                                                                             \
  RetD Name(D d, VFromD<D> a, TFromD<D> b) {                                                     \
    return detail::ScalarOp(                                                                     \
        d, a, b, [](auto x, auto y, size_t vl) { return fop(x, y, vl); },                        \
        [](auto x, auto y, size_t vl) { return sop(x, y, vl); },                                 \
        [](auto x, auto y, size_t vl) { return uop(x, y, vl); });                                \
  }
VLAK_RVV_SCALAR_OP(Add, VFromD<D>, __riscv_vfadd, __riscv_vadd, __riscv_vadd)
VLAK_RVV_SCALAR_OP(Sub, VFromD<D>, __riscv_vfsub, __riscv_vsub, __riscv_vsub)
VLAK_RVV_SCALAR_OP(Mul, VFromD<D>, __riscv_vfmul, __riscv_vmul, __riscv_vmul)
VLAK_RVV_SCALAR_OP(Min, VFromD<D>, __riscv_vfmin, __riscv_vmin, __riscv_vminu)
VLAK_RVV_SCALAR_OP(Max, VFromD<D>, __riscv_vfmax, __riscv_vmax, __riscv_vmaxu)
VLAK_RVV_SCALAR_OP(Eq, MFromD<D>, __riscv_vmfeq, __riscv_vmseq, __riscv_vmseq)
VLAK_RVV_SCALAR_OP(Ne, MFromD<D>, __riscv_vmfne, __riscv_vmsne, __riscv_vmsne)
VLAK_RVV_SCALAR_OP(Lt, MFromD<D>, __riscv_vmflt, __riscv_vmslt, __riscv_vmsltu)
VLAK_RVV_SCALAR_OP(Le, MFromD<D>, __riscv_vmfle, __riscv_vmsle, __riscv_vmsleu)
VLAK_RVV_SCALAR_OP(Gt, MFromD<D>, __riscv_vmfgt, __riscv_vmsgt, __riscv_vmsgtu)
VLAK_RVV_SCALAR_OP(Ge, MFromD<D>, __riscv_vmfge, __riscv_vmsge, __riscv_vmsgeu)
#undef VLAK_RVV_SCALAR_OP
// Bitwise with an integer scalar (.vx).
#define VLAK_RVV_SCALAR_BITOP(Name, op)                                           \
  template <class D>                                                              \
  VFromD<D> Name(D d, VFromD<D> a, TFromD<D> b) {                                 \
    static_assert(std::is_integral_v<TFromD<D>>, #Name " with a scalar: integers"); \
    return __riscv_##op(a, b, detail::VL(d));                                     \
  }
VLAK_RVV_SCALAR_BITOP(And, vand)
VLAK_RVV_SCALAR_BITOP(Or, vor)
VLAK_RVV_SCALAR_BITOP(Xor, vxor)
#undef VLAK_RVV_SCALAR_BITOP
template <class D>
VFromD<D> Div(D d, VFromD<D> a, TFromD<D> b) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return __riscv_vfdiv(a, b, detail::VL(d));
}
// a * s + c
template <class D>
VFromD<D> MulAdd(D d, VFromD<D> a, TFromD<D> s, VFromD<D> c) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfmacc(c, s, a, detail::VL(d));
  } else {
    return __riscv_vmacc(c, s, a, detail::VL(d));
  }
}
// c - a * s
template <class D>
VFromD<D> NegMulAdd(D d, VFromD<D> a, TFromD<D> s, VFromD<D> c) {
  if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfnmsac(c, s, a, detail::VL(d));
  } else {
    return __riscv_vnmsac(c, s, a, detail::VL(d));
  }
}
// a * s - c (vfmsac.vf / vfmsub.vf): RVV only, for softmax_pipelined.h's bit-trick reduction.
template <class D>
VFromD<D> MulSub(D d, VFromD<D> a, TFromD<D> s, VFromD<D> c) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return __riscv_vfmsac(c, s, a, detail::VL(d));
}
template <class D>
VFromD<D> MulAdd(D d, VFromD<D> a, VFromD<D> b, TFromD<D> s) { return MulAdd(d, a, b, Set(d, s)); }
template <class D>
VFromD<D> NegMulAdd(D d, VFromD<D> a, VFromD<D> b, TFromD<D> s) { return NegMulAdd(d, a, b, Set(d, s)); }

// ------------------------------------------------------------------ accumulating (tail-kept)
// Strips use the tail-undisturbed intrinsics: lanes >= vl keep acc. A whole group has no lanes
// beyond vl, so it takes the plain (tail-agnostic) op: then a strip loop's loads, arithmetic and
// accumulation share one vtype and need no vsetvli between them.
template <class D>
VFromD<D> AddTU(D d, VFromD<D> acc, VFromD<D> v) {
  if constexpr (!D::kIsStrip) {
    return Add(d, acc, v);
  } else if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfadd_tu(acc, acc, v, detail::VL(d));
  } else {
    return __riscv_vadd_tu(acc, acc, v, detail::VL(d));
  }
}
template <class D>
VFromD<D> MinTU(D d, VFromD<D> acc, VFromD<D> v) {
  using T = TFromD<D>;
  if constexpr (!D::kIsStrip) {
    return Min(d, acc, v);
  } else if constexpr (detail::IsFloat<T>) {
    return __riscv_vfmin_tu(acc, acc, v, detail::VL(d));
  } else if constexpr (detail::IsSigned<T>) {
    return __riscv_vmin_tu(acc, acc, v, detail::VL(d));
  } else {
    return __riscv_vminu_tu(acc, acc, v, detail::VL(d));
  }
}
template <class D>
VFromD<D> MaxTU(D d, VFromD<D> acc, VFromD<D> v) {
  using T = TFromD<D>;
  if constexpr (!D::kIsStrip) {
    return Max(d, acc, v);
  } else if constexpr (detail::IsFloat<T>) {
    return __riscv_vfmax_tu(acc, acc, v, detail::VL(d));
  } else if constexpr (detail::IsSigned<T>) {
    return __riscv_vmax_tu(acc, acc, v, detail::VL(d));
  } else {
    return __riscv_vmaxu_tu(acc, acc, v, detail::VL(d));
  }
}
// vfmax is maximumNumber already: MaxAccumulate is MaxTU.
template <class D>
VFromD<D> MaxAccumulate(D d, VFromD<D> acc, VFromD<D> v) { return MaxTU(d, acc, v); }
// acc + a * b (fused for floats).
template <class D>
VFromD<D> MulAddTU(D d, VFromD<D> a, VFromD<D> b, VFromD<D> acc) {
  if constexpr (!D::kIsStrip) {
    return MulAdd(d, a, b, acc);
  } else if constexpr (detail::IsFloat<TFromD<D>>) {
    return __riscv_vfmacc_tu(acc, a, b, detail::VL(d));
  } else {
    return __riscv_vmacc_tu(acc, a, b, detail::VL(d));
  }
}

// -------------------------------------------------------------------------------- reductions
// A reduction takes its start value in lane 0 of an LMUL-1 vector. With vl = 0 it writes
// nothing at all, so an empty strip returns the identity before reaching it.
namespace detail {
template <class D>
bool IsEmpty(D d) {
  if constexpr (D::kIsStrip) {
    return d.n == 0;
  } else {
    return false;
  }
}
// The start value x in lane 0 of an LMUL-1 register, written into (the first register of) the
// vector being reduced rather than splatted: a splat of a constant is loop-invariant, and clang
// hoists it out of a loop that reduces once per block and then, short of registers, spills it
// (scripts/rvv-spill-check); a lane-0 move into v depends on v and stays where it is. Same cost.
template <class V, typename T>
auto Start(V v, T x) {
  auto r = LowRegister(v);
  if constexpr (IsFloat<T>) {
    return __riscv_vfmv_s_tu(r, x, 1);
  } else {
    return __riscv_vmv_s_tu(r, x, 1);
  }
}
template <class V>
auto First(V v) {
  if constexpr (IsFloat<LaneOf<V>>) {
    return __riscv_vfmv_f(v);
  } else {
    return __riscv_vmv_x(v);
  }
}
}  // namespace detail

template <class D>
TFromD<D> ReduceSum(D d, VFromD<D> v) {
  using T = TFromD<D>;
  if (detail::IsEmpty(d)) return T{0};
  const size_t vl = detail::VL(d);
  if constexpr (detail::IsFloat<T>) {
    return detail::First(__riscv_vfredusum(v, detail::Start(v, T{0}), vl));
  } else {
    return detail::First(__riscv_vredsum(v, detail::Start(v, T{0}), vl));
  }
}
// Into lane 0 of an LMUL-1 accumulator. A strip uses vd = acc with the tail-undisturbed policy:
// an empty strip (vl = 0, where the instruction writes nothing) must return acc, and lanes 1..
// stay acc's. A whole group (vl = VLMAX > 0) is tail-agnostic, like the loads beside it, so the
// strip loop needs no vsetvli to switch policies: its lanes 1.. are unspecified (the contract).
namespace detail {
template <class D, class FA, class FT>
VFromD<Simd<TFromD<D>, 0>> ReduceInto(D d, VFromD<D> v, VFromD<Simd<TFromD<D>, 0>> acc, FA agnostic, FT undisturbed) {
  if constexpr (D::kIsStrip) {
    return undisturbed(acc, v, acc, VL(d));
  } else {
    return agnostic(v, acc, VL(d));
  }
}
}  // namespace detail
#define VLAK_RVV_REDUCE_INTO(Name, fop, sop, uop)                                                     \
  template <class D>                                                                                 \
  VFromD<Simd<TFromD<D>, 0>> Name(D d, VFromD<D> v, VFromD<Simd<TFromD<D>, 0>> acc) {                \
    using T = TFromD<D>;                                                                             \
    if constexpr (detail::IsFloat<T>) {                                                              \
      return detail::ReduceInto(                                                                     \
          d, v, acc, [](auto x, auto a, size_t vl) { return __riscv_##fop(x, a, vl); },              \
          [](auto keep, auto x, auto a, size_t vl) { return __riscv_##fop##_tu(keep, x, a, vl); });  \
    } else if constexpr (detail::IsSigned<T>) {                                                      \
      return detail::ReduceInto(                                                                     \
          d, v, acc, [](auto x, auto a, size_t vl) { return __riscv_##sop(x, a, vl); },              \
          [](auto keep, auto x, auto a, size_t vl) { return __riscv_##sop##_tu(keep, x, a, vl); });  \
    } else {                                                                                         \
      return detail::ReduceInto(                                                                     \
          d, v, acc, [](auto x, auto a, size_t vl) { return __riscv_##uop(x, a, vl); },              \
          [](auto keep, auto x, auto a, size_t vl) { return __riscv_##uop##_tu(keep, x, a, vl); });  \
    }                                                                                                \
  }
VLAK_RVV_REDUCE_INTO(ReduceSumInto, vfredusum, vredsum, vredsum)
VLAK_RVV_REDUCE_INTO(ReduceMinInto, vfredmin, vredmin, vredminu)
VLAK_RVV_REDUCE_INTO(ReduceMaxInto, vfredmax, vredmax, vredmaxu)
#undef VLAK_RVV_REDUCE_INTO
// Lane order, starting from +0.
template <class D>
TFromD<D> ReduceSumOrdered(D d, VFromD<D> v) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  if (detail::IsEmpty(d)) return T{0};
  return detail::First(__riscv_vfredosum(v, detail::Start(v, T{0}), detail::VL(d)));
}
// Floats start from NaN: vfredmin ignores NaNs unless all inputs (start included) are NaN, which
// is exactly the contract's all-NaN case.
template <class D>
TFromD<D> ReduceMin(D d, VFromD<D> v) {
  using T = TFromD<D>;
  using L = std::numeric_limits<T>;
  const size_t vl = detail::VL(d);
  if constexpr (detail::IsFloat<T>) {
    if (detail::IsEmpty(d)) return L::infinity();
    return detail::First(__riscv_vfredmin(v, detail::Start(v, L::quiet_NaN()), vl));
  } else {
    if (detail::IsEmpty(d)) return L::max();
    if constexpr (detail::IsSigned<T>) {
      return detail::First(__riscv_vredmin(v, detail::Start(v, L::max()), vl));
    } else {
      return detail::First(__riscv_vredminu(v, detail::Start(v, L::max()), vl));
    }
  }
}
template <class D>
TFromD<D> ReduceMax(D d, VFromD<D> v) {
  using T = TFromD<D>;
  using L = std::numeric_limits<T>;
  const size_t vl = detail::VL(d);
  if constexpr (detail::IsFloat<T>) {
    if (detail::IsEmpty(d)) return -L::infinity();
    return detail::First(__riscv_vfredmax(v, detail::Start(v, L::quiet_NaN()), vl));
  } else {
    if (detail::IsEmpty(d)) return L::lowest();
    if constexpr (detail::IsSigned<T>) {
      return detail::First(__riscv_vredmax(v, detail::Start(v, L::lowest()), vl));
    } else {
      return detail::First(__riscv_vredmaxu(v, detail::Start(v, L::lowest()), vl));
    }
  }
}

// ------------------------------------------------------------------------------- conversions
template <class DTo, class DFrom>
VFromD<DTo> BitCast(DTo, DFrom, VFromD<DFrom> v) {
  static_assert(sizeof(TFromD<DTo>) == sizeof(TFromD<DFrom>) && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  return detail::BitCastTo(FullTag<DTo>{}, v);
}

// int32/uint32 -> f32 (dynamic rounding mode, nearest even); f32 -> int32 toward zero. The
// hardware saturates but turns NaN into INT32_MAX; the contract wants 0, so NaN lanes are masked
// off and keep a zero.
template <class DTo, class DFrom>
VFromD<DTo> ConvertTo(DTo d, DFrom, VFromD<DFrom> v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) == 4 && sizeof(TF) == 4 && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  const size_t vl = detail::VL(d);
  if constexpr (std::is_same_v<TT, float>) {
    static_assert(std::is_integral_v<TF>);
    return __riscv_vfcvt_f(v, vl);
  } else {
    static_assert(std::is_same_v<TT, int32_t> && std::is_same_v<TF, float>);
    // Toward zero is down for x >= 0 and up for x < 0 (see RoundWith on vfcvt.rtz); NaN lanes
    // are in neither mask and keep the zero.
    const auto nonneg = __riscv_vmfge(v, 0.0f, vl);
    const auto neg = __riscv_vmflt(v, 0.0f, vl);
    const auto down = __riscv_vfcvt_x_mu(nonneg, Zero(d), v, __RISCV_FRM_RDN, vl);
    return __riscv_vfcvt_x_mu(neg, down, v, __RISCV_FRM_RUP, vl);
  }
}
// f32 -> int32, nearest even (static rounding mode), saturating, NaN -> 0.
template <class D>
VFromD<RebindD<D, int32_t>> NearestInt(D d, VFromD<D> v) {
  static_assert(std::is_same_v<TFromD<D>, float>);
  // Convert every lane, then zero the NaN lanes with a merge from x0: no zero vector group.
  const size_t vl = detail::VL(d);
  const auto i = __riscv_vfcvt_x(v, __RISCV_FRM_RNE, vl);
  return __riscv_vmerge(i, 0, __riscv_vmfne(v, v, vl), vl);
}

// Widen keeping the lane count (LMUL grows with the ratio).
template <class DTo, class DFrom>
VFromD<DTo> PromoteTo(DTo d, DFrom, VFromD<DFrom> v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  constexpr size_t kRatio = sizeof(TT) / sizeof(TF);
  static_assert(sizeof(TT) > sizeof(TF) && Pow2FromD<DTo> == Pow2FromD<DFrom> + simd::detail::Log2(kRatio));
  static_assert(detail::IsFloat<TT> == detail::IsFloat<TF>);
  static_assert(!(std::is_signed_v<TF> && std::is_unsigned_v<TT>), "sign-extending into unsigned");
  const size_t vl = detail::VL(d);
  if constexpr (detail::IsFloat<TF>) {
    return __riscv_vfwcvt_f(v, vl);
  } else if constexpr (detail::IsSigned<TF>) {
    if constexpr (kRatio == 2) return __riscv_vsext_vf2(v, vl);
    if constexpr (kRatio == 4) return __riscv_vsext_vf4(v, vl);
    if constexpr (kRatio == 8) return __riscv_vsext_vf8(v, vl);
  } else {
    if constexpr (kRatio == 2) return detail::As<TT>(__riscv_vzext_vf2(v, vl));
    if constexpr (kRatio == 4) return detail::As<TT>(__riscv_vzext_vf4(v, vl));
    if constexpr (kRatio == 8) return detail::As<TT>(__riscv_vzext_vf8(v, vl));
  }
}

namespace detail {
// Halve the lane size until it is sizeof(TT): vnclip(u) by 0 saturates to the narrower type of
// the same signedness (rounding mode irrelevant with no shift); vncvt keeps the low bits.
template <typename TT, class V>
auto NarrowSaturate(V v, size_t vl) {
  if constexpr (sizeof(LaneOf<V>) == sizeof(TT)) {
    return v;
  } else if constexpr (IsSigned<LaneOf<V>>) {
    return NarrowSaturate<TT>(__riscv_vnclip(v, 0, __RISCV_VXRM_RDN, vl), vl);
  } else {
    return NarrowSaturate<TT>(__riscv_vnclipu(v, 0, __RISCV_VXRM_RDN, vl), vl);
  }
}
template <typename TT, class V>
auto NarrowTruncate(V v, size_t vl) {
  if constexpr (sizeof(LaneOf<V>) == sizeof(TT)) {
    return v;
  } else {
    return NarrowTruncate<TT>(__riscv_vncvt_x(v, vl), vl);
  }
}
}  // namespace detail

// Narrow with saturation to the destination's range; f64 -> f32 is vfncvt.f.f.w in the dynamic
// rounding mode (frm: round to nearest even unless a caller changed it), denormal results kept,
// overflow to inf, NaN canonical. Other float forms do not compile (scalar.h). Mixed signedness
// clamps in the source type first, so that the narrowing steps run in one signedness.
template <class DTo, class DFrom>
VFromD<DTo> DemoteTo(DTo d, DFrom, VFromD<DFrom> v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) < sizeof(TF) &&
                Pow2FromD<DTo> + simd::detail::Log2(sizeof(TF) / sizeof(TT)) == Pow2FromD<DFrom>);
  static_assert(simd::detail::kDemoteFloatOk<TT, TF>, VLAK_DEMOTE_FLOAT_MESSAGE);
  const size_t vl = detail::VL(d);
  if constexpr (detail::IsFloat<TF>) {
    return __riscv_vfncvt_f(v, vl);
  } else {
    static_assert(std::is_integral_v<TT>);
    using UF = detail::UnsignedOf<TF>;
    if constexpr (detail::IsSigned<TF> == detail::IsSigned<TT>) {
      return detail::NarrowSaturate<TT>(v, vl);
    } else if constexpr (detail::IsSigned<TF>) {  // signed -> unsigned: negatives become 0
      const auto nonneg = detail::As<UF>(__riscv_vmax(v, TF{0}, vl));
      return detail::NarrowSaturate<TT>(nonneg, vl);
    } else {  // unsigned -> signed: clamp to TT's max, then any narrowing is exact
      const auto clamped = __riscv_vminu(v, static_cast<UF>(std::numeric_limits<TT>::max()), vl);
      return detail::As<TT>(detail::NarrowTruncate<TT>(clamped, vl));
    }
  }
}

// Narrow keeping the low bits.
template <class DTo, class DFrom>
VFromD<DTo> TruncateTo(DTo d, DFrom, VFromD<DFrom> v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(std::is_integral_v<TT> && std::is_integral_v<TF> && sizeof(TT) < sizeof(TF));
  static_assert(Pow2FromD<DTo> + simd::detail::Log2(sizeof(TF) / sizeof(TT)) == Pow2FromD<DFrom>);
  const auto u = detail::NarrowTruncate<TT>(detail::As<detail::UnsignedOf<TF>>(v), detail::VL(d));
  return detail::As<TT>(u);
}

// Widening integer ops (contract in scalar.h): one instruction each, no promoted copies.
template <class DW, class DN>
VFromD<DW> WidenMul(DW dw, DN, VFromD<DN> a, VFromD<DN> b) {
  static_assert(detail::IsSigned<TFromD<DN>> && sizeof(TFromD<DW>) == 2 * sizeof(TFromD<DN>));
  static_assert(Pow2FromD<DW> == Pow2FromD<DN> + 1);
  return __riscv_vwmul(a, b, detail::VL(dw));
}
template <class DW, class DN>
VFromD<DW> WidenMulAdd(DW dw, DN, VFromD<DN> a, VFromD<DN> b, VFromD<DW> acc) {
  static_assert(detail::IsSigned<TFromD<DN>> && sizeof(TFromD<DW>) == 2 * sizeof(TFromD<DN>));
  static_assert(Pow2FromD<DW> == Pow2FromD<DN> + 1);
  return __riscv_vwmacc(acc, a, b, detail::VL(dw));
}
template <class DW, class DN>
VFromD<DW> WidenAdd(DW dw, DN, VFromD<DW> acc, VFromD<DN> v) {
  static_assert(detail::IsSigned<TFromD<DN>> && sizeof(TFromD<DW>) == 2 * sizeof(TFromD<DN>));
  static_assert(Pow2FromD<DW> == Pow2FromD<DN> + 1);
  return __riscv_vwadd_wv(acc, v, detail::VL(dw));
}

}  // namespace vlak::VLAK_NS
