/* Shared by the plain C peer kernels, every src/ops/<op>/<op>_peer.c.
 *
 * These files are the lab's "what does the compiler make of plain C" peer (Terapines AI-Benchmark
 * compares GCC and an LLVM compiler on the same C source): ordinary loops, an exp written in C so
 * that a vectoriser can see through it, and `#pragma omp simd` on the loops the way
 * AI-Benchmark's C kernels ask for vectorisation (-fopenmp-simd: no OpenMP runtime; threads come from the lab, which splits
 * rows/elements over OpenMP threads the same way for every implementation). No intrinsics.
 *
 * Each file is compiled twice, by gcc and by clang, with -DVLAK_REF_PREFIX=vlak_ref_gcc_ or
 * vlak_ref_clang_, so both objects link into one program. */
#ifndef VLAK_OPS_PEER_COMMON_H_
#define VLAK_OPS_PEER_COMMON_H_

#include <stdint.h>
#include <string.h>

#ifndef VLAK_REF_PREFIX
#error "compile with -DVLAK_REF_PREFIX=vlak_ref_<compiler>_"
#endif
#define VLAK_REF_CAT2(a, b) a##b
#define VLAK_REF_CAT(a, b) VLAK_REF_CAT2(a, b)
#define VLAK_REF(name) VLAK_REF_CAT(VLAK_REF_PREFIX, name)

/* exp(x) for float: n = round(x / ln2) by the 1.5 * 2^23 rounding constant, r = x - n ln2 in two
 * steps (the high part of ln2 has 9 significant bits, so n * hi is exact for |n| <= 2^15), e^r by
 * its Taylor series to degree 7 (|r| <= ln2/2: truncation 5e-9 relative, below float rounding),
 * times 2^n built in the exponent field. x > 88.72 gives +inf, x < -87.33 gives 0 (no denormals).
 * Branch-free, so every line maps to a vector instruction. */
static inline float vlak_ref_expf(float x) {
  const float kHi = 88.72283935546875f, kLo = -87.33654022216797f;
  const float kRound = 12582912.0f;
  float xc = x > kHi ? kHi : x;
  xc = xc < kLo ? kLo : xc;
  const float t = xc * 1.44269504088896341f + kRound; /* n sits in t's low mantissa bits */
  const float n = t - kRound;
  float r = xc - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.0f / 720.0f + r * (1.0f / 5040.0f);
  p = 1.0f / 120.0f + r * p;
  p = 1.0f / 24.0f + r * p;
  p = 1.0f / 6.0f + r * p;
  p = 0.5f + r * p;
  p = 1.0f + r * p;
  p = 1.0f + r * p;
  /* n as an integer from t's bits (t's exponent field is fixed, so bits(t) - bits(1.5 * 2^23) =
   * n), not by a float-to-int conversion: clang vectorises that into vfcvt.rtz.x.f.v, on which
   * Debian's qemu 7.2 can abort. n reaches 128 only for x in (88.38, 88.72]: scale by 2^127 and
   * double p there. NaN x: p is NaN, so the scale does not matter. */
  int32_t ti;
  memcpy(&ti, &t, sizeof ti);
  const int32_t ni = ti - 0x4B400000;
  const int32_t k = ni > 127 ? 127 : ni;
  p = ni > 127 ? p + p : p;
  const int32_t bits = (k + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  float y = p * scale;
  y = x > kHi ? (float)__builtin_inff() : y;
  y = x < kLo ? 0.0f : y;
  return y;
}

#endif /* VLAK_OPS_PEER_COMMON_H_ */
