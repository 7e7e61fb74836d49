// The fast tier (VLAK_ACT_FAST): sigmoid, silu and tanh within 4 ULP, nothing compensated; gelu
// within 4 ULP, gelu.h's algorithm with fewer two-float terms (FastGelu below); gelu_tanh x
// sigmoid(2w) by silu's quotient, 2w in two floats (FastGeluTanh).
//
// Algorithm: e^z = 2^n (1 + w), w = t + t^2 q(t) (rr2 reduction, q of degree 3 for sigmoid and silu,
//   exp_parts.h's degree 4 for tanh and gelu_tanh and where a caller needs less error), each
//   quantity rounded once. sigmoid and silu: x clamped to [-120, 20], e = e^-x, the denominator
//   D = 2^-64 (1 + e) = RN(S (1 + w) + 2^-64), S = 2^(n-64) (normal over the range); sigmoid =
//   RN(2^-64 / D), silu = RN(x / D) 2^-64. tanh: z = -2|x| clamped at -20, m = e^z - 1,
//   tanh|x| = -m / (2 + m), x's sign put back by bits. The quotient is the last rounding (silu's
//   is exact above FLT_MIN); the errors before it are about 3.2 x 2^-24 with q of degree 3, 1.7 x
//   2^-24 with degree 4 (tanh 3 x 2^-24).
// Bound (vlak.h): 4 ULP, 4 x 2^-149 below FLT_MIN.
// Special values: NaN -> the same NaN; sigmoid(-inf) = +0, sigmoid(+inf) = 1, silu(-inf) = -0,
//   silu(x) = x for x > 20 (and +inf); tanh(+-inf) = +-1, tanh(+-0) = +-0; gelu as gelu.h;
//   gelu_tanh(x) = x for x > 12 (and +inf), -0 below -12 (and -inf), gelu_tanh(-0) = -0.
// Cost: sigmoid 17 vector-layer ops, silu 18 (one more each with q of degree 4), tanh 23, gelu 53
//   (gelu.h's 67), gelu_tanh 36 (gelu_tanh.h's 68), each with one Div.
//   Every target runs this source (the same IEEE ops, so the same bits wherever Div is correctly
//   rounded), but for the fast tier's sigmoid and silu on AVX-512 and AVX2: table forms,
//   sigmoid_avx512.h's 13 and 14 instructions with the division, sigmoid_avx2.h's 16 and 17.
//   Derivation and ops: docs/ops/activation.md, "fast.h"; measured: "The fast tier".
#pragma once

#include "ops/activation/exp_parts.h"
#include "ops/activation/gelu.h"
#include "ops/activation/gelu_tanh.h"
#if defined(VLAK_SIMD_AVX512)
#include "ops/activation/sigmoid_avx512.h"
#elif defined(VLAK_SIMD_AVX2)
#include "ops/activation/sigmoid_avx2.h"
#endif

