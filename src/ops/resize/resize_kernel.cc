// Bilinear resize kernel (vlak.h's Q7 definition), generic over the tag: compiled once per target.
//
// Three forms, all exact integer arithmetic (the same bits on every target and thread count):
// 1. Out = 2 in both ways, ASYMMETRIC (RowPair2x; Terapines AI-Benchmark's case): every weight is
//    0 or 64, so each output is an input pixel or a floored mean of means (AverageFloor); two
//    output rows per pass, from contiguous loads and interleaving stores: no gathers, no widening.
// 2. Otherwise, separable row by row: H[y][ox] = (s[y][x0] * wx0 + s[y][x1] * wx1) >> 7 for input
//    rows y0 and y1 (two row buffers, each input row blended once per chunk of output rows), then
//    out = (H[y0] * wy0 + H[y1] * wy1) >> 7. Horizontal: out_w = 2 in_w by pairs of fixed weights
//    (0/64, 32/96) from contiguous loads; any other ratio from two gathers per strip in int32.
//    Vertical: wy1 = 0 copies, 64 one AverageFloor, 32 and 96 two (MeanQuarter), otherwise int16
//    lanes (|a * wy0 + b * wy1| <= 255 * 128 < 2^15).
// RVV: bytes at LMUL 2 (kBytePow2; int16 at LMUL 4 where widened; spill-free). Cost: form 1
// 0.169 / 0.098 / 0.062 retired instructions per output at VLEN 128 / 256 / 512. The forms in
// detail and the measurements on RVV and x86: docs/ops/resize.md.
#include <cstdint>
#include <type_traits>

#include "ops/resize/resize.h"
#include "ops/resize/resize_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kBytePow2 = 1;  // input/output bytes at LMUL 2, int16 at LMUL 4
constexpr size_t kNone = SIZE_MAX;

inline size_t Align64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// (a * 96 + b * 32) >> 7 = floor((3 a + b) / 4) as the floored mean of a and m = floor((a + b) / 2):
// floor((a + floor(y)) / 2) = floor((a + y) / 2) for an integer a, so the nested floors are the
// one floor of the exact blend. Callers pass m, often shared by the 32 and the 96 blend
// (b * 96 + a * 32 is MeanQuarter(b, m)). Two AverageFloor (one vaadd or one vpavgb each) instead
// of widening, two multiplies, a shift and a narrowing.
template <class D>
VFromD<D> MeanQuarter(D d, const VFromD<D>& a, const VFromD<D>& m) {
  return AverageFloor(d, a, m);
}

// H values of the pairs (s[i], s[i + 1]), i < n, at Q7 weights w_first and w_second of s[i + 1]:
//   h[2i] = (s[i] (128 - w_first) + s[i + 1] w_first) >> 7, h[2i + 1] the same with w_second.
// Contiguous loads of s[i..] and s[i+1..], int16 arithmetic (a * (128 - w) + b * w <= 255 * 128),
// one interleaving store (vsseg2 on RVV). w = 0 is s[i] itself; w = 64 the floored mean; w = 32
// and 96 two means (MeanQuarter), sharing the first.
template <int kFirst, int kSecond, typename T>
void Pairs(const T* s, size_t n, T* h) {
  const Simd<T, kBytePow2> d;
  ForEachStripOverlapped<0>(d, n, [&](auto ds, size_t i) {
    const auto dw = Rebind<int16_t>(ds);
    const auto a = LoadU(ds, s + i);
    const auto b = LoadU(ds, s + i + 1);
    auto blend = [&](auto w) {
      constexpr int kW = decltype(w)::value;
      if constexpr (kW == 0) {
        return a;
      } else if constexpr (kW == 64) {
        return AverageFloor(ds, a, b);
      } else if constexpr (kW == 32 || kW == 96) {
        return MeanQuarter(ds, kW == 32 ? a : b, AverageFloor(ds, a, b));  // the mean is shared
      } else {
        const auto wa = PromoteTo(dw, ds, a);
        const auto wb = PromoteTo(dw, ds, b);
        const auto v = MulAdd(dw, wb, int16_t{kW}, Mul(dw, wa, int16_t{128 - kW}));
        return TruncateTo(ds, dw, ShiftRight<7>(dw, v));
      }
    };
    StoreInterleaved2(ds, blend(std::integral_constant<int, kFirst>{}), blend(std::integral_constant<int, kSecond>{}),
                      h + 2 * i);
  });
}

