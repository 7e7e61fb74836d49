// SFPI on the CPU: the language (vFloat, vInt, vUInt, dst_reg, constants, v_if ...) for one
// vector target. Installed as <vlak/sfpi/sfpi.h> (docs/sfpi.md). Everything lands in
// vlak::VLAK_NS::sfpi (VLAK_NS = n_scalar, n_avx2, n_avx512, n_rvv), so the copies of one kernel
// for scalar, AVX2, AVX-512 and RVV coexist in one binary. A kernel is written as on the hardware:
//
//   #include "sfpi/sfpi.h"      // vlak's own kernels (src/sfpi/kernels, compiled per target)
//   namespace vlak::VLAK_NS::sfpi_kernels {
//   using namespace ::vlak::VLAK_NS::sfpi;
//   void my_kernel() { for (int i = 0; i < 8; ++i) { vFloat x = dst_reg[0]; ...; dst_reg++; } }
//   }
//   ... RunTile(my_kernel, tile);   // tile: 32 x 32 floats, row-major
//
// Kernels outside vlak use the tt-llk spellings and registration of sfpi_user.h (included below).
//
// Machine model (Tenstorrent's SFPI documentation): 32 lanes of 32 bits. Every vector write
// (dst_reg or a local that already holds a value) is masked by the lane flags that v_if & co. maintain; a local's
// initialisation writes every lane (an uninitialised LReg's inactive lanes are undefined on the
// hardware, so any value is faithful). Scalar C++ code runs once for all lanes, as on the RISC-V
// core that drives the SFPU.
//
// Arithmetic (all through sfpi_lanes::Mad, the documented SFPMAD, bit-exact):
//   a + b   = SFPMAD(a, 1.0, b)          a - b = SFPMAD(b, -1.0, a)   a * b = SFPMAD(a, b, 0.0)
//   a * b + c and c + a * b = one SFPMAD (the compiler's MAD generation: no rounding of a * b);
//   a * b - c = SFPMAD(a, b, -c);        -a flips the sign bit (SFPMOV), NaN included.
// Float compares are lowered as the compiler does: t = SFPMAD(b, -1.0, a) (t = a when b is the
// literal 0.0f), then SFPSETCC's integer tests of t's bits: < is "sign set", >= "sign clear",
// == "all 32 bits zero", != the opposite; > is (>= and !=), <= is (< or ==). So -0.0 < 0.0f and
// -0.0 != 0.0f. Integer compares test a - b (wrapping) the same way.
#pragma once

// The target. Per-target builds (vlak's, vlak_add_sfpi_kernels) define VLAK_SIMD_<TARGET>; a
// program with one target defines VLAK_SFPI_SCALAR, or VLAK_SFPI_NATIVE for the best target the
// compiler's ISA flags enable (-march=native, or -mavx2 -mfma -mf16c).
#if defined(VLAK_SFPI_SCALAR) || defined(VLAK_SFPI_NATIVE)
#define VLAK_SFPI_SINGLE_TARGET 1
#if defined(VLAK_SIMD_SCALAR) || defined(VLAK_SIMD_AVX2) || defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_RVV)
#error "VLAK_SFPI_SCALAR / VLAK_SFPI_NATIVE choose the target: leave VLAK_SIMD_* undefined"
#elif defined(VLAK_SFPI_SCALAR)
#define VLAK_SIMD_SCALAR 1
#elif defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__) && \
    defined(__FMA__) && defined(__F16C__)
#define VLAK_SIMD_AVX512 1
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define VLAK_SIMD_AVX2 1
#elif defined(__riscv_vector)
#define VLAK_SIMD_RVV 1
#else
#define VLAK_SIMD_SCALAR 1
#endif
#elif !defined(VLAK_SIMD_SCALAR) && !defined(VLAK_SIMD_AVX2) && !defined(VLAK_SIMD_AVX512) && !defined(VLAK_SIMD_RVV)
#error "vlak/sfpi/sfpi.h: define VLAK_SFPI_SCALAR or VLAK_SFPI_NATIVE (one target), or compile with vlak_add_sfpi_kernels (every target; docs/sfpi.md)"
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sfpi_lanes.h"
#include "vlak/sfpi.h"

