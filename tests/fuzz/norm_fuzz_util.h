// Decoding shared by the fuzz targets of the row normalisations (src/ops/*norm/).
#pragma once

#include "fuzz/fuzz_util.h"

namespace vlak_fuzz {

// eps values: the usual ones, 0 (a constant row is then 0/0), huge, and the invalid negative/NaN.
inline float DecodeEps(Input& in) {
  static const float kEps[] = {1e-5f, 1e-6f, 0.0f, 1e-12f, 1.0f, 1e30f, -1e-5f, std::numeric_limits<float>::quiet_NaN()};
  return kEps[in.Byte() & 7];
}

}  // namespace vlak_fuzz
