// SFPI on the CPU: the 32 lanes of one SFPU instruction on the vector layer.
//
// An SFPU register (LReg) is 32 lanes of 32 bits. Here it is a 64-byte-aligned array of 32
// uint32_t (`Lanes32`), because RVV's vector types are sizeless and cannot be class members. Each
// lane-wise operation loads its operands, computes on the target's vectors and stores the result:
// x86 compilers keep the values in registers across inlined operations; RVV pays the loads.
//
// Chunking: on scalar (16-byte "registers", LMUL 8), AVX2 (LMUL 4) and AVX-512 (LMUL 2) one group
// of uint32_t holds exactly the 32 lanes, so every operation is one pass. On RVV the tag is LMUL 2
// and the 32 lanes are strip-mined: 4 strips at VLEN 128, 2 at 256, 1 at 512 (a strip of vl = 32
// at 1024). LMUL 2 rather than "the LMUL holding 32 lanes" (8 at VLEN 128) because the SFPMAD
// model keeps ~16 values live: 16 register groups at LMUL 2 hold them, 4 groups at LMUL 8 spill.
//
// All arithmetic is integer arithmetic on the bit patterns (no host float op decides a result),
// so results are the same on every target whatever the host's FMA contraction or denormal mode.
// The one float op, an int32 -> f32 conversion in FloorLog2, is exact up to a one-step fix.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../simd/simd.h"

