// vlak_warp_i8: argument checks, (channel, row) pairs over threads.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "ops/warp/warp.h"

namespace vlak {
VLAK_PER_TARGET(kWarpRows, void, WarpRowsI8,
                (size_t begin, size_t end, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                 int8_t* dst))

namespace {
std::atomic<int> g_window{-1};  // -1: not read yet; else 0 / 1

bool CpuAvx2() {
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX2)
  return TargetSupported(Target::kAvx2);
#else
  return false;
#endif
}
}  // namespace

bool WarpAvx2WindowEnabled() {
  int v = g_window.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("VLAK_AVX2_WINDOW");
    v = CpuAvx2() && !(env != nullptr && std::strcmp(env, "0") == 0) ? 1 : 0;
    g_window.store(v, std::memory_order_relaxed);
  }
  return v == 1;
}

bool SetWarpAvx2Window(bool enabled) {
  const bool previous = WarpAvx2WindowEnabled();
  g_window.store(enabled && CpuAvx2() ? 1 : 0, std::memory_order_relaxed);
  return previous;
}

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
  if (target == Target::kAvx2 && WarpAvx2WindowEnabled()) {
    // Row by row: the window kernel where the row's displacements allow, else the generic one.
    static constinit ThreadPlanner window_planner;
    ForEachRowChunk(window_planner, rows, width, [&](int, size_t begin, size_t end) {
      for (size_t q = begin; q < end; ++q) {
        const size_t at = q * width;
        if (!WarpRowI8Avx2Window(src + at, offsets + q % height * width, dst + at, width)) {
          kernel(q, q + 1, height, width, src, offsets, dst);
        }
      }
    });
    return VLAK_OK;
  }
#endif
  static constinit ThreadPlanner planner;
  ForEachRowChunk(planner, rows, width, [&](int, size_t begin, size_t end) {
    kernel(begin, end, height, width, src, offsets, dst);
  });
  return VLAK_OK;
}
