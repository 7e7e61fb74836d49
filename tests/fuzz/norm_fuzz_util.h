// Decoding shared by the fuzz targets of the row normalisations (src/ops/*norm/).
#pragma once

#include "fuzz/fuzz_util.h"

namespace vlak_fuzz {

// eps values: the usual ones, 0 (a constant row is then 0/0), huge, and the invalid negative/NaN.
inline float DecodeEps(Input& in) {
  static const float kEps[] = {1e-5f, 1e-6f, 0.0f, 1e-12f, 1.0f, 1e30f, -1e-5f, std::numeric_limits<float>::quiet_NaN()};
  return kEps[in.Byte() & 7];
}

// The end of a norm's call, read after its own options: a byte naming a NULL pointer (1: x, 2: y);
// and what vlak.h's rules make of the call over s with eps: an error for a negative or NaN eps,
// and on a non-empty shape for a NULL pointer or a bad stride.
struct NormCall {
  NormCall(Input& in, const RowsXY& s, float eps) {
    const uint8_t nulls = in.Byte();
    x_null = nulls == 1;
    y_null = nulls == 2;
    empty = s.rows == 0 || s.cols == 0;
    expect_error = !(eps >= 0.0f) || (!empty && (x_null || y_null || s.StrideError()));
    xe = s.XElems();
    ye = s.YElems();
  }
  bool x_null, y_null, empty, expect_error;
  size_t xe, ye;  // x's and y's extents in floats (RowsXY); the harness allocates up to kMaxElems
};

}  // namespace vlak_fuzz
