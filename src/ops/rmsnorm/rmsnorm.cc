// vlak_rmsnorm_f32: argument checks and rows over threads.
#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "ops/rmsnorm/rmsnorm.h"

namespace vlak {
VLAK_PER_TARGET(kRmsNormRows, void, RmsNormRowsF32,
                (size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, float eps, float* y,
                 size_t y_stride, bool stream))
}  // namespace vlak

extern "C" vlak_status vlak_rmsnorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride,
                                        const float* gamma, float eps, float* y, size_t y_stride) {
  using namespace vlak;
  if (!(eps >= 0.0f)) return VLAK_ERROR_INVALID_ARGUMENT;  // negative or NaN
  if (rows == 0 || cols == 0) return VLAK_OK;
  if (x == nullptr || y == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (x_stride < cols || y_stride < cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (RowsExtentOverflows(rows, cols, x_stride > y_stride ? x_stride : y_stride)) return VLAK_ERROR_OVERFLOW;
  if (x == y && x_stride != y_stride) return VLAK_ERROR_INVALID_ARGUMENT;
  if (const vlak_status error = TargetError(); error != VLAK_OK) return error;
  auto* const kernel = Dispatch(kRmsNormRows);
  const bool stream = StreamOutput(rows * cols * sizeof(float));
  ForEachRowChunk(RowThreads(rows, cols), rows, [&](int, size_t begin, size_t end) {
    kernel(end - begin, cols, x + begin * x_stride, x_stride, gamma, eps, y + begin * y_stride, y_stride, stream);
  });
  return VLAK_OK;
}
