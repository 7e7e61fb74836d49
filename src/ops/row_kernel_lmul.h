// LMUL of the streaming row kernels (layernorm, rmsnorm, rope), per target.
//   RVV 4: every vector instruction retires as one whatever the LMUL, and their passes keep at
//          most 6 groups live (rope: x_a, x_b, cos, sin and two products), so LMUL 4 is the
//          largest that never spills (rvv.spill_check); LMUL 8 would leave 3 groups.
//   x86 2: measured against LMUL 4 on the Xeon (AVX-512), layernorm 32x8192 in L2: LMUL 4 was
//          16% slower (0.081 vs 0.070 ms); the sums' chains are short enough at 2.
//   scalar 1.
#pragma once

#include "simd/simd.h"

namespace vlak::VLAK_NS {
#if defined(VLAK_SIMD_RVV)
inline constexpr int kRowKernelPow2 = 2;
#elif defined(VLAK_SIMD_SCALAR)
inline constexpr int kRowKernelPow2 = 0;
#else
inline constexpr int kRowKernelPow2 = 1;
#endif
}  // namespace vlak::VLAK_NS
