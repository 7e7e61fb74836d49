// Warp kernel, generic over the tag: compiled once per target.
//
// Per pixel (vlak.h): n = o >> 8, f = (int8)o, r = w - n, out = bits 8..15 of
// R * 256 + (L - R) * f with R = src[r], L = src[r - 1] (0 outside the row). Only bits 8..15 of
// the sum matter, so any lane width of 16 bits or more gives the bits of Terapines AI-Benchmark's
// warp (its int16 arithmetic): bit-exact on every target.
// The taps are data-dependent, so they are gathered. A row is cut into blocks of kBlock columns;
// a block's taps lie within 129 columns of it, so the block's source columns, with zeros outside
// the row, are first copied to a stack buffer (in L1): the gather indices need no clamping and no
// bounds test (out-of-row taps land on the zeros). The taps' fetch (kTaps, warp_config.h):
// RVV byte slots and two vluxei16 into int16 lanes, for up to kGroupRows channels that share the
// offsets; x86 one vpgatherdd per pixel of both taps as int16 halves; scalar two int32 loads.
// Cost per strip and channel (RVV): 2 gathers, 2 widenings, sub, shift, multiply-add, shift,
// narrowing, store. Instruction counts and timings of each form: docs/ops/warp.md.
#include <algorithm>
#include <cstdint>

#include "ops/warp/warp_config.h"
#include "ops/warp/warp_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kWarpPow2 = kWarpConfig.pow2;
// RVV byte form: rows of up to kGroupRows channels at a time, int16 lanes at LMUL 2^kGroupPow2
// (LMUL 4 by whole-call cycles on the llvm-mca-22 models: docs/ops/warp.md).
constexpr size_t kGroupRows = kWarpConfig.group_rows;
constexpr int kGroupPow2 = kWarpConfig.group_pow2;
constexpr size_t kBlock = kWarpConfig.block;
// Slot p of the buffer holds column w0 - kReach + p; taps reach 128 columns left of w (n = 127
// gives r = w - 127, l = w - 128) and 128 right (n = -128), plus one slot so that both gather
// bases stay inside the buffer.
constexpr size_t kReach = 129;
constexpr size_t kSlots = kBlock + 2 * kReach + 1;  // + 1: the pair form reads one slot further

// How the two taps are fetched: warp_config.h.
using Taps = WarpTaps;
constexpr Taps kTaps = kWarpConfig.taps;

// Zeros with vector stores: std::fill becomes a call to memset, which on RISC-V (glibc 2.36, no
// vector memset) stored the 2 x 129 border slots word by word, ~290 instructions per row: 40 % of
// the row's count at VLEN 512.
void ZeroSlots(int32_t* p, size_t n) {
  const Simd<int32_t, kWarpPow2> d32;
  ForEachStrip(d32, n, [&](auto ds, size_t i) { StoreU(ds, Zero(ds), p + i); });
}

// scratch[p] = row[w0 - kReach + p] widened, 0 outside [0, width), for p < count.
void FillBlock(const int8_t* row, size_t width, size_t w0, size_t count, int32_t* scratch) {
  const size_t p_begin = w0 >= kReach ? 0 : kReach - w0;
  const size_t p_end = std::min(count, width + kReach - w0);
  ZeroSlots(scratch, p_begin);
  ZeroSlots(scratch + p_end, count - p_end);
  const int8_t* from = row + (w0 + p_begin - kReach);
  int32_t* to = scratch + p_begin;
  const Simd<int8_t, kWarpPow2 - 2> d8;
  ForEachStrip(d8, p_end - p_begin, [&](auto ds8, size_t i) {
    const auto d32 = Rebind<int32_t>(ds8);
    StoreU(d32, PromoteTo(d32, ds8, LoadU(ds8, from + i)), to + i);
  });
}

// Byte form: scratch[p] = row[w0 - kReach + p], 0 outside [0, width), for p < count.
void FillBlockBytes(const int8_t* row, size_t width, size_t w0, size_t count, int8_t* scratch) {
  const size_t p_begin = w0 >= kReach ? 0 : kReach - w0;
  const size_t p_end = std::min(count, width + kReach - w0);
  const Simd<int8_t, 3> d8;
  ForEachStrip(d8, p_begin, [&](auto ds, size_t i) { StoreU(ds, Zero(ds), scratch + i); });
  ForEachStrip(d8, count - p_end, [&](auto ds, size_t i) { StoreU(ds, Zero(ds), scratch + p_end + i); });
  const int8_t* from = row + (w0 + p_begin - kReach);
  ForEachStrip(d8, p_end - p_begin, [&](auto ds, size_t i) { StoreU(ds, LoadU(ds, from + i), scratch + p_begin + i); });
}

