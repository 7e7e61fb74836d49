// INT8 / UINT8 row softmax, generic over the tag: compiled once per target.
//
// Per row, with d = max - x in [0, 255] (the byte difference, exact in 8-bit lanes):
//   pass 1  max and min of the row (two byte max/min per strip);
//   pass 2  S = sum of T[d] over the row: bytes widened to 32-bit indices, one 32-bit gather from
//           the call's 256-entry table (softmax_i8.cc), lanes summed in blocks into int64/double;
//   row     from S, the output byte of every d the row holds (d <= max - min): a 256-byte table;
//   pass 3  y = that table[d], one byte lookup per element (TableLookup256).
// TFLITE mode: T = TFLite's Q12.19 terms; the same bits as TFLite's reference (vlak.h states the
//   two places where TFLite's own code leaves int32). Rows much shorter than their range
//   (4 n <= max - min) skip the table: each element's byte from the same function, in scalar.
// LUT mode: T = exp(-s d) in float; out[d] = min(255, nearest(e[d] * (256 / S))) in f32 lanes:
//   |out - 256 p| <= 1/2 + 256 p (2^-24 + block sum error 2^-16 + 2^-23) < 1 LSB (vlak.h's contract).
// Work per element: 2 loads, ~4 vector ops + a gather (pass 2), 1 lookup (pass 3); per row up to
// 256 table entries and TFLite's reciprocal. Details and speed: docs/ops/softmax_i8.md.
#include <cstring>
#include <limits>

#include "ops/softmax_i8/softmax_i8.h"
#include "ops/softmax_i8/softmax_i8_fixed.h"
#include "ops/softmax_i8/softmax_i8_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

// Bytes at LMUL 1, their 32-bit indices and table values at LMUL 4 (RVV: 3 groups of 4 live in
// pass 2, no spill).
constexpr int kPow2 = 0;

// Lanes sum at most this many strips before the block total goes to int64 / double: int32 lanes
// take <= 2^19 per strip (2^30 per block); float lanes keep 2^-16 relative error.
constexpr size_t kIntBlockStrips = 2048;
constexpr size_t kFloatBlockStrips = 256;

// The output byte of one table value, given the row's sum (TFLITE). TFLite computes
// v = DivPot(Mul31(S, e), k) with S = 1/sum in [2^30, 2^31), e >= 0 and k = nbits + 23: for
// non-negative operands both roundings are floor(x + half), and floor(floor(a / m) / n) =
// floor(a / (m n)), so v = (S e + 2^30 + 2^(30 + k)) >> (31 + k), one 64-bit product (below 2^64:
// S e < 2^62, the offsets < 2^62) and a shift: the same bits, ~4 operations per entry instead of
// two rounding steps. k > 31: TFLite's quotient is below 1/2 LSB for every element (the row sum is
// >= 512), so every byte is 0 (-128).
struct TfliteRow {
  uint64_t scale = 0;
  uint64_t offset = 0;
  int shift = 63;
  bool zero = true;
};
inline uint8_t OutTflite(const TfliteRow& r, int32_t e, uint8_t out_xor) {
  const uint64_t v = (r.scale * static_cast<uint32_t>(e) + r.offset) >> r.shift;
  return static_cast<uint8_t>(static_cast<uint8_t>(v > 255 ? 255 : v) ^ out_xor);
}
TfliteRow RowScaleTflite(int64_t sum) {
  TfliteRow r;
  if (sum >= (int64_t{1} << 31)) return r;  // >= 4096 in Q12.19: k stays > 31
  int num_bits_over_unit = 0;
  const int32_t scale = softmax_i8_fixed::Reciprocal(static_cast<int32_t>(sum), 12, &num_bits_over_unit);
  const int k = num_bits_over_unit + 31 - 8;
  if (k > 31) return r;
  r.scale = static_cast<uint64_t>(scale);
  r.offset = (uint64_t{1} << 30) + (uint64_t{1} << (30 + k));
  r.shift = 31 + k;
  r.zero = false;
  return r;
}

// T: int8_t (out_xor 0x80: output zero point -128) or uint8_t (out_xor 0: zero point 0).
template <typename T>
struct RowSum {
  T mx;
  int range;      // max - min
  int64_t isum;   // TFLITE: the Q12.19 sum
  double fsum;    // LUT: the float sum
};

