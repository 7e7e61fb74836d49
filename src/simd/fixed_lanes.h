// Lane counts of the fixed-width targets (scalar, AVX2, AVX-512), written once: each target
// header defines kRegisterBytes (16, 32, 64) and then includes this. RVV's counts are run-time
// values (rvv.h).
#pragma once

#include "tags.h"

namespace vlak::VLAK_NS {

template <class D>
constexpr size_t MaxLanes(D) {
  return (kRegisterBytes / sizeof(TFromD<D>)) << Pow2FromD<D>;
}

// Active lanes: the whole group for Simd, n for a strip.
template <typename T, int k>
constexpr size_t Lanes(Simd<T, k> d) { return MaxLanes(d); }
template <typename T, int k>
constexpr size_t Lanes(SimdN<T, k> d) { return d.n; }

}  // namespace vlak::VLAK_NS