// The byte form of WarpRow, for g <= kGroupRows rows that share one row of offsets (the same image
// row in g channels: rows[k] = src + k * channel_stride, likewise out): only bits 8..15 of the sum
// are kept, so the sum can wrap in int16 lanes (AI-Benchmark's own arithmetic), which doubles the
// lanes per strip against int32; the slot indices (< kSlots) fit in 16 bits, which vluxei16 takes
// as byte offsets. The index and the fraction of a strip are computed once for the g rows.
[[maybe_unused]] void WarpRowsBytes(size_t g, const int8_t* row, size_t channel_stride, const int16_t* offsets,
                                    int8_t* out, size_t width, int8_t (*scratch)[kSlots]) {
  const Simd<int16_t, kGroupPow2> d16;
  for (size_t w0 = 0; w0 < width; w0 += kBlock) {
    const size_t columns = std::min(kBlock, width - w0);
    for (size_t k = 0; k < g; ++k) FillBlockBytes(row + k * channel_stride, width, w0, columns + 2 * kReach, scratch[k]);
    const int16_t* off = offsets + w0;
    int8_t* dst = out + w0;
    ForEachStrip(d16, columns, [&](auto ds, size_t j) {
      const auto d8 = Rebind<int8_t>(ds);
      const auto du = Rebind<uint16_t>(ds);
      const auto o = LoadU(ds, off + j);
      const auto n = ShiftRight<8>(ds, o);
      const auto f = ShiftRight<8>(ds, ShiftLeft<8>(ds, o));
      // Slot of L = column w - n - 1 is j + kReach - 1 - n; R's slot is one more (base + 1).
      const auto idx = BitCast(du, ds, Sub(ds, Iota(ds, static_cast<int16_t>(j + kReach - 1)), n));
      for (size_t k = 0; k < g; ++k) {
        const auto left = PromoteTo(ds, d8, Gather8(d8, scratch[k], idx));
        const auto right = PromoteTo(ds, d8, Gather8(d8, scratch[k] + 1, idx));
        const auto sum = MulAdd(ds, Sub(ds, left, right), f, ShiftLeft<8>(ds, right));
        StoreU(d8, TruncateTo(d8, ds, ShiftRight<8>(ds, sum)), dst + k * channel_stride + j);
      }
    });
  }
}

// scratch[p] = (scratch[p] & 0xffff) | scratch[p + 1] << 16 for p < count, in place (each strip
// loads p + 1 before the next strip stores it).
[[maybe_unused]] void PairSlots(int32_t* scratch, size_t count) {
  const Simd<int32_t, kWarpPow2> d32;
  ForEachStrip(d32, count, [&](auto ds, size_t i) {
    const auto lo = And(ds, LoadU(ds, scratch + i), Set(ds, 0xffff));
    const auto hi = ShiftLeft<16>(ds, LoadU(ds, scratch + i + 1));
    StoreU(ds, Or(ds, lo, hi), scratch + i);
  });
}

[[maybe_unused]] void WarpRow(const int8_t* row, const int16_t* offsets, int8_t* out, size_t width, int32_t* scratch) {
  const Simd<int32_t, kWarpPow2> d32;
  for (size_t w0 = 0; w0 < width; w0 += kBlock) {
    const size_t columns = std::min(kBlock, width - w0);
    if constexpr (kTaps == Taps::kPairs) {
      FillBlock(row, width, w0, columns + 2 * kReach + 1, scratch);
      PairSlots(scratch, columns + 2 * kReach);
    } else {
      FillBlock(row, width, w0, columns + 2 * kReach, scratch);
    }
    const int16_t* off = offsets + w0;
    int8_t* dst = out + w0;
    ForEachStrip(d32, columns, [&](auto ds, size_t j) {
      const auto d16 = Rebind<int16_t>(ds);
      const auto d8 = Rebind<int8_t>(ds);
      const auto o = PromoteTo(ds, d16, LoadU(d16, off + j));
      const auto n = ShiftRight<8>(ds, o);
      const auto f = ShiftRight<24>(ds, ShiftLeft<24>(ds, o));
      // Slot of L = column w - n - 1 is j + kReach - 1 - n; R's slot is one more (base + 1).
      const auto idx = Sub(ds, Iota(ds, static_cast<int32_t>(j + kReach - 1)), n);
      const auto g = Gather(ds, scratch, idx);  // L, or in the pair form L and R
      constexpr bool kPairs = kTaps == Taps::kPairs;
      const auto left = kPairs ? ShiftRight<16>(ds, ShiftLeft<16>(ds, g)) : g;
      const auto right = kPairs ? ShiftRight<16>(ds, g) : Gather(ds, scratch + 1, idx);
      const auto sum = MulAdd(ds, Sub(ds, left, right), f, ShiftLeft<8>(ds, right));
      StoreU(d8, TruncateTo(d8, ds, ShiftRight<8>(ds, sum)), dst + j);
    });
  }
}

}  // namespace

// Rows [begin, end) of the flattened [channels][height] rows.
void WarpRowsI8(size_t begin, size_t end, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                int8_t* dst) {
  if constexpr (kTaps == Taps::kBytes) {
    // Row q uses offsets row q % height, as do q + height, q + 2 height, ... (the other channels):
    // up to kGroupRows of them in [begin, end) at once.
    alignas(64) int8_t scratch[kGroupRows][kSlots];
    const size_t first_end = std::min(end, begin + height);
    const size_t channel_stride = height * width;
    for (size_t q0 = begin; q0 < first_end; ++q0) {
      for (size_t q = q0; q < end; q += kGroupRows * height) {
        const size_t g = std::min(kGroupRows, (end - q + height - 1) / height);
        WarpRowsBytes(g, src + q * width, channel_stride, offsets + q % height * width, dst + q * width, width,
                      scratch);
      }
    }
  } else {
    alignas(64) int32_t scratch[kSlots];
    for (size_t q = begin; q < end; ++q) {
      WarpRow(src + q * width, offsets + q % height * width, dst + q * width, width, scratch);
    }
  }
}

VLAK_KERNELS_DEFINED(VLAK_WARP_KERNELS)

}  // namespace vlak::VLAK_NS
