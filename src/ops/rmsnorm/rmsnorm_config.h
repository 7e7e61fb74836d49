// Per-target tuning of the RMSNorm row kernel, read by rmsnorm_kernel.cc (one table per target, in
// the style of XNNPACK's config layer). Measurements: docs/ops/rmsnorm.md; the LMUL of the
// streaming row kernels (layernorm and rope take the same): docs/ops/parallel.md.
//   pow2:     LMUL (vector-group power) of the sum pass, and of the output pass row by row.
//   out_pow2: LMUL of the grouped output pass (group > 1): gamma, x and a product, 3 groups.
//   group:    rows per output pass, strips outer and rows inner, so that each gamma strip is
//             loaded once per group; 1: row by row (streamed, prefetched per row).
//   ahead_max_cols: 0, or (group 1) the longest rows run one row ahead when not streamed: row
//             r + 1's sum of squares between row r's rstd and row r's output pass, so that the
//             rstd's latency hides under a sum. Two rows of x, one of y and gamma stay in L1 up to
//             1024 columns; at 2048 they did not, and rows ahead were 30 % slower (x86 on Zen 4).
#pragma once

#include <cstddef>

namespace vlak {

struct RmsNormConfig {
  int pow2;
  int out_pow2;
  size_t group;
  size_t ahead_max_cols;
};

#if defined(VLAK_SIMD_RVV)
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 2, .out_pow2 = 3, .group = 4, .ahead_max_cols = 0};
#elif defined(VLAK_SIMD_AVX512)
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 1, .out_pow2 = 1, .group = 1, .ahead_max_cols = 1024};
#elif defined(VLAK_SIMD_AVX2)
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 1, .out_pow2 = 1, .group = 1, .ahead_max_cols = 1024};
#else
constexpr RmsNormConfig kRmsNormConfig{.pow2 = 0, .out_pow2 = 0, .group = 1, .ahead_max_cols = 0};
#endif

}  // namespace vlak
