// Helpers shared by the SFPI kernels, in SFPI (per target).
#pragma once

#include <initializer_list>

#include "sfpi/sfpi.h"

namespace vlak::VLAK_NS::sfpi_kernels {
using namespace ::vlak::VLAK_NS::sfpi;

// c[0] + x (c[1] + x (c[2] + ...)) by Horner from the top: one SFPMAD per coefficient.
inline vFloat Horner(const vFloat& x, std::initializer_list<float> c) {
  const float* p = c.end();
  vFloat r = *--p;
  while (p != c.begin()) r = r * x + vFloat(*--p);
  return r;
}

// The face loop every element-wise kernel runs: 8 rows of dst_reg, dst_reg++.
template <class F>
inline void EachRow(F&& f) {
  for (int d = 0; d < 8; ++d) {
    const vFloat x = dst_reg[0];
    dst_reg[0] = f(x);
    dst_reg++;
  }
}

inline vFloat FromBits(uint32_t bits) { return vFloat::FromLanes(impl::Splat(bits)); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
