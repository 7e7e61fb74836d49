// Per-target tuning of the LayerNorm row kernels, read by layernorm_kernel.cc (one table per
// target, in the style of XNNPACK's config layer). Measurements: docs/ops/layernorm.md; the LMUL
// of the streaming row kernels (rmsnorm and rope take the same): docs/ops/parallel.md.
//   pow2:           LMUL (vector-group power) of the row passes; the backward's f64 lanes take
//                   pow2 + 1, its row pairs pow2 - 1.
//   row_pairs:      the forward's output passes two rows at a time (Normalize2), each gamma and
//                   beta strip loaded once per pair; false: row by row (streamed, prefetched).
//   backward_pairs: the backward two rows at a time (BackwardRowPair), the column partials loaded
//                   and stored once per pair; false: row by row (streamed, prefetched).
//   flush_rows:     the backward's f32 column partials see at most this many rows before they are
//                   added in f64 (even: a row pair must not straddle a flush).
#pragma once

#include <cstddef>

namespace vlak {

struct LayerNormConfig {
  int pow2;
  bool row_pairs;
  bool backward_pairs;
  size_t flush_rows;
};

#if defined(VLAK_SIMD_RVV)
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 2, .row_pairs = true, .backward_pairs = true,
                                                  .flush_rows = 16};
#elif defined(VLAK_SIMD_AVX512)
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 1, .row_pairs = false, .backward_pairs = true,
                                                  .flush_rows = 16};
#elif defined(VLAK_SIMD_AVX2)
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 1, .row_pairs = false, .backward_pairs = true,
                                                  .flush_rows = 16};
#else
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 0, .row_pairs = false, .backward_pairs = false,
                                                  .flush_rows = 16};
#endif

}  // namespace vlak
