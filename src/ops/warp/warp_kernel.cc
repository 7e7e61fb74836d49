// Warp kernel, generic over the tag: compiled once per target.
//
// Per pixel (vlak.h): n = o >> 8, f = (int8)o, r = w - n, out = bits 8..15 of
// R * 256 + (L - R) * f with R = src[r], L = src[r - 1] (0 outside the row). The sum is computed
// exactly in int32 lanes (|sum| < 2^16 + 2^15), then shifted and truncated, which keeps the same
// bits 8..15 as the seed's int16 arithmetic: bit-exact on every target.
//
// The taps are data-dependent, so they are gathered (RVV: vluxei32, the indexed load seed 004
// found better than GCC's zero-stride loads + extraction). A row is cut into blocks of kBlock
// columns; a block's taps lie within 129 columns of it, so the block's source columns, widened
// to int32 and with zeros outside the row, are first copied to a stack buffer. Then the gather
// indices need no clamping and no bounds test: out-of-row taps land on the zeros, and the buffer
// is in L1. Per strip of outputs: 1 load of offsets, 1 widening, 3 shifts for n and f, iota and
// a subtraction for the index, 2 gathers (R and L from the same indices, one base shifted by one
// element), sub, shift and multiply-add, shift, two narrowing steps and a store; the block copy
// adds a load, a widening and a store per column. x86 gathers 32-bit lanes the same way
// (vpgatherdd).
//
// LMUL: int32 lanes at LMUL 8 (kWarpPow2; int16 offsets at 4, int8 outputs at 2). It fits the
// strip's live values without a spill (rvv.spill_check) and halves the per-output count of LMUL 4:
// 3x8x1024 retires 28,682 / 15,626 / 9,098 instructions at VLEN 128 / 256 / 512 (with memset for
// the border zeros: 33,411 / 20,739 / 14,403; LMUL 4 with memset: 58,828 / 33,484 / 20,812), against
// seed 004's loop in plain C auto-vectorised by clang-19 62,103 / 31,383 / 16,023: 2.17x / 2.01x /
// 1.76x fewer, short of issue 9's 2x at VLEN 512 (tests/icount). The main loop is 26 instructions
// per strip (3 vsetvli for the two narrowing steps); what is left at VLEN 512 is the widened row
// copy and per-row costs, a third of the count.
#include <algorithm>
#include <cstdint>

#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kWarpPow2 = 3;
constexpr size_t kBlock = 1024;
// Slot p of the buffer holds column w0 - kReach + p; taps reach 128 columns left of w (n = 127
// gives r = w - 127, l = w - 128) and 128 right (n = -128), plus one slot so that both gather
// bases stay inside the buffer.
constexpr size_t kReach = 129;
constexpr size_t kSlots = kBlock + 2 * kReach;

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

void WarpRow(const int8_t* row, const int16_t* offsets, int8_t* out, size_t width, int32_t* scratch) {
  const Simd<int32_t, kWarpPow2> d32;
  for (size_t w0 = 0; w0 < width; w0 += kBlock) {
    const size_t columns = std::min(kBlock, width - w0);
    FillBlock(row, width, w0, columns + 2 * kReach, scratch);
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
      const auto left = Gather(ds, scratch, idx);
      const auto right = Gather(ds, scratch + 1, idx);
      const auto sum = MulAdd(ds, Sub(ds, left, right), f, ShiftLeft<8>(ds, right));
      StoreU(d8, TruncateTo(d8, ds, ShiftRight<8>(ds, sum)), dst + j);
    });
  }
}

}  // namespace

// Rows [begin, end) of the flattened [channels][height] rows.
void WarpRowsI8(size_t begin, size_t end, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                int8_t* dst) {
  alignas(64) int32_t scratch[kSlots];
  for (size_t q = begin; q < end; ++q) {
    WarpRow(src + q * width, offsets + q % height * width, dst + q * width, width, scratch);
  }
}

}  // namespace vlak::VLAK_NS