namespace vlak::VLAK_NS::sfpi {

using ::vlak::sfpi::Arch;
using ::vlak::sfpi::Error;
using ::vlak::sfpi::GetArch;
using ::vlak::sfpi::SetArch;
using sfpi_lanes::Lanes32;
using sfpi_lanes::kLanes;

class vFloat;
class vInt;
class vUInt;

namespace impl {

inline constexpr int kStackDepth = 8;   // the hardware's flag stack
inline constexpr int kStackMax = 32;    // the CPU keeps going (and reports) up to this depth
inline constexpr int kDstSlots = 64;    // dst_reg indices: two tiles (kernels may read a second one)

// The SFPU state a kernel sees: Dst in lane order (slot i = dst_reg[i] = Dst address 2i, lane L at
// slot i is tile row/column by DstLaneToTile), lane flags and their stack, the programmable
// constants, the stochastic-rounding PRNG.
struct Context {
  Lanes32 dst[kDstSlots];
  Lanes32 flags;                 // LaneFlags: 0 or ~0 per lane (UseLaneFlagsForLaneEnable is on)
  Lanes32 stack[kStackMax];
  Lanes32 prgm[3];               // LReg12..14: vConst{Float,Int}Prgm0..2
  Lanes32 lfsr;                  // per-lane PRNG state
  int depth = 0;
  int base = 0;                  // dst_reg position (dst_reg++ adds 1)
  bool bh = false;
  uint32_t error = 0;
};

inline thread_local Context* t_ctx = nullptr;
[[gnu::always_inline]] inline Context& Ctx() { return *t_ctx; }

// Dst slot s (= dst_reg index), lane L -> tile row and column (row-major 32 x 32 tile stored as four
// 16 x 16 faces, face f at Dst rows 16f..16f+15): Dst address a = 2s, Dst row (a & ~3) + L / 8,
// column 2 (L % 8) + ((a & 2) ? 1 : 0).
inline void DstLaneToTile(int slot, int lane, int* row, int* col) {
  const int addr = 2 * slot;
  const int dst_row = (addr & ~3) + lane / 8;
  const int dst_col = 2 * (lane % 8) + ((addr & 2) ? 1 : 0);
  const int face = (dst_row / 16) & 3;
  *row = (face / 2) * 16 + dst_row % 16;
  *col = (face % 2) * 16 + dst_col;
}

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

[[gnu::always_inline]] inline Lanes32 Splat(uint32_t x) {
  Lanes32 r;
  sfpi_lanes::ForLanes([&](auto d, size_t i) { Store(d, Set(d, x), r.u + i); });
  return r;
}

// r = f(d, a[i..], b[i..], ...) over the 32 lanes.
template <class F, class... A>
[[gnu::always_inline]] inline Lanes32 Lanewise(F&& f, const A&... a) {
  Lanes32 r;
  sfpi_lanes::ForLanes([&](auto d, size_t i) { Store(d, f(d, Load(d, a.u + i)...), r.u + i); });
  return r;
}

// dst = src on the enabled lanes.
[[gnu::always_inline]] inline void Write(Lanes32& dst, const Lanes32& src) {
  const Lanes32& m = Ctx().flags;
  sfpi_lanes::ForLanes([&](auto d, size_t i) {
    const auto en = Ne(d, Load(d, m.u + i), Zero(d));
    Store(d, IfThenElse(d, en, Load(d, src.u + i), Load(d, dst.u + i)), dst.u + i);
  });
}

[[gnu::always_inline]] inline Lanes32 MadL(const Lanes32& a, const Lanes32& b, const Lanes32& c) {
  const bool bh = Ctx().bh;
  return Lanewise([bh](auto d, auto x, auto y, auto z) { return sfpi_lanes::Mad(d, x, y, z, bh); }, a, b, c);
}
[[gnu::always_inline]] inline Lanes32 FlipSign(const Lanes32& a) {
  return Lanewise([](auto d, auto x) { return Xor(d, x, Set(d, 0x80000000u)); }, a);
}

// SFPSETCC's tests on the bits of t, combined as the compiler does for > and <=.
enum class Cmp { kLt, kGe, kEq, kNe, kGt, kLe };
[[gnu::always_inline]] inline Lanes32 TestBits(const Lanes32& t, Cmp c) {
  return Lanewise(
      [c](auto d, auto x) {
        const auto zero = Zero(d);
        const auto ones = Set(d, ~0u);
        const auto neg = Ne(d, ShiftRight<31>(d, x), zero);
        const auto eq0 = Eq(d, x, zero);
        switch (c) {
          case Cmp::kLt: return IfThenElseZero(d, neg, ones);
          case Cmp::kGe: return IfThenElseZero(d, MaskNot(d, neg), ones);
          case Cmp::kEq: return IfThenElseZero(d, eq0, ones);
          case Cmp::kNe: return IfThenElseZero(d, MaskNot(d, eq0), ones);
          case Cmp::kGt: return IfThenElseZero(d, MaskNot(d, MaskOr(d, neg, eq0)), ones);
          case Cmp::kLe: default: return IfThenElseZero(d, MaskOr(d, neg, eq0), ones);
        }
      },
      t);
}

}  // namespace impl

// ---- immediates --------------------------------------------------------------------------------
// 16-bit immediates as SFPLOADI loads them: fp16b is the top half of an fp32; "fp16a" widens a
// 1.5.10 value's exponent by +112 with no denormal/Inf/NaN handling. From a float, both keep the
// top mantissa bits (round toward zero), as sfpi's sFloat16b does.
class sFloat16b {
 public:
  explicit sFloat16b(float f) : val_(impl::Bits(f) >> 16) {}
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  explicit sFloat16b(T bits) : val_(static_cast<uint16_t>(bits)) {}
  uint32_t fp32_bits() const { return uint32_t{val_} << 16; }

