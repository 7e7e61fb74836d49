// Conversions between lane types against per-lane C++: BitCast, ConvertTo, NearestInt, PromoteTo,
// DemoteTo and TruncateTo, for every pair the contract allows and every LMUL at which the wider
// side is still a register group (kPow2 <= 3). Each case is named source_to_destination.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

// The conversion for one pair of tags: a captureless generic lambda converts to it, so the op is
// a small function per (test, pair) and the loops and checks below are instantiated once per pair
// of tags (test_util.h's element-wise harness says why).
template <class DF, class DT>
using ConvertOp = VFromD<DT> (*)(DT, DF, VFromD<DF>);

// Loads the source with `df`, converts into `dt` and stores; strips of both sides share n.
template <class DF, class DT>
[[gnu::noinline]] void ApplyConvert(DF df, DT dt, size_t step, const Inputs<TFromD<DF>>& in, TFromD<DT>* out,
                                    ConvertOp<DF, DT> op) {
  for (size_t i = 0; i < in.size(); i += step) StoreU(dt, op(dt, df, LoadU(df, &in.a[i])), out + i);
}

template <class P>
using StripFrom = StripTag<typename P::From>;
template <class P>
using StripTo = decltype(Rebind<TFromD<typename P::To>>(StripFrom<P>()));

template <class P>
[[gnu::noinline]] void TestConvertOps(const char* name, Inputs<TFromD<typename P::From>> in,
                                      ConvertOp<typename P::From, typename P::To> op,
                                      ConvertOp<StripFrom<P>, StripTo<P>> op_strip,
                                      Oracle1<TFromD<typename P::To>, TFromD<typename P::From>> oracle, Accept how) {
  using DF = typename P::From;
  using DT = typename P::To;
  using TT = TFromD<DT>;
  static_assert(std::is_same_v<RebindD<DF, TT>, DT>, "a conversion keeps the lane count");
  const DF df;
  const DT dt;
  const size_t N = Lanes(df);
  ASSERT_EQ(Lanes(dt), N);
  in.PadTo(N);
  const std::vector<TT> expected = Expected<TT, TFromD<DF>>(in, oracle);
  std::vector<TT> actual(in.size());
  ApplyConvert(df, dt, N, in, actual.data(), op);
  const std::string what = std::string(name) + " " + CaseName<P>::Get();
  CheckLanes(what, expected.data(), actual.data(), in, 1, N, how);
  for (size_t n : StripLengths(N)) {
    PoisonStripLanes(expected, actual.data(), N, n);
    const auto dfs = Strip(df, n);
    ApplyConvert(dfs, Rebind<TT>(dfs), N, in, actual.data(), op_strip);
    CheckLanes(what + " strip n=" + std::to_string(n), expected.data(), actual.data(), in, 1, N, how);
  }
}

template <class P, class Op>
void TestConvert(const char* name, Inputs<TFromD<typename P::From>> in, const Op& op,
                 Oracle1<TFromD<typename P::To>, TFromD<typename P::From>> oracle, Accept how = Accept::kExact) {
  const ConvertOp<typename P::From, typename P::To> full = op;
  const ConvertOp<StripFrom<P>, StripTo<P>> strip = op;
  TestConvertOps<P>(name, std::move(in), full, strip, oracle, how);
}

// Inputs as bit patterns too, so that conversions meet every exponent and payload.
template <typename T>
Inputs<T> ConvertInputs(uint64_t salt) {
  Inputs<T> in = UnaryInputs<T>(salt, 1024);
  Rng rng(salt + 1000);
  for (int i = 0; i < 512; ++i) in.Push(RandomBits<T>(rng));
  return in;
}

// ----------------------------------------------------------------------------------- BitCast
#define VLAK_BITCAST(F, T)                                                                     \
  ConvPair<Simd<F, 0>, Simd<T, 0>>, ConvPair<Simd<F, 1>, Simd<T, 1>>, ConvPair<Simd<F, 2>, Simd<T, 2>>, \
      ConvPair<Simd<F, 3>, Simd<T, 3>>
using BitCastCases = CaseList<VLAK_BITCAST(float, int32_t), VLAK_BITCAST(int32_t, float), VLAK_BITCAST(float, uint32_t),
                              VLAK_BITCAST(uint32_t, float), VLAK_BITCAST(int32_t, uint32_t),
                              VLAK_BITCAST(uint32_t, int32_t), VLAK_BITCAST(int16_t, uint16_t),
                              VLAK_BITCAST(uint16_t, int16_t), VLAK_BITCAST(int8_t, uint8_t),
                              VLAK_BITCAST(uint8_t, int8_t)>;

