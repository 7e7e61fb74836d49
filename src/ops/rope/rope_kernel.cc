// RoPE kernel, generic over the tag: compiled once per target.
//
// Each pair (a, b) of a head row is rotated by its position's (c, s):
//   y_a = fma(-x_b, s, x_a * c),  y_b = fma(x_b, c, x_a * s)
// one product and one fused multiply-add per output, the same operations in the same order on
// every target (the scalar target's MulAdd is fused too): bit-identical results, and
// |y - y64| <= 2^-24 |x_a c| + 2^-24 |y| <= 2^-23 (|x_a c| + |x_b s|).
// Halves pairing (a = i, b = i + d/2): strips of d/2 over both halves, 4 loads, 2 mul, 2 fma,
// 2 stores per strip; the position's table strips are re-read for each of its rows (from L1).
// Outputs whose share per thread is past 8 times the L2 (rope.cc) are stored non-temporally (no
// read-for-ownership of y), after a head that aligns both halves (when d/2 is a multiple of 16
// floats).
// Interleaved pairing (a = 2i, b = 2i + 1): the same arithmetic, pairs split and joined by
// Load/StoreInterleaved2 (x86: two contiguous loads and two permutes per register; RVV: vlseg2/
// vsseg2), not stride-2 gathers/scatters (x86) or two strided walks over the row's lines (RVV).
// The loads of a strip precede its stores and a strip touches only its own pairs, so y == x works.
#include <cstdint>

#include "ops/output_strips.h"
#include "ops/rope/rope_config.h"
#include "ops/rope/rope_kernels.h"
#include "simd/simd.h"
#include "vlak/vlak.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kPow2 = kRopeConfig.pow2;
using DF = Simd<float, kPow2>;

// Pairs [begin, end) of a row. kStream: whole strips stored with Stream (non-temporal on x86),
// for outputs beyond the caches; the caller makes y + begin and y + half + begin kAlignment-aligned.
template <bool kStream>
void PairsHalves(const float* x, const float* cos, const float* sin, float* y, size_t half, size_t begin,
                 size_t end) {
  const DF d;
  ForEachStrip(d, end - begin, [&](auto ds, size_t j) {
    const size_t i = begin + j;
    const auto xa = LoadU(ds, x + i);
    const auto xb = LoadU(ds, x + half + i);
    const auto c = LoadU(ds, cos + i);
    const auto s = LoadU(ds, sin + i);
    const auto ya = NegMulAdd(ds, xb, s, Mul(ds, xa, c));
    const auto yb = MulAdd(ds, xb, c, Mul(ds, xa, s));
    if constexpr (kStream && !decltype(ds)::kIsStrip) {
      Stream(ds, ya, y + i);
      Stream(ds, yb, y + half + i);
    } else {
      StoreU(ds, ya, y + i);
      StoreU(ds, yb, y + half + i);
    }
  });
}

// Both halves streamed after a head that aligns them: the caller checks that they are equally
// misaligned (half a multiple of the alignment in floats). x86 only (kStreamStores).
void RowHalvesStreamed(const float* x, const float* cos, const float* sin, float* y, size_t half) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(y);
  size_t head = half;  // a y that is not even float-aligned is not streamed
  if (address % sizeof(float) == 0) head = (kAlignment - address % kAlignment) % kAlignment / sizeof(float);
  if (head > half) head = half;
  PairsHalves<false>(x, cos, sin, y, half, 0, head);
  PairsHalves<true>(x, cos, sin, y, half, head, half);
}

void RowInterleaved(const float* x, const float* cos, const float* sin, float* y, size_t half) {
  const DF d;
  ForEachStrip(d, half, [&](auto ds, size_t i) {
    VFromD<decltype(ds)> xa, xb;
    LoadInterleaved2(ds, x + 2 * i, xa, xb);
    const auto c = LoadU(ds, cos + i);
    const auto s = LoadU(ds, sin + i);
    const auto ya = NegMulAdd(ds, xb, s, Mul(ds, xa, c));
    const auto yb = MulAdd(ds, xb, c, Mul(ds, xa, s));
    StoreInterleaved2(ds, ya, yb, y + 2 * i);
  });
}

