// Output passes of row kernels: y[i] = body(ds, i) over a row, optionally with non-temporal stores
// and with the next row's input prefetched.
//
// Streamed (Stream: on x86 no read-for-ownership of y's lines, which are written whole; an
// ordinary store on RVV and scalar): for outputs that will not stay in cache anyway. The head up
// to y's first kAlignment boundary and the last, short strip use ordinary stores.
// Prefetch, with streamed output only (rows from memory): a row kernel reads its row from memory
// in its first pass and from cache in the output pass, during which memory would idle;
// prefetching the next row's input there overlaps the two (measured on the Xeon: the first
// pass's loads were the hot spot without it; rmsnorm 1151 x 8192 on a Zen 3 EPYC 5.1 ms with,
// 5.5 without). In cache the prefetches only cost issue slots: rmsnorm 256 x 2048 (L3) 121 us
// with, 88 us without.
// Include after simd/simd.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/store_aliasing.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {

// Whether Stream is a non-temporal store on this target (x86); elsewhere it is an ordinary store,
// and the streamed paths are compiled out rather than paid for (RVV instruction budgets).
inline constexpr bool kStreamStores =
    VLAK_TARGET_ID == ::vlak::Target::kAvx2 || VLAK_TARGET_ID == ::vlak::Target::kAvx512;

// Prefetches the lines of next[i, i + Lanes(ds)) (next may be null: nothing). RISC-V has a
// prefetch instruction only with Zicbop: without it clang drops the prefetch but keeps the loop
// around it (3 instructions per 64 bytes, a quarter of layernorm's output pass at VLEN 512).
template <class D>
inline void PrefetchStrip(D ds, const float* next, size_t i) {
#if defined(__riscv) && !defined(__riscv_zicbop)
  (void)ds, (void)next, (void)i;
#else
  if (next == nullptr) return;
  for (size_t k = 0; k < Lanes(ds); k += 64 / sizeof(float)) __builtin_prefetch(next + i + k);
#endif
}

// Whether an output pass that reads src[i] and writes y[i] runs from the row's end (x86, not
// streamed): where y trails src by 1 to 511 bytes modulo 4 KiB (4K aliasing, store_aliasing.h).
// Walking forward, each load of src would meet the stores of the strips just before it and wait;
// walking backward it meets the stores of strips after it, 3.5 KiB and more away. Not at 0 (y ==
// x, or both at one page offset, as large allocations often are): there forward was as fast or
// faster. The measurements, by y's offset from x, are in docs/ops/rmsnorm.md.
inline bool OutputBackward(const float* y, const float* src) {
  if constexpr (!kStreamStores) {
    (void)y, (void)src;
    return false;
  } else {
    return src != nullptr && StoreTrailsLoad(y, src);
  }
}

// ForEachStrip, or where `backward` (OutputBackward's answer) ForEachStripReversed: an elementwise
// output pass in the order that avoids 4K aliasing. The same strips, so the same bits either way.
template <class D, class F>
[[gnu::always_inline]] inline void ForEachOutputStrip(D d, size_t n, bool backward, F&& body) {
  if (backward) return ForEachStripReversed(d, n, body);
  ForEachStrip(d, n, body);
}

// src: the input the body reads at i (OutputBackward; null: forward always); next0/next1: inputs
// of the next row to prefetch (null: none), n elements each. Streamed, the caller ends its call
// with EndStreamedOutput.
template <class D, class F>
void OutputStrips(D d, float* y, size_t n, bool stream, const float* src, const float* next0, const float* next1,
                  F&& body) {
  if (!kStreamStores || !stream) {
    ForEachOutputStrip(d, n, OutputBackward(y, src), [&](auto ds, size_t i) { StoreU(ds, body(ds, i), y + i); });
    return;
  }
  const uintptr_t address = reinterpret_cast<uintptr_t>(y);
  size_t head = n;  // a y that is not even float-aligned is not streamed
  if (address % sizeof(float) == 0) head = (kAlignment - address % kAlignment) % kAlignment / sizeof(float);
  if (head > n) head = n;
  ForEachStrip(d, head, [&](auto ds, size_t i) { StoreU(ds, body(ds, i), y + i); });
  ForEachStrip(d, n - head, [&](auto ds, size_t i) {
    PrefetchStrip(ds, next0, head + i);
    PrefetchStrip(ds, next1, head + i);
    const auto v = body(ds, head + i);
    if constexpr (decltype(ds)::kIsStrip) {
      StoreU(ds, v, y + head + i);
    } else {
      Stream(ds, v, y + head + i);
    }
  });
}

// After a kernel call's last streamed output pass: the non-temporal stores ordered before what
// follows (another thread may read y once the call returns). Once per call, not per row: a fence
// waits for every write-combining buffer to drain, and after each row of 512 floats it halved the
// streamed rows' speed (docs/ops/parallel.md).
inline void EndStreamedOutput(bool stream) {
  if constexpr (kStreamStores) {
    if (stream) StreamFence();
  } else {
    (void)stream;
  }
}

}  // namespace vlak::VLAK_NS
