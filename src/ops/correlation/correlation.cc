// vlak_correlation_i8: argument checks, (displacement, row) pairs over threads.
#include <cstdint>
#include <cstring>

#include "dispatch/dispatch.h"
#include "ops/correlation/correlation.h"
#include "ops/parallel_rows.h"

namespace vlak {
VLAK_PER_TARGET(kCorrelationRows, void, CorrelationRowsI8,
                (size_t begin, size_t end, size_t channels, size_t height, size_t width, const int8_t* a,
                 const int8_t* b, unsigned shift, int8_t* out, unsigned flags))
}  // namespace vlak

extern "C" vlak_status vlak_correlation_i8(size_t displacements, size_t channels, size_t height, size_t width,
                                           const int8_t* a, const int8_t* b, unsigned shift, int8_t* out,
                                           unsigned flags) {
  using namespace vlak;
  if ((flags & ~VLAK_CORRELATION_WRAP16) != 0 || shift > 31) return VLAK_ERROR_INVALID_ARGUMENT;
  if (displacements == 0 || height == 0 || width == 0) return VLAK_OK;
  if (out == nullptr || (channels != 0 && (a == nullptr || b == nullptr))) return VLAK_ERROR_NULL_POINTER;
  if (height > SIZE_MAX / width) return VLAK_ERROR_OVERFLOW;
  const size_t plane = height * width;
  if (displacements > SIZE_MAX / plane || (channels != 0 && channels > SIZE_MAX / plane)) return VLAK_ERROR_OVERFLOW;
  if (const vlak_status error = TargetError(); error != VLAK_OK) return error;
  if (channels == 0) {  // every sum is 0; a and b may be NULL, so the kernel never sees them
    std::memset(out, 0, displacements * plane);
    return VLAK_OK;
  }
  auto* const kernel = Dispatch(kCorrelationRows);
  const size_t rows = displacements * height;
  ForEachRowChunk(RowThreads(rows, channels * width), rows, [&](int, size_t begin, size_t end) {
    kernel(begin, end, channels, height, width, a, b, shift, out, flags);
  });
  return VLAK_OK;
}
