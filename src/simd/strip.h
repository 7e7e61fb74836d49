// Strip-mining: walk n elements in strips of at most Lanes(d), with no scalar remainder loop.
//
// Whole strips get the whole-group tag d: on x86 no masking on the hot path; on RVV their vl is
// VLMAX, which clang sees as loop-invariant and sets once, outside the loop. The last, short strip
// (if any) gets SimdN{n - i}: masked loads/stores on x86, vl = n - i on RVV (one vsetvli, no
// scalar tail loop). The strip boundaries are fixed by VLMAX alone rather than by what vsetvl
// returns for the remaining length: the spec lets vsetvl split the last two strips unevenly when
// VLMAX < avl < 2*VLMAX, and fixed boundaries keep reduction orders the same on every
// implementation. The body is a generic lambda, instantiated once per tag kind.
//
// The whole strips end at n - n % vlmax, computed once. ForEachStrip<2> runs them two per loop
// iteration on RVV: the index update and branch are paid once per pair, 1 of the 5 retired
// instructions of a max or scale strip. Only for light bodies: clang interleaves the two copies,
// so a body that needs most of the register groups (an exp) spills when paired. x86 compilers
// unroll by themselves, so there the pairing is off.
#pragma once

#include <cstddef>

#include "targets.h"

namespace vlak::VLAK_NS {

template <int kUnroll = 1, class D, class F>
inline void ForEachStrip(D d, size_t n, F&& body) {
  static_assert(kUnroll == 1 || kUnroll == 2);
  const size_t vlmax = Lanes(d);
  const size_t whole_end = n - n % vlmax;
  size_t i = 0;
  if constexpr (kUnroll == 2 && VLAK_TARGET_ID == ::vlak::Target::kRvv) {
    for (const size_t pair_end = n - n % (2 * vlmax); i < pair_end; i += 2 * vlmax) {
      body(d, i);
      body(d, i + vlmax);
    }
    if (i < whole_end) body(d, i);
  } else {
    for (; i < whole_end; i += vlmax) body(d, i);
  }
  if (whole_end < n) body(Strip(d, n - whole_end), whole_end);
}

// ForEachStrip's strips (the short one at the end) in reverse order: for elementwise bodies whose
// order is free, walked from the end (output_strips.h: 4K aliasing).
template <class D, class F>
inline void ForEachStripReversed(D d, size_t n, F&& body) {
  const size_t vlmax = Lanes(d);
  const size_t whole_end = n - n % vlmax;
  if (whole_end < n) body(Strip(d, n - whole_end), whole_end);
  for (size_t i = whole_end; i > 0;) {
    i -= vlmax;
    body(d, i);
  }
}

// ForEachStrip for bodies that may compute a lane twice: strips independent of each other, and
// outputs that alias no input, so a lane written again gets the same value. When n >= Lanes(d)
// the short last strip becomes a whole one ending at n (it starts at n - Lanes(d) and redoes
// lanes of the strip before): whole-register loads and stores instead of partial ones, which on
// AVX2 byte data cost more than the strip's arithmetic. When n < Lanes(d), a body that also takes
// smaller groups (down to LMUL 2^kHalveTo; by default none) gets the group halved until it fits n
// or reaches that size: a 127-byte row at LMUL 2 on AVX-512 is then two whole registers, not one
// masked group. On RVV a short strip costs no more than a whole one (vl = n - i), so there this is
// ForEachStrip.
template <int kHalveTo = kMaxPow2, class D, class F>
inline void ForEachStripOverlapped(D d, size_t n, F&& body) {
  if constexpr (VLAK_TARGET_ID == ::vlak::Target::kRvv) {
    ForEachStrip(d, n, body);
  } else {
    const size_t vlmax = Lanes(d);
    if (n < vlmax) {
      if constexpr (Pow2FromD<D> > kHalveTo) {
        return ForEachStripOverlapped<kHalveTo>(Simd<TFromD<D>, Pow2FromD<D> - 1>(), n, body);
      } else {
        return ForEachStrip(d, n, body);
      }
    }
    const size_t whole_end = n - n % vlmax;
    for (size_t i = 0; i < whole_end; i += vlmax) body(d, i);
    if (whole_end < n) body(d, n - vlmax);
  }
}

}  // namespace vlak::VLAK_NS