// Rows [0, rows) of one position, head_dim apart, strips outer and rows inner: each strip of the
// position's cos and sin is loaded once for all its rows (RVV, kTableOuter). Same arithmetic per
// pair as PairsHalves / RowInterleaved.
template <bool kInterleaved>
void PositionRows(const float* x, const float* cos, const float* sin, float* y, size_t rows, size_t head_dim,
                  size_t half) {
  const DF d;
  ForEachStrip(d, half, [&](auto ds, size_t i) {
    const auto c = LoadU(ds, cos + i);
    const auto s = LoadU(ds, sin + i);
    const float* xr = x;
    float* yr = y;
    for (size_t r = 0; r < rows; ++r, xr += head_dim, yr += head_dim) {
      VFromD<decltype(ds)> xa, xb;
      if constexpr (kInterleaved) {
        LoadInterleaved2(ds, xr + 2 * i, xa, xb);
      } else {
        xa = LoadU(ds, xr + i);
        xb = LoadU(ds, xr + half + i);
      }
      const auto ya = NegMulAdd(ds, xb, s, Mul(ds, xa, c));
      const auto yb = MulAdd(ds, xb, c, Mul(ds, xa, s));
      if constexpr (kInterleaved) {
        StoreInterleaved2(ds, ya, yb, yr + 2 * i);
      } else {
        StoreU(ds, ya, yr + i);
        StoreU(ds, yb, yr + half + i);
      }
    }
  });
}

// RVV: a position's rows strip by strip (PositionRows), which loads the table strips once per
// position instead of once per row: per pair 2 loads, 4 multiplies, 2 stores instead of 4, 4, 2.
// LMUL 4 (rope_config.h): the fewest modelled cycles; LMUL 8 spills (docs/ops/rope.md).
// x86 keeps row by row: its streamed stores and prefetches are per row.
inline constexpr bool kTableOuter = kRopeConfig.table_outer;

}  // namespace

// Head rows [begin, end) of the flattened [positions][rows_per_position] rows.
// stream: y leaves the caches anyway (rope.cc: each thread's share of y past 8 times the L2).
void RopeRowsF32(size_t begin, size_t end, size_t rows_per_position, size_t head_dim, const float* x,
                 const float* cos, const float* sin, size_t table_stride, float* y, unsigned flags, bool stream) {
  const size_t half = head_dim / 2;
  const bool interleaved = flags & VLAK_ROPE_INTERLEAVED;
  stream = kStreamStores && stream && !interleaved && half % (kAlignment / sizeof(float)) == 0;
  // One divide per position, not per row (a 64-bit divide, ~40 cycles on x86, cost a seventh of a
  // 128-float row's time), and the row loop unswitched: per row a call and two pointer steps.
  const float* xr = x + begin * head_dim;
  float* yr = y + begin * head_dim;
  for (size_t q = begin; q < end;) {
    const size_t position = q / rows_per_position;
    const size_t stop = (position + 1) * rows_per_position < end ? (position + 1) * rows_per_position : end;
    const float* const c = cos + position * table_stride;
    const float* const s = sin + position * table_stride;
    if (kTableOuter && !stream) {
      const size_t n = stop - q;
      if (interleaved) {
        PositionRows<true>(xr, c, s, yr, n, head_dim, half);
      } else {
        PositionRows<false>(xr, c, s, yr, n, head_dim, half);
      }
      q = stop, xr += n * head_dim, yr += n * head_dim;
    } else if (interleaved) {
      for (; q < stop; ++q, xr += head_dim, yr += head_dim) RowInterleaved(xr, c, s, yr, half);
    } else if (stream) {
      for (; q < stop; ++q, xr += head_dim, yr += head_dim) RowHalvesStreamed(xr, c, s, yr, half);
    } else {
      for (; q < stop; ++q, xr += head_dim, yr += head_dim) PairsHalves<false>(xr, c, s, yr, half, 0, half);
    }
  }
  EndStreamedOutput(stream);
}

VLAK_KERNELS_DEFINED(VLAK_ROPE_KERNELS)

}  // namespace vlak::VLAK_NS