 private:
  uint16_t val_;
};
class sFloat16a {
 public:
  explicit sFloat16a(float f) {
    const uint32_t u = impl::Bits(f);
    const uint32_t e = (u >> 23) & 255;
    const uint32_t e5 = e <= 112 ? 0 : (e >= 143 ? 31 : e - 112);
    val_ = static_cast<uint16_t>(((u >> 16) & 0x8000) | (e5 << 10) | ((u >> 13) & 0x3ff));
  }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  explicit sFloat16a(T bits) : val_(static_cast<uint16_t>(bits)) {}
  uint32_t fp32_bits() const {
    return ((uint32_t{val_} >> 15) << 31) | ((((uint32_t{val_} >> 10) & 31) + 112) << 23) | ((uint32_t{val_} & 0x3ff) << 13);
  }

 private:
  uint16_t val_;
};
using s2vFloat16a = sFloat16a;
using s2vFloat16b = sFloat16b;

// ---- vector types --------------------------------------------------------------------------------
struct vMul;  // a * b not yet rounded: becomes one SFPMAD with a following + or -

class vFloat {
 public:
  Lanes32 v;
  vFloat() = default;
  vFloat(const vFloat&) = default;
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  vFloat(T f) : v(impl::Splat(impl::Bits(static_cast<float>(f)))) {}
  vFloat(sFloat16a h) : v(impl::Splat(h.fp32_bits())) {}
  vFloat(sFloat16b h) : v(impl::Splat(h.fp32_bits())) {}
  inline vFloat(const vMul& m);
  vFloat& operator=(const vFloat& o) {
    impl::Write(v, o.v);
    return *this;
  }
  inline vFloat& operator+=(const vFloat& o);
  inline vFloat& operator-=(const vFloat& o);
  inline vFloat& operator*=(const vFloat& o);
  template <class T>
  T as() const { T t; t.v = v; return t; }
  static vFloat FromLanes(const Lanes32& l) { vFloat r; r.v = l; return r; }
};

class vInt {
 public:
  Lanes32 v;
  vInt() = default;
  vInt(const vInt&) = default;
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  vInt(T x) : v(impl::Splat(static_cast<uint32_t>(x))) {}
  vInt& operator=(const vInt& o) {
    impl::Write(v, o.v);
    return *this;
  }
  template <class T>
  T as() const { T t; t.v = v; return t; }
  static vInt FromLanes(const Lanes32& l) { vInt r; r.v = l; return r; }
};

class vUInt {
 public:
  Lanes32 v;
  vUInt() = default;
  vUInt(const vUInt&) = default;
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  vUInt(T x) : v(impl::Splat(static_cast<uint32_t>(x))) {}
  vUInt& operator=(const vUInt& o) {
    impl::Write(v, o.v);
    return *this;
  }
  template <class T>
  T as() const { T t; t.v = v; return t; }
  static vUInt FromLanes(const Lanes32& l) { vUInt r; r.v = l; return r; }
};

// Bit casts between the three (sfpi's reinterpret<T>(v)).
template <class T, class U>
[[gnu::always_inline]] inline T reinterpret(const U& u) {
  T t;
  t.v = u.v;
  return t;
}

// A condition: per-lane 0 / ~0, and how many flag-stack entries evaluating it needs beyond the
// current depth (|| is lowered with De Morgan through a push; ! of a compound condition too).
class vBool {
 public:
  Lanes32 m;
  int extra = 0;
  static vBool Of(const Lanes32& mask, int extra = 0) { vBool b; b.m = mask; b.extra = extra; return b; }
};

inline vBool operator&&(const vBool& a, const vBool& b) {
  return vBool::Of(impl::Lanewise([](auto d, auto x, auto y) { return And(d, x, y); }, a.m, b.m),
                   a.extra > b.extra ? a.extra : b.extra);
}
inline vBool operator||(const vBool& a, const vBool& b) {
  return vBool::Of(impl::Lanewise([](auto d, auto x, auto y) { return Or(d, x, y); }, a.m, b.m),
                   (a.extra > b.extra ? a.extra : b.extra) + 1);
}
inline vBool operator!(const vBool& a) {
  return vBool::Of(impl::Lanewise([](auto d, auto x) { return Xor(d, x, Set(d, ~0u)); }, a.m), a.extra);
}

// ---- vFloat arithmetic -----------------------------------------------------------------------------
struct vMul {
  Lanes32 a, b;
};
inline vFloat::vFloat(const vMul& m) : v(impl::MadL(m.a, m.b, impl::Splat(0))) {}

namespace impl {
[[gnu::always_inline]] inline Lanes32 One() { return Splat(0x3f800000u); }
[[gnu::always_inline]] inline Lanes32 NegOne() { return Splat(0xbf800000u); }
}  // namespace impl

inline vMul operator*(const vFloat& a, const vFloat& b) { return vMul{a.v, b.v}; }
inline vFloat operator+(const vMul& m, const vFloat& c) { return vFloat::FromLanes(impl::MadL(m.a, m.b, c.v)); }
inline vFloat operator+(const vFloat& c, const vMul& m) { return vFloat::FromLanes(impl::MadL(m.a, m.b, c.v)); }
inline vFloat operator-(const vMul& m, const vFloat& c) { return vFloat::FromLanes(impl::MadL(m.a, m.b, impl::FlipSign(c.v))); }
inline vFloat operator-(const vFloat& c, const vMul& m) { return vFloat::FromLanes(impl::MadL(impl::FlipSign(m.a), m.b, c.v)); }
inline vFloat operator+(const vMul& m, const vMul& n) { return vFloat(m) + n; }
inline vFloat operator-(const vMul& m, const vMul& n) { return vFloat(m) - n; }
inline vMul operator*(const vMul& m, const vFloat& c) { return vMul{vFloat(m).v, c.v}; }
inline vMul operator-(const vMul& m) { return vMul{impl::FlipSign(m.a), m.b}; }

inline vFloat operator+(const vFloat& a, const vFloat& b) { return vFloat::FromLanes(impl::MadL(a.v, impl::One(), b.v)); }
inline vFloat operator-(const vFloat& a, const vFloat& b) { return vFloat::FromLanes(impl::MadL(b.v, impl::NegOne(), a.v)); }
inline vFloat operator-(const vFloat& a) { return vFloat::FromLanes(impl::FlipSign(a.v)); }
inline vFloat operator+(const vFloat& a) { return a; }
inline vFloat& vFloat::operator+=(const vFloat& o) { return *this = *this + o; }
inline vFloat& vFloat::operator-=(const vFloat& o) { return *this = *this - o; }
inline vFloat& vFloat::operator*=(const vFloat& o) { return *this = vFloat(*this * o); }

namespace impl {
inline vBool CmpF(const vFloat& a, const vFloat& b, Cmp c) { return vBool::Of(TestBits(MadL(b.v, NegOne(), a.v), c)); }
inline vBool CmpF0(const vFloat& a, Cmp c) { return vBool::Of(TestBits(a.v, c)); }
inline vBool CmpFS(const vFloat& a, float s, Cmp c) { return s == 0.0f ? CmpF0(a, c) : CmpF(a, vFloat(s), c); }
}  // namespace impl

#define VLAK_SFPI_FLOAT_CMP(op, code)                                                                 \
  inline vBool operator op(const vFloat& a, const vFloat& b) { return impl::CmpF(a, b, impl::Cmp::code); } \
  inline vBool operator op(const vFloat& a, float s) { return impl::CmpFS(a, s, impl::Cmp::code); }     \
  inline vBool operator op(const vFloat& a, double s) { return impl::CmpFS(a, static_cast<float>(s), impl::Cmp::code); }
VLAK_SFPI_FLOAT_CMP(<, kLt)
VLAK_SFPI_FLOAT_CMP(>=, kGe)
VLAK_SFPI_FLOAT_CMP(==, kEq)
VLAK_SFPI_FLOAT_CMP(!=, kNe)
VLAK_SFPI_FLOAT_CMP(>, kGt)
VLAK_SFPI_FLOAT_CMP(<=, kLe)
#undef VLAK_SFPI_FLOAT_CMP

// ---- integer arithmetic (wrapping) and bits --------------------------------------------------------
#define VLAK_SFPI_INT_BINOP(T, op, Fn)                                                                  \
  inline T operator op(const T& a, const T& b) {                                                       \
    return T::FromLanes(impl::Lanewise([](auto d, auto x, auto y) { return Fn(d, x, y); }, a.v, b.v)); \
  }                                                                                                    \
  inline T& operator op##=(T & a, const T& b) { return a = a op b; }
#define VLAK_SFPI_INT_OPS(T)                                                                                     \
  VLAK_SFPI_INT_BINOP(T, +, Add)                                                                                \
  VLAK_SFPI_INT_BINOP(T, -, Sub)                                                                                \
  VLAK_SFPI_INT_BINOP(T, &, And)                                                                                \
  VLAK_SFPI_INT_BINOP(T, |, Or)                                                                                 \
  VLAK_SFPI_INT_BINOP(T, ^, Xor)                                                                                \
  inline T operator~(const T& a) { return T::FromLanes(impl::Lanewise([](auto d, auto x) { return Xor(d, x, Set(d, ~0u)); }, a.v)); } \
  inline T operator<<(const T& a, int n) {                                                                      \
    const uint32_t s = static_cast<uint32_t>(n) & 31;                                                           \
    return T::FromLanes(impl::Lanewise([s](auto d, auto x) { return Shl(d, x, Set(d, s)); }, a.v));            \
  }                                                                                                             \
  inline T& operator<<=(T& a, int n) { return a = a << n; }                                                    \
  inline T& operator++(T& a) { return a += T(1); }                                                             \
  inline T& operator--(T& a) { return a -= T(1); }                                                             \
  inline T operator++(T& a, int) { T t = a; a += T(1); return t; }                                            \
  inline T operator--(T& a, int) { T t = a; a -= T(1); return t; }
VLAK_SFPI_INT_OPS(vInt)
VLAK_SFPI_INT_OPS(vUInt)
#undef VLAK_SFPI_INT_OPS
#undef VLAK_SFPI_INT_BINOP

// vUInt >> n: logical. vInt >> n: arithmetic, Blackhole only (Wormhole has no arithmetic shift:
// on Wormhole it is computed anyway and reported as kUnsupported).
inline vUInt operator>>(const vUInt& a, int n) {
  const uint32_t s = static_cast<uint32_t>(n) & 31;
  return vUInt::FromLanes(impl::Lanewise([s](auto d, auto x) { return Shr(d, x, Set(d, s)); }, a.v));
}
inline vUInt& operator>>=(vUInt& a, int n) { return a = a >> n; }
inline vInt operator>>(const vInt& a, int n) {
  if (!impl::Ctx().bh) impl::Ctx().error |= ::vlak::sfpi::kUnsupported;
  const int32_t s = n & 31;
  return vInt::FromLanes(impl::Lanewise(
      [s](auto d, auto x) {
        const auto di = Rebind<int32_t>(d);
        return BitCast(d, di, Shr(di, BitCast(di, d, x), Set(di, s)));
      },
      a.v));
}
inline vInt& operator>>=(vInt& a, int n) { return a = a >> n; }

namespace impl {
template <class T>
inline vBool CmpI(const T& a, const T& b, Cmp c) {
  return vBool::Of(TestBits(Lanewise([](auto d, auto x, auto y) { return Sub(d, x, y); }, a.v, b.v), c));
}
}  // namespace impl
#define VLAK_SFPI_INT_CMP(T, op, code)                                                                     \
  inline vBool operator op(const T& a, const T& b) { return impl::CmpI(a, b, impl::Cmp::code); }
#define VLAK_SFPI_INT_CMPS(T)                                                                              \
  VLAK_SFPI_INT_CMP(T, <, kLt) VLAK_SFPI_INT_CMP(T, >=, kGe) VLAK_SFPI_INT_CMP(T, ==, kEq)                 \
  VLAK_SFPI_INT_CMP(T, !=, kNe) VLAK_SFPI_INT_CMP(T, >, kGt) VLAK_SFPI_INT_CMP(T, <=, kLe)
VLAK_SFPI_INT_CMPS(vInt)
VLAK_SFPI_INT_CMPS(vUInt)
#undef VLAK_SFPI_INT_CMPS
#undef VLAK_SFPI_INT_CMP

// ---- dst_reg -----------------------------------------------------------------------------------------
class DstReg {
 public:
  explicit DstReg(int slot) : slot_(slot) {}
  Lanes32& lanes() const { return impl::Ctx().dst[(impl::Ctx().base + slot_) & (impl::kDstSlots - 1)]; }
  operator vFloat() const { return vFloat::FromLanes(lanes()); }
  operator vInt() const { return vInt::FromLanes(lanes()); }
  operator vUInt() const { return vUInt::FromLanes(lanes()); }
  const DstReg& operator=(const vFloat& x) const { impl::Write(lanes(), x.v); return *this; }
  const DstReg& operator=(const vInt& x) const { impl::Write(lanes(), x.v); return *this; }
  const DstReg& operator=(const vUInt& x) const { impl::Write(lanes(), x.v); return *this; }
  const DstReg& operator=(const vMul& x) const { return *this = vFloat(x); }
  const DstReg& operator=(float x) const { return *this = vFloat(x); }
  const DstReg& operator=(const DstReg& o) const { return *this = vFloat(o); }
  vFloat f() const { return vFloat(*this); }

