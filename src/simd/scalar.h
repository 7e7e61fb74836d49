// vlak vector layer, scalar target: portable C++, the semantic reference for every other target.
//
// A "register" here is 16 bytes, so a group holds (16 / sizeof(T)) << kPow2 lanes: small enough
// that tails, strips and reductions are exercised at every length, large enough to be a vector.
// Every op's contract is stated here once; the AVX2, AVX-512 and RVV targets must match it.
// Float ops follow IEEE-754 with round-to-nearest-even; -ffp-contract=off keeps a*b+c unfused
// unless MulAdd asks for the fused form.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "tags.h"

namespace vlak::VLAK_NS {
using namespace ::vlak::simd;

inline constexpr size_t kRegisterBytes = 16;  // MaxLanes/Lanes: fixed_lanes.h

}  // namespace vlak::VLAK_NS
#include "fixed_lanes.h"
namespace vlak::VLAK_NS {

template <typename T, int kPow2>
struct Vec {
  static constexpr size_t N = (kRegisterBytes / sizeof(T)) << kPow2;
  T raw[N];
};
template <typename T, int kPow2>
struct Mask {
  static constexpr size_t N = (kRegisterBytes / sizeof(T)) << kPow2;
  bool raw[N];
};

template <class D>
using VFromD = Vec<TFromD<D>, Pow2FromD<D>>;
template <class D>
using MFromD = Mask<TFromD<D>, Pow2FromD<D>>;

namespace detail {
// Integer arithmetic wraps: compute in the unsigned type of the same size.
template <typename T>
using Wrap = std::make_unsigned_t<T>;
template <typename T>
constexpr bool IsFloat = std::is_floating_point_v<T>;
}  // namespace detail

// ---------------------------------------------------------------------------------- creation
template <class D>
VFromD<D> Zero(D) { return VFromD<D>{}; }

template <class D>
VFromD<D> Set(D, TFromD<D> x) {
  VFromD<D> r;
  std::fill(r.raw, r.raw + r.N, x);
  return r;
}

// Lane i = first + i (wrapping for integers).
template <class D>
VFromD<D> Iota(D, TFromD<D> first) {
  using T = TFromD<D>;
  VFromD<D> r;
  for (size_t i = 0; i < r.N; ++i) {
    if constexpr (detail::IsFloat<T>) {
      r.raw[i] = first + static_cast<T>(i);
    } else {
      r.raw[i] = static_cast<T>(static_cast<detail::Wrap<T>>(first) + static_cast<detail::Wrap<T>>(i));
    }
  }
  return r;
}

// First lane.
template <class D>
TFromD<D> GetLane(D, const VFromD<D>& v) { return v.raw[0]; }

// ------------------------------------------------------------------------------------ memory
// Load/Store: `p` aligned to kAlignment (64 bytes covers every target); LoadU/StoreU: any
// alignment. On a strip tag only the first n lanes are read or written; other lanes of a
// loaded vector are unspecified.
inline constexpr size_t kAlignment = 64;

template <class D>
VFromD<D> LoadU(D d, const TFromD<D>* p) {
  VFromD<D> r{};
  std::memcpy(r.raw, p, Lanes(d) * sizeof(TFromD<D>));
  return r;
}
template <class D>
VFromD<D> Load(D d, const TFromD<D>* p) { return LoadU(d, p); }

template <class D>
void StoreU(D d, const VFromD<D>& v, TFromD<D>* p) {
  std::memcpy(p, v.raw, Lanes(d) * sizeof(TFromD<D>));
}
template <class D>
void Store(D d, const VFromD<D>& v, TFromD<D>* p) { StoreU(d, v, p); }

// Stream: Store (p aligned to kAlignment; a strip writes its first n lanes) with the hint that
// the data will not be read again soon, for outputs larger than the caches: x86 writes whole
// registers with non-temporal stores (no read-for-ownership of the line, no cache pollution),
// other targets store as usual. Before another thread reads streamed data, StreamFence().
template <class D>
void Stream(D d, const VFromD<D>& v, TFromD<D>* p) { Store(d, v, p); }
inline void StreamFence() {}

// First min(n, Lanes(d)) lanes from p, the rest zero; nothing beyond them is read.
template <class D>
VFromD<D> LoadN(D d, const TFromD<D>* p, size_t n) {
  VFromD<D> r{};
  std::memcpy(r.raw, p, std::min(n, Lanes(d)) * sizeof(TFromD<D>));
  return r;
}
// Writes the first min(n, Lanes(d)) lanes; memory beyond them is untouched.
template <class D>
void StoreN(D d, const VFromD<D>& v, TFromD<D>* p, size_t n) {
  std::memcpy(p, v.raw, std::min(n, Lanes(d)) * sizeof(TFromD<D>));
}

// Active lanes of m are read, the others are zero and their memory is not accessed.
template <class D>
VFromD<D> MaskedLoad(D d, const MFromD<D>& m, const TFromD<D>* p) {
  VFromD<D> r{};
  for (size_t i = 0; i < Lanes(d); ++i) {
    if (m.raw[i]) r.raw[i] = p[i];
  }
  return r;
}
// Only active lanes of m are written.
template <class D>
void MaskedStore(D d, const MFromD<D>& m, const VFromD<D>& v, TFromD<D>* p) {
  for (size_t i = 0; i < Lanes(d); ++i) {
    if (m.raw[i]) p[i] = v.raw[i];
  }
}

// Lane i = p[i * stride]; stride in elements, may be zero or negative.
// StoreStrided writes the active lanes in lane order, so where lanes share an address the
// highest one's value stays: with stride 0, p[0] = lane Lanes(d) - 1 (nothing written when
// Lanes(d) == 0). Other strides never repeat an address.
template <class D>
VFromD<D> LoadStrided(D d, const TFromD<D>* p, ptrdiff_t stride) {
  VFromD<D> r{};
  for (size_t i = 0; i < Lanes(d); ++i) r.raw[i] = p[static_cast<ptrdiff_t>(i) * stride];
  return r;
}
template <class D>
void StoreStrided(D d, const VFromD<D>& v, TFromD<D>* p, ptrdiff_t stride) {
  for (size_t i = 0; i < Lanes(d); ++i) p[static_cast<ptrdiff_t>(i) * stride] = v.raw[i];
}

// Pairs stored interleaved (RoPE's (x[2i], x[2i + 1]), complex numbers), every lane type.
// LoadInterleaved2 reads the 2 * Lanes(d) elements at p (any alignment) and splits them:
// a[i] = p[2i], b[i] = p[2i + 1]. StoreInterleaved2 is the inverse: p[2i] = a[i] and
// p[2i + 1] = b[i] for i < Lanes(d). A strip reads or writes exactly its 2n elements, nothing
// beyond them (lanes >= n of a and b are unspecified). The two results are out-parameters
// rather than a returned pair: RVV's sizeless vector types cannot be members of a struct.
template <class D>
void LoadInterleaved2(D d, const TFromD<D>* p, VFromD<D>& a, VFromD<D>& b) {
  a = VFromD<D>{};
  b = VFromD<D>{};
  for (size_t i = 0; i < Lanes(d); ++i) {
    a.raw[i] = p[2 * i];
    b.raw[i] = p[2 * i + 1];
  }
}
template <class D>
void StoreInterleaved2(D d, const VFromD<D>& a, const VFromD<D>& b, TFromD<D>* p) {
  for (size_t i = 0; i < Lanes(d); ++i) {
    p[2 * i] = a.raw[i];
    p[2 * i + 1] = b.raw[i];
  }
}

// Lane i = base[idx[i]] for 32-bit element types; idx in elements, non-negative.
template <class D>
VFromD<D> Gather(D d, const TFromD<D>* base, const VFromD<RebindD<D, int32_t>>& idx) {
  static_assert(sizeof(TFromD<D>) == 4, "Gather takes 32-bit elements with 32-bit indices");
  VFromD<D> r{};
  for (size_t i = 0; i < Lanes(d); ++i) r.raw[i] = base[idx.raw[i]];
  return r;
}

// Lane i = table[idx[i]]: a 256-entry byte table in memory.
template <class D>
VFromD<D> TableLookup256(D d, const uint8_t* table, const VFromD<D>& idx) {
  static_assert(std::is_same_v<TFromD<D>, uint8_t>, "TableLookup256 takes u8 indices");
  VFromD<D> r{};
  for (size_t i = 0; i < Lanes(d); ++i) r.raw[i] = table[idx.raw[i]];
  return r;
}

// Gather8(d, base, idx): lane i = base[idx[i]] for 8-bit element types with 16-bit unsigned
// indices (tables below 64 KiB): fixed_generic.h (RVV: one vluxei16).

// -------------------------------------------------------------------------------- arithmetic
namespace detail {
template <class D, class F>
[[gnu::always_inline]] inline VFromD<D> Map1(const VFromD<D>& a, F f) {
  VFromD<D> r;
  for (size_t i = 0; i < r.N; ++i) r.raw[i] = f(a.raw[i]);
  return r;
}
template <class D, class F>
[[gnu::always_inline]] inline VFromD<D> Map2(const VFromD<D>& a, const VFromD<D>& b, F f) {
  VFromD<D> r;
  for (size_t i = 0; i < r.N; ++i) r.raw[i] = f(a.raw[i], b.raw[i]);
  return r;
}
template <class D, class F>
[[gnu::always_inline]] inline VFromD<D> Map3(const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c, F f) {
  VFromD<D> r;
  for (size_t i = 0; i < r.N; ++i) r.raw[i] = f(a.raw[i], b.raw[i], c.raw[i]);
  return r;
}
template <typename T>
T WrapAdd(T a, T b) { return static_cast<T>(static_cast<Wrap<T>>(a) + static_cast<Wrap<T>>(b)); }
template <typename T>
T WrapSub(T a, T b) { return static_cast<T>(static_cast<Wrap<T>>(a) - static_cast<Wrap<T>>(b)); }
// a * b + c rounded once, lane by lane, for float (MulAdd, NegMulAdd). Where the CPU has a fused
// multiply-add in its baseline ISA (RISC-V F, AArch64, x86 built with FMA) std::fma is that one
// instruction. Baseline x86-64 has
// none, and std::fma there is a libm call per lane (the scalar target ran 4x slower than a naive
// expf loop). So on x86-64 without -mfma: the FMA instruction (VEX vfmadd213ss, by inline asm)
// when the CPU has it, which every x86-64 CPU with AVX2 does (measured: softmax 1x4096 forced
// scalar 14.5 us against 70 us emulated); else an exact emulation: the product of two floats is
// exact in double, the sum is taken rounded to odd (TwoSum gives the exact error; an inexact sum
// with an even last bit moves one double ulp toward the exact value), and rounding that to float
// is the correctly rounded fma (Boldo & Melquiond 2008: round-to-odd in a format with
// p >= 2q + 2 bits, 53 >= 50, then round to nearest). Sums that are not finite take the plain
// double result, which is then exact (inf, NaN).
#if defined(__x86_64__) && !defined(__FMA__)
inline const bool kCpuHasFma = [] {
  __builtin_cpu_init();  // may run before main (a static initialiser)
  return __builtin_cpu_supports("fma") != 0;
}();
#endif
[[gnu::always_inline]] inline float FusedMulAddEmulated(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  const double dc = static_cast<double>(c);
  const double s = p + dc;
  const double bb = s - p;
  const double err = (p - (s - bb)) + (dc - bb);  // exact: s + err == p + c
  uint64_t bits;
  std::memcpy(&bits, &s, sizeof bits);
  // Round to odd: inexact and even -> the neighbour toward the exact value (magnitude up when err
  // has s's sign). s == 0 with err != 0 cannot happen (then p + c is exact).
  const bool inexact = err != 0.0 && (bits & 1) == 0 && std::isfinite(s);
  const bool up = (err > 0.0) == (s > 0.0);
  bits += inexact ? (up ? 1 : ~uint64_t{0}) : 0;
  double odd;
  std::memcpy(&odd, &bits, sizeof odd);
  return static_cast<float>(odd);
}
// The emulation out of line, one call per lane: inlined beside the instruction path, its code
// would stop clang from inlining the kernels' exp functions (softmax 1x4096 forced scalar: 23 us
// instead of 15).
[[gnu::noinline]] inline float FusedMulAddCall(float a, float b, float c) { return FusedMulAddEmulated(a, b, c); }
// r[i] = (kNeg ? -a[i] : a[i]) * b[i] + c[i] over n lanes; the CPU check is per op, not per lane.
template <bool kNeg>
[[gnu::always_inline]] inline void FusedMulAddLanes(const float* a, const float* b, const float* c, float* r, size_t n) {
#if defined(__FMA__) || defined(__riscv) || defined(__aarch64__)
  for (size_t i = 0; i < n; ++i) r[i] = std::fma(kNeg ? -a[i] : a[i], b[i], c[i]);
#else
#if defined(__x86_64__)
  if (kCpuHasFma) {
    for (size_t i = 0; i < n; ++i) {
      float x = kNeg ? -a[i] : a[i];
      asm("vfmadd213ss %2, %1, %0" : "+x"(x) : "x"(b[i]), "x"(c[i]));  // x = x * b + c
      r[i] = x;
    }
    return;
  }
#endif
  for (size_t i = 0; i < n; ++i) r[i] = FusedMulAddCall(kNeg ? -a[i] : a[i], b[i], c[i]);
#endif
}

template <typename T>
T WrapMul(T a, T b) {
  // Promote to unsigned int at least, so that u16*u16 does not overflow a signed int.
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Wrap<T>>;
  return static_cast<T>(static_cast<U>(static_cast<Wrap<T>>(a)) * static_cast<U>(static_cast<Wrap<T>>(b)));
}
}  // namespace detail

// Integers wrap on overflow.
template <class D>
VFromD<D> Add(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  return detail::Map2<D>(a, b, [](T x, T y) -> T {
    if constexpr (detail::IsFloat<T>) return x + y; else return detail::WrapAdd(x, y);
  });
}
template <class D>
VFromD<D> Sub(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  return detail::Map2<D>(a, b, [](T x, T y) -> T {
    if constexpr (detail::IsFloat<T>) return x - y; else return detail::WrapSub(x, y);
  });
}
template <class D>
VFromD<D> Mul(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  return detail::Map2<D>(a, b, [](T x, T y) -> T {
    if constexpr (detail::IsFloat<T>) return x * y; else return detail::WrapMul(x, y);
  });
}
// Floats only.
template <class D>
VFromD<D> Div(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  return detail::Map2<D>(a, b, [](T x, T y) { return x / y; });
}
// a * b + c, fused (one rounding) for floats; wrapping for integers.
template <class D>
[[gnu::always_inline]] inline VFromD<D> MulAdd(D, const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c) {
  using T = TFromD<D>;
  if constexpr (std::is_same_v<T, float>) {
    VFromD<D> r;
    detail::FusedMulAddLanes<false>(a.raw, b.raw, c.raw, r.raw, r.N);
    return r;
  }
  return detail::Map3<D>(a, b, c, [](T x, T y, T z) -> T {
    if constexpr (detail::IsFloat<T>) return std::fma(x, y, z);
    else return detail::WrapAdd(detail::WrapMul(x, y), z);
  });
}
// c - a * b, fused for floats; wrapping for integers.
template <class D>
[[gnu::always_inline]] inline VFromD<D> NegMulAdd(D, const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& c) {
  using T = TFromD<D>;
  if constexpr (std::is_same_v<T, float>) {
    VFromD<D> r;
    detail::FusedMulAddLanes<true>(a.raw, b.raw, c.raw, r.raw, r.N);
    return r;
  }
  return detail::Map3<D>(a, b, c, [](T x, T y, T z) -> T {
    if constexpr (detail::IsFloat<T>) return std::fma(-x, y, z);
    else return detail::WrapSub(z, detail::WrapMul(x, y));
  });
}
// Floats flip the sign bit (Neg(NaN) is NaN, Neg(0) = -0); integers wrap (Neg(MIN) = MIN).
template <class D>
VFromD<D> Neg(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  return detail::Map1<D>(a, [](T x) -> T {
    if constexpr (detail::IsFloat<T>) return -x; else return detail::WrapSub(T{0}, x);
  });
}
// Floats clear the sign bit; signed integers wrap (Abs(MIN) = MIN); unsigned: identity.
template <class D>
VFromD<D> Abs(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  return detail::Map1<D>(a, [](T x) -> T {
    if constexpr (detail::IsFloat<T>) return std::fabs(x);
    else if constexpr (std::is_signed_v<T>) return x < 0 ? detail::WrapSub(T{0}, x) : x;
    else return x;
  });
}
// Floats: IEEE-754 minimumNumber/maximumNumber: a NaN operand is ignored unless both are NaN
// (then NaN); Min(-0, +0) may return either zero.
template <class D>
VFromD<D> Min(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  return detail::Map2<D>(a, b, [](T x, T y) -> T {
    if constexpr (detail::IsFloat<T>) return std::fmin(x, y); else return std::min(x, y);
  });
}
template <class D>
VFromD<D> Max(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  return detail::Map2<D>(a, b, [](T x, T y) -> T {
    if constexpr (detail::IsFloat<T>) return std::fmax(x, y); else return std::max(x, y);
  });
}
// Floats only: correctly rounded.
template <class D>
VFromD<D> Sqrt(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(detail::IsFloat<T>);
  return detail::Map1<D>(a, [](T x) { return std::sqrt(x); });
}
// Floats only: integral values stay, NaN stays NaN, the sign of zero is kept.
template <class D>
VFromD<D> Floor(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::Map1<D>(a, [](auto x) { return std::floor(x); });
}
template <class D>
VFromD<D> Ceil(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::Map1<D>(a, [](auto x) { return std::ceil(x); });
}
template <class D>
VFromD<D> Trunc(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::Map1<D>(a, [](auto x) { return std::trunc(x); });
}
// Round to nearest, ties to even.
template <class D>
VFromD<D> Round(D, const VFromD<D>& a) {
  static_assert(detail::IsFloat<TFromD<D>>);
  return detail::Map1<D>(a, [](auto x) { return std::nearbyint(x); });
}

// 8- and 16-bit integers: clamp to the type's range instead of wrapping.
template <class D>
VFromD<D> SaturatedAdd(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  return detail::Map2<D>(a, b, [](T x, T y) -> T {
    const int s = int{x} + int{y};
    return static_cast<T>(std::clamp<int>(s, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  });
}
template <class D>
VFromD<D> SaturatedSub(D, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2);
  return detail::Map2<D>(a, b, [](T x, T y) -> T {
    const int s = int{x} - int{y};
    return static_cast<T>(std::clamp<int>(s, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  });
}

// AverageFloor(d, a, b) = floor((a + b) / 2), exactly, for 8- and 16-bit integers (no overflow:
// the result lies between a and b). Defined in fixed_generic.h for scalar (a composition of And,
// Xor, ShiftRight and Add), AVX2 and AVX-512 (vpavgb/vpavgw between xors); RVV has it as one
// instruction (vaadd/vaaddu with the round-down fixed-point rounding mode).

// ------------------------------------------------------------------------------ integer bits
// Shifts: counts in [0, bits); right shifts are arithmetic for signed types, logical otherwise.
template <int kBits, class D>
VFromD<D> ShiftLeft(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  return detail::Map1<D>(a, [](T x) { return static_cast<T>(static_cast<detail::Wrap<T>>(x) << kBits); });
}
template <int kBits, class D>
VFromD<D> ShiftRight(D, const VFromD<D>& a) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && kBits >= 0 && kBits < int{sizeof(T) * 8});
  return detail::Map1<D>(a, [](T x) { return static_cast<T>(x >> kBits); });
}
template <class D>
VFromD<D> Shl(D, const VFromD<D>& a, const VFromD<D>& count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  return detail::Map2<D>(a, count, [](T x, T s) { return static_cast<T>(static_cast<detail::Wrap<T>>(x) << s); });
}
template <class D>
VFromD<D> Shr(D, const VFromD<D>& a, const VFromD<D>& count) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T>);
  return detail::Map2<D>(a, count, [](T x, T s) { return static_cast<T>(x >> s); });
}

