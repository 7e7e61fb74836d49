// Seed 000's two reference softmax implementations, for `vlak hackathon`.
#pragma once

#include <cstddef>

namespace vlak::cli {

// The seed's scalar C: three loops (max; libm expf + sum; divide). Compiled without
// auto-vectorisation so it stays the scalar baseline the seed measured.
void SeedScalarLibmSoftmax(const float* x, float* y, size_t n);

// The seed's RVV algorithm: LMUL 8, 2^x by the IEEE-754 bit trick with the degree-5 correction,
// vfredosum for the sum, vfdiv by it. False when not built for RVV or the CPU lacks V.
bool SeedRvvSoftmax(const float* x, float* y, size_t n);

}  // namespace vlak::cli