VLAK_SIMD_TEST(Convert, BitCast, BitCastCases) {
  using TF = TFromD<typename D::From>;
  using TT = TFromD<typename D::To>;
  TestConvert<D>("BitCast", ConvertInputs<TF>(40), [](auto dt, auto df, auto v) { return BitCast(dt, df, v); },
                 [](TF x) { return FromBits<TT>(BitsOf(x)); }, Accept::kBitExact);
}

// --------------------------------------------------------------------- ConvertTo, NearestInt
// Float to int32 in double, where every float and every int32 is exact: NaN -> 0, out of range
// saturates.
inline int32_t SaturateI32(double t) {
  if (std::isnan(t)) return 0;
  if (t >= 2147483648.0) return std::numeric_limits<int32_t>::max();
  if (t < -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(t);
}

#define VLAK_SAME_K(F, T) \
  ConvPair<Simd<F, 0>, Simd<T, 0>>, ConvPair<Simd<F, 1>, Simd<T, 1>>, ConvPair<Simd<F, 2>, Simd<T, 2>>, \
      ConvPair<Simd<F, 3>, Simd<T, 3>>
using ConvertToCases = CaseList<VLAK_SAME_K(int32_t, float), VLAK_SAME_K(uint32_t, float), VLAK_SAME_K(float, int32_t)>;
using FloatToIntCases = CaseList<VLAK_SAME_K(float, int32_t)>;

VLAK_SIMD_TEST(Convert, ConvertTo, ConvertToCases) {
  using TF = TFromD<typename D::From>;
  using TT = TFromD<typename D::To>;
  TestConvert<D>("ConvertTo", ConvertInputs<TF>(41), [](auto dt, auto df, auto v) { return ConvertTo(dt, df, v); },
                 [](TF x) -> TT {
                   // int -> float through double: exact, then one rounding to nearest even.
                   if constexpr (kIsFloat<TT>) return static_cast<float>(static_cast<double>(x));
                   else return SaturateI32(std::trunc(static_cast<double>(x)));  // toward zero
                 });
}

VLAK_SIMD_TEST(Convert, NearestInt, FloatToIntCases) {
  TestConvert<D>("NearestInt", ConvertInputs<float>(43),
                 [](auto dt, auto df, auto v) {
                   static_assert(std::is_same_v<decltype(NearestInt(df, v)), VFromD<decltype(dt)>>);
                   return NearestInt(df, v);
                 },
                 [](float x) { return SaturateI32(std::nearbyint(static_cast<double>(x))); });
}

// --------------------------------------------------------------------------------- PromoteTo
// Narrow to wide: kPow2 of the narrow side from 0 while the wide side stays <= 3.
#define VLAK_X2(F, T) ConvPair<Simd<F, 0>, Simd<T, 1>>, ConvPair<Simd<F, 1>, Simd<T, 2>>, ConvPair<Simd<F, 2>, Simd<T, 3>>
#define VLAK_X4(F, T) ConvPair<Simd<F, 0>, Simd<T, 2>>, ConvPair<Simd<F, 1>, Simd<T, 3>>
using PromoteCases = CaseList<VLAK_X2(int8_t, int16_t), VLAK_X4(int8_t, int32_t), VLAK_X2(uint8_t, uint16_t),
                              VLAK_X2(uint8_t, int16_t), VLAK_X4(uint8_t, uint32_t), VLAK_X4(uint8_t, int32_t),
                              VLAK_X2(int16_t, int32_t), VLAK_X2(uint16_t, uint32_t), VLAK_X2(uint16_t, int32_t),
                              VLAK_X2(float, double)>;

VLAK_SIMD_TEST(Convert, PromoteTo, PromoteCases) {
  using TF = TFromD<typename D::From>;
  using TT = TFromD<typename D::To>;
  TestConvert<D>("PromoteTo", ConvertInputs<TF>(44), [](auto dt, auto df, auto v) { return PromoteTo(dt, df, v); },
                 [](TF x) {
                   // Integers: the value is kept (sign- or zero-extension); f32 -> f64 is exact.
                   if constexpr (kIsFloat<TT>) return static_cast<TT>(x);
                   else return static_cast<TT>(static_cast<int64_t>(x));
                 });
}

// ---------------------------------------------------------------------- DemoteTo, TruncateTo
// Wide to narrow, kPow2 of the wide side up to 3.
#define VLAK_D2(F, T) ConvPair<Simd<F, 1>, Simd<T, 0>>, ConvPair<Simd<F, 2>, Simd<T, 1>>, ConvPair<Simd<F, 3>, Simd<T, 2>>
#define VLAK_D4(F, T) ConvPair<Simd<F, 2>, Simd<T, 0>>, ConvPair<Simd<F, 3>, Simd<T, 1>>
#define VLAK_INT_NARROWING                                                                                \
  VLAK_D2(int32_t, int16_t), VLAK_D2(int32_t, uint16_t), VLAK_D2(uint32_t, int16_t), VLAK_D2(uint32_t, uint16_t), \
      VLAK_D4(int32_t, int8_t), VLAK_D4(int32_t, uint8_t), VLAK_D4(uint32_t, int8_t), VLAK_D4(uint32_t, uint8_t), \
      VLAK_D2(int16_t, int8_t), VLAK_D2(int16_t, uint8_t), VLAK_D2(uint16_t, int8_t), VLAK_D2(uint16_t, uint8_t)
using DemoteCases = CaseList<VLAK_INT_NARROWING, VLAK_D2(double, float)>;
using DemoteF64Cases = CaseList<VLAK_D2(double, float)>;
using TruncateCases = CaseList<VLAK_INT_NARROWING>;

// f64 -> f32 rounded to nearest, ties to even, on the bit patterns: integer arithmetic only, so
// neither the host's conversion nor its rounding mode is the oracle. NaN gives a NaN (SameLane
// accepts any), overflow gives inf, results below FLT_MIN are denormals or zero.
inline float DemoteF64Bits(double x) {
  const uint64_t u = BitsOf(x);
  const uint32_t sign = static_cast<uint32_t>(u >> 63) << 31;
  const int exp = static_cast<int>((u >> 52) & 0x7FF);
  const uint64_t mant = u & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7FF) return FromBits<float>(mant != 0 ? 0x7FC00000u : sign | 0x7F800000u);
  // Round q + rem / 2^shift to an integer, ties to even.
  auto round = [](uint64_t q, uint64_t rem, int shift) {
    const uint64_t half = uint64_t{1} << (shift - 1);
    return q + (rem > half || (rem == half && (q & 1)) ? 1 : 0);
  };
  const int e32 = exp - 1023 + 127;  // f32's biased exponent of the same value (exp > 0)
  uint64_t bits;
  if (exp == 0) {
    bits = 0;  // an f64 denormal is below 2^-1022: far under half of f32's 2^-149
  } else if (e32 >= 255) {
    bits = 0x7F800000u;
  } else if (e32 >= 1) {
    // Normal: keep 23 of the 52 fraction bits. A carry out of the fraction steps the exponent,
    // up to 0x7F800000 (inf) from FLT_MAX: the encoding does it.
    bits = round((static_cast<uint64_t>(e32) << 23) | (mant >> 29), mant & ((uint64_t{1} << 29) - 1), 29);
  } else {
    // Denormal or zero: the value in units of 2^-149 is sig / 2^shift, shift = 926 - exp >= 30.
    // From shift 54 on it is below half a unit (sig < 2^53): zero.
    const uint64_t sig = mant | (uint64_t{1} << 52);
    const int shift = 926 - exp;
    bits = shift >= 54 ? 0 : round(sig >> shift, sig & ((uint64_t{1} << shift) - 1), shift);
  }
  return FromBits<float>(sign | static_cast<uint32_t>(bits));
}