// Bitwise ops, on integers and (bit pattern) floats. AndNot(a, b) = ~a & b.
namespace detail {
template <class D, class F>
[[gnu::always_inline]] inline VFromD<D> Bits2(const VFromD<D>& a, const VFromD<D>& b, F f) {
  using T = TFromD<D>;
  using U = std::conditional_t<sizeof(T) == 8, uint64_t,
            std::conditional_t<sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
  VFromD<D> r;
  for (size_t i = 0; i < r.N; ++i) {
    U x, y;
    std::memcpy(&x, &a.raw[i], sizeof(T));
    std::memcpy(&y, &b.raw[i], sizeof(T));
    const U z = static_cast<U>(f(x, y));
    std::memcpy(&r.raw[i], &z, sizeof(T));
  }
  return r;
}
}  // namespace detail
template <class D>
VFromD<D> And(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Bits2<D>(a, b, [](auto x, auto y) { return x & y; }); }
template <class D>
VFromD<D> Or(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Bits2<D>(a, b, [](auto x, auto y) { return x | y; }); }
template <class D>
VFromD<D> Xor(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Bits2<D>(a, b, [](auto x, auto y) { return x ^ y; }); }
template <class D>
VFromD<D> AndNot(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Bits2<D>(a, b, [](auto x, auto y) { return ~x & y; }); }

