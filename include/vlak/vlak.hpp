// vlak C++ API: thin, allocation-free overloads of the C API over std::span.
#pragma once

#include <span>

#include "vlak/vlak.h"

namespace vlak {

// Softmax of one contiguous row: y.size() must equal x.size().
inline vlak_status Softmax(std::span<const float> x, std::span<float> y, unsigned flags = 0) {
  if (x.size() != y.size()) return VLAK_ERROR_INVALID_ARGUMENT;
  if (x.empty()) return VLAK_OK;
  return vlak_softmax_f32(1, x.size(), x.data(), x.size(), y.data(), y.size(), flags);
}

// Row-wise softmax of a rows x cols matrix stored densely (stride = cols) in x and y.
inline vlak_status Softmax(std::span<const float> x, std::span<float> y, size_t rows, size_t cols,
                           unsigned flags = 0) {
  if (cols != 0 && rows > x.size() / cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (x.size() != rows * cols || y.size() != rows * cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (rows == 0 || cols == 0) return VLAK_OK;
  return vlak_softmax_f32(rows, cols, x.data(), cols, y.data(), cols, flags);
}

}  // namespace vlak
