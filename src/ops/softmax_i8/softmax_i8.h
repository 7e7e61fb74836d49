// INT8 / UINT8 softmax internals shared by the API, the per-target kernels, tests and the lab.
//
// Both modes index everything by d = max(row) - x in [0, 255]: with 8-bit inputs the exp of a
// row element takes at most 256 values, so one 256-entry table per input_scale (built once per
// thread and scale, softmax_i8.cc) replaces every exp, and a 256-entry byte table per row (built
// from that row's sum) replaces every division: the output pass is one byte lookup per element.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vlak {

// TFLite's constants for a softmax of input scale s with beta = 1 (its Prepare: 5 integer bits
// of the scaled difference, PreprocessSoftmaxScaling, CalculateInputRadius).
struct SoftmaxI8Params {
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
  int diff_min = 0;  // x - max below this gives the minimum output
};
// false when s is not in (2^-26, +inf) (TFLite's multiplier s * 2^26 must exceed 1).
bool SoftmaxI8TfliteParams(float input_scale, SoftmaxI8Params* p);

// A call's tables, indexed by d = max - x.
struct SoftmaxI8Tables {
  bool tflite = true;
  // VLAK_SOFTMAX_I8_TFLITE: exp of the rescaled difference -d in Q0.31 (gemmlowp's
  // exp_on_negative_values), 0 where -d < diff_min; and the same rescaled to Q12.19 (the terms
  // TFLite sums).
  int32_t exp_q31[256];
  int32_t sum_q19[256];
  // exp_q31 non-increasing in d (checked when built; true for every scale tried, but the fixed-point
  // exp is not proven monotone): then so is each row's output byte, and a row's table can stop at
  // the first 0.
  bool exp_q31_monotone = false;
  // VLAK_SOFTMAX_I8_LUT: exp(-s d) rounded to float (0 below float's range).
  float exp_f32[256];
};
// The tables for this thread and scale (cached per thread: rebuilt only when the scale or mode
// changes). input_scale must have passed SoftmaxI8TfliteParams.
const SoftmaxI8Tables& SoftmaxI8TablesFor(float input_scale, bool tflite);

}  // namespace vlak