// ------------------------------------------------------------------------------ comparisons
// Floats: ordered compares (false when either is NaN) except Ne, which is true then.
namespace detail {
template <class D, class F>
[[gnu::always_inline]] inline MFromD<D> Cmp(const VFromD<D>& a, const VFromD<D>& b, F f) {
  MFromD<D> m;
  for (size_t i = 0; i < m.N; ++i) m.raw[i] = f(a.raw[i], b.raw[i]);
  return m;
}
}  // namespace detail
template <class D> MFromD<D> Eq(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<D>(a, b, [](auto x, auto y) { return x == y; }); }
template <class D> MFromD<D> Ne(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<D>(a, b, [](auto x, auto y) { return x != y; }); }
template <class D> MFromD<D> Lt(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<D>(a, b, [](auto x, auto y) { return x < y; }); }
template <class D> MFromD<D> Le(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<D>(a, b, [](auto x, auto y) { return x <= y; }); }
template <class D> MFromD<D> Gt(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<D>(a, b, [](auto x, auto y) { return x > y; }); }
template <class D> MFromD<D> Ge(D, const VFromD<D>& a, const VFromD<D>& b) { return detail::Cmp<D>(a, b, [](auto x, auto y) { return x >= y; }); }
// True where a is NaN.
template <class D> MFromD<D> IsNaN(D, const VFromD<D>& a) { return detail::Cmp<D>(a, a, [](auto x, auto y) { return x != y; }); }

