// Per-target tuning of the warp kernel, read by warp_kernel.cc (one table per target, in the style
// of XNNPACK's config layer). Measurements: docs/ops/warp.md.
//   taps:       how a pixel's two taps are fetched, by what a gather costs on the target:
//               kPairs: 32-bit slots holding (column p, column p + 1) as int16 halves, one gather;
//               kBytes: byte slots, two vluxei16 byte gathers, int16 arithmetic;
//               kTwo:   32-bit slots, two gathers.
//   pow2:       LMUL (vector-group power) of the int32 lanes of the kPairs and kTwo forms.
//   block:      columns per block, whose source columns are copied to a stack buffer (in L1).
//   group_rows: kBytes: channels (rows sharing one row of offsets) per pass.
//   group_pow2: kBytes: LMUL of the int16 lanes (the index and fraction stay live across the
//               rows: at LMUL 8 they and the taps would not fit).
#pragma once

#include <cstddef>

namespace vlak {

enum class WarpTaps { kTwo, kPairs, kBytes };

struct WarpConfig {
  WarpTaps taps;
  int pow2;
  size_t block;
  size_t group_rows;
  int group_pow2;
};

#if defined(VLAK_SIMD_RVV)
constexpr WarpConfig kWarpConfig{.taps = WarpTaps::kBytes, .pow2 = 3, .block = 1024, .group_rows = 4,
                                        .group_pow2 = 2};
#elif defined(VLAK_SIMD_AVX512)
constexpr WarpConfig kWarpConfig{.taps = WarpTaps::kPairs, .pow2 = 3, .block = 1024, .group_rows = 4,
                                        .group_pow2 = 2};
#elif defined(VLAK_SIMD_AVX2)
constexpr WarpConfig kWarpConfig{.taps = WarpTaps::kPairs, .pow2 = 3, .block = 1024, .group_rows = 4,
                                        .group_pow2 = 2};
#else
constexpr WarpConfig kWarpConfig{.taps = WarpTaps::kTwo, .pow2 = 3, .block = 1024, .group_rows = 4,
                                        .group_pow2 = 2};
#endif

}  // namespace vlak
