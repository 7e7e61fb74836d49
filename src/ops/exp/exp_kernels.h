// Array exp kernels (exp_kernel.cc, compiled once per target) and the variant enum.
#pragma once

#include <cstddef>

#include "dispatch/kernel_list.h"

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

// The array kernel's signature, declared once (dispatch/kernel_list.h): exp.cc builds its
// dispatch table from this list; exp_kernel.cc checks its definition against it.
// ExpF32: y[i] = exp(x[i]), i < n, with the given variant (a valid one). x == y is allowed.
#define VLAK_EXP_KERNELS(X) X(kExpF32, void, ExpF32, (ExpVariant variant, const float* x, float* y, size_t n))

// Per-target part: only in translation units compiled for one target.
#if defined(VLAK_SIMD_SCALAR) || defined(VLAK_SIMD_AVX2) || defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_RVV)
#include "simd/simd.h"

namespace vlak::VLAK_NS {

// LMUL of the array kernel on this target, from a quick measurement (4096 floats in L1, ns per
// element at LMUL 1 / 2 / 4, this shared 2-core machine, so +-10% noise):
//   AVX-512: accurate 0.100 / 0.099 / 0.097, precise 0.131 / 0.129 / 0.120
//   AVX2:    accurate 0.262 / 0.235 / 0.226, precise 0.278 / 0.263 / 0.269
// so x86 takes LMUL 2 (LMUL 4 wins nothing clear and doubles register use).
// RVV: per variant, the largest LMUL without spills (scripts/rvv-spill-check): LMUL 4 for
// schraudolph and bittrick_p3, LMUL 2 for the others. vlak_exp_f32 promises the same bits on
// every target, so it evaluates kFused (exp_common.h), whose Horner addends are splats; clang
// hoists those out of the strip loop and, at LMUL 4 with three or more of them, runs out of
// registers and spills them every strip.
// Retired instructions for 2048 floats (qemu-icount, VLEN 128 / 256 / 512), kFused:
//   schraudolph (LMUL 4) 2347 / 1195 / 619, bittrick_p3 (4) 2487 / 1271 / 663,
//   bittrick_p5 (2) 5437 / 2749 / 1405, cephes (2) 6207 / 3135 / 1599,
//   accurate (2) 5949 / 3005 / 1533, precise (2) 7485 / 3773 / 1917;
//   at LMUL 4 the last four spill but retire fewer: 4046 / 2062 / 1070, 4949 / 2517 / 1301,
//   4174 / 2126 / 1102, 6357 / 3221 / 1653.
//   clang -O3 autovectorised plain C exp (src/ops/exp/exp_peer.c, LMUL 2): 9645 / 5037 / 2733.
// Scalar: 1.
#if defined(VLAK_SIMD_RVV)
template <ExpVariant kVariant>
inline constexpr int kExpF32Pow2 = kVariant == ExpVariant::kSchraudolph || kVariant == ExpVariant::kBittrickP3 ? 2 : 1;
#elif defined(VLAK_SIMD_SCALAR)
template <ExpVariant kVariant>
inline constexpr int kExpF32Pow2 = 0;
#else
template <ExpVariant kVariant>
inline constexpr int kExpF32Pow2 = 1;
#endif

// ExpF32 (VLAK_EXP_KERNELS above), for the tests that call this target's kernel directly.
VLAK_EXP_KERNELS(VLAK_DECLARE_KERNEL)

}  // namespace vlak::VLAK_NS
#endif
