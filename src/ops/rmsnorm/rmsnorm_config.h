// Per-target tuning of the RMSNorm row kernel, read by rmsnorm_kernel.cc (one table per target, in
// the style of XNNPACK's config layer). Measurements: docs/ops/rmsnorm.md; the LMUL of the
// streaming row kernels (layernorm and rope take the same): docs/ops/parallel.md.
//   pow2:     LMUL (vector-group power) of the sum pass, and of the output pass row by row.
//   out_pow2: LMUL of the grouped output pass (group > 1): gamma, x and a product, 3 groups.
//   group:    rows per output pass, strips outer and rows inner, so that each gamma strip is
//             loaded once per group; 1: row by row (streamed, prefetched per row).
#pragma once

#include <cstddef>

namespace vlak {

struct RmsNormConfig {
  int pow2;
  int out_pow2;
  size_t group;
};

#if defined(VLAK_SIMD_RVV)
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 2, .out_pow2 = 3, .group = 4};
#elif defined(VLAK_SIMD_AVX512)
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 1, .out_pow2 = 1, .group = 1};
#elif defined(VLAK_SIMD_AVX2)
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 1, .out_pow2 = 1, .group = 1};
#else
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 0, .out_pow2 = 0, .group = 1};
#endif

}  // namespace vlak
