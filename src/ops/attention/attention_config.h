// Per-target tuning of the attention kernel, read by attention_kernel.cc (one table per target, in
// the style of XNNPACK's config layer). Tiles, blocks and their measurements: docs/ops/attention.md.
//   pow2:           LMUL (vector-group power) of the S and P V tiles: NR = the lanes of that group.
//   mr:             rows of a register tile (MR); the tiles take mr x (pow2's group) accumulators.
//   br_tiles:       rows of a unit (BR) in tiles: BR = br_tiles * mr.
//   min_block_keys: keys per block (BC) = this, rounded up to a multiple of NR.
//   dot_keys:       the dot path's keys per pass over a group's rows; 0: the whole block at once.
//   dot_pow2:       LMUL of the dot path (units under MR rows); RVV: half the group, so that four
//                   accumulators, q and four keys fit the 32 registers (at LMUL 4 they spilled).
//   exp_pow2:       LMUL of p = exp(s - m) and its sum.
//   scalar_pack:    full K panels copied element by element (a load and a store per float)
//                   instead of by strided loads (x86: vgatherdps).
#pragma once

#include <cstddef>

namespace vlak {

struct AttentionConfig {
  int pow2;
  size_t mr;
  size_t br_tiles;
  size_t min_block_keys;
  size_t dot_keys;
  int dot_pow2;
  int exp_pow2;
  bool scalar_pack;
};

#if defined(VLAK_SIMD_RVV)
// Tiles 6 x 4 + 4 = 28 registers.
constexpr AttentionConfig kAttentionConfig{.pow2 = 2, .mr = 6, .br_tiles = 16, .min_block_keys = 256,
                                                  .dot_keys = 0, .dot_pow2 = 1, .exp_pow2 = 2, .scalar_pack = false};
#elif defined(VLAK_SIMD_AVX512)
// Tiles 6 x 4 + 4 + 1 = 29 zmm.
constexpr AttentionConfig kAttentionConfig{.pow2 = 2, .mr = 6, .br_tiles = 16, .min_block_keys = 256,
                                                  .dot_keys = 64, .dot_pow2 = 2, .exp_pow2 = 2, .scalar_pack = true};
#elif defined(VLAK_SIMD_AVX2)
// Tiles 6 x 2 + 2 + 1 = 15 ymm.
constexpr AttentionConfig kAttentionConfig{.pow2 = 1, .mr = 6, .br_tiles = 16, .min_block_keys = 256,
                                                  .dot_keys = 64, .dot_pow2 = 1, .exp_pow2 = 2, .scalar_pack = true};
#else
constexpr AttentionConfig kAttentionConfig{.pow2 = 0, .mr = 4, .br_tiles = 16, .min_block_keys = 256,
                                                  .dot_keys = 0, .dot_pow2 = 0, .exp_pow2 = 0, .scalar_pack = false};
#endif

}  // namespace vlak
