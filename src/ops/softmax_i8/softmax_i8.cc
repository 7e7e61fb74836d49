// vlak_softmax_i8 / vlak_softmax_u8: argument checks, the per-scale tables, rows over threads.
#include "ops/softmax_i8/softmax_i8.h"

#include <cmath>
#include <cstring>

#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "ops/softmax_i8/softmax_i8_fixed.h"
#include "ops/softmax_i8/softmax_i8_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_SOFTMAX_I8_KERNELS)

bool SoftmaxI8TfliteParams(float input_scale, SoftmaxI8Params* p) {
  // TFLite: real multiplier = min(beta * s * 2^(31 - 5), 2^31 - 1) in double, split by frexp into a
  // Q0.31 mantissa (rounded half away from zero) and a left shift; radius = floor(31 * 2^26 / 2^shift).
  if (!(input_scale > 0.0f) || !std::isfinite(input_scale)) return false;
  const double real = std::fmin(1.0 * static_cast<double>(input_scale) * static_cast<double>(1 << 26),
                                static_cast<double>((int64_t{1} << 31) - 1));
  if (!(real > 1.0)) return false;
  int shift = 0;
  const double q = std::frexp(real, &shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  p->input_multiplier = static_cast<int32_t>(q_fixed);
  p->input_left_shift = shift;
  const double radius = 1.0 * ((1 << 5) - 1) * static_cast<double>(int64_t{1} << 26) /
                        static_cast<double>(int64_t{1} << shift);
  p->diff_min = -static_cast<int>(std::floor(radius));
  return true;
}

namespace {

void BuildTables(float input_scale, bool tflite, SoftmaxI8Tables* t) {
  t->tflite = tflite;
  if (tflite) {
    SoftmaxI8Params p;
    SoftmaxI8TfliteParams(input_scale, &p);
    for (int d = 0; d < 256; ++d) {
      int32_t e = 0;
      if (-d >= p.diff_min) {
        // MultiplyByQuantizedMultiplierGreaterThanOne(-d): |-d * 2^shift| < 31 * 2^26 here.
        const int32_t shifted = static_cast<int32_t>(static_cast<int64_t>(-d) * (int64_t{1} << p.input_left_shift));
        e = softmax_i8_fixed::ExpNeg<5>(softmax_i8_fixed::Mul31(shifted, p.input_multiplier));
      }
      t->exp_q31[d] = e;
      t->sum_q19[d] = softmax_i8_fixed::DivPot(e, 12);
      t->exp_f32[d] = 0.0f;
    }
    t->exp_q31_monotone = true;
    for (int d = 1; d < 256; ++d) t->exp_q31_monotone = t->exp_q31_monotone && t->exp_q31[d] <= t->exp_q31[d - 1];
  } else {
    for (int d = 0; d < 256; ++d) {
      t->exp_f32[d] = static_cast<float>(std::exp(-static_cast<double>(input_scale) * d));
      t->exp_q31[d] = 0;
      t->sum_q19[d] = 0;
    }
  }
}

struct TableCache {
  bool valid = false;
  bool tflite = false;
  uint32_t scale_bits = 0;
  SoftmaxI8Tables tables;
};

}  // namespace

const SoftmaxI8Tables& SoftmaxI8TablesFor(float input_scale, bool tflite) {
  // Per thread, so concurrent callers with different scales never share a table being rebuilt.
  thread_local TableCache cache;
  uint32_t bits;
  std::memcpy(&bits, &input_scale, sizeof bits);
  if (!cache.valid || cache.scale_bits != bits || cache.tflite != tflite) {
    BuildTables(input_scale, tflite, &cache.tables);
    cache.valid = true;
    cache.tflite = tflite;
    cache.scale_bits = bits;
  }
  return cache.tables;
}

namespace {

constexpr unsigned kKnownFlags = VLAK_SOFTMAX_I8_LUT;

template <typename T, typename Table>
vlak_status Run(const Table& table, size_t rows, size_t cols, const T* x, size_t x_stride, float input_scale, T* y,
                size_t y_stride, unsigned flags) {
  if ((flags & ~kKnownFlags) != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  SoftmaxI8Params params;
  if (!SoftmaxI8TfliteParams(input_scale, &params)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (rows == 0 || cols == 0) return VLAK_OK;
  if (x == nullptr || y == nullptr) return VLAK_ERROR_NULL_POINTER;
  if (x_stride < cols || y_stride < cols) return VLAK_ERROR_INVALID_ARGUMENT;
  const size_t stride = x_stride > y_stride ? x_stride : y_stride;
  if (rows > 1 && rows - 1 > (SIZE_MAX - cols) / stride) return VLAK_ERROR_OVERFLOW;
  if (static_cast<const void*>(x) == static_cast<const void*>(y) && x_stride != y_stride) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if (const vlak_status st = TargetError(); st != VLAK_OK) return st;
  const bool tflite = (flags & VLAK_SOFTMAX_I8_LUT) == 0;
  auto* const kernel = Dispatch(table);
  // Each thread takes its own tables (thread_local cache), so a chunk builds them at most once.
  // A byte row element costs about as much as a float one here (two table reads and a lookup):
  // counted as 8 bytes, as the float operators count theirs.
  ForEachRowChunk(rows, cols, [&](int, size_t begin, size_t end) {
    kernel(end - begin, cols, x + begin * x_stride, x_stride, y + begin * y_stride, y_stride,
           SoftmaxI8TablesFor(input_scale, tflite));
  });
  return VLAK_OK;
}

}  // namespace
}  // namespace vlak

extern "C" vlak_status vlak_softmax_i8(size_t rows, size_t cols, const int8_t* x, size_t x_stride, float input_scale,
                                       int8_t* y, size_t y_stride, unsigned flags) {
  return vlak::Run(vlak::kSoftmaxI8Rows, rows, cols, x, x_stride, input_scale, y, y_stride, flags);
}

extern "C" vlak_status vlak_softmax_u8(size_t rows, size_t cols, const uint8_t* x, size_t x_stride, float input_scale,
                                       uint8_t* y, size_t y_stride, unsigned flags) {
  return vlak::Run(vlak::kSoftmaxU8Rows, rows, cols, x, x_stride, input_scale, y, y_stride, flags);
}
