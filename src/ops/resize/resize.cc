// vlak_resize_bilinear_i8 / _u8: argument checks, the Q7 taps of every output column and row (once
// per call), and output rows over threads.
#include "dispatch/dispatch.h"
#include "ops/buffer_pool.h"
#include "ops/parallel_rows.h"
#include "ops/resize/resize.h"
#include "ops/resize/resize_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_RESIZE_KERNELS)

namespace {

constexpr unsigned kKnownFlags = VLAK_RESIZE_HALF_PIXEL;

// a * b * c into *r, false on overflow.
bool Mul3(size_t a, size_t b, size_t c, size_t* r) {
  size_t ab;
  return !__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(ab, c, r);
}

template <typename T, typename Kernel>
vlak_status Resize(size_t channels, size_t in_h, size_t in_w, const T* src, size_t out_h, size_t out_w, T* dst,
                   unsigned flags, const PerTarget<Kernel>& table) {
  if ((flags & ~kKnownFlags) != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (channels == 0 || out_h == 0 || out_w == 0) return VLAK_OK;
  if (in_h == 0 || in_w == 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (src == nullptr || dst == nullptr) return VLAK_ERROR_NULL_POINTER;
  // Indices are int32 lanes (gathers); positions o * in * 128 must fit in 64 bits.
  size_t n_in, n_out, px, py;
  if (in_h > INT32_MAX || in_w > INT32_MAX || !Mul3(channels, in_h, in_w, &n_in) ||
      !Mul3(channels, out_h, out_w, &n_out) || !Mul3(in_w, out_w, 128, &px) || !Mul3(in_h, out_h, 128, &py)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (const vlak_status st = TargetError(); st != VLAK_OK) return st;

  const size_t rows = channels * out_h;
  const ParallelPlan threads_plan = PlanRowElements(rows, out_w);
  const int threads = threads_plan.threads;
  // One allocation: the taps (3 int32 per output column and row), then each thread's scratch.
  const size_t scratch = (ResizeScratchBytes(in_w, out_w) + 63) / 64 * 64;
  size_t taps_bytes, scratch_bytes, total;
  if (!Mul3(out_w + out_h, 3, sizeof(int32_t), &taps_bytes) ||
      !Mul3(static_cast<size_t>(threads), scratch, 1, &scratch_bytes) ||
      __builtin_add_overflow(taps_bytes + 64, scratch_bytes, &total)) {
    return VLAK_ERROR_OVERFLOW;
  }
  const PooledBuffer mem((total + sizeof(float) - 1) / sizeof(float));  // ops/buffer_pool.h
  if (mem.data() == nullptr) return VLAK_ERROR_OVERFLOW;
  auto* taps = reinterpret_cast<int32_t*>(mem.data());
  const bool half = (flags & VLAK_RESIZE_HALF_PIXEL) != 0;
  ResizePlan plan{channels, in_h, in_w, out_h, out_w,
                  {taps, taps + out_w, taps + 2 * out_w},
                  {taps + 3 * out_w, taps + 3 * out_w + out_h, taps + 3 * out_w + 2 * out_h},
                  out_w != 2 * in_w ? ResizeColumns::kGather
                  : half            ? ResizeColumns::k2xHalfPixel
                                    : ResizeColumns::k2xAsymmetric,
                  !half && out_h == 2 * in_h};
  // Only gathered columns read the column taps; AI-Benchmark's 2x (Rows2x) reads no row taps either.
  if (plan.columns == ResizeColumns::kGather) ResizeFillTaps(in_w, out_w, half, plan.x);
  if (plan.columns != ResizeColumns::k2xAsymmetric || !plan.rows_2x_asymmetric) ResizeFillTaps(in_h, out_h, half, plan.y);
  const uintptr_t s0 = (reinterpret_cast<uintptr_t>(taps) + taps_bytes + 63) / 64 * 64;

  auto* const kernel = Dispatch(table);
  ParallelFor(threads_plan, [&](int t, size_t begin, size_t end) {
    kernel(plan, src, dst, begin, end, reinterpret_cast<void*>(s0 + static_cast<size_t>(t) * scratch));
  });
  return VLAK_OK;
}

}  // namespace
}  // namespace vlak

extern "C" vlak_status vlak_resize_bilinear_i8(size_t channels, size_t in_h, size_t in_w, const int8_t* src,
                                               size_t out_h, size_t out_w, int8_t* dst, unsigned flags) {
  return vlak::Resize(channels, in_h, in_w, src, out_h, out_w, dst, flags, vlak::kResizeRowsI8);
}

extern "C" vlak_status vlak_resize_bilinear_u8(size_t channels, size_t in_h, size_t in_w, const uint8_t* src,
                                               size_t out_h, size_t out_w, uint8_t* dst, unsigned flags) {
  return vlak::Resize(channels, in_h, in_w, src, out_h, out_w, dst, flags, vlak::kResizeRowsU8);
}