namespace vlak::VLAK_NS::act {

// exp_parts.h's degree-4 q(t), w = t + t^2 q(t) = e^t - 1 - (its error 2^-28.2 relative).
inline constexpr float kQ4 = 0.0013814542908221483f, kQ3 = 0.00836870539933443f,
                       kQ2 = 0.041668329387903214f, kQ1 = 0.1666652113199234f, kQ0 = 0.4999999403953552f;
// A degree-3 q(t): 1 + t + t^2 q(t) = e^t within 2^-23.2 relative on [-ln2/2, ln2/2]
// (tools/remez/exp_coeffs.py's exp_minimax_f32 with powers 2..5, the coefficients in float).
inline constexpr float kD3Q3 = 0.008312562480568886f, kD3Q2 = 0.04189020395278931f,
                       kD3Q1 = 0.16667114198207855f, kD3Q0 = 0.499992311000824f;

// e^-x = 2^n (1 + w) from x, as S = 2^(n + kScale) (normal: n + kScale in [-126, 127]) and
// nw = -w: tn = x + n ln2 = -t (rr2), then w = t + t^2 q(t) with q evaluated at t = -tn (its odd
// coefficients' signs folded into the FMAs), so the caller's negation of its argument costs no op.
// kLow: e^-(x + xl), xl a low part (|xl| <= 2^-16) added to tn, one op more; else xl is not read.
// kQDegree: q's degree, 4 (2^-28.2) or 3 (2^-23.2, one FMA fewer).
template <int kScale, bool kLow = false, int kQDegree = 4, class D>
[[gnu::always_inline]] inline void FastExpOfNeg(D d, VFromD<D> x, VFromD<D> xl, VFromD<D>& s, VFromD<D>& nw) {
  const auto di = Rebind<int32_t>(d);
  constexpr float kBias = kMagic + static_cast<float>(127 + kScale);
  const auto bias = MulAdd(d, x, -kLog2e, Set(d, kBias));
  const auto n = Sub(d, bias, kBias);
  auto tn = MulAdd(d, n, kLn2Lo, MulAdd(d, n, kLn2Hi, x));
  if constexpr (kLow) tn = Add(d, tn, xl);
  static_assert(kQDegree == 3 || kQDegree == 4);
  VFromD<D> q;  // q(-tn)
  if constexpr (kQDegree == 4) {
    q = MulAdd(d, tn, -kQ4, Set(d, kQ3));
    q = NegMulAdd(d, q, tn, kQ2);
    q = NegMulAdd(d, q, tn, kQ1);
    q = NegMulAdd(d, q, tn, kQ0);
  } else {
    q = MulAdd(d, tn, -kD3Q3, Set(d, kD3Q2));
    q = NegMulAdd(d, q, tn, kD3Q1);
    q = NegMulAdd(d, q, tn, kD3Q0);
  }
  nw = NegMulAdd(d, Mul(d, tn, tn), q, tn);
  s = BitCast(d, di, ShiftLeft<23>(di, BitCast(di, d, bias)));
}
template <int kScale, int kQDegree = 4, class D>
[[gnu::always_inline]] inline void FastExpOfNeg(D d, VFromD<D> x, VFromD<D>& s, VFromD<D>& nw) {
  FastExpOfNeg<kScale, false, kQDegree>(d, x, x, s, nw);
}

// kSilu: x sigmoid(x) = x / (1 + e^-x), else sigmoid(x) = 1 / (1 + e^-x), both from the
// denominator 2^-64 (1 + e^-x) = S (1 + w) + 2^-64, rounded once (S + 2^-64 is exact for |x|
// below about 16). The scale keeps S normal over the clamped range; sigmoid = 2^-64 / that, the one
// rounding (also of a result below FLT_MIN); silu = RN(x / that) 2^-64, exact unless the result
// is below FLT_MIN (then rounded twice, within 2^-149). kQDegree: FastExpOfNeg's.
template <bool kSilu, int kQDegree, class D>
[[gnu::always_inline]] inline VFromD<D> FastSigmoidImpl(D d, VFromD<D> x) {
  constexpr float kTwoM64 = 5.42101086242752217e-20f;
  // [-120, 20]: sigmoid and silu round to 0 below -104, to 1 and x above 17; NaN gives -120 here
  // (Max ignores it) and is put back at the end.
  const auto xc = Min(d, Max(d, x, -120.0f), 20.0f);
  VFromD<D> S, nw;
  FastExpOfNeg<-64, kQDegree>(d, xc, S, nw);  // S = 2^(n-64): normal for n in [-29, 174]
  const auto den = NegMulAdd(d, S, nw, Add(d, S, Set(d, kTwoM64)));
  if constexpr (kSilu) {
    const auto y = Mul(d, Div(d, xc, den), kTwoM64);
    // x > 20 and NaN in one ordered compare: both give x.
    return IfThenElse(d, Le(d, x, 20.0f), y, x);
  } else {
    return IfThenElse(d, IsNaN(d, x), x, Div(d, Set(d, kTwoM64), den));
  }
}

// kQDegree 3: vlak_activation_f32's fast tier (on AVX-512 and AVX2 the table forms instead), max
// 3.25 ULP (sigmoid) and 3.46 (silu) over every float, relative error up to 4.6 x 2^-24 (x near
// -16.3). 4: 2.44 ULP and 2.96 x 2^-24, for the default tier's split form (sigmoid_split.h) and
// glu's fast gate, whose bounds (2 ULP from -16 up; 5 ULP on act(gate) up, where the relative
// error counts up to 2^24 ULP) need it.
template <int kQDegree = 3, class D>
VFromD<D> FastSigmoid(D d, VFromD<D> x) {
#if defined(VLAK_SIMD_AVX512)
  // The fast tier itself (degree 3) on AVX-512: sigmoid_avx512.h's table form, its own bits.
  if constexpr (kQDegree == 3) {
    VFromD<D> y;
    for (int j = 0; j < y.kRegs; ++j) y.raw[j] = FastSigmoidAvx512(x.raw[j]);
    return y;
  }
#elif defined(VLAK_SIMD_AVX2)
  if constexpr (kQDegree == 3) {  // sigmoid_avx2.h's table form, its own bits too
    VFromD<D> y;
    for (int j = 0; j < y.kRegs; ++j) y.raw[j] = FastSigmoidAvx2(x.raw[j]);
    return y;
  }
#endif
  return FastSigmoidImpl<false, kQDegree>(d, x);
}

template <int kQDegree = 3, class D>
VFromD<D> FastSilu(D d, VFromD<D> x) {
#if defined(VLAK_SIMD_AVX512)
  if constexpr (kQDegree == 3) {  // as FastSigmoid
    VFromD<D> y;
    for (int j = 0; j < y.kRegs; ++j) y.raw[j] = FastSiluAvx512(x.raw[j]);
    return y;
  }
#elif defined(VLAK_SIMD_AVX2)
  if constexpr (kQDegree == 3) {
    VFromD<D> y;
    for (int j = 0; j < y.kRegs; ++j) y.raw[j] = FastSiluAvx2(x.raw[j]);
    return y;
  }
#endif
  return FastSigmoidImpl<true, kQDegree>(d, x);
}

template <class D>
VFromD<D> FastTanh(D d, VFromD<D> x) {
  // e^z, z = -2|x| clamped at -20: S = 2^n, nw = -w.
  VFromD<D> S, nw;
  FastExpOfNeg<0>(d, Mul(d, Min(d, Abs(d, x), 10.0f), 2.0f), S, nw);
  const auto one = Set(d, 1.0f);
  const auto m = NegMulAdd(d, S, nw, Sub(d, S, one));  // e^z - 1
  const auto q = Div(d, m, Add(d, m, Set(d, 2.0f)));  // -tanh|x|, or +0 at x = +-0
  // -|q| with its sign bit flipped where x >= 0 (and at +0): tanh(x), -0 for x = -0.
  const auto y = Xor(d, NegAbs(d, q), AndNot(d, x, Set(d, -0.0f)));
  return IfThenElse(d, IsNaN(d, x), x, y);
}

// gelu_tanh(x) = x sigmoid(2w) (gelu_tanh.h): 2w = vh + vl as gelu_tanh.h's double-float (for
// x < 0 the result's relative error is 2w's absolute error, up to 120 times its relative one),
// then FastSilu's quotient with x as the numerator: x / (1 + e^-2w) = RN(x / D) 2^-64, D = 2^-64
// (1 + e^-2w) = S (1 + w') + 2^-64, e^-2w reduced from both halves of 2w. x is clamped to [-12,
// 12], 2w to [-120, 20]: above 2w = 17.4 the result is x to the last bit, and below -120 it is
// -0 (|x| e^2w < 2^-150). x above 12 (and +inf, and NaN) is returned; x below -12 gives -12 /
// (1 + e^120), -0. 36 ops with one Div, gelu_tanh.h's 68.
template <class D>
VFromD<D> FastGeluTanh(D d, VFromD<D> x) {
  constexpr float kTwoM64 = 5.42101086242752217e-20f;
  const auto xc = Min(d, Max(d, x, -12.0f), 12.0f);  // NaN: 12 or -12 here, x at the end
  VFromD<D> vh, vl;
  GeluTanhArg(d, xc, vh, vl);
  VFromD<D> S, nw;
  FastExpOfNeg<-64, true>(d, Min(d, Max(d, vh, -120.0f), 20.0f), vl, S, nw);
  const auto den = NegMulAdd(d, S, nw, Add(d, S, Set(d, kTwoM64)));
  const auto y = Mul(d, Div(d, xc, den), kTwoM64);
  return IfThenElse(d, Le(d, x, 12.0f), y, x);  // x > 12 and NaN in one ordered compare
}

// gelu.h's algorithm, x Phi(x) = max(x, 0) - a Q(a), a Q(a) = e^{-a^2/2} a t R(t), with R
// evaluated in float by Horner (gelu.h: its last two steps in two floats) and t's low part taken
// to first order as one factor. Kept, as each is worth up to a ULP or more where the result's
// mantissa is near 1: t = th (1 + g) (1 + p a's rounding enters a t R(t) about twice near x = 0),
// the products' exact errors, a^2's low part in the exp (at a = 14 its rounding alone would be 60
// ULPs), and e's 1 + te + v summed largest last rather than through RN(te + v). Which of them the
// 4 ULP bound needs, measured: docs/ops/activation.md.
template <class D>
VFromD<D> FastGelu(D d, VFromD<D> x) {
  VFromD<D> one, a, th, g, tau;  // t = th (1 + g)
  GeluArgs(d, x, one, a, th, g, tau);
  const auto R = MulAdd(d, MulAdd(d, GeluR2(d, tau), tau, Set(d, kGeluR1)), tau, Set(d, kGeluR0));
  // a th R = Y + lo: Y = RN(ah R), ah = RN(a th), lo = (Y's error) + (ah's error) R, carried
  // negated (NegMulAdd is one op on every target).
  const auto ah = Mul(d, a, th);
  const auto Y = Mul(d, ah, R);
  const auto nlo = MulAdd(d, NegMulAdd(d, a, th, ah), R, NegMulAdd(d, ah, R, Y));
  // e^{-a^2/2} = S 2^-64 (1 + u), -a^2/2 = z + zl exactly.
  const auto s = Mul(d, a, a);
  const auto nse = NegMulAdd(d, a, a, s);
  VFromD<D> S, te, v, u;
  ExpParts<64, true, 2>(d, Mul(d, s, -0.5f), Mul(d, nse, 0.5f), S, te, v, u);
  // a t R(t) = (Y + lo) (1 + g (1 + t R'(t) / R)) to first order in g; t R' / R runs from 1 (t =
  // 1) to 0.17 (t = 0.147), about t: the factor is taken as 1 + th. Times e's 1 + te + v:
  // T = Y + k, k = Y te + (Y (v + c) + lo), the largest term last (u = RN(te + v) unused: its
  // rounding would be 2^-24 of up to 0.41 Y).
  const auto c = MulAdd(d, g, th, g);
  const auto nk = NegMulAdd(d, Y, te, NegMulAdd(d, Y, Add(d, v, c), nlo));  // -k
  return GeluResult(d, x, Sub(d, Y, nk), S);  // T = Y + k = a Q(a) 2^64 / S
}

}  // namespace vlak::VLAK_NS::act
