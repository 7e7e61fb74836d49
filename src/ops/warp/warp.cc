// vlak_warp_i8: argument checks, (channel, row) pairs over threads.
#include <cstdint>

#include "dispatch/dispatch.h"
#include "dispatch/specialisation.h"
#include "ops/parallel_rows.h"
#include "ops/warp/warp.h"
#include "ops/warp/warp_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_WARP_KERNELS)

VLAK_SPECIALISATION_SWITCH(WarpAvx2Window, "VLAK_AVX2_WINDOW", CpuRunsAvx2Target)

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
  const Target target = ActiveTarget();
  auto* const kernel = Dispatch(kWarpRows, target);
  const size_t rows = channels * height;
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX2)
  // The avx2 window kernel serves the avx512 target too: its byte shuffles from registers beat the
  // avx512 gathers (one load per lane, as avx2's) by 2.2x on Zen 4 (docs/ops/warp.md).
  if ((target == Target::kAvx2 || target == Target::kAvx512) && WarpAvx2WindowEnabled()) {
    // Image row by image row, all channels at once (the offsets row is checked and decoded once
    // for them): the window kernel where the row's displacements allow, else the target's generic
    // one.
    const size_t plane = height * width;
    ForEachRowChunk(height, channels * width, [&](int, size_t begin, size_t end) {
      size_t run = begin;  // rows [run, h) are left to the generic kernel, one call per channel
      auto flush = [&](size_t h) {
        if (run == h) return;
        for (size_t c = 0; c < channels; ++c) kernel(c * height + run, c * height + h, height, width, src, offsets, dst);
      };
      for (size_t h = begin; h < end; ++h) {
        if (WarpRowsI8Avx2Window(src + h * width, dst + h * width, channels, plane, offsets + h * width, width)) {
          flush(h);
          run = h + 1;
        }
      }
      flush(end);
    });
    return VLAK_OK;
  }
#endif
  ForEachRowChunk(rows, width, [&](int, size_t begin, size_t end) {
    kernel(begin, end, height, width, src, offsets, dst);
  });
  return VLAK_OK;
}
