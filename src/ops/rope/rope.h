// RoPE internals shared by the API, tests and the lab.
#pragma once

#include <cstddef>

namespace vlak {

// Float64 reference of one head row of head_dim elements with its position's tables (cos, sin:
// head_dim / 2 entries each): the rotation of vlak.h computed in double.
void RopeReferenceF64(const float* x, const float* cos, const float* sin, size_t head_dim, unsigned flags, double* y);

}  // namespace vlak