 private:
  int slot_;
};
// Float arithmetic with a dst_reg operand (the proxy converts to all three vector types; these
// exact matches pick vFloat, as sfpi does).
inline vFloat operator+(const DstReg& a, const vFloat& b) { return a.f() + b; }
inline vFloat operator+(const vFloat& a, const DstReg& b) { return a + b.f(); }
inline vFloat operator+(const DstReg& a, const DstReg& b) { return a.f() + b.f(); }
inline vFloat operator-(const DstReg& a, const vFloat& b) { return a.f() - b; }
inline vFloat operator-(const vFloat& a, const DstReg& b) { return a - b.f(); }
inline vFloat operator-(const DstReg& a, const DstReg& b) { return a.f() - b.f(); }
inline vMul operator*(const DstReg& a, const vFloat& b) { return a.f() * b; }
inline vMul operator*(const vFloat& a, const DstReg& b) { return a * b.f(); }
inline vMul operator*(const DstReg& a, const DstReg& b) { return a.f() * b.f(); }
inline vFloat operator-(const DstReg& a) { return -a.f(); }
inline vFloat operator+(const vMul& m, const DstReg& c) { return m + c.f(); }
inline vFloat operator-(const vMul& m, const DstReg& c) { return m - c.f(); }
inline vBool operator<(const DstReg& a, float s) { return a.f() < s; }
inline vBool operator>=(const DstReg& a, float s) { return a.f() >= s; }
inline vBool operator>(const DstReg& a, float s) { return a.f() > s; }
inline vBool operator<=(const DstReg& a, float s) { return a.f() <= s; }
inline vBool operator==(const DstReg& a, float s) { return a.f() == s; }
inline vBool operator!=(const DstReg& a, float s) { return a.f() != s; }

struct DstRegFile {
  DstReg operator[](int i) const { return DstReg(i); }
  const DstRegFile& operator++() const { ++impl::Ctx().base; return *this; }
  void operator++(int) const { ++impl::Ctx().base; }
  const DstRegFile& operator+=(int n) const { impl::Ctx().base += n; return *this; }
};
inline constexpr DstRegFile dst_reg{};

// ---- constant registers --------------------------------------------------------------------------------
// LReg8..11 fixed (0.8373 = 0x3f56594b, 0, 1, -1), LReg12..14 programmable (float and int views of
// the same registers; assignment writes every lane, as SFPCONFIG does), LReg15 the tile id (lane i
// holds 2i).
namespace impl {
inline Lanes32 ConstLanes(int idx) {
  switch (idx) {
    case 8: return Splat(0x3f56594bu);
    case 9: return Splat(0);
    case 10: return Splat(0x3f800000u);
    case 11: return Splat(0xbf800000u);
    case 12: case 13: case 14: return Ctx().prgm[idx - 12];
    default: {
      Lanes32 r;
      for (int i = 0; i < kLanes; ++i) r.u[i] = 2u * static_cast<uint32_t>(i);
      return r;
    }
  }
}
}  // namespace impl
struct CRegF {
  int idx;
  operator vFloat() const { return vFloat::FromLanes(impl::ConstLanes(idx)); }
  const CRegF& operator=(const vFloat& x) const {
    if (idx >= 12 && idx <= 14) impl::Ctx().prgm[idx - 12] = x.v;
    return *this;
  }
  const CRegF& operator=(float x) const { return *this = vFloat(x); }
  const CRegF& operator=(double x) const { return *this = vFloat(static_cast<float>(x)); }
};
struct CRegI {
  int idx;
  operator vInt() const { return vInt::FromLanes(impl::ConstLanes(idx)); }
  operator vUInt() const { return vUInt::FromLanes(impl::ConstLanes(idx)); }
  const CRegI& operator=(const vInt& x) const {
    if (idx >= 12 && idx <= 14) impl::Ctx().prgm[idx - 12] = x.v;
    return *this;
  }
  const CRegI& operator=(int x) const { return *this = vInt(x); }
};
inline constexpr CRegF vConst0p8373{8}, vConst0{9}, vConst1{10}, vConstNeg1{11};
inline constexpr CRegF vConstFloatPrgm0{12}, vConstFloatPrgm1{13}, vConstFloatPrgm2{14};
inline constexpr CRegI vConstIntPrgm0{12}, vConstIntPrgm1{13}, vConstIntPrgm2{14}, vConstTileId{15};

// ---- predication -----------------------------------------------------------------------------------------
namespace impl {
// The flag stack of SFPPUSHC / SFPPOPC / SFPCOMPC and the narrowing of SFPSETCC & co., per lane:
//   push: stack.push(flags)           pop: flags = top, stack.pop()
//   compc (else): flags = top & ~flags (top = all lanes when the stack is empty)
//   cond(c): flags &= c (a compare only updates enabled lanes, and disabled lanes hold 0)
class CC {
 public:
  CC() = default;
  CC(const CC&) = delete;
  CC& operator=(const CC&) = delete;
  ~CC() {
    for (; pushed_ > 0; --pushed_) Pop();
  }
  void Push() {
    Context& c = Ctx();
    if (c.depth >= kStackDepth) c.error |= ::vlak::sfpi::kStackOverflow;
    if (c.depth < kStackMax) c.stack[c.depth] = c.flags;
    ++c.depth;
    ++pushed_;
  }
  void Else() {
    Context& c = Ctx();
    if (c.depth == 0) {
      c.flags = Lanewise([](auto d, auto f) { return Xor(d, f, Set(d, ~0u)); }, c.flags);
    } else {
      c.flags = Lanewise([](auto d, auto t, auto f) { return AndNot(d, f, t); }, Top(), c.flags);
    }
  }
  void Cond(const vBool& b) {
    Context& c = Ctx();
    if (c.depth + b.extra > kStackDepth) c.error |= ::vlak::sfpi::kStackOverflow;
    c.flags = Lanewise([](auto d, auto f, auto m) { return And(d, f, m); }, c.flags, b.m);
  }
  void Cond(const vInt& v) { Cond(v != vInt(0)); }
  void Cond(const vUInt& v) { Cond(v != vUInt(0)); }

