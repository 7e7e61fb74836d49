// The fixed-point arithmetic of TFLite's reference int8 softmax (gemmlowp's FixedPoint on int32),
// written out for vlak's scalar set-up code: the 256-entry exp table and each row's reciprocal.
// Every function is exact integer arithmetic, so its results are the same bits on every target.
//
//   Mul31(a, b)       = gemmlowp SaturatingRoundingDoublingHighMul: round(a b / 2^31), ties away
//                       from zero, INT32_MIN * INT32_MIN saturating to INT32_MAX.
//   DivPot(x, e)      = RoundingDivideByPOT: x / 2^e rounded to nearest, ties away from zero.
//   ExpNeg(a, ibits)  = exp(a) for a <= 0 given in Q(ibits).(31 - ibits), result Q0.31: a Taylor
//                       series around -1/8 on [-1/4, 0) and a barrel shifter of exp(-2^k).
//   Reciprocal(x, 12) = TFLite's GetReciprocal: 1 / x for x in Q12.19, as a Q0.31 mantissa in
//                       [1/2, 1) and a shift (3 Newton steps from 48/17 - 32/17 x).
// Cost: ExpNeg ~60 integer operations; it runs 256 times per (thread, scale), never per element.
#pragma once

#include <cstdint>

namespace vlak::softmax_i8_fixed {

inline int32_t Mul31(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = static_cast<int64_t>(a) * b;
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30);
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));  // division truncates toward 0
}

// e in [0, 31].
inline int32_t DivPot(int32_t x, int e) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << e) - 1);
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + ((x & mask) > threshold ? 1 : 0);
}

// x * 2^e for a compile-time e > 0, saturating (gemmlowp SaturatingRoundingMultiplyByPOT).
inline int32_t MulPotSat(int32_t x, int e) {
  const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - e)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return static_cast<int32_t>(static_cast<uint32_t>(x) << e);
}

// exp(a) for a in [-1/4, 0), Q0.31 in and out.
inline int32_t ExpQuarter(int32_t a) {
  const int32_t kExpMinus1Over8 = 1895147668;  // exp(-1/8) in Q0.31
  const int32_t kOneThird = 715827883;         // 1/3 in Q0.31
  const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(a) + (uint32_t{1} << 28));  // a + 1/8
  const int32_t x2 = Mul31(x, x);
  const int32_t x3 = Mul31(x2, x);
  const int32_t x4 = Mul31(x2, x2);
  const int32_t x4_4 = DivPot(x4, 2);
  const int32_t poly = DivPot(Mul31(x4_4 + x3, kOneThird) + x2, 1);  // x^4/24 + x^3/6 + x^2/2
  return kExpMinus1Over8 + Mul31(kExpMinus1Over8, x + poly);
}

// exp(a) for a <= 0 in Q(kIntBits).(31 - kIntBits); result Q0.31 (exp(0) = INT32_MAX).
template <int kIntBits>
int32_t ExpNeg(int32_t a) {
  constexpr int kFracBits = 31 - kIntBits;
  const int32_t quarter = int32_t{1} << (kFracBits - 2);
  const int32_t a_mod = (a & (quarter - 1)) - quarter;  // in [-1/4, 0)
  int32_t result = ExpQuarter(kIntBits == 0 ? a_mod : MulPotSat(a_mod, kIntBits));
  const int32_t remainder = a_mod - a;  // a multiple of 1/4, >= 0
  // exp(-2^k) in Q0.31 for k = -2 .. 4: multiply in for each bit of the remainder.
  constexpr int32_t kMul[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (kIntBits > k && (remainder & (int32_t{1} << (kFracBits + k))) != 0) result = Mul31(result, kMul[k + 2]);
  }
  if constexpr (kIntBits > 5) {
    if (a < -(int32_t{1} << (36 - kIntBits))) result = 0;  // below -32
  }
  return a == 0 ? INT32_MAX : result;
}

// 1 / (1 + x) for x in [0, 1) in Q0.31 (gemmlowp one_over_one_plus_x_for_x_in_0_1).
inline int32_t OneOverOnePlus(int32_t a) {
  // half_denominator = RoundingHalfSum(a, 1.0): (a + INT32_MAX + 1) / 2 rounded.
  const int64_t sum = static_cast<int64_t>(a) + INT32_MAX;
  const int32_t half_den = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  const int32_t k48_17 = 1515870810;    // 48/17 in Q2.29
  const int32_t kM32_17 = -1010580540;  // -32/17 in Q2.29
  int32_t x = k48_17 + Mul31(half_den, kM32_17);
  const int32_t one_q229 = int32_t{1} << 29;
  for (int i = 0; i < 3; ++i) {
    const int32_t hx = Mul31(half_den, x);
    const int32_t one_minus = one_q229 - hx;
    x = x + MulPotSat(Mul31(x, one_minus), 2);  // Rescale<2> of a Q4.27 product
  }
  return MulPotSat(x, 1);  // Rescale<0>(x / 2): Q1.30 -> Q0.31
}

// TFLite's GetReciprocal for x > 0 in Q(int_digits).(31 - int_digits).
inline int32_t Reciprocal(int32_t x, int int_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(x));
  *num_bits_over_unit = int_digits - headroom_plus_one;
  const int32_t shifted_minus_one =
      static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) - (uint32_t{1} << 31));
  return OneOverOnePlus(shifted_minus_one);
}

}  // namespace vlak::softmax_i8_fixed
