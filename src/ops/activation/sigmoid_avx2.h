// The fast tier's sigmoid and silu on AVX2: 1 / (1 + e^-x) and x / (1 + e^-x) with an 8-entry
// table of 2^(j/8) held in one register: 16 and 17 instructions per 8 floats, a division among
// them (fast.h's forms, the same operations on every target, take 17 and 18), and two FMAs fewer.
//
// Algorithm: xc = x clamped to [-120, 20] (sigmoid rounds to 0 below -104 and to 1 above 17, silu
//   to -0 and x; a NaN x passes through both). k = round(-8 xc log2 e) by a magic number whose
//   last mantissa bit is 1/8, so that its low 3 bits are j = k mod 8 (vpermps reads only those:
//   T[j] = RN(2^(j/8)) 2^-64) and n = k / 8 is exact. -t = xc + n ln2 (rr2, two FMAs), |t| <=
//   ln2 / 16; e^t ~ P = 1 + t + c2 t^2 + c3 t^3, Horner, rounded once, its relative minimax error
//   2^-25.2 (tools/remez/exp_coeffs.py's exp_minimax_f32 with c0 = c1 = 1). S = 2^floor(n) T[j]
//   is built in the exponent field: the magic's bits shifted left by 20 are k's low 12 bits at
//   bit 20, floor(n) at bit 23 and j at bits 20-22, so the table holds bits(T[j]) - (j << 20) and
//   one integer add makes S (|k| < 2^11 over the clamped range, and 2^floor(n) T[j] stays normal:
//   floor(n) in [-29, 173] on T[j]'s exponent of -64). D = 2^-64 (1 + e^-x) = RN(S P + 2^-64);
//   sigmoid = RN(2^-64 / D), silu = RN(xc / D) 2^-64 (exact but below FLT_MIN, where it rounds
//   twice, within 2^-149). NaN lanes (and silu's x > 20) are put back from x by a blend.
// Errors, relative to D: T[j]'s rounding (<= 2^-24), P's truncation (2^-25.2) and rounding
//   (<= 2^-24), D's (<= 2^-24); then the division's half ULP.
// Bound (vlak.h): 4 ULP, 4 x 2^-149 below FLT_MIN. Measured maxima over every finite float:
//   docs/ops/activation.md, "The fast sigmoid and silu on AVX2".
// Special values: NaN -> the same NaN (its bits, signalling NaNs too); sigmoid(-inf) = +0,
//   sigmoid(+inf) = 1, sigmoid(+-0) = 0.5; silu(-inf) = -0, silu(x) = x for x > 20 and +inf,
//   silu(+-0) = +-0.
// Cost: vmaxps, vminps, 7 FMAs (k, 2 for t, 3 Horner, D), vsubps, vpermps, vpslld and vpaddd
//   for S, vdivps, a compare and a blend (silu: a vmulps more).
// Their bits differ from fast.h's (the other x86 targets') and from sigmoid_avx512.h's.
#pragma once

#include <immintrin.h>

#include <cstddef>

#include "math/exp_common.h"

