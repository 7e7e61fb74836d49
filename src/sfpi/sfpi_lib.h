// SFPI on the CPU: library functions (those of Tenstorrent's SFPI documentation), lane-wise on the bits.
//
//   exexp(v) = exponent field - 127 (int32)      exexp_nodebias(v) = exponent field
//   exman8(v) = mantissa | hidden bit            exman9(v) = mantissa (23 bits)
//   setexp(v, e): exponent := e & 0xff           setman(v, m): mantissa := m & 0x7fffff
//   setsgn(v, s): sign := bit 0 of an int s, bit 31 of a vector s
//   addexp(v, i): exponent := (exponent + i) & 0xff, Inf/NaN unchanged
//   abs(vFloat) clears the sign except of a NaN; abs(vInt) is two's complement (INT_MIN stays)
//   lz(v): leading zeros of the 32 bits (32 for 0)
//   shft(v, n): n >= 0: v << (n & 31); n < 0: v >> (-n & 31), logical
// All of them are bit operations: no rounding, identical on both architectures.
#pragma once

#include <cstdint>

namespace vlak::VLAK_NS::sfpi {

namespace impl {
template <class D, class V>
[[gnu::always_inline]] inline V Field(D d, const V& x) { return And(d, ShiftRight<23>(d, x), Set(d, 255u)); }

// Leading zeros of 32 bits: 31 - floor(log2 x) below 2^31 (sfpi_lanes::FloorLog2), 0 with the top
// bit set, 32 for 0.
template <class D, class V>
[[gnu::always_inline]] inline V Clz(D d, const V& x) {
  const V lo = And(d, x, Set(d, 0x7fffffffu));
  const V l = Sub(d, Set(d, 31u), sfpi_lanes::FloorLog2(d, Max(d, lo, Set(d, 1u))));
  V r = IfThenElse(d, Eq(d, lo, Zero(d)), Set(d, 32u), l);
  return IfThenElseZero(d, Eq(d, ShiftRight<31>(d, x), Zero(d)), r);
}
}  // namespace impl

inline vInt exexp(const vFloat& v) {
  return vInt::FromLanes(impl::Lanewise([](auto d, auto x) { return Sub(d, impl::Field(d, x), Set(d, 127u)); }, v.v));
}
inline vInt exexp_nodebias(const vFloat& v) {
  return vInt::FromLanes(impl::Lanewise([](auto d, auto x) { return impl::Field(d, x); }, v.v));
}
inline vInt exman8(const vFloat& v) {
  return vInt::FromLanes(impl::Lanewise([](auto d, auto x) { return Or(d, And(d, x, Set(d, 0x7fffffu)), Set(d, 0x800000u)); }, v.v));
}
inline vInt exman9(const vFloat& v) {
  return vInt::FromLanes(impl::Lanewise([](auto d, auto x) { return And(d, x, Set(d, 0x7fffffu)); }, v.v));
}

namespace impl {
template <class D, class V>
[[gnu::always_inline]] inline V SetExp(D d, const V& x, const V& e) {
  return Or(d, And(d, x, Set(d, 0x807fffffu)), ShiftLeft<23>(d, And(d, e, Set(d, 255u))));
}
template <class D, class V>
[[gnu::always_inline]] inline V SetMan(D d, const V& x, const V& m) {
  return Or(d, And(d, x, Set(d, 0xff800000u)), And(d, m, Set(d, 0x7fffffu)));
}
template <class D, class V>
[[gnu::always_inline]] inline V SetSgn(D d, const V& x, const V& s) {
  return Or(d, And(d, x, Set(d, 0x7fffffffu)), And(d, s, Set(d, 0x80000000u)));
}
}  // namespace impl

inline vFloat setexp(const vFloat& v, const vInt& e) {
  return vFloat::FromLanes(impl::Lanewise([](auto d, auto x, auto y) { return impl::SetExp(d, x, y); }, v.v, e.v));
}
inline vFloat setexp(const vFloat& v, const vUInt& e) { return setexp(v, reinterpret<vInt>(e)); }
inline vFloat setexp(const vFloat& v, uint32_t e) { return setexp(v, vInt(e)); }
inline vFloat setexp(const vFloat& v, int e) { return setexp(v, vInt(e)); }
inline vFloat setman(const vFloat& v, const vInt& m) {
  return vFloat::FromLanes(impl::Lanewise([](auto d, auto x, auto y) { return impl::SetMan(d, x, y); }, v.v, m.v));
}
inline vFloat setman(const vFloat& v, const vUInt& m) { return setman(v, reinterpret<vInt>(m)); }
inline vFloat setman(const vFloat& v, uint32_t m) { return setman(v, vInt(m)); }
inline vFloat setman(const vFloat& v, int m) { return setman(v, vInt(m)); }
inline vFloat setsgn(const vFloat& v, const vFloat& s) {
  return vFloat::FromLanes(impl::Lanewise([](auto d, auto x, auto y) { return impl::SetSgn(d, x, y); }, v.v, s.v));
}
inline vFloat setsgn(const vFloat& v, const vInt& s) { return setsgn(v, reinterpret<vFloat>(s)); }
inline vFloat setsgn(const vFloat& v, int s) { return setsgn(v, vInt(static_cast<int32_t>(static_cast<uint32_t>(s) << 31))); }

inline vFloat addexp(const vFloat& v, int i) {
  const uint32_t k = static_cast<uint32_t>(i);
  return vFloat::FromLanes(impl::Lanewise(
      [k](auto d, auto x) {
        const auto e = impl::Field(d, x);
        const auto y = impl::SetExp(d, x, Add(d, e, Set(d, k)));
        return IfThenElse(d, Eq(d, e, Set(d, 255u)), x, y);
      },
      v.v));
}

inline vFloat abs(const vFloat& v) {
  return vFloat::FromLanes(impl::Lanewise(
      [](auto d, auto x) {
        const auto mag = And(d, x, Set(d, 0x7fffffffu));
        return IfThenElse(d, Gt(d, mag, Set(d, 0x7f800000u)), x, mag);
      },
      v.v));
}
inline vInt abs(const vInt& v) {
  return vInt::FromLanes(impl::Lanewise(
      [](auto d, auto x) {
        const auto neg = Ne(d, ShiftRight<31>(d, x), Zero(d));
        return IfThenElse(d, neg, Sub(d, Zero(d), x), x);
      },
      v.v));
}

template <class T>
inline vInt lz(const T& v) {
  return vInt::FromLanes(impl::Lanewise([](auto d, auto x) { return impl::Clz(d, x); }, v.v));
}

inline vUInt shft(const vUInt& v, const vInt& n) {
  return vUInt::FromLanes(impl::Lanewise(
      [](auto d, auto x, auto s) {
        const auto neg = Ne(d, ShiftRight<31>(d, s), Zero(d));
        const auto k31 = Set(d, 31u);
        const auto left = Shl(d, x, And(d, s, k31));
        const auto right = Shr(d, x, And(d, Sub(d, Zero(d), s), k31));
        return IfThenElse(d, neg, right, left);
      },
      v.v, n.v));
}
inline vUInt shft(const vUInt& v, int n) { return shft(v, vInt(n)); }

// ---- min / max (SFPSWAP) -----------------------------------------------------------------------------
// Ordering by sign-magnitude for every type (floats order as floats, -0 just below +0, NaN by its
// bits beyond Inf); vec_min_max(a, b) leaves the smaller in a, the larger in b (ties unchanged).
namespace impl {
template <class D, class V>
[[gnu::always_inline]] inline V SmKey(D d, const V& x) {
  const V mag = And(d, x, Set(d, 0x7fffffffu));
  return IfThenElse(d, Ne(d, ShiftRight<31>(d, x), Zero(d)), Sub(d, Set(d, 0x7fffffffu), mag), Add(d, mag, Set(d, 0x80000000u)));
}
}  // namespace impl
template <class T>
inline void vec_min_max(T& a, T& b) {
  const Lanes32 lo = impl::Lanewise([](auto d, auto x, auto y) { return IfThenElse(d, Le(d, impl::SmKey(d, x), impl::SmKey(d, y)), x, y); }, a.v, b.v);
  const Lanes32 hi = impl::Lanewise([](auto d, auto x, auto y) { return IfThenElse(d, Le(d, impl::SmKey(d, x), impl::SmKey(d, y)), y, x); }, a.v, b.v);
  a = T::FromLanes(lo);
  b = T::FromLanes(hi);
}
template <class T>
inline void vec_swap(T& a, T& b) {
  const T t = a;
  a = b;
  b = t;
}

// ---- LUTs (SFPLUT, SFPLUTFP32) --------------------------------------------------------------------
// Segment by b = |v| (bits with the sign cleared; a NaN compares as neither < 1 nor < 2): l0 below
// 1.0, l1 below 2.0, l2 beyond; d = SFPMAD(A, b, B) with the segment's coefficients; lut / lut2 give
// d the sign of v (SGN_RETAIN), lut_sign / lut2_sign keep d's own sign.
//   lut: A = bits 15:8, B = bits 7:0 in the 8-bit format: 0xff = 0, else sign bit 7, exponent
//        127 - bits 6:4, mantissa bits 3:0 << 19.
//   lut2 (3 registers): A = high 16 bits, B = low 16 bits, each "fp16": exponent + 112 (field 0
//        read as a normal exponent, 31 as a zero exponent), mantissa << 13.
//   lut2 (6 registers, fp16): segments below 0.5, 1, 1.5, 2, cut (3.0 in mode 1, 4.0 otherwise),
//        beyond; a01/b01 hold segments 0 (low half) and 1 (high half), a23/b23 2 and 3, a45/b45 4, 5.
//   lut2 (6 registers, fp32): A = a0/a1/a2, B = b0/b1/b2 by the 3-segment rule.
namespace impl {
template <class D, class V>
[[gnu::always_inline]] inline V Lut8(D d, const V& x8) {
  const V f = Or(d, Or(d, ShiftLeft<31>(d, ShiftRight<7>(d, x8)),
                       ShiftLeft<23>(d, Sub(d, Set(d, 127u), And(d, ShiftRight<4>(d, x8), Set(d, 7u))))),
                 ShiftLeft<19>(d, And(d, x8, Set(d, 15u))));
  return IfThenElseZero(d, Ne(d, x8, Set(d, 0xffu)), f);
}
template <class D, class V>
[[gnu::always_inline]] inline V Lut16(D d, const V& x16) {
  const V e = And(d, ShiftRight<10>(d, x16), Set(d, 31u));
  const V e8 = IfThenElseZero(d, Ne(d, e, Set(d, 31u)), Add(d, e, Set(d, 112u)));
  return Or(d, Or(d, ShiftLeft<31>(d, ShiftRight<15>(d, And(d, x16, Set(d, 0xffffu)))), ShiftLeft<23>(d, e8)), ShiftLeft<13>(d, And(d, x16, Set(d, 0x3ffu))));
}
template <class D, class V>
[[gnu::always_inline]] inline V Pick3(D d, const V& b, const V& r0, const V& r1, const V& r2) {
  return IfThenElse(d, Lt(d, b, Set(d, 0x3f800000u)), r0, IfThenElse(d, Lt(d, b, Set(d, 0x40000000u)), r1, r2));
}
template <class D, class V>
[[gnu::always_inline]] inline V LutFinish(D d, const V& x, const V& a, const V& b, const V& c, bool retain, bool bh) {
  const V r = sfpi_lanes::Mad(d, a, b, c, bh);
  return retain ? Or(d, And(d, r, Set(d, 0x7fffffffu)), And(d, x, Set(d, 0x80000000u))) : r;
}
inline vFloat Lut(const vFloat& v, const vUInt& l0, const vUInt& l1, const vUInt& l2, bool retain) {
  const bool bh = Ctx().bh;
  return vFloat::FromLanes(Lanewise(
      [retain, bh](auto d, auto x, auto r0, auto r1, auto r2) {
        const auto b = And(d, x, Set(d, 0x7fffffffu));
        const auto k = Pick3(d, b, r0, r1, r2);
        const auto a = Lut8(d, And(d, ShiftRight<8>(d, k), Set(d, 0xffu)));
        const auto c = Lut8(d, And(d, k, Set(d, 0xffu)));
        return LutFinish(d, x, a, b, c, retain, bh);
      },
      v.v, l0.v, l1.v, l2.v));
}
inline vFloat Lut2(const vFloat& v, const vUInt& l0, const vUInt& l1, const vUInt& l2, bool retain) {
  const bool bh = Ctx().bh;
  return vFloat::FromLanes(Lanewise(
      [retain, bh](auto d, auto x, auto r0, auto r1, auto r2) {
        const auto b = And(d, x, Set(d, 0x7fffffffu));
        const auto k = Pick3(d, b, r0, r1, r2);
        const auto a = Lut16(d, ShiftRight<16>(d, k));
        const auto c = Lut16(d, And(d, k, Set(d, 0xffffu)));
        return LutFinish(d, x, a, b, c, retain, bh);
      },
      v.v, l0.v, l1.v, l2.v));
}
inline vFloat Lut2x6(const vFloat& v, const Lanes32& a01, const Lanes32& a23, const Lanes32& a45, const Lanes32& b01,
                     const Lanes32& b23, const Lanes32& b45, int mode, bool retain) {
  const bool bh = Ctx().bh;
  const uint32_t cut = mode == 1 ? 0x40400000u : 0x40800000u;
  const Lanes32 ka = Lanewise([](auto d, auto x, auto r0, auto r1, auto r2) { return Pick3(d, And(d, x, Set(d, 0x7fffffffu)), r0, r1, r2); }, v.v, a01, a23, a45);
  const Lanes32 kb = Lanewise([](auto d, auto x, auto r0, auto r1, auto r2) { return Pick3(d, And(d, x, Set(d, 0x7fffffffu)), r0, r1, r2); }, v.v, b01, b23, b45);
  return vFloat::FromLanes(Lanewise(
      [retain, bh, cut](auto d, auto x, auto ra, auto rb) {
        const auto b = And(d, x, Set(d, 0x7fffffffu));
        // High half for [0.5, 1), [1.5, 2) and [cut, inf): below 2 the half is set by the 0.5 bit
        // of the segment, beyond 2 by the cut.
        const auto hi = IfThenElse(d, Lt(d, b, Set(d, 0x40000000u)),
                                   IfThenElseZero(d, MaskOr(d, MaskAnd(d, Ge(d, b, Set(d, 0x3f000000u)), Lt(d, b, Set(d, 0x3f800000u))),
                                                            Ge(d, b, Set(d, 0x3fc00000u))), Set(d, ~0u)),
                                   IfThenElseZero(d, Ge(d, b, Set(d, cut)), Set(d, ~0u)));
        const auto hm = Ne(d, hi, Zero(d));
        const auto a = Lut16(d, IfThenElse(d, hm, ShiftRight<16>(d, ra), And(d, ra, Set(d, 0xffffu))));
        const auto c = Lut16(d, IfThenElse(d, hm, ShiftRight<16>(d, rb), And(d, rb, Set(d, 0xffffu))));
        return LutFinish(d, x, a, b, c, retain, bh);
      },
      v.v, ka, kb));
}
}  // namespace impl

inline vFloat lut(const vFloat& v, const vUInt& l0, const vUInt& l1, const vUInt& l2) { return impl::Lut(v, l0, l1, l2, true); }
inline vFloat lut_sign(const vFloat& v, const vUInt& l0, const vUInt& l1, const vUInt& l2) { return impl::Lut(v, l0, l1, l2, false); }
inline vFloat lut2(const vFloat& v, const vUInt& l0, const vUInt& l1, const vUInt& l2) { return impl::Lut2(v, l0, l1, l2, true); }
inline vFloat lut2_sign(const vFloat& v, const vUInt& l0, const vUInt& l1, const vUInt& l2) { return impl::Lut2(v, l0, l1, l2, false); }
inline vFloat lut2(const vFloat& v, const vUInt& a01, const vUInt& a23, const vUInt& a45, const vUInt& b01,
                   const vUInt& b23, const vUInt& b45, int mode = 1) {
  return impl::Lut2x6(v, a01.v, a23.v, a45.v, b01.v, b23.v, b45.v, mode, true);
}
inline vFloat lut2_sign(const vFloat& v, const vUInt& a01, const vUInt& a23, const vUInt& a45, const vUInt& b01,
                        const vUInt& b23, const vUInt& b45, int mode = 1) {
  return impl::Lut2x6(v, a01.v, a23.v, a45.v, b01.v, b23.v, b45.v, mode, false);
}
inline vFloat lut2(const vFloat& v, const vFloat& a0, const vFloat& a1, const vFloat& a2, const vFloat& b0,
                   const vFloat& b1, const vFloat& b2) {
  const bool bh = impl::Ctx().bh;
  const Lanes32 a = impl::Lanewise([](auto d, auto x, auto r0, auto r1, auto r2) { return impl::Pick3(d, And(d, x, Set(d, 0x7fffffffu)), r0, r1, r2); }, v.v, a0.v, a1.v, a2.v);
  const Lanes32 c = impl::Lanewise([](auto d, auto x, auto r0, auto r1, auto r2) { return impl::Pick3(d, And(d, x, Set(d, 0x7fffffffu)), r0, r1, r2); }, v.v, b0.v, b1.v, b2.v);
  return vFloat::FromLanes(impl::Lanewise([bh](auto d, auto x, auto ra, auto rc) { return impl::LutFinish(d, x, ra, And(d, x, Set(d, 0x7fffffffu)), rc, true, bh); }, v.v, a, c));
}

// ---- rounding conversions (SFPSTOCHRND, SFPCAST) and the PRNG ----------------------------------------
// PRNG per lane (VectorUnit.md): returns the state s, then s := (~parity(s & 0x80200003)) << 31 | s >> 1.
// Wormhole advances it only when a stochastic rounding uses it; Blackhole on every rounding (spec).
// Only enabled lanes advance (the instruction does nothing on a disabled lane).
//   float_to_fp16a / fp16b: keep 10 / 7 mantissa bits inside the fp32. Exponent 0 (denormal, +-0)
//     -> +0; exponent 255 (Inf, NaN) -> +-Inf. The k = 13 / 16 discarded bits D round up iff
//     Wormhole: D << (23 - k) >= P, Blackhole: D >= P >> (23 - k), with P = PRNG & 0x7fffff
//     (stochastic) or 0x400000 (nearest: ties away from zero).
//   float_to_[u]int8/16: |x| < 0.5 -> 0; exponent >= 16 (NaN included) -> the maximum; else the
//     integer part plus (fraction >= P), clamped; sign-magnitude; unsigned forms drop the sign.
//   int32_to_float: from sign-magnitude, nearest even, or stochastic on 7 PRNG bits (SFPCAST).
enum class RoundMode : int { NearestAway = 0, Nearest = 0, NearestStochastic = 1 };

namespace impl {
// The PRNG bits each enabled lane uses now; advances the enabled lanes' state when `advance`.
inline Lanes32 TakePrng(bool advance) {
  Context& c = Ctx();
  const Lanes32 now = c.lfsr;
  if (advance) {
    c.lfsr = Lanewise(
        [](auto d, auto s, auto en) {
          const auto taps = And(d, s, Set(d, 0x80200003u));
          auto p = Xor(d, Xor(d, taps, ShiftRight<1>(d, taps)), Xor(d, ShiftRight<21>(d, taps), ShiftRight<31>(d, taps)));
          p = And(d, p, Set(d, 1u));
          const auto next = Or(d, ShiftLeft<31>(d, Xor(d, p, Set(d, 1u))), ShiftRight<1>(d, s));
          return IfThenElse(d, Ne(d, en, Zero(d)), next, s);
        },
        c.lfsr, c.flags);
  }
  return now;
}

template <int kKeep>
inline vFloat ToFp16(const vFloat& v, RoundMode mode) {
  constexpr int kDrop = 23 - kKeep;
  const bool stoch = mode == RoundMode::NearestStochastic;
  const bool bh = Ctx().bh;
  const Lanes32 prng = TakePrng(stoch || bh);
  return vFloat::FromLanes(Lanewise(
      [stoch, bh](auto d, auto x, auto pr) {
        const auto p = stoch ? And(d, pr, Set(d, 0x7fffffu)) : Set(d, 0x400000u);
        const auto e = Field(d, x);
        const auto drop = And(d, x, Set(d, (1u << kDrop) - 1));
        const auto kept = Sub(d, x, drop);
        const auto up = bh ? Ge(d, drop, ShiftRight<23 - kDrop>(d, p)) : Ge(d, ShiftLeft<23 - kDrop>(d, drop), p);
        auto r = Add(d, kept, IfThenElseZero(d, up, Set(d, 1u << kDrop)));
        r = IfThenElse(d, Eq(d, e, Set(d, 255u)), And(d, x, Set(d, 0xff800000u)), r);
        return IfThenElseZero(d, Ne(d, e, Zero(d)), r);
      },
      v.v, prng));
}

template <uint32_t kMax, bool kKeepSign>
inline Lanes32 ToInt(const vFloat& v, RoundMode mode) {
  const bool stoch = mode == RoundMode::NearestStochastic;
  const Lanes32 prng = TakePrng(stoch || Ctx().bh);
  return Lanewise(
      [stoch](auto d, auto x, auto pr) {
        const auto p = stoch ? And(d, pr, Set(d, 0x7fffffu)) : Set(d, 0x400000u);
        const auto e = Field(d, x);  // exponent + 127; the range handled is 126 (0.5) .. 142
        const auto m = Or(d, And(d, x, Set(d, 0x7fffffu)), Set(d, 0x800000u));
        const auto small = Lt(d, e, Set(d, 126u));
        const auto big = Ge(d, e, Set(d, 143u));
        const auto ge1 = Ge(d, e, Set(d, 127u));
        const auto sh = Sub(d, Set(d, 150u), Min(d, Max(d, e, Set(d, 127u)), Set(d, 142u)));  // 23 - Exp for Exp >= 0
        const auto ip = IfThenElseZero(d, ge1, Shr(d, m, sh));
        const auto lowmask = Sub(d, Shl(d, Set(d, 1u), sh), Set(d, 1u));
        const auto frac = IfThenElse(d, ge1, Shl(d, And(d, m, lowmask), Sub(d, Set(d, 23u), sh)), ShiftRight<1>(d, m));
        auto mag = Add(d, ip, IfThenElseZero(d, Ge(d, frac, p), Set(d, 1u)));
        mag = Min(d, mag, Set(d, kMax));
        mag = IfThenElse(d, big, Set(d, kMax), mag);
        mag = IfThenElseZero(d, MaskNot(d, small), mag);
        const auto sign = kKeepSign ? IfThenElseZero(d, Ne(d, mag, Zero(d)), And(d, x, Set(d, 0x80000000u))) : Zero(d);
        return Or(d, sign, mag);
      },
      v.v, prng);
}
}  // namespace impl

inline vFloat float_to_fp16a(const vFloat& v, RoundMode mode = RoundMode::NearestStochastic) { return impl::ToFp16<10>(v, mode); }
inline vFloat float_to_fp16b(const vFloat& v, RoundMode mode = RoundMode::NearestStochastic) { return impl::ToFp16<7>(v, mode); }
inline vFloat float_to_fp16a(const vFloat& v, int mode) { return float_to_fp16a(v, static_cast<RoundMode>(mode)); }
inline vFloat float_to_fp16b(const vFloat& v, int mode) { return float_to_fp16b(v, static_cast<RoundMode>(mode)); }
inline vUInt float_to_uint8(const vFloat& v, RoundMode mode = RoundMode::NearestStochastic) { return vUInt::FromLanes(impl::ToInt<255, false>(v, mode)); }
inline vInt float_to_int8(const vFloat& v, RoundMode mode = RoundMode::NearestStochastic) { return vInt::FromLanes(impl::ToInt<127, true>(v, mode)); }
inline vUInt float_to_uint16(const vFloat& v, RoundMode mode = RoundMode::NearestStochastic) { return vUInt::FromLanes(impl::ToInt<65535, false>(v, mode)); }
inline vInt float_to_int16(const vFloat& v, RoundMode mode = RoundMode::NearestStochastic) { return vInt::FromLanes(impl::ToInt<32767, true>(v, mode)); }

inline vFloat int32_to_float(const vInt& v, RoundMode mode = RoundMode::NearestStochastic) {
  const bool stoch = mode == RoundMode::NearestStochastic;
  const Lanes32 prng = impl::TakePrng(stoch);
  return vFloat::FromLanes(impl::Lanewise(
      [stoch](auto d, auto c, auto pr) {
        const auto sign = And(d, c, Set(d, 0x80000000u));
        const auto mag = And(d, c, Set(d, 0x7fffffffu));
        const auto lz = impl::Clz(d, mag);  // 32 for 0: the exponent below is then forced to 0
        const auto norm = Shl(d, mag, And(d, lz, Set(d, 31u)));
        const auto zero = Eq(d, mag, Zero(d));
        const auto ex = IfThenElseZero(d, MaskNot(d, zero), ShiftLeft<23>(d, Sub(d, Set(d, 157u), lz)));
        auto r = Add(d, Add(d, sign, ex), ShiftRight<8>(d, norm));
        const auto up = stoch ? Gt(d, And(d, norm, Set(d, 0xfeu)), And(d, ShiftRight<9>(d, pr), Set(d, 0xfeu)))
                              : MaskAnd(d, Ne(d, And(d, norm, Set(d, 0x80u)), Zero(d)), Ne(d, And(d, norm, Set(d, 0x17fu)), Zero(d)));
        return Add(d, r, IfThenElseZero(d, up, Set(d, 1u)));
      },
      v.v, prng));
}
inline vFloat int32_to_float(const vInt& v, int mode) { return int32_to_float(v, static_cast<RoundMode>(mode)); }

}  // namespace vlak::VLAK_NS::sfpi
