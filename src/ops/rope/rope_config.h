// Per-target tuning of the RoPE kernel, read by rope_kernel.cc (one table per target, in the style
// of XNNPACK's config layer). Measurements: docs/ops/rope.md; the LMUL of the streaming row
// kernels (layernorm and rmsnorm take the same): docs/ops/parallel.md.
//   pow2:        LMUL (vector-group power) of the passes.
//   table_outer: a position's rows strip by strip (PositionRows), the table strips loaded once per
//                position; false: row by row (streamed stores and prefetches per row).
#pragma once

namespace vlak {

struct RopeConfig {
  int pow2;
  bool table_outer;
};

#if defined(VLAK_SIMD_RVV)
constexpr RopeConfig kRopeConfig{.pow2 = 2, .table_outer = true};
#elif defined(VLAK_SIMD_AVX512)
constexpr RopeConfig kRopeConfig{.pow2 = 1, .table_outer = false};
#elif defined(VLAK_SIMD_AVX2)
constexpr RopeConfig kRopeConfig{.pow2 = 1, .table_outer = false};
#else
constexpr RopeConfig kRopeConfig{.pow2 = 0, .table_outer = false};
#endif

}  // namespace vlak