namespace vlak::VLAK_NS::act {

// D = 2^-64 (1 + e^-xc) and xc, x clamped to [-120, 20] (NaN: x itself; the callers keep x there).
[[gnu::always_inline]] inline __m256 SigmoidDenAvx2(__m256 x, __m256& xc) {
  using exp_detail::kLn2Hi, exp_detail::kLn2Lo, exp_detail::kLog2e;  // rr2 as exp_common.h's
  constexpr float kMagic8 = 0x1.8p20f;  // its last mantissa bit is 2^-3
  constexpr float kC2 = 0.5000646114349365f, kC3 = 0.1666688621044159f;
  // bits(RN(2^(j/8)) 2^-64) - (j << 20), j = 0..7.
  const __m256i table = _mm256_setr_epi32(0x1f800000, 0x1f7b95c2, 0x1f7837f0, 0x1f75fed7, 0x1f7504f3, 0x1f75672a,
                                          0x1f7744fd, 0x1f7ac0c7);
  // vmaxps and vminps return their second operand when one is NaN: x's NaN, bits and all.
  xc = _mm256_min_ps(_mm256_set1_ps(20.0f), _mm256_max_ps(_mm256_set1_ps(-120.0f), x));
  const __m256 biased = _mm256_fmadd_ps(xc, _mm256_set1_ps(-kLog2e), _mm256_set1_ps(kMagic8));
  const __m256i kbits = _mm256_castps_si256(biased);
  const __m256i t_j = _mm256_castps_si256(_mm256_permutevar8x32_ps(_mm256_castsi256_ps(table), kbits));
  const __m256 scale = _mm256_castsi256_ps(_mm256_add_epi32(t_j, _mm256_slli_epi32(kbits, 20)));
  const __m256 n = _mm256_sub_ps(biased, _mm256_set1_ps(kMagic8));  // k / 8
  const __m256 tn = _mm256_fmadd_ps(n, _mm256_set1_ps(kLn2Lo), _mm256_fmadd_ps(n, _mm256_set1_ps(kLn2Hi), xc));
  // P(t) at t = -tn: each Horner step subtracts.
  __m256 p = _mm256_fnmadd_ps(tn, _mm256_set1_ps(kC3), _mm256_set1_ps(kC2));
  p = _mm256_fnmadd_ps(p, tn, _mm256_set1_ps(1.0f));
  p = _mm256_fnmadd_ps(p, tn, _mm256_set1_ps(1.0f));
  return _mm256_fmadd_ps(scale, p, _mm256_set1_ps(0x1p-64f));
}

// sigmoid (kSilu: silu) from SigmoidDenAvx2's den and xc, and x itself (its NaNs; silu's x > 20).
template <bool kSilu>
[[gnu::always_inline]] inline __m256 SigmoidFinishAvx2(__m256 x, __m256 xc, __m256 den) {
  if constexpr (kSilu) {
    const __m256 y = _mm256_mul_ps(_mm256_div_ps(xc, den), _mm256_set1_ps(0x1p-64f));
    // x > 20 and NaN in one ordered compare: both keep x.
    return _mm256_blendv_ps(x, y, _mm256_cmp_ps(x, _mm256_set1_ps(20.0f), _CMP_LE_OQ));
  } else {
    (void)xc;
    const __m256 y = _mm256_div_ps(_mm256_set1_ps(0x1p-64f), den);
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  }
}

[[gnu::always_inline]] inline __m256 FastSigmoidAvx2(__m256 x) {
  __m256 xc;
  const __m256 den = SigmoidDenAvx2(x, xc);
  return SigmoidFinishAvx2<false>(x, xc, den);
}

[[gnu::always_inline]] inline __m256 FastSiluAvx2(__m256 x) {
  __m256 xc;
  const __m256 den = SigmoidDenAvx2(x, xc);
  return SigmoidFinishAvx2<true>(x, xc, den);
}

// FastSigmoidAvx2 over n floats, n a multiple of 8, software-pipelined by one vector: each
// iteration forms vector i's denominator, then finishes vector i - 1 (the division, the NaN
// select, the store). The division and what waits on it then enter the core a vector after their
// operands, and fewer of the loop's operations wait in the scheduler on the 50-cycle chain
// (docs/ops/activation.md, "The fast sigmoid on AVX2: one vector of software pipeline"; silu's
// loop measured no faster so). The same operations per element: the same bits. y == x is
// allowed: vector i is loaded before vector i - 1 is stored.
inline void FastSigmoidLoopAvx2(const float* x, float* y, size_t n) {
  if (n == 0) return;
  __m256 xp = _mm256_loadu_ps(x), xcp;
  __m256 dp = SigmoidDenAvx2(xp, xcp);
  for (size_t i = 8; i < n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    __m256 vc;
    const __m256 d = SigmoidDenAvx2(v, vc);
    _mm256_storeu_ps(y + i - 8, SigmoidFinishAvx2<false>(xp, xcp, dp));
    xp = v, xcp = vc, dp = d;
  }
  _mm256_storeu_ps(y + n - 8, SigmoidFinishAvx2<false>(xp, xcp, dp));
}

}  // namespace vlak::VLAK_NS::act