// -------------------------------------------------------------------------------------- masks
// FirstN(d, n): lane i is active iff i < n, for any size_t n (SIZE_MAX included): n >= Lanes(d)
// gives every lane of the tag, n is never truncated to the lane type. A strip tag's active lanes
// are [0, min(n, d.n)); lanes at and above d.n are unspecified like any strip result (on the
// fixed-width targets they are i < n too, which KeepTail's FirstN(d, d.n) relies on).
template <class D>
MFromD<D> FirstN(D, size_t n) {
  MFromD<D> m;
  for (size_t i = 0; i < m.N; ++i) m.raw[i] = i < n;
  return m;
}
template <class D> MFromD<D> MaskAnd(D, const MFromD<D>& a, const MFromD<D>& b) { MFromD<D> m; for (size_t i = 0; i < m.N; ++i) m.raw[i] = a.raw[i] && b.raw[i]; return m; }
template <class D> MFromD<D> MaskOr(D, const MFromD<D>& a, const MFromD<D>& b) { MFromD<D> m; for (size_t i = 0; i < m.N; ++i) m.raw[i] = a.raw[i] || b.raw[i]; return m; }
template <class D> MFromD<D> MaskXor(D, const MFromD<D>& a, const MFromD<D>& b) { MFromD<D> m; for (size_t i = 0; i < m.N; ++i) m.raw[i] = a.raw[i] != b.raw[i]; return m; }
template <class D> MFromD<D> MaskAndNot(D, const MFromD<D>& a, const MFromD<D>& b) { MFromD<D> m; for (size_t i = 0; i < m.N; ++i) m.raw[i] = !a.raw[i] && b.raw[i]; return m; }
template <class D> MFromD<D> MaskNot(D, const MFromD<D>& a) { MFromD<D> m; for (size_t i = 0; i < m.N; ++i) m.raw[i] = !a.raw[i]; return m; }
// Counts and tests look at active lanes only.
template <class D>
size_t CountTrue(D d, const MFromD<D>& m) { return static_cast<size_t>(std::count(m.raw, m.raw + Lanes(d), true)); }
template <class D>
bool AllTrue(D d, const MFromD<D>& m) { return CountTrue(d, m) == Lanes(d); }
template <class D>
bool AllFalse(D d, const MFromD<D>& m) { return CountTrue(d, m) == 0; }

