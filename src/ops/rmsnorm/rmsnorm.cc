// vlak_rmsnorm_f32: argument checks and rows over threads.
#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "ops/rmsnorm/rmsnorm.h"
#include "ops/rmsnorm/rmsnorm_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_RMSNORM_KERNELS)
}  // namespace vlak

extern "C" vlak_status vlak_rmsnorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride,
                                        const float* gamma, float eps, float* y, size_t y_stride) {
  using namespace vlak;
  return NormRows(kRmsNormRows, rows, cols, x, x_stride, y, y_stride, eps,
                  [&](auto* kernel, size_t begin, size_t end, bool stream) {
                    kernel(end - begin, cols, x + begin * x_stride, x_stride, gamma, eps, y + begin * y_stride,
                           y_stride, stream);
                  });
}