// H row of input row s (in_w samples) for out_w = 2 in_w (ResizeColumns in resize.h):
// asymmetric: positions 64 ox: h[2i] = s[i], h[2i + 1] = (s[i] + s[i + 1]) >> 1, last pair s[in_w - 1];
// half pixel: positions max(0, 64 ox - 32): h[0] = s[0], (h[2i + 1], h[2i + 2]) = the pair
// (s[i], s[i + 1]) at weights 32 and 96, h[2 in_w - 1] = s[in_w - 1].
template <typename T>
void Horizontal2x(const T* s, size_t in_w, bool half_pixel, T* h) {
  const size_t n = in_w - 1;  // pixels with a right neighbour
  if (!half_pixel) {
    Pairs<0, 64>(s, n, h);
    h[2 * n] = s[n];
    h[2 * n + 1] = s[n];
  } else {
    h[0] = s[0];
    Pairs<32, 96>(s, n, h + 1);
    h[2 * n + 1] = s[n];
  }
}

// H row of input row s for any column taps: gathers from the row widened to int32.
template <typename T>
void HorizontalGather(const T* s, size_t in_w, const ResizeTaps& x, size_t out_w, int32_t* wide, T* h) {
  const Simd<T, 0> d8;
  ForEachStripOverlapped(d8, in_w, [&](auto ds, size_t i) {
    const auto dw = Rebind<int32_t>(ds);
    StoreU(dw, PromoteTo(dw, ds, LoadU(ds, s + i)), wide + i);
  });
  const Simd<int32_t, 2> d32;
  ForEachStripOverlapped(d32, out_w, [&](auto dw, size_t i) {
    const auto a = Gather(dw, wide, LoadU(dw, x.i0 + i));
    const auto b = Gather(dw, wide, LoadU(dw, x.i1 + i));
    const auto v = Add(dw, ShiftLeft<7>(dw, a), Mul(dw, Sub(dw, b, a), LoadU(dw, x.w1 + i)));
    const auto ds = Rebind<T>(dw);
    StoreU(ds, TruncateTo(ds, dw, ShiftRight<7>(dw, v)), h + i);
  });
}

// out = (a * (128 - w1) + b * w1) >> 7 for 0 < w1 < 128.
template <typename T>
void Vertical(const T* a, const T* b, int16_t w1, size_t n, T* out) {
  const Simd<T, kBytePow2> d;
  if (w1 == 64) {
    ForEachStripOverlapped<0>(d, n, [&](auto ds, size_t i) { StoreU(ds, AverageFloor(ds, LoadU(ds, a + i), LoadU(ds, b + i)), out + i); });
    return;
  }
  if (w1 == 32 || w1 == 96) {  // the half-pixel 2x rows
    auto quarter = [&](auto near_a) {
      ForEachStripOverlapped<0>(d, n, [&](auto ds, size_t i) {
        const auto va = LoadU(ds, a + i), vb = LoadU(ds, b + i);
        const auto m = AverageFloor(ds, va, vb);
        if constexpr (decltype(near_a)::value) {
          StoreU(ds, MeanQuarter(ds, va, m), out + i);
        } else {
          StoreU(ds, MeanQuarter(ds, vb, m), out + i);
        }
      });
    };
    if (w1 == 32) quarter(std::true_type{}); else quarter(std::false_type{});
    return;
  }
  const int16_t w0 = static_cast<int16_t>(128 - w1);
  ForEachStripOverlapped<0>(d, n, [&](auto ds, size_t i) {
    const auto dw = Rebind<int16_t>(ds);
    const auto va = PromoteTo(dw, ds, LoadU(ds, a + i));
    const auto vb = PromoteTo(dw, ds, LoadU(ds, b + i));
    const auto v = MulAdd(dw, vb, w1, Mul(dw, va, w0));
    StoreU(ds, TruncateTo(ds, dw, ShiftRight<7>(dw, v)), out + i);
  });
}

// AI-Benchmark's case, 2x in both directions with the asymmetric mapping: every weight is 0 or 64, so
// output rows 2j and 2j + 1 come from input rows j and j + 1 (clamped) by floored means alone, in
// one pass over the columns and without row buffers:
//   out[2j][2i] = s0[i],                 out[2j][2i + 1] = mean(s0[i], s0[i + 1]) = h0,
//   out[2j + 1][2i] = mean(s0[i], s1[i]), out[2j + 1][2i + 1] = mean(h0, h1),
// mean = AverageFloor (vaadd with round-down on RVV: one instruction). A strip of n input columns
// gives 4n outputs from 4 loads, 4 means and 2 interleaving stores. kEven / kOdd: which of the two
// rows this call writes (a chunk of rows may start on an odd row or end on an even one).
template <bool kEven, bool kOdd, typename T>
void RowPair2x(const T* s0, const T* s1, size_t in_w, T* even, T* odd) {
  const Simd<T, kBytePow2> d;
  const size_t n = in_w - 1;  // columns with a right neighbour
  ForEachStripOverlapped<0>(d, n, [&](auto ds, size_t i) {
    const auto a = LoadU(ds, s0 + i);
    const auto h0 = AverageFloor(ds, a, LoadU(ds, s0 + i + 1));
    if constexpr (kEven) StoreInterleaved2(ds, a, h0, even + 2 * i);
    if constexpr (kOdd) {
      const auto c = LoadU(ds, s1 + i);
      const auto h1 = AverageFloor(ds, c, LoadU(ds, s1 + i + 1));
      StoreInterleaved2(ds, AverageFloor(ds, a, c), AverageFloor(ds, h0, h1), odd + 2 * i);
    }
  });
  // The last column pair repeats s[in_w - 1] (x1 clamped).
  if constexpr (kEven) even[2 * n] = even[2 * n + 1] = s0[n];
  if constexpr (kOdd) {
    const int sum = int{s0[n]} + int{s1[n]};
    odd[2 * n] = odd[2 * n + 1] = static_cast<T>(sum >> 1);  // >> of a negative int floors (C++20)
  }
}