// The byte difference mx - x of a strip (wrapping in T lanes gives the exact value 0..255).
template <class DS, class V>
auto DiffOf(DS ds, const V& vmx, const TFromD<DS>* p) {
  const auto diff = Sub(ds, vmx, LoadU(ds, p));
  if constexpr (std::is_signed_v<TFromD<DS>>) {
    return BitCast(Rebind<uint8_t>(ds), ds, diff);
  } else {
    return diff;
  }
}

// Passes 1 and 2.
template <typename T>
RowSum<T> SumPass(const T* x, size_t n, const SoftmaxI8Tables& t) {
  const Simd<T, kPow2> d;
  const Simd<int32_t, kPow2 + 2> di;
  const Simd<float, kPow2 + 2> df;
  RowSum<T> s{};
  // Started from the row's first element, not a constant: RVV would hoist a constant splat out of
  // the batch loop and keep it in a stack slot across the rows (rvv.spill_check).
  auto vmax = Set(d, x[0]);
  auto vmin = vmax;
  ForEachStrip<2>(d, n, [&](auto ds, size_t i) {
    const auto v = LoadU(ds, x + i);
    vmax = MaxTU(ds, vmax, v);
    vmin = MinTU(ds, vmin, v);
  });
  s.mx = ReduceMax(d, vmax);
  s.range = static_cast<int>(s.mx) - static_cast<int>(ReduceMin(d, vmin));
  const auto vmx = Set(d, s.mx);
  if (t.tflite) {
    const size_t block = kIntBlockStrips * Lanes(d);
    for (size_t b = 0; b < n; b += block) {
      auto acc = Zero(di);
      ForEachStrip(d, n - b < block ? n - b : block, [&](auto ds, size_t i) {
        const auto dsi = Rebind<int32_t>(ds);
        const auto idx = PromoteTo(dsi, Rebind<uint8_t>(ds), DiffOf(ds, vmx, x + b + i));
        acc = AddTU(dsi, acc, Gather(dsi, t.sum_q19, idx));
      });
      s.isum += ReduceSum(di, acc);
    }
  } else {
    const size_t block = kFloatBlockStrips * Lanes(d);
    for (size_t b = 0; b < n; b += block) {
      auto acc = Zero(df);
      ForEachStrip(d, n - b < block ? n - b : block, [&](auto ds, size_t i) {
        const auto dsi = Rebind<int32_t>(ds);
        const auto idx = PromoteTo(dsi, Rebind<uint8_t>(ds), DiffOf(ds, vmx, x + b + i));
        acc = AddTU(Rebind<float>(ds), acc, Gather(Rebind<float>(ds), t.exp_f32, idx));
      });
      s.fsum += ReduceSum(df, acc);
    }
  }
  return s;
}

