// Array exp kernels (exp_kernels.cc, compiled once per target) and the variant enum.
#pragma once

#include <cstddef>

namespace vlak {

// Same values as the C API's vlak_exp_variant.
enum class ExpVariant : int {
  kSchraudolph = 0,
  kBittrickP3 = 1,
  kBittrickP5 = 2,
  kCephes = 3,
  kAccurate = 4,
  kPrecise = 5,
};
inline constexpr int kNumExpVariants = 6;

}  // namespace vlak

// Per-target part: only in translation units compiled for one target.
#if defined(VLAK_SIMD_SCALAR) || defined(VLAK_SIMD_AVX2) || defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_RVV)
#include "simd/simd.h"

namespace vlak::VLAK_NS {

// LMUL of the array kernel on this target, from a quick measurement (4096 floats in L1, ns per
// element at LMUL 1 / 2 / 4, this shared 2-core machine, so +-10% noise):
//   AVX-512: accurate 0.100 / 0.099 / 0.097, precise 0.131 / 0.129 / 0.120
//   AVX2:    accurate 0.262 / 0.235 / 0.226, precise 0.278 / 0.263 / 0.269
// so x86 takes LMUL 2 (LMUL 4 wins nothing clear and doubles register use). RVV: LMUL 4, a quarter
// of the strips (and vsetvli/loop overhead) of LMUL 1 with no spills (clang 19); at LMUL 8 every
// variant but schraudolph spills. Scalar: 1.
#if defined(VLAK_SIMD_RVV)
inline constexpr int kExpF32Pow2 = 2;
#elif defined(VLAK_SIMD_SCALAR)
inline constexpr int kExpF32Pow2 = 0;
#else
inline constexpr int kExpF32Pow2 = 1;
#endif

// y[i] = exp(x[i]), i < n, with the given variant (a valid one). x == y is allowed.
void ExpF32(ExpVariant variant, const float* x, float* y, size_t n);

}  // namespace vlak::VLAK_NS
#endif