template <typename T>
void Rows2x(const ResizePlan& p, const T* src, T* dst, size_t row_begin, size_t row_end) {
  for (size_t r = row_begin; r < row_end;) {
    const size_t c = r / p.out_h, oy = r % p.out_h, j = oy / 2;
    const T* s0 = src + (c * p.in_h + j) * p.in_w;
    const T* s1 = j + 1 < p.in_h ? s0 + p.in_w : s0;
    T* out = dst + r * p.out_w;
    if (oy % 2 != 0) {
      RowPair2x<false, true>(s0, s1, p.in_w, out - p.out_w, out);
      r += 1;
    } else if (r + 1 < row_end) {
      RowPair2x<true, true>(s0, s1, p.in_w, out, out + p.out_w);
      r += 2;
    } else {
      RowPair2x<true, false>(s0, s1, p.in_w, out, out + p.out_w);
      r += 1;
    }
  }
}

// out = a (a row with wy1 = 0): vector loads and stores rather than memcpy, which is scalar in
// the riscv64 glibc.
template <typename T>
void Copy(const T* a, size_t n, T* out) {
  const Simd<T, 3> d;
  ForEachStripOverlapped<0>(d, n, [&](auto ds, size_t i) { StoreU(ds, LoadU(ds, a + i), out + i); });
}

template <typename T>
void Rows(const ResizePlan& p, const T* src, T* dst, size_t row_begin, size_t row_end, void* scratch) {
  if (p.columns == ResizeColumns::k2xAsymmetric && p.rows_2x_asymmetric) return Rows2x(p, src, dst, row_begin, row_end);
  auto* base = static_cast<unsigned char*>(scratch);
  T* const h[2] = {reinterpret_cast<T*>(base), reinterpret_cast<T*>(base + Align64(p.out_w))};
  auto* const wide = reinterpret_cast<int32_t*>(base + 2 * Align64(p.out_w));
  size_t key[2] = {kNone, kNone};  // (channel * in_h + input row) held by each H buffer
  auto find = [&](size_t k) { return key[0] == k ? 0 : key[1] == k ? 1 : -1; };
  auto fill = [&](int slot, size_t k) {
    const T* s = src + k * p.in_w;  // row k of the channel-major stack of input rows
    if (p.columns != ResizeColumns::kGather) {
      Horizontal2x(s, p.in_w, p.columns == ResizeColumns::k2xHalfPixel, h[slot]);
    } else {
      HorizontalGather(s, p.in_w, p.x, p.out_w, wide, h[slot]);
    }
    key[slot] = k;
  };
  for (size_t r = row_begin; r < row_end; ++r) {
    const size_t c = r / p.out_h, oy = r % p.out_h;
    const int16_t w1 = static_cast<int16_t>(p.y.w1[oy]);
    const size_t k0 = c * p.in_h + static_cast<size_t>(p.y.i0[oy]);
    const size_t k1 = c * p.in_h + static_cast<size_t>(p.y.i1[oy]);
    T* out = dst + r * p.out_w;
    int s0 = find(k0);
    const int s1_held = w1 != 0 ? find(k1) : -1;
    if (s0 < 0) {
      s0 = s1_held == 0 ? 1 : 0;  // keep the buffer that holds row y1
      fill(s0, k0);
    }
    if (w1 == 0) {
      Copy(h[s0], p.out_w, out);
      continue;
    }
    int s1 = k1 == k0 ? s0 : find(k1);
    if (s1 < 0) {
      s1 = 1 - s0;
      fill(s1, k1);
    }
    Vertical(h[s0], h[s1], w1, p.out_w, out);
  }
}

}  // namespace

void ResizeRowsI8(const ResizePlan& plan, const int8_t* src, int8_t* dst, size_t row_begin, size_t row_end,
                  void* scratch) {
  Rows(plan, src, dst, row_begin, row_end, scratch);
}
void ResizeRowsU8(const ResizePlan& plan, const uint8_t* src, uint8_t* dst, size_t row_begin, size_t row_end,
                  void* scratch) {
  Rows(plan, src, dst, row_begin, row_end, scratch);
}

VLAK_KERNELS_DEFINED(VLAK_RESIZE_KERNELS)

}  // namespace vlak::VLAK_NS