 private:
  static const Lanes32& Top() {
    Context& c = Ctx();
    return c.stack[(c.depth <= kStackMax ? c.depth : kStackMax) - 1];
  }
  static void Pop() {
    Context& c = Ctx();
    if (c.depth == 0) {
      c.error |= ::vlak::sfpi::kStackUnderflow;
      return;
    }
    c.flags = Top();
    --c.depth;
  }
  int pushed_ = 0;
};
}  // namespace impl

}  // namespace vlak::VLAK_NS::sfpi

#define v_if(x)                                  \
  {                                              \
    ::vlak::VLAK_NS::sfpi::impl::CC vlak_sfpi_cc; \
    vlak_sfpi_cc.Push();                         \
    vlak_sfpi_cc.Cond(x);                        \
    {
#define v_elseif(x)     \
  }                     \
  vlak_sfpi_cc.Else();  \
  vlak_sfpi_cc.Push();  \
  vlak_sfpi_cc.Cond(x); \
  {
#define v_else         \
  }                    \
  vlak_sfpi_cc.Else(); \
  {
#define v_endif \
  }             \
  }
#define v_block                                  \
  {                                              \
    ::vlak::VLAK_NS::sfpi::impl::CC vlak_sfpi_cc; \
    vlak_sfpi_cc.Push();
#define v_and(x) vlak_sfpi_cc.Cond(x)
#define v_endblock }

#include "sfpi_lib.h"
#include "sfpi_run.h"
#include "sfpi_user.h"
