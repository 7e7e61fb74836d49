// vlak_warp_i8: argument checks, (channel, row) pairs over threads.
#include <cstdint>

#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "ops/warp/warp.h"

namespace vlak {
VLAK_PER_TARGET(kWarpRows, void, WarpRowsI8,
                (size_t begin, size_t end, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                 int8_t* dst))
}  // namespace vlak

extern "C" vlak_status vlak_warp_i8(size_t channels, size_t height, size_t width, const int8_t* src,
                                    const int16_t* offsets, int8_t* dst) {
  using namespace vlak;
  if (channels == 0 || height == 0 || width == 0) return VLAK_OK;
  if (src == nullptr || offsets == nullptr || dst == nullptr) return VLAK_ERROR_NULL_POINTER;
  // Every byte of src/dst and of offsets (2 bytes each) must be addressable.
  if (height > SIZE_MAX / sizeof(int16_t) / width || channels > SIZE_MAX / (height * width)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (const vlak_status error = TargetError(); error != VLAK_OK) return error;
  auto* const kernel = Dispatch(kWarpRows);
  const size_t rows = channels * height;
  static ThreadPlanner planner;
  ForEachRowChunk(planner, rows, width, [&](int, size_t begin, size_t end) {
    kernel(begin, end, height, width, src, offsets, dst);
  });
  return VLAK_OK;
}
