// Float64 reference for RoPE: each pair rotated in double.
#include "ops/rope/rope.h"
#include "vlak/vlak.h"

namespace vlak {

void RopeReferenceF64(const float* x, const float* cos, const float* sin, size_t head_dim, unsigned flags, double* y) {
  const size_t half = head_dim / 2;
  for (size_t i = 0; i < half; ++i) {
    const size_t a = (flags & VLAK_ROPE_INTERLEAVED) ? 2 * i : i;
    const size_t b = (flags & VLAK_ROPE_INTERLEAVED) ? 2 * i + 1 : i + half;
    const double c = cos[i], s = sin[i], xa = x[a], xb = x[b];
    y[a] = xa * c - xb * s;
    y[b] = xa * s + xb * c;
  }
}

}  // namespace vlak
