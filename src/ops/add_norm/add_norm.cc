// vlak_add_layernorm_f32 and vlak_add_rmsnorm_f32: argument checks, and rows over threads in
// groups that stay in L1: each group's sums s = x + r are written (to sum, or to y when sum is
// NULL) and normalised at once by the layernorm / rmsnorm row kernels, so y is exactly those
// operators' result on s, and memory sees one read of x and r and one write of y (and sum).
#include "dispatch/dispatch.h"
#include "ops/add_norm/add_norm_kernels.h"
#include "ops/layernorm/layernorm_kernels.h"
#include "ops/parallel_rows.h"
#include "ops/rmsnorm/rmsnorm_kernels.h"
#include "vlak/vlak.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_ADD_NORM_KERNELS)
VLAK_PER_TARGET_TABLES(VLAK_LAYERNORM_KERNELS)
VLAK_PER_TARGET_TABLES(VLAK_RMSNORM_KERNELS)

namespace {

// Rows per group: the sums of a group (at most 16 KiB, or one row) are read back from L1.
constexpr size_t kGroupBytes = 16 * 1024;

// Both operators' checks: vlak.h's error list, in the order the other norms check.
vlak_status CheckAddNorm(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r, size_t r_stride,
                         const float* y, size_t y_stride, const float* sum, size_t sum_stride, float eps,
                         bool* empty) {
  *empty = false;
  if (!(eps >= 0.0f)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (rows == 0 || cols == 0) {
    *empty = true;
    return VLAK_OK;
  }
  if (x == nullptr || r == nullptr || y == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (x_stride < cols || r_stride < cols || y_stride < cols || (sum != nullptr && sum_stride < cols)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  size_t widest = x_stride > r_stride ? x_stride : r_stride;
  if (y_stride > widest) widest = y_stride;
  if (sum != nullptr && sum_stride > widest) widest = sum_stride;
  if (RowsExtentOverflows(rows, cols, widest)) return VLAK_ERROR_OVERFLOW;
  if (y == sum) return VLAK_ERROR_INVALID_ARGUMENT;
  const auto same_buffer_other_stride = [](const float* a, size_t as, const float* b, size_t bs) {
    return a == b && as != bs;
  };
  if (same_buffer_other_stride(y, y_stride, x, x_stride) || same_buffer_other_stride(y, y_stride, r, r_stride) ||
      same_buffer_other_stride(sum, sum_stride, x, x_stride) || same_buffer_other_stride(sum, sum_stride, r, r_stride)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return TargetError();
}

// norm(first row, rows, s, s_stride) for each group of the call's rows, after s = x + r.
template <class Norm>
void AddNormRows(Target target, size_t rows, size_t cols, const float* x, size_t x_stride, const float* r,
                 size_t r_stride, float* y, size_t y_stride, float* sum, size_t sum_stride, Norm&& norm) {
  auto* const add = Dispatch(kAddRows, target);
  float* const s = sum != nullptr ? sum : y;
  const size_t s_stride = sum != nullptr ? sum_stride : y_stride;
  size_t group = kGroupBytes / (cols * sizeof(float));
  if (group == 0) group = 1;
  ForEachRowChunk(rows, 2 * cols, [&](int, size_t begin, size_t end) {  // ~16 bytes per element
    for (size_t g = begin; g < end; g += group) {
      const size_t n = end - g < group ? end - g : group;
      add(n, cols, x + g * x_stride, x_stride, r + g * r_stride, r_stride, s + g * s_stride, s_stride);
      norm(g, n, s + g * s_stride, s_stride);
    }
  });
}

}  // namespace
}  // namespace vlak

extern "C" vlak_status vlak_add_layernorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride,
                                              const float* r, size_t r_stride, const float* gamma, const float* beta,
                                              float eps, float* y, size_t y_stride, float* sum, size_t sum_stride) {
  using namespace vlak;
  bool empty;
  if (const vlak_status st = CheckAddNorm(rows, cols, x, x_stride, r, r_stride, y, y_stride, sum, sum_stride, eps,
                                          &empty);
      st != VLAK_OK || empty) {
    return st;
  }
  const Target target = ActiveTarget();  // one target for the whole call (vlak_set_target may run concurrently)
  auto* const kernel = Dispatch(kLayerNormRows, target);
  const bool stream = StreamOutput(rows * cols * sizeof(float));
  AddNormRows(target, rows, cols, x, x_stride, r, r_stride, y, y_stride, sum, sum_stride,
              [&](size_t g, size_t n, const float* s, size_t s_stride) {
                kernel(n, cols, s, s_stride, gamma, beta, eps, y + g * y_stride, y_stride, nullptr, nullptr, stream);
              });
  return VLAK_OK;
}

extern "C" vlak_status vlak_add_rmsnorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r,
                                            size_t r_stride, const float* gamma, float eps, float* y, size_t y_stride,
                                            float* sum, size_t sum_stride) {
  using namespace vlak;
  bool empty;
  if (const vlak_status st = CheckAddNorm(rows, cols, x, x_stride, r, r_stride, y, y_stride, sum, sum_stride, eps,
                                          &empty);
      st != VLAK_OK || empty) {
    return st;
  }
  const Target target = ActiveTarget();  // one target for the whole call (vlak_set_target may run concurrently)
  auto* const kernel = Dispatch(kRmsNormRows, target);
  const bool stream = StreamOutput(rows * cols * sizeof(float));
  AddNormRows(target, rows, cols, x, x_stride, r, r_stride, y, y_stride, sum, sum_stride,
              [&](size_t g, size_t n, const float* s, size_t s_stride) {
                kernel(n, cols, s, s_stride, gamma, eps, y + g * y_stride, y_stride, stream);
              });
  return VLAK_OK;
}