// f64 -> f32 cases whose result is written down, not computed: ties (to even), values beside
// them, overflow to inf, denormal results (including ties between denormals and into FLT_MIN),
// underflow to zero of either sign, +-0, +-inf, NaN.
struct DemoteF64Case {
  double in;
  float out;
};
inline const std::vector<DemoteF64Case>& DemoteF64Table() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  static const std::vector<DemoteF64Case> table = {
      {0.0, 0.0f}, {-0.0, -0.0f}, {1.0, 1.0f}, {-2.5, -2.5f}, {0.1, 0x1.99999ap-4f},
      // Ties between two floats: to the even one.
      {1.0 + 0x1p-24, 1.0f}, {1.0 + 3 * 0x1p-24, 0x1.000004p0f}, {-(1.0 + 3 * 0x1p-24), -0x1.000004p0f},
      {1.0 + 5 * 0x1p-24, 0x1.000004p0f}, {0x1.0000018p0, 0x1.000002p0f}, {16777217.0, 16777216.0f},
      {16777219.0, 16777220.0f}, {-16777217.0, -16777216.0f},
      // One f64 ulp beside a tie: no longer a tie.
      {1.0 + 0x1p-24 + 0x1p-52, 0x1.000002p0f}, {1.0 + 3 * 0x1p-24 - 0x1p-52, 0x1.000002p0f},
      // Around FLT_MAX: the tie with 2^128 goes up (FLT_MAX's last bit is odd), below it stays.
      {0x1.fffffep127, 0x1.fffffep127f}, {0x1.fffffefffffffp127, 0x1.fffffep127f}, {0x1.ffffffp127, kInf},
      {-0x1.ffffffp127, -kInf}, {0x1p128, kInf}, {1e300, kInf}, {-1e300, -kInf},
      {std::numeric_limits<double>::max(), kInf},
      // Denormal results and underflow.
      {0x1p-126, 0x1p-126f}, {0x1.fffffcp-127, 0x1.fffffcp-127f},
      {0x1.fffffep-127, 0x1p-126f},  // tie between the largest denormal (odd) and FLT_MIN: up
      {0x1.fffffdp-127, 0x1.fffffcp-127f}, {0x1p-149, 0x1p-149f}, {-0x1p-149, -0x1p-149f},
      {0x1p-150, 0.0f},                  // tie between 0 and 2^-149: to 0
      {-0x1p-150, -0.0f}, {0x1.0000000000001p-150, 0x1p-149f}, {0x1.8p-150, 0x1p-149f},
      {0x1.8p-149, 0x1p-148f},           // 1.5 units: tie, to 2
      {0x1.4p-148, 0x1p-148f},           // 2.5 units: tie, to 2
      {0x1.cp-148, 0x1p-147f},           // 3.5 units: tie, to 4
      {0x1.3p-140, 0x1.3p-140f},         // exact denormal
      {1e-300, 0.0f}, {-1e-300, -0.0f}, {std::numeric_limits<double>::denorm_min(), 0.0f},
      {-std::numeric_limits<double>::denorm_min(), -0.0f},
      {std::numeric_limits<double>::infinity(), kInf}, {-std::numeric_limits<double>::infinity(), -kInf},
      {std::numeric_limits<double>::quiet_NaN(), kNaN}, {-std::numeric_limits<double>::quiet_NaN(), kNaN},
      {std::numeric_limits<double>::signaling_NaN(), kNaN}, {FromBits<double>(0x7FF0000000000001ull), kNaN},
  };
  return table;
}

