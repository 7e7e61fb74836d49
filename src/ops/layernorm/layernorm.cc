// vlak_layernorm_f32 and vlak_layernorm_backward_f32: argument checks, rows over threads, and
// the backward's deterministic reduction of dgamma/dbeta.
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include "dispatch/dispatch.h"
#include "ops/layernorm/layernorm.h"
#include "ops/parallel_rows.h"

namespace vlak {
VLAK_PER_TARGET(kLayerNormRows, void, LayerNormRowsF32,
                (size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma, const float* beta,
                 float eps, float* y, size_t y_stride, float* mean, float* rstd, bool stream))
VLAK_PER_TARGET(kLayerNormBackwardRows, void, LayerNormBackwardRowsF32,
                (size_t rows, size_t cols, const float* dy, const float* x, size_t stride, const float* gamma,
                 const float* mean, const float* rstd, float* dx, float* acc_g, float* acc_b, double* sum_g,
                 double* sum_b, bool stream))
VLAK_PER_TARGET(kLayerNormColumnSums, void, LayerNormColumnSumsF32,
                (const double* sums, size_t chunk_stride, int chunks, size_t cols, float* out))
}  // namespace vlak

extern "C" vlak_status vlak_layernorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride,
                                          const float* gamma, const float* beta, float eps, float* y,
                                          size_t y_stride, float* mean, float* rstd) {
  using namespace vlak;
  bool empty;
  if (const vlak_status st = CheckNormRows(rows, cols, x, x_stride, y, y_stride, eps, &empty); st != VLAK_OK || empty) {
    return st;
  }
  auto* const kernel = Dispatch(kLayerNormRows);
  const bool stream = StreamOutput(rows * cols * sizeof(float));
  static constinit ThreadPlanner planner;
  ForEachRowChunk(planner, rows, cols, [&](int, size_t begin, size_t end) {
    kernel(end - begin, cols, x + begin * x_stride, x_stride, gamma, beta, eps, y + begin * y_stride, y_stride,
           mean != nullptr ? mean + begin : nullptr, rstd != nullptr ? rstd + begin : nullptr, stream);
  });
  return VLAK_OK;
}

extern "C" vlak_status vlak_layernorm_backward_f32(size_t rows, size_t cols, const float* dy, const float* x,
                                                   size_t stride, const float* gamma, const float* mean,
                                                   const float* rstd, float* dx, float* dgamma, float* dbeta) {
  using namespace vlak;
  if (rows == 0 || cols == 0) return VLAK_OK;
  if (dy == nullptr || x == nullptr || mean == nullptr || rstd == nullptr || dx == nullptr) {
    return VLAK_ERROR_NULL_POINTER;
  }
  if (stride < cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (RowsExtentOverflows(rows, cols, stride)) return VLAK_ERROR_OVERFLOW;
  if (const vlak_status error = TargetError(); error != VLAK_OK) return error;
  // One target for the whole call (vlak_set_target may run concurrently): rows and column sums.
  const Target target = ActiveTarget();
  auto* const kernel = Dispatch(kLayerNormBackwardRows, target);
  const bool columns = dgamma != nullptr || dbeta != nullptr;
  const int threads = RowThreads(rows, cols);
  const bool stream = StreamOutput(rows * cols * sizeof(float));
  // Per chunk (thread): f32 partials and f64 sums of both column sums. The chunks' f64 sums are
  // added in chunk order, so the result depends on the thread count only. The scratch is the
  // calling thread's, kept between calls (24 bytes per column and thread).
  thread_local std::vector<float> acc;
  thread_local std::vector<double> sums;
  const size_t chunk = 2 * cols;
  if (columns && acc.size() < chunk * static_cast<size_t>(threads)) {
    try {
      acc.resize(chunk * static_cast<size_t>(threads));
      sums.resize(chunk * static_cast<size_t>(threads));
    } catch (const std::bad_alloc&) {
      return VLAK_ERROR_OVERFLOW;  // as matmul: no out-of-memory status; nothing written yet
    }
  }
  float* const acc_base = acc.data();
  double* const sums_base = sums.data();
  ForEachRowChunk(threads, rows, [&](int t, size_t begin, size_t end) {
    float* const ag = columns ? acc_base + chunk * static_cast<size_t>(t) : nullptr;
    double* const sg = columns ? sums_base + chunk * static_cast<size_t>(t) : nullptr;
    kernel(end - begin, cols, dy + begin * stride, x + begin * stride, stride, gamma, mean + begin, rstd + begin,
           dx + begin * stride, ag, columns ? ag + cols : nullptr, sg, columns ? sg + cols : nullptr, stream);
  });
  if (columns) {
    auto* const column_sums = Dispatch(kLayerNormColumnSums, target);
    if (dgamma != nullptr) column_sums(sums_base, chunk, threads, cols, dgamma);
    if (dbeta != nullptr) column_sums(sums_base + cols, chunk, threads, cols, dbeta);
  }
  return VLAK_OK;
}
