// The two reference softmax implementations of the RISC-V hackathon softmax (April 2025), for
// `vlak hackathon` and the lab's seed-scalar / seed-rvv rows.
#pragma once

#include <cstddef>

namespace vlak::cli {

// The hackathon's scalar C: three loops (max; libm expf + sum; divide). Compiled without
// auto-vectorisation so it stays the scalar baseline the hackathon measured.
void HackathonScalarLibmSoftmax(const float* x, float* y, size_t n);

// The hackathon's RVV algorithm: LMUL 8, 2^x by the IEEE-754 bit trick with the degree-5 correction,
// vfredosum for the sum, vfdiv by it. False when not built for RVV or the CPU lacks V.
bool HackathonRvvSoftmax(const float* x, float* y, size_t n);

}  // namespace vlak::cli
