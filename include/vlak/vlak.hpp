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

// ---- matmul -------------------------------------------------------------------------------
// C = A * B (or A * B^T with VLAK_MATMUL_TRANS_B, C += ... with VLAK_MATMUL_ACCUMULATE) for dense
// row-major A (m x k), B (k x n, or n x k) and C (m x n): each span's size must be exactly that.
inline vlak_status Matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, size_t m, size_t n,
                          size_t k, unsigned flags = 0) {
  auto holds = [](size_t size, size_t rows, size_t cols) {
    return (cols == 0 || rows <= size / cols) && size == rows * cols;
  };
  if (!holds(a.size(), m, k) || !holds(b.size(), k, n) || !holds(c.size(), m, n)) return VLAK_ERROR_INVALID_ARGUMENT;
  const size_t ldb = (flags & VLAK_MATMUL_TRANS_B) != 0 ? k : n;
  return vlak_matmul_f32(m, n, k, a.data(), k, b.data(), ldb, c.data(), n, flags);
}

}  // namespace vlak
