// vlak_add_layernorm_f32 and vlak_add_rmsnorm_f32: argument checks, and rows over threads. The
// row kernels (AddLayerNormRowsF32, AddRmsNormRowsF32 beside the plain norms' kernels) store
// s = x + r (into sum, or into y when sum is NULL) during the norm's first pass and normalise it
// from L1 with the plain norm's arithmetic: y is exactly that operator's result on s, and memory
// sees one read of x and r and one write of y (and sum).
#include "dispatch/dispatch.h"
#include "ops/layernorm/layernorm_kernels.h"
#include "ops/parallel_rows.h"
#include "ops/rmsnorm/rmsnorm_kernels.h"
#include "vlak/vlak.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_LAYERNORM_KERNELS)
VLAK_PER_TARGET_TABLES(VLAK_RMSNORM_KERNELS)

namespace {

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

// The checks, then run(kernel, rows, x, r, s, y, stream) over chunks of rows on threads, where
// kernel is the table's function for the target, taken once for the whole call (vlak_set_target
// may run concurrently), and s (the sum: sum, else y) has sum's stride, else y's.
template <class Fn, class Run>
vlak_status AddNormRows(const PerTarget<Fn>& table, size_t rows, size_t cols, const float* x, size_t x_stride,
                        const float* r, size_t r_stride, float eps, float* y, size_t y_stride, float* sum,
                        size_t sum_stride, Run&& run) {
  bool empty;
  if (const vlak_status st = CheckAddNorm(rows, cols, x, x_stride, r, r_stride, y, y_stride, sum, sum_stride, eps,
                                          &empty);
      st != VLAK_OK || empty) {
    return st;
  }
  auto* const kernel = Dispatch(table);
  const bool stream = StreamOutput(rows * cols * sizeof(float));
  float* const s = sum != nullptr ? sum : y;  // y itself holds s until the norm overwrites it
  const size_t s_stride = sum != nullptr ? sum_stride : y_stride;
  ForEachRowChunk(rows, 2 * cols, [&](int, size_t begin, size_t end) {  // ~16 bytes per element
    run(kernel, end - begin, x + begin * x_stride, r + begin * r_stride, s + begin * s_stride, s_stride,
        y + begin * y_stride, stream);
  });
  return VLAK_OK;
}

}  // namespace
}  // namespace vlak

extern "C" vlak_status vlak_add_layernorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride,
                                              const float* r, size_t r_stride, const float* gamma, const float* beta,
                                              float eps, float* y, size_t y_stride, float* sum, size_t sum_stride) {
  using namespace vlak;
  return AddNormRows(kAddLayerNormRows, rows, cols, x, x_stride, r, r_stride, eps, y, y_stride, sum, sum_stride,
                     [&](auto* kernel, size_t n, const float* xc, const float* rc, float* sc, size_t s_stride,
                         float* yc, bool stream) {
                       kernel(n, cols, xc, x_stride, rc, r_stride, sc, s_stride, gamma, beta, eps, yc, y_stride,
                              stream);
                     });
}

extern "C" vlak_status vlak_add_rmsnorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r,
                                            size_t r_stride, const float* gamma, float eps, float* y, size_t y_stride,
                                            float* sum, size_t sum_stride) {
  using namespace vlak;
  return AddNormRows(kAddRmsNormRows, rows, cols, x, x_stride, r, r_stride, eps, y, y_stride, sum, sum_stride,
                     [&](auto* kernel, size_t n, const float* xc, const float* rc, float* sc, size_t s_stride,
                         float* yc, bool stream) {
                       kernel(n, cols, xc, x_stride, rc, r_stride, sc, s_stride, gamma, eps, yc, y_stride, stream);
                     });
}
