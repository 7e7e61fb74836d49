// Per-target tuning of the softmax row kernels, read by softmax_kernel.cc (one table per target,
// in the style of XNNPACK's config layer). Measurements behind each choice: docs/ops/softmax.md.
//   pow2:            LMUL (vector-group power) of the generic passes for the accurate and the
//                    fast exp (softmax_three_pass.h, and the two-pass row).
//   precise_pow2:    the same for the precise exp, which keeps more register groups live.
//   two_pass_block:  elements per block of the two-pass row's first pass (16 KiB of x: it stays
//                    in L1 between the block's two reads).
//   pipe_max_pow2, pipe_exp_pow2, pipe_scale_pow2: RVV only, LMUL of the max, the exp + sum
//                    (+ store) and the scale pass of softmax_pipelined.h's row; 0 elsewhere.
#pragma once

#include <cstddef>

namespace vlak {

struct SoftmaxConfig {
  int pow2;
  int precise_pow2;
  size_t two_pass_block;
  int pipe_max_pow2;
  int pipe_exp_pow2;
  int pipe_scale_pow2;
};

#if defined(VLAK_SIMD_RVV)
constexpr SoftmaxConfig kSoftmaxConfig{.pow2 = 3, .precise_pow2 = 2, .two_pass_block = 4096,
                                              .pipe_max_pow2 = 3, .pipe_exp_pow2 = 1, .pipe_scale_pow2 = 2};
#elif defined(VLAK_SIMD_AVX512)
constexpr SoftmaxConfig kSoftmaxConfig{.pow2 = 2, .precise_pow2 = 2, .two_pass_block = 4096,
                                              .pipe_max_pow2 = 0, .pipe_exp_pow2 = 0, .pipe_scale_pow2 = 0};
#elif defined(VLAK_SIMD_AVX2)
constexpr SoftmaxConfig kSoftmaxConfig{.pow2 = 2, .precise_pow2 = 2, .two_pass_block = 4096,
                                              .pipe_max_pow2 = 0, .pipe_exp_pow2 = 0, .pipe_scale_pow2 = 0};
#else
constexpr SoftmaxConfig kSoftmaxConfig{.pow2 = 0, .precise_pow2 = 0, .two_pass_block = 4096,
                                              .pipe_max_pow2 = 0, .pipe_exp_pow2 = 0, .pipe_scale_pow2 = 0};
#endif

}  // namespace vlak
