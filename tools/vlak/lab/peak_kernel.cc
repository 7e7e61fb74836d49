// The FMA peak of a target, for the lab's roofline: compiled once per target like the library's
// kernels (lab.cmake: vlak_target_objects), so "the peak of avx2" is what code built for avx2 can
// retire, measured on this CPU instead of assumed from a data sheet (Zen4 splits 512-bit FMAs
// into two 256-bit halves, Intel server parts have two 512-bit pipes).
//
// 12 independent accumulators of one register each (LMUL 1): enough to cover an FMA latency of 4-6
// cycles on two pipes (needs >= 8-12 in flight) and few enough for AVX2's 16 registers with the two
// operands. Each step is acc = acc * m + c with m just below 1, so values stay finite and normal
// for any iteration count; the sum is returned so nothing is optimised away. The scalar target's
// MulAdd is the fused instruction where the CPU has one (scalar.h), which is its real peak.
#include "peak_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {

double LabFmaPeak(size_t iters, float seed, double* flops) {
  const Simd<float, 0> d;
  const auto m = Set(d, 0.99999994f * (seed > 0 ? 1.0f : -1.0f));
  const auto c = Set(d, seed * 1e-3f);
  auto a0 = Set(d, seed), a1 = Set(d, seed + 1), a2 = Set(d, seed + 2), a3 = Set(d, seed + 3);
  auto a4 = Set(d, seed + 4), a5 = Set(d, seed + 5), a6 = Set(d, seed + 6), a7 = Set(d, seed + 7);
  auto a8 = Set(d, seed + 8), a9 = Set(d, seed + 9), a10 = Set(d, seed + 10), a11 = Set(d, seed + 11);
  for (size_t i = 0; i < iters; ++i) {
    a0 = MulAdd(d, a0, m, c);
    a1 = MulAdd(d, a1, m, c);
    a2 = MulAdd(d, a2, m, c);
    a3 = MulAdd(d, a3, m, c);
    a4 = MulAdd(d, a4, m, c);
    a5 = MulAdd(d, a5, m, c);
    a6 = MulAdd(d, a6, m, c);
    a7 = MulAdd(d, a7, m, c);
    a8 = MulAdd(d, a8, m, c);
    a9 = MulAdd(d, a9, m, c);
    a10 = MulAdd(d, a10, m, c);
    a11 = MulAdd(d, a11, m, c);
  }
  *flops = 2.0 * 12.0 * static_cast<double>(Lanes(d)) * static_cast<double>(iters);
  const auto s = Add(d, Add(d, Add(d, Add(d, a0, a1), Add(d, a2, a3)), Add(d, Add(d, a4, a5), Add(d, a6, a7))),
                     Add(d, Add(d, a8, a9), Add(d, a10, a11)));
  return static_cast<double>(ReduceSum(d, s));
}

// The copy half of the memory bound: plain vector loads and stores (LMUL 2), no streaming stores.
// glibc's memcpy switches to non-temporal stores above a size it derives from the cache sizes,
// which on some machines (VMs reporting small caches) makes a copy that fits in L2/L3 run at
// DRAM speed; the bound is the faster of the two (roofline.cc).
void LabCopy(const float* x, float* y, size_t n) {
  const Simd<float, 1> d;
  ForEachStrip(d, n, [&](auto ds, size_t i) { StoreU(ds, LoadU(ds, x + i), y + i); });
}

VLAK_KERNELS_DEFINED(VLAK_LAB_PEAK_KERNELS)

}  // namespace vlak::VLAK_NS
