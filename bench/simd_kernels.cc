// Strip-mined loops for the vector-layer benchmarks: a sum reduction (AddTU accumulator, one
// reduction at the end) and y = a*x + y (fused), each at LMUL 1 and 4.
#include "simd/simd.h"
#include "simd_kernels.h"

namespace vlak::VLAK_NS {

template <int kPow2>
float SumF32(const float* x, size_t n) {
  const Simd<float, kPow2> d;
  auto acc = Zero(d);
  ForEachStrip(d, n, [&](auto ds, size_t i) { acc = AddTU(ds, acc, LoadU(ds, x + i)); });
  return ReduceSum(d, acc);
}

template <int kPow2>
void AxpyF32(float a, const float* x, float* y, size_t n) {
  const Simd<float, kPow2> d;
  ForEachStrip(d, n, [&](auto ds, size_t i) {
    StoreU(ds, MulAdd(ds, Set(ds, a), LoadU(ds, x + i), LoadU(ds, y + i)), y + i);
  });
}

float BenchSumF32M1(const float* x, size_t n) { return SumF32<0>(x, n); }
float BenchSumF32M4(const float* x, size_t n) { return SumF32<2>(x, n); }
void BenchAxpyF32M1(float a, const float* x, float* y, size_t n) { AxpyF32<0>(a, x, y, n); }
void BenchAxpyF32M4(float a, const float* x, float* y, size_t n) { AxpyF32<2>(a, x, y, n); }

VLAK_KERNELS_DEFINED(VLAK_BENCH_SIMD_KERNELS)

}  // namespace vlak::VLAK_NS
