// The fast tier's sigmoid and silu on AVX-512: 1 / (1 + e^-x) and x / (1 + e^-x) with a 16-entry
// table of 2^(j/16) held in one register: 13 and 14 instructions per 16 floats, a division among
// them (fast.h's forms, the same operations on every target, take 17 and 18 with theirs).
//
// Algorithm: xc = x with |x| clamped to 120 (vrangeps; sigmoid rounds to 0 below -104 and to 1
//   above 17, silu to -0 and x). k = round(-16 xc log2 e) by a magic number whose last mantissa bit
//   is 1/16, so that its low 4 bits are j = k mod 16 (vpermps picks T[j] = RN(2^(j/16)) 2^-64 from
//   them) and n = k / 16 is exact. -t = xc + n ln2 (rr2, two FMAs), |t| <= ln2 / 32; e^t ~ P = 1 +
//   t (1 + t (1/2 + t / 6)), Horner, rounded once (truncation t^4 / 24 <= 2^-26.7). S = 2^floor(n)
//   T[j] by vscalefps, which takes floor(n) itself and goes to 0 or +inf out of range (no exponent
//   field built, so no wrap). D = 2^-64 (1 + e^-x) = RN(S P + 2^-64); sigmoid = RN(2^-64 / D),
//   silu = RN(xc / D) 2^-64 (exact but below FLT_MIN, where it rounds twice, within 2^-149). With
//   the table's 2^-64, S is normal for x <= 43 and finite down to x = -120, so a sigmoid below
//   FLT_MIN is rounded once, by the division; above 43 S is tiny or 0 and D is 2^-64 exactly, as
//   it is from x = 17.4 up anyway. NaN lanes (and silu's x > 20) skip the division and keep x.
// Errors, relative to D: T[j]'s rounding (<= 0.8 x 2^-24), P's (<= 2^-24), D's (<= 2^-24) and
//   the truncation; then the division's half ULP.
// Bound (vlak.h): 4 ULP, 4 x 2^-149 below FLT_MIN. Measured maxima over every finite float:
//   docs/ops/activation.md, "The fast sigmoid and silu on AVX-512".
// Special values: NaN -> the same NaN (its bits, signalling NaNs too); sigmoid(-inf) = +0,
//   sigmoid(+inf) = 1, sigmoid(+-0) = 0.5; silu(-inf) = -0, silu(x) = x for x > 20 and +inf,
//   silu(+-0) = +-0.
// Cost: vrangeps, 7 FMAs (k, 2 for t, 3 Horner, D), vsubps, vpermps and vscalefps for D; then
//   sigmoid a compare and a masked vdivps, silu a compare, a vdivps and a masked vmulps (the other
//   instructions, not the division, bound the loop: docs/ops/activation.md).
// Their bits differ from fast.h's (the other x86 targets'): a table and a different rounding order.
#pragma once

#include <immintrin.h>

#include "math/exp_common.h"

namespace vlak::VLAK_NS::act {

// D = 2^-64 (1 + e^-xc) and xc, x with |x| clamped to 120 (NaN: 120; the callers keep x there).
[[gnu::always_inline]] inline __m512 SigmoidDenAvx512(__m512 x, __m512& xc) {
  using exp_detail::kLn2Hi, exp_detail::kLn2Lo, exp_detail::kLog2e;  // rr2 as exp_common.h's
  constexpr float kMagic16 = 0x1.8p19f;  // its last mantissa bit is 2^-4
  // RN(2^(j/16)) 2^-64, j = 0..15.
  const __m512 table = _mm512_setr_ps(0x1p-64f, 0x1.0b5586p-64f, 0x1.172b84p-64f, 0x1.2387a6p-64f, 0x1.306fe0p-64f,
                                      0x1.3dea64p-64f, 0x1.4bfdaep-64f, 0x1.5ab07ep-64f, 0x1.6a09e6p-64f,
                                      0x1.7a1148p-64f, 0x1.8ace54p-64f, 0x1.9c4918p-64f, 0x1.ae89fap-64f,
                                      0x1.c199bep-64f, 0x1.d5818ep-64f, 0x1.ea4afap-64f);
  // imm 2: the operand of smaller magnitude, with its sign (x's when |x| <= 120, else +-120).
  xc = _mm512_range_ps(x, _mm512_set1_ps(120.0f), 2);
  const __m512 biased = _mm512_fmadd_ps(xc, _mm512_set1_ps(-kLog2e), _mm512_set1_ps(kMagic16));
  const __m512 scale = _mm512_permutexvar_ps(_mm512_castps_si512(biased), table);
  const __m512 n = _mm512_sub_ps(biased, _mm512_set1_ps(kMagic16));  // k / 16
  const __m512 tn = _mm512_fmadd_ps(n, _mm512_set1_ps(kLn2Lo), _mm512_fmadd_ps(n, _mm512_set1_ps(kLn2Hi), xc));
  // P(t) at t = -tn: each Horner step subtracts.
  __m512 p = _mm512_fnmadd_ps(tn, _mm512_set1_ps(1.0f / 6.0f), _mm512_set1_ps(0.5f));
  p = _mm512_fnmadd_ps(p, tn, _mm512_set1_ps(1.0f));
  p = _mm512_fnmadd_ps(p, tn, _mm512_set1_ps(1.0f));
  return _mm512_fmadd_ps(_mm512_scalef_ps(scale, n), p, _mm512_set1_ps(0x1p-64f));
}

[[gnu::always_inline]] inline __m512 FastSigmoidAvx512(__m512 x) {
  __m512 xc;
  const __m512 den = SigmoidDenAvx512(x, xc);
  return _mm512_mask_div_ps(x, _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), _mm512_set1_ps(0x1p-64f), den);
}

[[gnu::always_inline]] inline __m512 FastSiluAvx512(__m512 x) {
  __m512 xc;
  const __m512 den = SigmoidDenAvx512(x, xc);
  // x > 20 and NaN in one ordered compare: both keep x.
  const __m512 q = _mm512_div_ps(xc, den);
  return _mm512_mask_mul_ps(x, _mm512_cmp_ps_mask(x, _mm512_set1_ps(20.0f), _CMP_LE_OQ), q, _mm512_set1_ps(0x1p-64f));
}

}  // namespace vlak::VLAK_NS::act
