// The int8 multiply-accumulate peak of a target, for the roofline of int8 operators (correlation):
// what the target's best int8 dot-product instruction retires on this CPU, measured, not taken
// from a data sheet. x86 only (the lab runs natively there; RISC-V is measured in instructions).
//   avx512 with AVX512_VNNI: vpdpbusd zmm (64 u8 x s8 products summed into 16 int32 per instruction).
//   avx512 without VNNI:     vpmaddubsw + vpmaddwd (x 1) + vpaddd zmm (64 products per 3).
//   avx2:                    the same on ymm (32 products per 3; AVX-VNNI is not used by vlak).
//   scalar:                  NaN (no int8 peak is defined for it).
// 12 independent accumulators, as the FMA peak (peak_kernel.cc): enough to cover a latency of 4-5
// cycles on two pipes. The inputs are such that no sum saturates; the sums are returned so nothing
// is optimised away. In the madd forms the products do not depend on the accumulators, so with
// constant inputs clang computed vpmaddubsw + vpmaddwd once, outside the loop, and timed vpaddd
// alone (500-800 "G MAC/s" on a 2-core Zen 3): an empty asm before each step makes `a` opaque, so
// every step computes its products, as a kernel on loaded data does.
#include "lab/roofline.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "vlak/vlak.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace vlak::lab {
namespace {

#define VLAK_REP12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512f,avx512bw,avx512vnni"))) double MacsVnni512(size_t iters, int seed) {
  const __m512i a = _mm512_set1_epi8(static_cast<char>(1 + (seed & 3))), b = _mm512_set1_epi8(1);
#define DECL(i) __m512i s##i = _mm512_set1_epi32(seed + (i));
  VLAK_REP12(DECL)
#undef DECL
  for (size_t k = 0; k < iters; ++k) {
#define STEP(i) s##i = _mm512_dpbusd_epi32(s##i, a, b);
    VLAK_REP12(STEP)
#undef STEP
  }
  __m512i t = _mm512_setzero_si512();
#define SUM(i) t = _mm512_add_epi32(t, s##i);
  VLAK_REP12(SUM)
#undef SUM
  return static_cast<double>(_mm512_reduce_add_epi32(t));
}

__attribute__((target("avx512f,avx512bw"))) double MacsMadd512(size_t iters, int seed) {
  __m512i a = _mm512_set1_epi8(static_cast<char>(1 + (seed & 3)));
  const __m512i b = _mm512_set1_epi8(1), ones = _mm512_set1_epi16(1);
#define DECL(i) __m512i s##i = _mm512_set1_epi32(seed + (i));
  VLAK_REP12(DECL)
#undef DECL
  for (size_t k = 0; k < iters; ++k) {
#define STEP(i)                     \
  asm volatile("" : "+v"(a));       \
  s##i = _mm512_add_epi32(s##i, _mm512_madd_epi16(_mm512_maddubs_epi16(a, b), ones));
    VLAK_REP12(STEP)
#undef STEP
  }
  __m512i t = _mm512_setzero_si512();
#define SUM(i) t = _mm512_add_epi32(t, s##i);
  VLAK_REP12(SUM)
#undef SUM
  return static_cast<double>(_mm512_reduce_add_epi32(t));
}

__attribute__((target("avx2"))) double MacsMadd256(size_t iters, int seed) {
  __m256i a = _mm256_set1_epi8(static_cast<char>(1 + (seed & 3)));
  const __m256i b = _mm256_set1_epi8(1), ones = _mm256_set1_epi16(1);
#define DECL(i) __m256i s##i = _mm256_set1_epi32(seed + (i));
  VLAK_REP12(DECL)
#undef DECL
  for (size_t k = 0; k < iters; ++k) {
#define STEP(i)                     \
  asm volatile("" : "+x"(a));       \
  s##i = _mm256_add_epi32(s##i, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones));
    VLAK_REP12(STEP)
#undef STEP
  }
  __m256i t = _mm256_setzero_si256();
#define SUM(i) t = _mm256_add_epi32(t, s##i);
  VLAK_REP12(SUM)
#undef SUM
  alignas(32) int32_t v[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(v), t);
  double r = 0;
  for (int32_t x : v) r += x;
  return r;
}

#undef VLAK_REP12

}  // namespace

I8MacKernel I8MacPeakKernel(int target) {
  if (target == VLAK_TARGET_AVX512) {
    if (__builtin_cpu_supports("avx512vnni")) return {MacsVnni512, 12.0 * 64, "vpdpbusd zmm"};
    return {MacsMadd512, 12.0 * 64, "vpmaddubsw+vpmaddwd zmm"};
  }
  if (target == VLAK_TARGET_AVX2) return {MacsMadd256, 12.0 * 32, "vpmaddubsw+vpmaddwd ymm"};
  return {};
}

}  // namespace vlak::lab

#else

namespace vlak::lab {
I8MacKernel I8MacPeakKernel(int) { return {}; }
}  // namespace vlak::lab

#endif
