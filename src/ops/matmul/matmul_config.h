// Per-target tuning of matmul's kernels, read by matmul_kernel.cc (one table per target, in the
// style of XNNPACK's config layer): the packed kernel's blocks (below) and the direct (unpacked)
// small-m kernel. Measurements: docs/ops/matmul.md.
//   direct_max_m:  calls with m <= this (and B as k x n) take the direct kernel; 0: never (RVV,
//                  whose sizeless vectors the kernel's register arrays cannot hold).
//   direct_any_m:  calls with more rows take it too when B is k x n and in cache and A or B is
//                  small or each thread's rows few (MatmulTakesDirect, matmul.h): where the tile
//                  of direct_rows rows runs at the FMA peak, so that skipping B's packing is a
//                  gain (AVX-512's 16 x 1 zmm tile on Zen 4, which splits zmm operations: the
//                  switch MatmulDirectAnyRows in matmul.cc; AVX2's 8 x 1 ymm tile was 1.4-1.6x
//                  slower than the packed kernel).
//   direct_rows:   rows of C per pass over B (a register tile of rows x vectors).
//   direct_cache_rows: 0, or, for B in cache, passes of at most this many rows, of balanced
//                  heights (AVX2: 16 rows as 6 + 5 + 5, not 8 + 8): where the tiles for the
//                  tallest passes are one vector wide and cost more per row than two shorter
//                  passes over B from the cache (docs/ops/matmul.md). B from memory keeps passes
//                  of direct_rows, each a read of B.
//   direct_regs:   vector registers for the tile's accumulators and B vectors: a pass over r rows
//                  uses vectors = min(direct_max_vectors, direct_regs / (r + 1)), at least 1
//                  (AVX2 14: at 15, 4 rows took a 4 x 3 tile, 1.7x slower than 4 x 2).
//   direct_kc:     k block, B as k x n: the chains are stored to C and reloaded every kc steps
//                  (exact). A block's kc rows of B are read as kc streams, strip after strip; the
//                  x86 tile asks for the next strip's line of each row as it reads its own, so
//                  the streams need not be few enough for the hardware prefetchers to follow
//                  (256 rows 16 KiB apart were not) and the reloads of C stay rare.
//   direct_kc_trans: k block of W's strip transposed at a time with TRANS_B, in cache (a buffer
//                  of this many steps on the stack).
//   direct_kc_stream, direct_stream_rows: the k block of a pass over at most direct_stream_rows
//                  rows of C, B as k x n, when B comes from memory (more than 8 times the per-core
//                  L2, the row operators' rule: parallel_rows.h) or the pass is one row: fewer
//                  streams in flight, and these passes wait on B, not on the C reloads.
//   direct_kc_trans_stream: with TRANS_B, the k block of W's strip transposed at a time, under the
//                  same rule (a pooled buffer of this many steps; 0: the direct_kc block always).
//                  Each of the strip's rows of W is then read direct_kc_trans_stream floats at a
//                  time, prefetched two blocks ahead into L2, instead of 32 floats.
#pragma once

#include <cstddef>

namespace vlak {

struct MatmulDirectConfig {
  size_t direct_max_m;
  bool direct_any_m;
  size_t direct_rows;
  size_t direct_regs;
  size_t direct_max_vectors;
  size_t direct_kc;
  size_t direct_kc_trans;
  size_t direct_kc_stream;
  size_t direct_stream_rows;
  size_t direct_kc_trans_stream;
  size_t direct_cache_rows;
};

// Not `inline`: each target's build defines its own table, so each has internal linkage.
#if defined(VLAK_SIMD_RVV)
constexpr MatmulDirectConfig kMatmulDirectConfig{0, false, 1, 1, 1, 256, 256, 256, 0, 0, 0};
#elif defined(VLAK_SIMD_AVX512)
constexpr MatmulDirectConfig kMatmulDirectConfig{16, true, 16, 30, 8, 128, 32, 8, 8, 256, 0};
#elif defined(VLAK_SIMD_AVX2)
constexpr MatmulDirectConfig kMatmulDirectConfig{16, false, 8, 14, 8, 32, 32, 8, 8, 256, 6};
#else
constexpr MatmulDirectConfig kMatmulDirectConfig{16, false, 4, 12, 2, 32, 32, 32, 0, 0, 0};
#endif

// The packed (blocked) kernel's blocks, per target:
//   kc:           k block: the A micro-panel (MR x kc floats) stays in L1 while the B panels stream,
//                 and C is loaded and stored once per k block.
//   block_floats: the B block (kc x nc floats) packed at a time by one thread, in L2.
struct MatmulBlockConfig {
  size_t kc;
  size_t block_floats;
};
#if defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_AVX2)
constexpr MatmulBlockConfig kMatmulBlockConfig{512, size_t{1} << 18};
#else
constexpr MatmulBlockConfig kMatmulBlockConfig{256, size_t{1} << 18};
#endif

// Vectors per pass over r rows.
constexpr size_t MatmulDirectVectors(const MatmulDirectConfig& cfg, size_t r) {
  const size_t v = cfg.direct_regs / (r + 1);
  return v < 1 ? 1 : (v > cfg.direct_max_vectors ? cfg.direct_max_vectors : v);
}

}  // namespace vlak