// The row's output bytes from its sum: the table of d -> byte, then pass 3.
template <typename T>
void OutPass(const T* x, T* y, size_t n, const SoftmaxI8Tables& t, const RowSum<T>& s, const TfliteRow& tr,
             double inv) {
  constexpr uint8_t kOutXor = std::is_signed_v<T> ? 0x80 : 0x00;
  const bool zero = t.tflite && tr.zero;
  if (t.tflite && 4 * n <= static_cast<size_t>(s.range)) {
    // A row much shorter than its range: each element directly (the table would cost more).
    for (size_t i = 0; i < n; ++i) {
      const int dd = static_cast<int>(s.mx) - static_cast<int>(x[i]);
      const uint8_t o = zero ? kOutXor : OutTflite(tr, t.exp_q31[dd], kOutXor);
      std::memcpy(y + i, &o, 1);
    }
    return;
  }
  uint8_t out[256];
  const int entries = s.range + 1;
  if (zero) {
    std::memset(out, kOutXor, static_cast<size_t>(entries));
  } else if (t.tflite) {
    // Entries up to the first whose byte is 0 (-128): with a monotone exp table every later one is
    // 0 too, found by bisection (8 evaluations) instead of computed (a 64-element row of uniform
    // bytes at scale 1/16 needs ~80 of its ~250 entries).
    int end = entries;
    if (t.exp_q31_monotone && OutTflite(tr, t.exp_q31[entries - 1], 0) == 0) {
      int lo = 0;  // byte(lo) > 0 or lo == 0; byte(end - 1) == 0
      end = entries - 1;
      while (lo < end) {
        const int mid = (lo + end) / 2;
        if (OutTflite(tr, t.exp_q31[mid], 0) == 0) {
          end = mid;
        } else {
          lo = mid + 1;
        }
      }
      std::memset(out + end, kOutXor, static_cast<size_t>(entries - end));
    }
    for (int k = 0; k < end; ++k) out[k] = OutTflite(tr, t.exp_q31[k], kOutXor);
  } else {
    // LUT: byte = min(255, nearest(e * 256 / S)) in f32 lanes (e * inv has relative error
    // <= 2^-23, so <= 2^-15 LSB; i32 -> u8 saturates at 255). Vector code, not a C loop: clang
    // vectorises a float-to-int cast into vfcvt.rtz, which Debian's qemu 7.2 cannot translate.
    const Simd<float, kPow2 + 2> df;
    const float inv_f = static_cast<float>(inv);
    ForEachStrip(df, static_cast<size_t>(entries), [&](auto ds, size_t k) {
      const auto di = Rebind<int32_t>(ds);
      const auto du = Rebind<uint8_t>(ds);
      const auto q = DemoteTo(du, di, NearestInt(ds, Mul(ds, LoadU(ds, t.exp_f32 + k), inv_f)));
      StoreU(du, Xor(du, q, kOutXor), out + k);
    });
  }
  // Entries past the range are never looked up; defined anyway (x86 loads the whole table).
  if (entries < 256) std::memset(out + entries, 0, 256 - static_cast<size_t>(entries));
  const Simd<T, kPow2> d;
  const auto vmx = Set(d, s.mx);
  uint8_t* yu = reinterpret_cast<uint8_t*>(y);
  ForEachStrip(d, n, [&](auto ds, size_t i) {
    const auto dsu = Rebind<uint8_t>(ds);
    StoreU(dsu, TableLookup256(dsu, out, DiffOf(ds, vmx, x + i)), yu + i);
  });
}

// Rows in batches of 4: the sums of the batch, then their reciprocals back to back (each is a
// ~90-cycle dependency chain of TFLite's Newton steps; independent, so the core overlaps them:
// 64 x 64 u8 on AVX-512 7.1 -> 5.4 us), then the outputs. In place (x == y) stays
// correct: a row is written only after its own sum, and no other row reads it.
template <typename T>
void Rows(size_t rows, size_t cols, const T* x, size_t x_stride, T* y, size_t y_stride, const SoftmaxI8Tables& t) {
  constexpr size_t kBatch = 4;
  for (size_t r = 0; r < rows; r += kBatch) {
    const size_t m = rows - r < kBatch ? rows - r : kBatch;
    RowSum<T> s[kBatch];
    TfliteRow tr[kBatch];
    double inv[kBatch] = {};
    for (size_t j = 0; j < m; ++j) s[j] = SumPass(x + (r + j) * x_stride, cols, t);
    for (size_t j = 0; j < m; ++j) {
      if (t.tflite) {
        tr[j] = RowScaleTflite(s[j].isum);
      } else {
        inv[j] = 256.0 / s[j].fsum;
      }
    }
    for (size_t j = 0; j < m; ++j) OutPass(x + (r + j) * x_stride, y + (r + j) * y_stride, cols, t, s[j], tr[j], inv[j]);
  }
}

}  // namespace

void SoftmaxI8Rows(size_t rows, size_t cols, const int8_t* x, size_t x_stride, int8_t* y, size_t y_stride,
                   const SoftmaxI8Tables& t) {
  Rows(rows, cols, x, x_stride, y, y_stride, t);
}

void SoftmaxU8Rows(size_t rows, size_t cols, const uint8_t* x, size_t x_stride, uint8_t* y, size_t y_stride,
                   const SoftmaxI8Tables& t) {
  Rows(rows, cols, x, x_stride, y, y_stride, t);
}

VLAK_KERNELS_DEFINED(VLAK_SOFTMAX_I8_KERNELS)

}  // namespace vlak::VLAK_NS
