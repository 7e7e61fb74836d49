// Running the NPU softmax programs over sets of rows and measuring them against float64
// (shared by tests/npu and `vlak npu accuracy`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/npu.h"

namespace vlak::npu {

// Runs `program` (text with a `row:` label; everything before it runs once: the table loads)
// on rows of k int8 values, concatenated in `rows`, with the given symbols. Each row is fed
// through the input stream and must produce k outputs. False with *error on failure.
bool RunRows(const std::string& program, int k, const Symbols& symbols, const std::vector<int8_t>& rows,
             std::vector<int64_t>* out, std::string* error);

// The tutorial's program (seed_softmax.s) from its `row:` label, VX0 preset to each row (SQ1.6 scores), k = 8 typically.
bool RunSeedRows(int k, const std::vector<int8_t>& rows, std::vector<int64_t>* out, std::string* error);

// float64 softmax of scale*q over a row, then the int8 reference
// clamp(floor(256 p + 0.5) - 128, -128, 127) (scale 1/256, zero point -128).
void ReferenceI8(const int8_t* q, int k, double scale, int* y);
// The tutorial's output unit: p in 1/128 (2^14 / 2^7), floor(128 p + 0.5); logits = q / 64 (SQ1.6).
void ReferenceSeed(const int8_t* q, int k, int* y);

// Differences y - reference in LSB.
struct ErrorStats {
  int64_t n = 0;
  int64_t max_abs = 0;
  double sum = 0, sum_abs = 0;
  std::vector<int64_t> hist = std::vector<int64_t>(1023, 0);  // delta + 511
  void Add(int64_t delta);
  void Merge(const ErrorStats& o);
  double Mean() const { return n ? sum / static_cast<double>(n) : 0; }
  double MeanAbs() const { return n ? sum_abs / static_cast<double>(n) : 0; }
  int64_t Median() const;
  // TFLite's contract: max |d| <= 1, median 0, |mean| < 0.02, mean |d| < 0.03.
  bool MeetsContract() const { return max_abs <= 1 && Median() == 0 && Mean() < 0.02 && Mean() > -0.02 && MeanAbs() < 0.03; }
};

// The int8 softmax test sets (rows of k int8 values, concatenated).
std::vector<int8_t> AllPairsK2();                           // 65,536 rows
std::vector<int8_t> DifferencePairsK3(int stride = 1);      // (c, c+a, c+b) for every feasible a, b (step `stride`)
std::vector<int8_t> TwoLevel(int k, int stride = 1);        // j lanes at a, k-j at a-g, every j, g (a = 127)
std::vector<int8_t> Bimodal(int k, size_t rows, uint32_t seed);
std::vector<int8_t> RandomRows(int k, size_t rows, uint32_t seed);
std::vector<int8_t> SaturationRow(int k);                   // [127, -128 x (k-1)]

// Runs `program` on rows at `scale`, accumulating the error against ReferenceI8.
bool Measure(const std::string& program, int k, double scale, const std::vector<int8_t>& rows, ErrorStats* stats,
             std::string* error);

// The GEMM + softmax program for K lanes (queries and keys) and depth d <= 8 (L = 32):
// softmax(Q K^T scale) per query row, mma into int32, the corrected 16-bit-exp softmax with an
// index step `step` (logit units per table entry). Inputs: Q^T then K^T as d VX rows each.
std::string GemmSoftmaxProgram(int k, int depth, double scale, double step);

// `trials` random Q, K (int8, k x depth each) through GemmSoftmaxProgram, every output against
// clamp(floor(256 p + 0.5) - 128) of the float64 softmax(Q K^T scale).
bool MeasureGemm(int k, int depth, double scale, double step, int trials, uint32_t seed, ErrorStats* stats,
                 std::string* error);

}  // namespace vlak::npu