namespace vlak::VLAK_NS::sfpi_lanes {

inline constexpr int kLanes = 32;

struct alignas(64) Lanes32 {
  uint32_t u[kLanes];
};

#if defined(VLAK_SIMD_RVV)
inline constexpr int kPow2 = 1;
#elif defined(VLAK_SIMD_AVX512)
inline constexpr int kPow2 = 1;
#elif defined(VLAK_SIMD_AVX2)
inline constexpr int kPow2 = 2;
#else
inline constexpr int kPow2 = 3;
#endif
using DU = Simd<uint32_t, kPow2>;

// Calls body(d, i) over the 32 lanes: one whole group on the fixed-width targets, strips on RVV.
template <class F>
[[gnu::always_inline]] inline void ForLanes(F&& body) {
#if defined(VLAK_SIMD_RVV)
  const size_t step = Lanes(DU{});
  for (size_t i = 0; i < kLanes; i += step) {
    body(SimdN<uint32_t, kPow2>{step < kLanes - i ? step : kLanes - i}, i);
  }
#else
  static_assert(MaxLanes(DU{}) == kLanes, "one group holds the 32 SFPU lanes");
  body(DU{}, size_t{0});
#endif
}

// ---- small helpers on u32 lanes (booleans are masks of the same tag) ---------------------------
template <class D>
[[gnu::always_inline]] inline auto K(D d, uint32_t c) { return Set(d, c); }
template <class D, class V>
[[gnu::always_inline]] inline auto Sel(D d, const MFromD<D>& m, const V& yes, const V& no) {
  return IfThenElse(d, m, yes, no);
}
// Shift counts clamped to 31 (the layer's contract is counts below the width); every caller shifts
// values below 2^31, for which a clamped count of >= 32 gives the same 0 / same bits as intended.
template <class D, class V>
[[gnu::always_inline]] inline V ShrC(D d, const V& v, const V& s) { return Shr(d, v, Min(d, s, K(d, 31))); }
template <class D, class V>
[[gnu::always_inline]] inline V ShlC(D d, const V& v, const V& s) { return Shl(d, v, Min(d, s, K(d, 31))); }

// floor(log2(v)) for 1 <= v < 2^31: the f32 conversion rounds to nearest, so its exponent is
// floor(log2(v)) or one more (when rounding carried to the next power of two): fixed by one compare.
template <class D, class V>
[[gnu::always_inline]] inline V FloorLog2(D d, const V& v) {
  const auto di = Rebind<int32_t>(d);
  const auto df = Rebind<float>(d);
  const auto f = ConvertTo(df, di, BitCast(di, d, v));
  const V e = Sub(d, ShiftRight<23>(d, BitCast(d, df, f)), K(d, 127));
  const V pow = ShlC(d, K(d, 1), e);
  return Sub(d, e, IfThenElseZero(d, Lt(d, v, pow), K(d, 1)));
}

// ---- SFPMAD --------------------------------------------------------------------------------------
// d = x * y + z on fp32 bit patterns, as the Wormhole / Blackhole SFPU computes it (tt-isa-
// documentation, Miscellaneous/FMA/fma.c: fma_model_wh / fma_model_bh; re-derived here branch-free):
//  - denormal inputs read as zero (mantissa 0, exponent field kept for the product exponent);
//  - the 48-bit product keeps 24 + 3 bits: p = (x_m * y_m) >> 20 with a sticky bit for the 20 bits
//    dropped (the "partial fusion": a fully fused FMA would keep all 48);
//  - alignment shifts are "semi-sticky": the sticky bit is only set when the shifted value is not
//    all shifted out (the documented sticky bug);
//  - one round to nearest even on 3 guard bits, then denormal results flushed;
//  - Blackhole: a NaN result is 0x7fc00000 at once, zeros keep the IEEE sign, the normalising
//    right shift keeps a sticky bit of all bits it drops;
//  - Wormhole: a NaN result is sign | 0x7f800001 or'ed with the bits the rest of the computation
//    produces (mantissa bits leak), every zero/flush is +0 (or that NaN), the normalising shift keeps
//    only bit 0 as sticky, and results below the smallest exponent are dropped before rounding.
// Exponents are carried biased by +127 (E = x_e + y_e rather than p_e = x_e + y_e - 127) so that
// all compares are unsigned. About 75 vector ops per 32 lanes on AVX-512 (4 multiplies).
template <class D, class V>
[[gnu::always_inline]] inline V Mad(D d, const V& x, const V& y, const V& z, bool bh) {
  const V k255 = K(d, 255), kman = K(d, 0x7fffff), khid = K(d, 0x800000), ksign = K(d, 0x80000000u);
  const V xe = And(d, ShiftRight<23>(d, x), k255);
  const V ye = And(d, ShiftRight<23>(d, y), k255);
  const V ze = And(d, ShiftRight<23>(d, z), k255);
  const V zero = Zero(d);
  const V xm = IfThenElseZero(d, Ne(d, xe, zero), Or(d, And(d, x, kman), khid));
  const V ym = IfThenElseZero(d, Ne(d, ye, zero), Or(d, And(d, y, kman), khid));
  const V zm = IfThenElseZero(d, Ne(d, ze, zero), Or(d, And(d, z, kman), khid));
  const V zs = And(d, z, ksign);
  const V ps = And(d, Xor(d, x, y), ksign);

  // 24 x 24 -> 48-bit product from 12-bit halves, all partial sums below 2^26.
  const V k12 = K(d, 0xfff);
  const V xl = And(d, xm, k12), xh = ShiftRight<12>(d, xm);
  const V yl = And(d, ym, k12), yh = ShiftRight<12>(d, ym);
  const V mid = Add(d, Mul(d, xh, yl), Mul(d, xl, yh));
  const V low = Add(d, Mul(d, xl, yl), ShiftLeft<12>(d, And(d, mid, k12)));
  const V high = Add(d, Add(d, Mul(d, xh, yh), ShiftRight<12>(d, mid)), ShiftRight<24>(d, low));
  const V low24 = And(d, low, K(d, 0xffffff));
  V pm = Or(d, ShiftLeft<4>(d, high), ShiftRight<20>(d, low24));
  pm = Or(d, pm, IfThenElseZero(d, Ne(d, And(d, low24, K(d, 0xfffff)), zero), K(d, 1)));
  V E = Add(d, xe, ye);  // p_e + 127

  const auto x255 = Eq(d, xe, k255), y255 = Eq(d, ye, k255), z255 = Eq(d, ze, k255);
  const auto pinf = MaskOr(d, MaskOr(d, x255, y255), Ge(d, E, K(d, 382)));
  const auto special = MaskOr(d, pinf, z255);
  const auto xbad = MaskAnd(d, x255, MaskOr(d, Ne(d, xm, khid), Eq(d, ym, zero)));
  const auto ybad = MaskAnd(d, y255, MaskOr(d, Ne(d, ym, khid), Eq(d, xm, zero)));
  const auto zinf = MaskAnd(d, z255, Eq(d, zm, khid));
  const auto znan = MaskAnd(d, z255, Ne(d, zm, khid));
  const auto signs_differ = Ne(d, zs, ps);
  const V zm3 = ShiftLeft<3>(d, zm);
  const V inf_p = Or(d, ps, K(d, 0x7f800000));
  const V ZE = Add(d, ze, K(d, 127));

  if (bh) {
    const auto nan = MaskOr(d, MaskOr(d, xbad, ybad),
                            MaskOr(d, znan, MaskAnd(d, MaskAnd(d, zinf, MaskOr(d, x255, y255)), signs_differ)));
    const V spec_val = Sel(d, nan, K(d, 0x7fc00000), Sel(d, z255, z, inf_p));
    const auto under = MaskOr(d, Eq(d, pm, zero), Lt(d, E, K(d, 127)));
    const V zero_val = And(d, zs, ps);
    const V under_val = Sel(d, Ne(d, zm, zero), z, zero_val);

    const V RE = Max(d, E, ZE);
    const V sE = Sub(d, RE, E), sZ = Sub(d, RE, ZE);
    V a = ShrC(d, pm, sE);
    a = Or(d, a, IfThenElseZero(d, MaskAnd(d, Ne(d, a, zero), Ne(d, ShlC(d, a, sE), pm)), K(d, 1)));
    V b = ShrC(d, zm3, sZ);
    b = Or(d, b, IfThenElseZero(d, MaskAnd(d, Ne(d, b, zero), Ne(d, ShlC(d, b, sZ), zm3)), K(d, 1)));
    const auto a_ge = Ge(d, a, b);
    const V rs = Sel(d, a_ge, ps, zs);
    const V diff = Sel(d, a_ge, Sub(d, a, b), Sub(d, b, a));
    const V rm = Sel(d, signs_differ, diff, Add(d, a, b));
    const auto rzero = Eq(d, rm, zero);

    const V L = FloorLog2(d, rm);
    V RE2 = Sub(d, Add(d, RE, L), K(d, 26));
    const auto ovf = Ge(d, RE2, K(d, 382));
    const auto low_e = Le(d, RE2, K(d, 127));
    const V pos = Add(d, L, IfThenElseZero(d, low_e, K(d, 1)));  // n + 26
    RE2 = Sel(d, low_e, K(d, 127), RE2);
    const auto right = Gt(d, pos, K(d, 26));
    const V sr = Sub(d, pos, K(d, 26)), sl = Sub(d, K(d, 26), pos);
    const V rmr = Or(d, ShrC(d, rm, sr),
                     IfThenElseZero(d, Ne(d, And(d, rm, Or(d, sr, K(d, 1))), zero), K(d, 1)));
    const V rmn = Sel(d, right, rmr, ShlC(d, rm, sl));
    V r = Add(d, ShiftLeft<23>(d, Sub(d, RE2, K(d, 127))), And(d, ShiftRight<3>(d, rmn), kman));
    r = Add(d, r, IfThenElseZero(d, Gt(d, Add(d, And(d, rmn, K(d, 7)), And(d, r, K(d, 1))), K(d, 4)), K(d, 1)));
    r = IfThenElseZero(d, Ne(d, ShiftRight<23>(d, r), zero), r);
    V res = Or(d, rs, r);
    res = Sel(d, ovf, Or(d, rs, K(d, 0x7f800000)), res);
    res = Sel(d, rzero, zero_val, res);
    res = Sel(d, under, under_val, res);
    return Sel(d, special, spec_val, res);
  }

  // Wormhole: NaN lanes keep computing with nan_result or'ed in.
  const auto nan_a = MaskOr(d, MaskOr(d, xbad, ybad), MaskAnd(d, MaskAnd(d, zinf, pinf), signs_differ));
  const auto have_nan = MaskOr(d, nan_a, znan);
  const V nan_res = Sel(d, nan_a, Or(d, ps, K(d, 0x7f800001)), IfThenElseZero(d, znan, Or(d, zs, K(d, 0x7f800001))));
  const V spec_val = Sel(d, z255, z, inf_p);
  const auto spec_done = MaskAndNot(d, have_nan, special);
  E = Sel(d, have_nan, Min(d, E, K(d, 382)), E);
  const auto under = MaskOr(d, Eq(d, pm, zero), Lt(d, E, K(d, 127)));
  const auto under_done = MaskAndNot(d, have_nan, under);
  const V under_val = IfThenElseZero(d, Ne(d, zm, zero), z);
  const auto under_nan = MaskAnd(d, have_nan, under);
  pm = IfThenElseZero(d, MaskNot(d, under_nan), pm);
  E = Sel(d, under_nan, K(d, 127), E);

  const V RE = Max(d, E, ZE);
  const V sE = Sub(d, RE, E), sZ = Sub(d, RE, ZE);
  V a = ShrC(d, pm, sE);
  a = Or(d, a, IfThenElseZero(d, MaskAnd(d, Ne(d, a, zero), Ne(d, ShlC(d, a, sE), pm)), K(d, 1)));
  V b = ShrC(d, zm3, sZ);
  b = Or(d, b, IfThenElseZero(d, MaskAnd(d, Ne(d, b, zero), Ne(d, ShlC(d, b, sZ), zm3)), K(d, 1)));
  const auto a_ge = Ge(d, a, b);
  const V rs = Sel(d, a_ge, ps, zs);
  const V diff = Sel(d, a_ge, Sub(d, a, b), Sub(d, b, a));
  const V rm = Sel(d, signs_differ, diff, Add(d, a, b));
  const auto rzero = Eq(d, rm, zero);

  const V L = FloorLog2(d, rm);
  const V RE2 = Sub(d, Add(d, RE, L), K(d, 26));
  const auto ovf = Ge(d, RE2, K(d, 382));
  const auto blatant = Lt(d, RE2, K(d, 127));
  const auto right = Gt(d, L, K(d, 26));
  const V sr = Sub(d, L, K(d, 26)), sl = Sub(d, K(d, 26), L);
  const V rmr = Or(d, ShrC(d, rm, sr), And(d, rm, K(d, 1)));
  const V rmn = Sel(d, right, rmr, ShlC(d, rm, sl));
  V r = Add(d, ShiftLeft<23>(d, Sub(d, RE2, K(d, 127))), And(d, ShiftRight<3>(d, rmn), kman));
  r = Add(d, r, IfThenElseZero(d, Gt(d, Add(d, And(d, rmn, K(d, 7)), And(d, r, K(d, 1))), K(d, 4)), K(d, 1)));
  const auto flushed = Eq(d, ShiftRight<23>(d, r), zero);
  V res = Or(d, Sel(d, have_nan, nan_res, rs), r);
  res = Sel(d, flushed, nan_res, res);
  res = Sel(d, blatant, nan_res, res);
  res = Sel(d, ovf, Sel(d, have_nan, nan_res, Or(d, rs, K(d, 0x7f800000))), res);
  res = Sel(d, rzero, nan_res, res);
  res = Sel(d, under_done, under_val, res);
  return Sel(d, spec_done, spec_val, res);
}

}  // namespace vlak::VLAK_NS::sfpi_lanes
