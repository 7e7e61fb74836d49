// The test's oracle: a per-lane scalar model of the SFPU, written from Tenstorrent's SFPI documentation and the
// documented functional models (tt-isa-documentation: SFPMAD, Miscellaneous/FMA/fma.c), in plain
// branchy C++ with 64-bit integers. It shares no code with src/sfpi (which is branch-free vector
// code with +127-biased exponents).
#pragma once

#include <cstdint>
#include <cstring>

namespace sfpi_model {

inline uint32_t F2U(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float U2F(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Alignment shift with the SFPU's "semi-sticky" rule: the sticky bit only when something survives.
inline uint64_t SemiSticky(uint64_t v, int64_t s) {
  if (s <= 0) return v;
  if (s >= 64) return 0;
  const uint64_t t = v >> s;
  if (t == 0) return 0;
  return t | ((t << s) != v ? 1 : 0);
}

inline int Clz32(uint32_t v) { return v == 0 ? 32 : __builtin_clz(v); }

// x * y + z on fp32 bit patterns as SFPMAD computes it; bh selects Blackhole, else Wormhole.
inline uint32_t Mad(uint32_t x, uint32_t y, uint32_t z, bool bh) {
  struct Unpacked { int64_t e; uint64_t m; uint32_t sign; };
  auto unpack = [](uint32_t v) {
    Unpacked u;
    u.e = (v >> 23) & 0xff;
    u.m = u.e == 0 ? 0 : ((v & 0x7fffff) | 0x800000);  // denormals read as zero
    u.sign = v & 0x80000000u;
    return u;
  };
  const Unpacked X = unpack(x), Y = unpack(y), Z = unpack(z);
  const uint32_t psign = (x ^ y) & 0x80000000u;
  // Product kept to 24 + 3 bits: the 48-bit product shifted right by 20 with a sticky bit.
  const uint64_t full = X.m * Y.m;
  uint64_t pm = (full >> 20) | ((full & 0xfffff) != 0 ? 1 : 0);
  int64_t pe = X.e + Y.e - 127;
  uint64_t zm = Z.m << 3;
  const int64_t ze = Z.e;
  const bool x_inf_nan = X.e == 255, y_inf_nan = Y.e == 255, z_inf_nan = Z.e == 255;
  const bool x_nan = x_inf_nan && (x & 0x7fffff) != 0, y_nan = y_inf_nan && (y & 0x7fffff) != 0;
  const bool z_nan = z_inf_nan && (z & 0x7fffff) != 0, z_inf = z_inf_nan && !z_nan;
  const bool inf_times_zero = (x_inf_nan && Y.m == 0) || (y_inf_nan && X.m == 0);
  uint32_t nan_out = 0;  // Wormhole: the NaN pattern or'ed into what follows

  if (x_inf_nan || y_inf_nan || z_inf_nan || pe >= 255) {
    if (bh) {
      if (x_nan || y_nan || z_nan || inf_times_zero || (z_inf && (x_inf_nan || y_inf_nan) && Z.sign != psign)) {
        return 0x7fc00000u;
      }
      if (z_inf_nan) return z;
      return psign | 0x7f800000u;
    }
    if (x_nan || y_nan || inf_times_zero || (z_inf && (x_inf_nan || y_inf_nan || pe >= 255) && Z.sign != psign)) {
      nan_out = psign | 0x7f800001u;  // an infinite z against an infinite/overflowing product
    } else if (z_nan) {
      nan_out = Z.sign | 0x7f800001u;
    } else if (z_inf_nan) {
      return z;
    } else {
      return psign | 0x7f800000u;
    }
    if (pe > 255) pe = 255;
  }
  if (pm == 0 || pe < 0) {  // zero product, or a product that alone underflows
    if (bh) return Z.m != 0 ? z : (Z.sign & psign);
    if (nan_out == 0) return Z.m != 0 ? z : 0;
    pm = 0;
    pe = 0;
  }
  int64_t re = pe > ze ? pe : ze;
  pm = SemiSticky(pm, re - pe);
  zm = SemiSticky(zm, re - ze);
  uint32_t rsign;
  uint64_t rm;
  if (psign == Z.sign) {
    rsign = psign;
    rm = pm + zm;
  } else if (pm >= zm) {
    rsign = psign;
    rm = pm - zm;
  } else {
    rsign = Z.sign;
    rm = zm - pm;
  }
  if (rm == 0) return bh ? (Z.sign & psign) : nan_out;
  // Normalise to the hidden bit at bit 26 (3 guard bits below the 23-bit mantissa).
  int64_t n = (31 - Clz32(static_cast<uint32_t>(rm))) - 26;
  re += n;
  if (re >= 255) return bh ? (rsign | 0x7f800000u) : (nan_out != 0 ? nan_out : (rsign | 0x7f800000u));
  if (bh) {
    if (re <= 0) {
      n += 1;
      re = 0;
    }
  } else if (re < 0) {
    return nan_out;
  }
  if (n <= 0) {
    rm <<= -n;
  } else {
    const uint64_t dropped_mask = bh ? static_cast<uint64_t>(n | 1) : 1;
    rm = (rm >> n) | ((rm & dropped_mask) != 0 ? 1 : 0);
  }
  uint32_t r = static_cast<uint32_t>((re << 23) + ((rm >> 3) & 0x7fffff));
  const uint32_t guard = static_cast<uint32_t>(rm & 7);
  if (guard > 4 || (guard == 4 && (r & 1))) ++r;  // nearest, ties to even
  if ((r >> 23) == 0) return bh ? rsign : nan_out;
  if (!bh && nan_out != 0) return nan_out | r;
  return rsign | r;
}

// SFPSETCC's tests of t's bits, as the compiler combines them for the six compares.
enum class Cmp { kLt, kGe, kEq, kNe, kGt, kLe };
inline bool Test(uint32_t t, Cmp c) {
  const bool neg = (t >> 31) != 0, zero = t == 0;
  switch (c) {
    case Cmp::kLt: return neg;
    case Cmp::kGe: return !neg;
    case Cmp::kEq: return zero;
    case Cmp::kNe: return !zero;
    case Cmp::kGt: return !neg && !zero;
    case Cmp::kLe: return neg || zero;
  }
  return false;
}
// float a OP b: t = b * -1 + a (t = a for the literal 0.0f).
inline bool CmpF(uint32_t a, uint32_t b, Cmp c, bool bh) { return Test(Mad(b, 0xbf800000u, a, bh), c); }
inline bool CmpI(uint32_t a, uint32_t b, Cmp c) { return Test(a - b, c); }

inline uint32_t Add(uint32_t a, uint32_t b, bool bh) { return Mad(a, 0x3f800000u, b, bh); }
inline uint32_t Sub(uint32_t a, uint32_t b, bool bh) { return Mad(b, 0xbf800000u, a, bh); }
inline uint32_t Mul(uint32_t a, uint32_t b, bool bh) { return Mad(a, b, 0, bh); }

// Dst slot s (dst_reg index), lane L -> (row, column) of the row-major 32 x 32 tile, from the spec:
// Dst address 2s; Dst row (addr & ~3) + L / 8, column 2 (L % 8) + ((addr & 2) ? 1 : 0); Dst row
// 16 f + r of face f (faces 0..3 = top-left, top-right, bottom-left, bottom-right).
inline void LaneToTile(int s, int lane, int* row, int* col) {
  const int addr = 2 * s;
  const int drow = (addr & ~3) + lane / 8;
  const int dcol = 2 * (lane % 8) + ((addr & 2) != 0 ? 1 : 0);
  const int face = drow / 16;
  *row = 16 * (face >> 1) + (drow & 15);
  *col = 16 * (face & 1) + dcol;
}

// ---- LUTs ----
inline uint32_t Lut8ToFp32(uint32_t x) {
  if (x == 0xff) return 0;
  return ((x >> 7) << 31) | ((127 - ((x >> 4) & 7)) << 23) | ((x & 15) << 19);
}
inline uint32_t Lut16ToFp32(uint32_t x) {
  const uint32_t e = (x >> 10) & 31;
  return ((x >> 15) << 31) | ((e == 31 ? 0 : e + 112) << 23) | ((x & 0x3ff) << 13);
}
inline int Segment3(uint32_t b) {  // b = |v| bits; float compares, NaN in none
  const float f = U2F(b);
  return f < 1.0f ? 0 : f < 2.0f ? 1 : 2;
}
inline uint32_t Finish(uint32_t v, uint32_t a, uint32_t c, bool retain, bool bh) {
  const uint32_t d = Mad(a, v & 0x7fffffffu, c, bh);
  return retain ? ((d & 0x7fffffffu) | (v & 0x80000000u)) : d;
}
inline uint32_t Lut(uint32_t v, const uint32_t l[3], bool retain, bool bh) {
  const uint32_t k = l[Segment3(v & 0x7fffffffu)];
  return Finish(v, Lut8ToFp32((k >> 8) & 0xff), Lut8ToFp32(k & 0xff), retain, bh);
}
inline uint32_t Lut2(uint32_t v, const uint32_t l[3], bool retain, bool bh) {
  const uint32_t k = l[Segment3(v & 0x7fffffffu)];
  return Finish(v, Lut16ToFp32(k >> 16), Lut16ToFp32(k & 0xffff), retain, bh);
}
inline uint32_t Lut2x6(uint32_t v, const uint32_t a[3], const uint32_t b[3], int mode, bool retain, bool bh) {
  const float f = U2F(v & 0x7fffffffu);
  const float cut = mode == 1 ? 3.0f : 4.0f;
  const int i = Segment3(v & 0x7fffffffu);
  const int j = f < 0.5f ? 0 : f < 1.0f ? 16 : f < 1.5f ? 0 : f < 2.0f ? 16 : f < cut ? 0 : 16;
  return Finish(v, Lut16ToFp32((a[i] >> j) & 0xffff), Lut16ToFp32((b[i] >> j) & 0xffff), retain, bh);
}

// ---- PRNG and rounding conversions ----
inline uint32_t PrngStep(uint32_t s) {
  const uint32_t taps = static_cast<uint32_t>(__builtin_popcount(s & 0x80200003u));
  return (~taps << 31) | (s >> 1);
}
// keep = 10 (fp16a) or 7 (fp16b); p = the PRNG word (or 0x400000 for nearest, already masked).
inline uint32_t ToFp16(uint32_t x, int keep, uint32_t p, bool bh) {
  const uint32_t e = (x >> 23) & 0xff;
  if (e == 0) return 0;
  if (e == 255) return x & 0xff800000u;
  const int drop = 23 - keep;
  const uint32_t discarded = x & ((1u << drop) - 1);
  x -= discarded;
  const bool up = bh ? discarded >= (p >> keep) : (discarded << keep) >= p;
  return up ? x + (1u << drop) : x;
}
inline uint32_t ToInt(uint32_t c, uint32_t max_mag, bool keep_sign, uint32_t p) {
  uint32_t sign = keep_sign ? (c & 0x80000000u) : 0;
  const int exp = static_cast<int>((c >> 23) & 0xff) - 127;
  uint64_t mag;
  if (exp < -1) {
    return 0;
  } else if (exp >= 16) {
    mag = max_mag;
  } else {
    mag = 0x800000u | (c & 0x7fffffu);
    mag = exp >= 0 ? mag << exp : mag >> -exp;
    mag = (mag >> 23) + ((mag & 0x7fffff) >= p ? 1 : 0);
    if (mag > max_mag) mag = max_mag;
    if (mag == 0) sign = 0;
  }
  return sign + static_cast<uint32_t>(mag);
}
inline uint32_t Cast(uint32_t c, bool stoch, uint32_t prng) {
  const uint32_t sign = c & 0x80000000u, mag = c & 0x7fffffffu;
  if (mag == 0) return sign;
  const int lz = __builtin_clz(mag);
  const uint32_t norm = mag << lz;
  uint32_t d = sign + (static_cast<uint32_t>(157 - lz) << 23) + (norm >> 8);
  if (stoch) {
    if ((norm & 0xfe) > ((prng >> 9) & 0xfe)) d += 1;
  } else if ((norm & 0x80) && (norm & 0x17f)) {
    d += 1;
  }
  return d;
}

}  // namespace sfpi_model