template <class D>
VFromD<D> IfThenElse(D, const MFromD<D>& m, const VFromD<D>& yes, const VFromD<D>& no) {
  VFromD<D> r;
  for (size_t i = 0; i < r.N; ++i) r.raw[i] = m.raw[i] ? yes.raw[i] : no.raw[i];
  return r;
}
template <class D>
VFromD<D> IfThenElseZero(D d, const MFromD<D>& m, const VFromD<D>& yes) { return IfThenElse(d, m, yes, Zero(d)); }
// m ? 0 : no. The form a kernel's "flush to zero where ..." wants: on RVV one vmerge with the
// zero register, no zero vector group (fixed-width targets: fixed_generic.h).

// --------------------------------------------------------------------------- scalar operands
// Add/Sub/Mul/Div/Min/Max(d, v, s), And/Or/Xor(d, v, s) (integer lanes), MulAdd/NegMulAdd(d, v, s,
// c) and (d, a, b, s), and the compares Eq/Ne/Lt/Le/Gt/Ge(d, v, s) take a scalar s of the lane type in one operand: the same
// result as the vector form on Set(d, s), bit for bit. Why they exist: on RVV they are the
// .vf/.vx instructions, so a kernel's constants live in f/x registers instead of occupying (or
// being re-splatted into) vector register groups; at LMUL 8 there are only four groups. On the
// fixed-width targets they are written once in fixed_generic.h as the vector form on a hoisted
// broadcast.

