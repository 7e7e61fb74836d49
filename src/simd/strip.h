// Strip-mining: walk n elements in strips of at most Lanes(d), with no scalar remainder loop.
//
// RVV: every strip is a SimdN whose n is vl = min(remaining, VLMAX). vl is clamped here rather
// than taken from vsetvl(remaining), because the spec lets vsetvl split the last two strips
// unevenly (VLMAX < avl < 2*VLMAX); clamping makes the strips, and so the order of any reduction,
// the same on every implementation.
// x86 and scalar: whole strips get the zero-size Simd tag (no masking on the hot path), the last
// partial strip gets a SimdN and its loads/stores are masked. The body is a generic lambda,
// instantiated once per tag kind.
#pragma once

#include <cstddef>

namespace vlak::VLAK_NS {

template <class D, class F>
inline void ForEachStrip(D d, size_t n, F&& body) {
  const size_t vlmax = Lanes(d);
  size_t i = 0;
#if defined(VLAK_SIMD_RVV)
  for (; i < n; ) {
    const size_t vl = n - i < vlmax ? n - i : vlmax;
    body(Strip(d, vl), i);
    i += vl;
  }
#else
  for (; i + vlmax <= n; i += vlmax) body(d, i);
  if (i < n) body(Strip(d, n - i), i);
#endif
}

}  // namespace vlak::VLAK_NS
