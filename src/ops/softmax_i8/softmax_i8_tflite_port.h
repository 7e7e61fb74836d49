// The oracles of vlak_softmax_i8 / _u8, written from TFLite's and gemmlowp's definitions (not from
// vlak's code), shared by softmax_i8_test.cc and softmax_i8_fuzz.cc beside it:
//   tfl::Prepare + tfl::Softmax  a port of TFLite's reference int8/uint8 softmax (reference/softmax.h)
//                                and the gemmlowp fixed-point functions it calls, beta = 1; where
//                                TFLite's C++ leaves int32 the port takes the exact value, as vlak.h
//                                defines it. VLAK_SOFTMAX_I8_TFLITE must equal it bit for bit.
//   tfl::Float64                 t = min(256 p, 255), p the float64 softmax of input_scale * x.
// and SoftmaxBytes<T>, the vlak entry point of element type T (vlak_softmax_i8 or _u8) both call.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "vlak/vlak.h"

namespace vlak_test {

// vlak_softmax_i8 for int8_t, vlak_softmax_u8 for uint8_t.
template <typename T>
vlak_status SoftmaxBytes(size_t rows, size_t cols, const T* x, size_t xs, float s, T* y, size_t ys, unsigned flags) {
  if constexpr (std::is_signed_v<T>) {
    return vlak_softmax_i8(rows, cols, x, xs, s, y, ys, flags);
  } else {
    return vlak_softmax_u8(rows, cols, x, xs, s, y, ys, flags);
  }
}

// ---- the TFLite / gemmlowp port -------------------------------------------------------------
namespace tfl {

inline int32_t Srdhm(int32_t a, int32_t b) {  // SaturatingRoundingDoublingHighMul
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = int64_t{a} * int64_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  const int32_t high = static_cast<int32_t>((ab + nudge) / (1ll << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : high;
}

inline int32_t Rdbp(int32_t x, int exponent) {  // RoundingDivideByPOT; exponent > 31: the exact rounding
  if (exponent > 31) {
    // |x| < 2^31 <= 2^(exponent - 1): the quotient is below one half, rounds to 0.
    return 0;
  }
  const int32_t mask = static_cast<int32_t>((1ll << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// SaturatingRoundingMultiplyByPOT<e> for e > 0.
inline int32_t SatShl(int32_t x, int e) {
  const int32_t threshold = (1 << (32 - 1 - e)) - 1;
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(static_cast<uint32_t>(x) * (1u << e));
}

// Fixed point with kInt integer bits, raw int32.
template <int kInt>
struct Fp {
  int32_t raw;
  static constexpr int kFrac = 31 - kInt;
};
template <int A, int B>
Fp<A + B> operator*(Fp<A> a, Fp<B> b) { return {Srdhm(a.raw, b.raw)}; }
template <int A>
Fp<A> operator+(Fp<A> a, Fp<A> b) { return {a.raw + b.raw}; }
template <int A>
Fp<A> operator-(Fp<A> a, Fp<A> b) { return {a.raw - b.raw}; }
// Rescale<Dst>(Fp<Src>)
template <int Dst, int Src>
Fp<Dst> Rescale(Fp<Src> x) {
  constexpr int e = Src - Dst;
  if constexpr (e > 0) return {SatShl(x.raw, e)};
  else if constexpr (e < 0) return {Rdbp(x.raw, -e)};
  else return {x.raw};
}

inline Fp<0> ExpQuarterInterval(Fp<0> a) {  // exp(a), a in [-1/4, 0)
  const Fp<0> c{1895147668};         // exp(-1/8)
  const Fp<0> third{715827883};
  const Fp<0> x = a + Fp<0>{1 << 28};
  const Fp<0> x2 = x * x;
  const Fp<0> x3 = x2 * x;
  const Fp<0> x4 = x2 * x2;
  const Fp<0> x4_over_4{Rdbp(x4.raw, 2)};
  const Fp<0> tail{Rdbp((((x4_over_4 + x3) * third) + x2).raw, 1)};
  return c + c * (x + tail);
}

template <int kInt>
inline Fp<0> ExpOnNegative(Fp<kInt> a) {
  constexpr int kFrac = Fp<kInt>::kFrac;
  const Fp<kInt> quarter{1 << (kFrac - 2)};
  const Fp<kInt> mask{quarter.raw - 1};
  const Fp<kInt> a_mod{(a.raw & mask.raw) - quarter.raw};
  Fp<0> result = ExpQuarterInterval(Rescale<0>(a_mod));
  const int32_t remainder = a_mod.raw - a.raw;
  const struct { int exponent; int32_t mult; } barrel[] = {
      {-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308}, {2, 39332535}, {3, 720401}, {4, 242}};
  for (const auto& b : barrel) {
    if (kInt > b.exponent && (remainder & (1 << (kFrac + b.exponent))) != 0) result = result * Fp<0>{b.mult};
  }
  if (kInt > 5 && a.raw < -(1 << (36 - kInt))) result = {0};
  if (a.raw == 0) result = {std::numeric_limits<int32_t>::max()};
  return result;
}

inline Fp<0> OneOverOnePlusX(Fp<0> a) {
  const int64_t s = int64_t{a.raw} + std::numeric_limits<int32_t>::max();
  const Fp<0> half_den{static_cast<int32_t>((s + (s >= 0 ? 1 : -1)) / 2)};
  Fp<2> x = Fp<2>{1515870810} + half_den * Fp<2>{-1010580540};
  for (int i = 0; i < 3; ++i) {
    const Fp<2> hx = half_den * x;
    const Fp<2> one_minus = Fp<2>{1 << 29} - hx;
    x = x + Rescale<2>(x * one_minus);
  }
  return Rescale<0>(Fp<1>{x.raw});
}

inline int32_t GetReciprocal(int32_t x, int int_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(x));
  *num_bits_over_unit = int_digits - headroom_plus_one;
  const int32_t shifted = static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) - (1u << 31));
  return OneOverOnePlusX(Fp<0>{shifted}).raw;
}

struct Params {
  int32_t multiplier;
  int left_shift;
  int diff_min;
};

inline Params Prepare(float input_scale) {
  const double beta = 1.0;
  const double real = std::min(beta * input_scale * (1 << (31 - 5)), (1ll << 31) - 1.0);
  int shift;
  const double q = std::frexp(real, &shift);
  auto q_fixed = static_cast<int64_t>(std::round(q * (1ll << 31)));
  if (q_fixed == (1ll << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  const double radius = 1.0 * ((1 << 5) - 1) * (1ll << (31 - 5)) / (1ll << shift);
  return {static_cast<int32_t>(q_fixed), shift, -static_cast<int>(std::floor(radius))};
}

// One row; T = int8_t or uint8_t.
template <typename T>
inline void Softmax(const Params& p, const T* x, T* y, size_t n) {
  int32_t max_in_row = std::numeric_limits<T>::min();
  for (size_t c = 0; c < n; ++c) max_in_row = std::max<int32_t>(max_in_row, x[c]);
  auto exp_of = [&](int32_t diff) {
    // MultiplyByQuantizedMultiplierGreaterThanOne
    const int32_t rescaled = Srdhm(static_cast<int32_t>(int64_t{diff} * (int64_t{1} << p.left_shift)), p.multiplier);
    return ExpOnNegative(Fp<5>{rescaled});
  };
  int64_t sum = 0;  // Fp<12>; int32 in TFLite
  for (size_t c = 0; c < n; ++c) {
    const int32_t diff = int32_t{x[c]} - max_in_row;
    if (diff >= p.diff_min) sum += Rescale<12>(exp_of(diff)).raw;
  }
  int num_bits_over_unit = 99;
  int32_t shifted_scale = 0;
  if (sum < (int64_t{1} << 31)) shifted_scale = GetReciprocal(static_cast<int32_t>(sum), 12, &num_bits_over_unit);
  for (size_t c = 0; c < n; ++c) {
    const int32_t diff = int32_t{x[c]} - max_in_row;
    if (diff >= p.diff_min) {
      const int32_t unsat = Rdbp((Fp<0>{shifted_scale} * exp_of(diff)).raw, num_bits_over_unit + 31 - 8);
      const int32_t shifted = unsat + std::numeric_limits<T>::min();
      y[c] = static_cast<T>(std::clamp<int32_t>(shifted, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    } else {
      y[c] = std::numeric_limits<T>::min();
    }
  }
}


// ---- float64 -----------------------------------------------------------------------------------
template <typename T>
void Float64(float s, const T* x, size_t n, double* t) {  // t = min(256 p, 255)
  int mx = std::numeric_limits<int>::min();
  for (size_t i = 0; i < n; ++i) mx = std::max<int>(mx, x[i]);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(s) * (int{x[i]} - mx));
  for (size_t i = 0; i < n; ++i) t[i] = std::min(256.0 * std::exp(static_cast<double>(s) * (int{x[i]} - mx)) / sum, 255.0);
}

}  // namespace tfl
}  // namespace vlak_test
