// Strip-mining: walk n elements in strips of at most Lanes(d), with no scalar remainder loop.
//
// Whole strips get the whole-group tag d: on x86 no masking on the hot path; on RVV their vl is
// VLMAX, which clang sees as loop-invariant and sets once, outside the loop. The last, short strip
// (if any) gets SimdN{n - i}: masked loads/stores on x86, vl = n - i on RVV (one vsetvli, no
// scalar tail loop). The strip boundaries are fixed by VLMAX alone rather than by what vsetvl
// returns for the remaining length: the spec lets vsetvl split the last two strips unevenly when
// VLMAX < avl < 2*VLMAX, and fixed boundaries keep reduction orders the same on every
// implementation. The body is a generic lambda, instantiated once per tag kind.
#pragma once

#include <cstddef>

namespace vlak::VLAK_NS {

template <class D, class F>
inline void ForEachStrip(D d, size_t n, F&& body) {
  const size_t vlmax = Lanes(d);
  size_t i = 0;
  for (; n - i >= vlmax; i += vlmax) body(d, i);  // i <= n throughout
  if (i < n) body(Strip(d, n - i), i);
}

}  // namespace vlak::VLAK_NS