// The written-down cases first, then the bit-level oracle against them (so that it can be trusted
// for the rest), then every LMUL with the cases, the specials and random bit patterns.
VLAK_SIMD_TEST(Convert, DemoteF64ToF32, DemoteF64Cases) {
  Inputs<double> in;
  for (const DemoteF64Case& c : DemoteF64Table()) {
    in.Push(c.in);
    EXPECT_TRUE(SameLane(c.out, DemoteF64Bits(c.in))) << "oracle(" << Str(c.in) << ") = " << Str(DemoteF64Bits(c.in))
                                                      << ", table says " << Str(c.out);
  }
  const Inputs<double> more = ConvertInputs<double>(47);
  for (double x : more.a) in.Push(x);
  // Doubles next to f32's rounding points: a float plus a quarter, a half and three quarters of
  // its ulp, and one f64 ulp either side of the half, over the whole exponent range.
  Rng rng(48);
  for (int i = 0; i < 512; ++i) {
    const float f = FromBits<float>(rng.Next() & 0x7F7FFFFFu);  // finite and non-negative
    const double ulp = static_cast<double>(std::nextafter(f, std::numeric_limits<float>::infinity())) - f;
    const double half = static_cast<double>(f) + ulp / 2;
    for (double x : {static_cast<double>(f) + ulp / 4, half, static_cast<double>(f) + 3 * ulp / 4,
                     std::nextafter(half, 0.0), std::nextafter(half, 1e308)}) {
      in.Push(rng.Below(2) ? -x : x);
    }
  }
  TestConvert<D>("DemoteTo f64->f32", in, [](auto dt, auto df, auto v) { return DemoteTo(dt, df, v); },
                 DemoteF64Bits);
}

VLAK_SIMD_TEST(Convert, DemoteTo, DemoteCases) {
  using TF = TFromD<typename D::From>;
  using TT = TFromD<typename D::To>;
  TestConvert<D>("DemoteTo", ConvertInputs<TF>(45), [](auto dt, auto df, auto v) { return DemoteTo(dt, df, v); },
                 [](TF x) -> TT {
                   if constexpr (kIsFloat<TF>) {
                     return DemoteF64Bits(x);  // f64 -> f32: nearest even, overflow to inf
                   } else {
                     using L = std::numeric_limits<TT>;
                     const int64_t v = static_cast<int64_t>(x);
                     return static_cast<TT>(v < int64_t{L::min()} ? int64_t{L::min()}
                                            : v > int64_t{L::max()} ? int64_t{L::max()} : v);
                   }
                 });
}

VLAK_SIMD_TEST(Convert, TruncateTo, TruncateCases) {
  using TF = TFromD<typename D::From>;
  using TT = TFromD<typename D::To>;
  TestConvert<D>("TruncateTo", ConvertInputs<TF>(46), [](auto dt, auto df, auto v) { return TruncateTo(dt, df, v); },
                 [](TF x) { return FromBits<TT>(BitsOf(x)); });  // the low bits
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