// ------------------------------------------------------------------ accumulating (tail-kept)
// For strip-mined reductions, in fixed_generic.h: AddTU, MinTU, MaxTU and MulAddTU(d, a, b, acc)
// (acc + a * b, fused for floats) act on lanes [0, Lanes(d)); lanes beyond keep acc's value
// (RVV's tail-undisturbed policy), so the last, short strip leaves the accumulator whole.
// MaxAccumulate(d, acc, v): MaxTU for an accumulator that never holds NaN (a running maximum
// started from -inf): a NaN in v is ignored; a NaN in acc gives an unspecified lane. That
// weaker contract lets x86 use one vmaxps(v, acc), which returns acc whenever either is NaN,
// instead of Max's NaN fix-up (a compare and a blend per register).

// -------------------------------------------------------------------------------- reductions
// Over active lanes. ReduceSum: any association order (integers wrap, so exact); ReduceSumOrdered
// (floats): ((+0 + v0) + v1) + ... in lane order. Min/Max of zero lanes: +inf/-inf for floats,
// the type's max/min for integers; NaN lanes are ignored unless all lanes are NaN.
template <class D>
TFromD<D> ReduceSum(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  T s{0};
  for (size_t i = 0; i < Lanes(d); ++i) {
    if constexpr (detail::IsFloat<T>) s += v.raw[i]; else s = detail::WrapAdd(s, v.raw[i]);
  }
  return s;
}
// Reductions chained into lane 0 of an LMUL-1 accumulator a (fixed_generic.h), for strip loops
// that should not hold a whole accumulator group (RVV: vfredusum/vfredmax with vd = a, tail-
// undisturbed, one instruction per strip):
//   ReduceSumInto(d, v, a): lane 0 = a[0] + the active lanes of v, any association order;
//   ReduceMinInto / ReduceMaxInto(d, v, a): lane 0 = min/max of a[0] and the active lanes, NaN
//   ignored unless all of them are NaN.
// Lanes 1.. of the result: a's for a strip tag, unspecified for a whole group (RVV then runs the
// reduction tail-agnostic, like the loads beside it). An empty strip returns a unchanged.
template <class D>
TFromD<D> ReduceSumOrdered(D d, const VFromD<D>& v) {
  static_assert(detail::IsFloat<TFromD<D>>);
  TFromD<D> s{0};
  for (size_t i = 0; i < Lanes(d); ++i) s += v.raw[i];
  return s;
}
template <class D>
TFromD<D> ReduceMin(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  T s = detail::IsFloat<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  bool all_nan = Lanes(d) > 0;
  for (size_t i = 0; i < Lanes(d); ++i) {
    if constexpr (detail::IsFloat<T>) { all_nan = all_nan && std::isnan(v.raw[i]); s = std::fmin(s, v.raw[i]); }
    else s = std::min(s, v.raw[i]);
  }
  if constexpr (detail::IsFloat<T>) if (all_nan) return std::numeric_limits<T>::quiet_NaN();
  return s;
}
template <class D>
TFromD<D> ReduceMax(D d, const VFromD<D>& v) {
  using T = TFromD<D>;
  T s = detail::IsFloat<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  bool all_nan = Lanes(d) > 0;
  for (size_t i = 0; i < Lanes(d); ++i) {
    if constexpr (detail::IsFloat<T>) { all_nan = all_nan && std::isnan(v.raw[i]); s = std::fmax(s, v.raw[i]); }
    else s = std::max(s, v.raw[i]);
  }
  if constexpr (detail::IsFloat<T>) if (all_nan) return std::numeric_limits<T>::quiet_NaN();
  return s;
}

