// Published single-thread throughputs on the SpacemiT K1, and vlak's X60-model figures in the same
// unit (`vlak report`'s RISC-V section).
#pragma once

#include <vector>

namespace vlak::lab {

// One operator's single-thread row ("T1") from a public Triton-on-RISC-V study measured on the
// SpacemiT K1 (8 in-order dual-issue X60 cores, RVV 1.0, VLEN 256; here 1.6 GHz): AI-Benchmark's C
// operators built by GCC 15.0.0 and by Terapines' ZCC 3.2.4, and the Triton-CPU kernels, all at -O3,
// each the study's "Average(GB/s)" over its input shapes.
//
// The unit. The study normalises each time by the operator's time complexity and prints the result
// as "GB/s"; AI-Benchmark's plot script divides the shape product times the run count by the total
// time and by `10e9` (= 1e10). So a "GB/s" there is 1e10 elements per second, an element being one
// unit of the shape product (matmul M x N x K, softmax and layernorm rows x columns, rope
// seq x batch x heads x dim, resize input pixels x channels, warp pixels x channels, correlation
// its four dims), whatever the data type: a convention of 0.1 byte per element for every operator,
// not bytes moved. The lab's `norm` column is that unit (stats.h, NormalisedUnit).
struct K1Published {
  const char* name;                 // the study's operator
  std::vector<const char*> lab_ops; // the lab operators whose cycles per element add up to it
  double gcc, zcc, triton;          // "GB/s" (1e10 elements/s), one thread
  const char* note;
};

const std::vector<K1Published>& K1PublishedT1();

// The K1 cores' clock the model figures are converted at.
inline constexpr double kK1Hz = 1.6e9;

// A model's cycles per element at kK1Hz in the study's unit: elements/s / 1e10.
inline double K1NormFromCycles(double cycles_per_element) { return kK1Hz / cycles_per_element / 1e10; }

}  // namespace vlak::lab
