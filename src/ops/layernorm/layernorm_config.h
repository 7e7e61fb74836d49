// Per-target tuning of the LayerNorm row kernels, read by layernorm_kernel.cc (one table per
// target, in the style of XNNPACK's config layer). Measurements: docs/ops/layernorm.md; the LMUL
// of the streaming row kernels (rmsnorm and rope take the same): docs/ops/parallel.md.
//   pow2:           LMUL (vector-group power) of the row passes; the backward's f64 lanes take
//                   pow2 + 1, its row pairs pow2 - 1.
//   row_pairs:      the forward's output passes two rows at a time (Normalize2), each gamma and
//                   beta strip loaded once per pair, unless the output streams (x86, past the L2:
//                   row by row, streamed and prefetched) or rows are longer than pair_max_cols;
//                   false: row by row always.
//   pair_max_cols:  0, or the longest rows taken in pairs (x86: two rows of x and y with gamma
//                   and beta in the 32 KiB L1).
//   backward_pairs: the backward two rows at a time (BackwardRowPair), the column partials loaded
//                   and stored once per pair; false: row by row.
//   backward_pairs_from_memory: pairs also for rows from memory (the API's from_memory: x, dy
//                   and dx past 16 times the L2, x86 only); x86 false: there lone rows ran up to
//                   2x faster (docs/ops/layernorm.md).
//   backward_pairs_min_cols: 0, or the shortest rows the backward takes in pairs (shorter rows go
//                   one at a time); AVX2 2048: rows of 512-1536 columns from the L3 ran 2-11 %
//                   faster one at a time, rows of 2048-4096 5-22 % slower (docs/ops/layernorm.md).
//   backward_ahead_min_cols: 0, or the shortest rows from memory (x86) whose output pass runs beside
//                   the next row's first pass (BackwardRowsAhead), so that the next row's loads from
//                   memory overlap the output pass; AVX2 2048: shorter rows lost (docs/ops/layernorm.md).
//                   AVX-512 0: unmeasured there, and rows of 1536 columns and more go in fours.
//   backward_quad_min_cols: 0, or the shortest rows the backward takes four at a time
//                   (BackwardRowQuad: the partials loaded and stored once per four rows; the same
//                   bits as two pairs). AVX-512 only: on AVX2 (16 registers) it spilled and lost.
//   flush_rows:     the backward's f32 column partials see at most this many rows before they are
//                   added in f64 (a multiple of 4: a row pair or quad must not straddle one).
//   strided_samples: the forward's 16 shift samples by one strided vector load (RVV's vlse32);
//                   false: 16 scalar loads (x86's gathers cost more than the loads).
//   ahead_max_cols: 0, or the longest paired rows run one pair ahead: the next pair's first
//                   passes between this pair's statistics and its output pass, so that the
//                   statistics' f64 tails run under those passes (x86: four rows of x, two of y,
//                   gamma and beta stay in L1 up to 768 columns; at 1024 they did not).
#pragma once

#include <cstddef>

namespace vlak {

struct LayerNormConfig {
  int pow2;
  bool row_pairs;
  size_t pair_max_cols;
  bool backward_pairs;
  bool backward_pairs_from_memory;
  size_t backward_pairs_min_cols;
  size_t backward_ahead_min_cols;
  size_t backward_quad_min_cols;
  size_t flush_rows;
  bool strided_samples;
  size_t ahead_max_cols;
};

#if defined(VLAK_SIMD_RVV)
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 2, .row_pairs = true, .pair_max_cols = 0,
                                           .backward_pairs = true, .backward_pairs_from_memory = true,
                                           .backward_pairs_min_cols = 0, .backward_ahead_min_cols = 0,
                                           .backward_quad_min_cols = 0, .flush_rows = 16, .strided_samples = true,
                                           .ahead_max_cols = 0};
#elif defined(VLAK_SIMD_AVX512)
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 1, .row_pairs = true, .pair_max_cols = 1024,
                                           .backward_pairs = true, .backward_pairs_from_memory = false,
                                           .backward_pairs_min_cols = 0, .backward_ahead_min_cols = 0,
                                           .backward_quad_min_cols = 1536, .flush_rows = 16, .strided_samples = false,
                                           .ahead_max_cols = 768};
#elif defined(VLAK_SIMD_AVX2)
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 1, .row_pairs = true, .pair_max_cols = 1024,
                                           .backward_pairs = true, .backward_pairs_from_memory = false,
                                           .backward_pairs_min_cols = 2048, .backward_ahead_min_cols = 2048,
                                           .backward_quad_min_cols = 0, .flush_rows = 16, .strided_samples = false,
                                           .ahead_max_cols = 768};
#else
constexpr LayerNormConfig kLayerNormConfig{.pow2 = 0, .row_pairs = false, .pair_max_cols = 0,
                                           .backward_pairs = false, .backward_pairs_from_memory = false,
                                           .backward_pairs_min_cols = 0, .backward_ahead_min_cols = 0,
                                           .backward_quad_min_cols = 0, .flush_rows = 16, .strided_samples = false,
                                           .ahead_max_cols = 0};
#endif

}  // namespace vlak