// ------------------------------------------------------------------------------- widening
// Signed integer lanes of tag dn (8 or 16 bits) and dw = Rebind<twice the size>(dn), same lane count:
//   WidenMul(dw, dn, a, b)           = wide(a) * wide(b)            (exact: |a b| <= 2^(2 bits - 2))
//   WidenMulAdd(dw, dn, a, b, acc)   = acc + wide(a) * wide(b)      (wrapping in the wide type)
//   WidenAdd(dw, dn, acc, v)         = acc + wide(v)                (wrapping in the wide type)
// RVV: vwmul.vv, vwmacc.vv, vwadd.wv, one instruction each; fixed-width targets compose PromoteTo
// with Mul/Add (fixed_generic.h).

// ------------------------------------------------------------------------------- conversions
// Same lane count and lane size, bits reinterpreted.
template <class DTo, class DFrom>
VFromD<DTo> BitCast(DTo, DFrom, const VFromD<DFrom>& v) {
  static_assert(sizeof(TFromD<DTo>) == sizeof(TFromD<DFrom>) && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  VFromD<DTo> r;
  std::memcpy(r.raw, v.raw, sizeof(r.raw));
  return r;
}

namespace detail {
// Float to int32: saturating, NaN -> 0 (what a caller can rely on on every target).
template <typename F>
int32_t SaturateToI32(F x) {
  if (std::isnan(x)) return 0;
  if (x >= F(2147483648.0)) return std::numeric_limits<int32_t>::max();
  if (x < F(-2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}
}  // namespace detail

// int32/uint32 -> f32 (round to nearest even); f32 -> int32 toward zero (saturating, NaN -> 0).
template <class DTo, class DFrom>
VFromD<DTo> ConvertTo(DTo, DFrom d, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) == 4 && sizeof(TF) == 4 && Pow2FromD<DTo> == Pow2FromD<DFrom>);
  VFromD<DTo> r{};
  for (size_t i = 0; i < r.N; ++i) {
    if constexpr (std::is_same_v<TT, float>) {
      static_assert(std::is_integral_v<TF>);
      r.raw[i] = static_cast<float>(v.raw[i]);
    } else {
      static_assert(std::is_same_v<TT, int32_t> && std::is_same_v<TF, float>);
      r.raw[i] = detail::SaturateToI32(std::trunc(v.raw[i]));
    }
  }
  (void)d;
  return r;
}
// f32 -> int32 rounding to nearest even (saturating, NaN -> 0).
template <class D>
VFromD<RebindD<D, int32_t>> NearestInt(D, const VFromD<D>& v) {
  static_assert(std::is_same_v<TFromD<D>, float>);
  VFromD<RebindD<D, int32_t>> r;
  for (size_t i = 0; i < r.N; ++i) r.raw[i] = detail::SaturateToI32(std::nearbyint(v.raw[i]));
  return r;
}

// Widen: same lane count, wider type. Signed sources sign-extend, unsigned zero-extend; f32->f64.
template <class DTo, class DFrom>
VFromD<DTo> PromoteTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) > sizeof(TF) && VFromD<DTo>::N == VFromD<DFrom>::N);
  static_assert(std::is_floating_point_v<TT> == std::is_floating_point_v<TF>);
  static_assert(!(std::is_signed_v<TF> && std::is_unsigned_v<TT>), "sign-extending into unsigned");
  VFromD<DTo> r;
  for (size_t i = 0; i < r.N; ++i) r.raw[i] = static_cast<TT>(v.raw[i]);
  return r;
}
// Narrow to a smaller lane type, same lane count. Integers saturate to the destination's range
// (signed -> unsigned: negatives give 0). The only float form is f64 -> f32, one IEEE rounding:
// to nearest, ties to even, also into f32's denormals (kept, not flushed; |x| <= 2^-150, half
// the smallest, gives a zero of the sign); |x| from FLT_MAX + half an ulp (0x1.ffffffp127, a
// tie that goes to even, i.e. up) gives inf of the sign, anything below rounds to at most
// FLT_MAX; +-inf and +-0 are kept; NaN gives a NaN (payload unspecified). Any other float
// source or destination (f32 -> i16/u8, f64 -> i32, i64 -> f32) does not compile (static_assert,
// the check shared by every target in tags.h): float -> integer is ConvertTo (toward zero) or
// NearestInt (nearest even) to i32, then DemoteTo of the i32 lanes.
template <class DTo, class DFrom>
VFromD<DTo> DemoteTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(sizeof(TT) < sizeof(TF) && VFromD<DTo>::N == VFromD<DFrom>::N);
  static_assert(simd::detail::kDemoteFloatOk<TT, TF>, VLAK_DEMOTE_FLOAT_MESSAGE);
  VFromD<DTo> r;
  for (size_t i = 0; i < r.N; ++i) {
    if constexpr (std::is_floating_point_v<TF>) {
      r.raw[i] = static_cast<TT>(v.raw[i]);
    } else {
      const int64_t x = static_cast<int64_t>(v.raw[i]);
      r.raw[i] = static_cast<TT>(std::clamp<int64_t>(x, std::numeric_limits<TT>::min(), std::numeric_limits<TT>::max()));
    }
  }
  return r;
}
// Narrow keeping the low bits (integers).
template <class DTo, class DFrom>
VFromD<DTo> TruncateTo(DTo, DFrom, const VFromD<DFrom>& v) {
  using TT = TFromD<DTo>;
  using TF = TFromD<DFrom>;
  static_assert(std::is_integral_v<TT> && std::is_integral_v<TF> && sizeof(TT) < sizeof(TF));
  VFromD<DTo> r;
  for (size_t i = 0; i < r.N; ++i) r.raw[i] = static_cast<TT>(static_cast<std::make_unsigned_t<TF>>(v.raw[i]));
  return r;
}

}  // namespace vlak::VLAK_NS

#include "fixed_generic.h"
