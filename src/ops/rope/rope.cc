// vlak_rope_f32 and vlak_rope_tables_f32: argument checks, head rows over threads, the tables.
#include <cmath>
#include <cstdint>

#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "ops/rope/rope.h"
#include "ops/rope/rope_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_ROPE_KERNELS)

namespace {
// Element count of a [a][b][c] tensor, or false on size_t overflow (in bytes of float).
bool Extent(size_t a, size_t b, size_t c, size_t* out) {
  constexpr size_t kMax = SIZE_MAX / sizeof(float);
  if (b != 0 && a > kMax / b) return false;
  const size_t ab = a * b;
  if (c != 0 && ab > kMax / c) return false;
  *out = ab * c;
  return true;
}
}  // namespace
}  // namespace vlak

extern "C" vlak_status vlak_rope_f32(size_t positions, size_t rows_per_position, size_t head_dim, const float* x,
                                     const float* cos, const float* sin, size_t table_stride, float* y,
                                     unsigned flags) {
  using namespace vlak;
  if ((flags & ~VLAK_ROPE_INTERLEAVED) != 0 || head_dim % 2 != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (positions == 0 || rows_per_position == 0 || head_dim == 0) return VLAK_OK;
  if (x == nullptr || cos == nullptr || sin == nullptr || y == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (table_stride < head_dim / 2) return VLAK_ERROR_INVALID_ARGUMENT;
  // The tables' extent is (positions - 1) * table_stride + head_dim / 2, as every strided operand's:
  // one position with any stride is valid (writing the fuzz target's status oracle showed
  // positions * table_stride refused it).
  // (head_dim / 2 <= kMax once elements fits, so only the row term can overflow.)
  constexpr size_t kMax = SIZE_MAX / sizeof(float);
  size_t elements;
  if (!Extent(positions, rows_per_position, head_dim, &elements) ||
      (positions > 1 && positions - 1 > (kMax - head_dim / 2) / table_stride)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (const vlak_status error = TargetError(); error != VLAK_OK) return error;
  auto* const kernel = Dispatch(kRopeRows);
  const size_t rows = positions * rows_per_position;
#if defined(__x86_64__)
  ForEachRowChunkStreaming(rows, head_dim, elements * sizeof(float), [&](int, size_t begin, size_t end, bool stream) {
    kernel(begin, end, rows_per_position, head_dim, x, cos, sin, table_stride, y, flags, stream);
  });
#else
  // Never streamed here; this form keeps RVV's instruction and cycle budgets.
  ForEachRowChunk(rows, head_dim, [&](int, size_t begin, size_t end) {
    kernel(begin, end, rows_per_position, head_dim, x, cos, sin, table_stride, y, flags, false);
  });
#endif
  return VLAK_OK;
}

extern "C" vlak_status vlak_rope_tables_f32(size_t positions, size_t head_dim, double base, float* cos, float* sin,
                                            size_t table_stride) {
  if (head_dim % 2 != 0 || !(base > 0.0) || !std::isfinite(base)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (positions == 0 || head_dim == 0) return VLAK_OK;
  if (cos == nullptr || sin == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (table_stride < head_dim / 2) return VLAK_ERROR_INVALID_ARGUMENT;
  if (positions > 1 && positions - 1 > (SIZE_MAX / sizeof(float) - head_dim / 2) / table_stride) {
    return VLAK_ERROR_OVERFLOW;
  }
  const size_t half = head_dim / 2;
  for (size_t i = 0; i < half; ++i) {
    const double inv_freq = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(head_dim));
    for (size_t p = 0; p < positions; ++p) {
      const double angle = static_cast<double>(p) * inv_freq;
      cos[p * table_stride + i] = static_cast<float>(std::cos(angle));
      sin[p * table_stride + i] = static_cast<float>(std::sin(angle));
    }
  }
  return VLAK_OK;
}
