// Conversions between lane types against per-lane C++: BitCast, ConvertTo, NearestInt, PromoteTo,
// DemoteTo and TruncateTo, for every pair the contract allows and every LMUL at which the wider
// side is still a register group (kPow2 <= 3). Each case is named source_to_destination.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

// Loads the source with `df`, converts into `dt` and stores; strips of both sides share n.
template <class DF, class DT, class Op>
void ApplyConvert(DF df, DT dt, size_t step, const Inputs<TFromD<DF>>& in, TFromD<DT>* out, const Op& op) {
  for (size_t i = 0; i < in.size(); i += step) StoreU(dt, op(dt, df, LoadU(df, &in.a[i])), out + i);
}

template <class P, class Op>
void TestConvert(const char* name, Inputs<TFromD<typename P::From>> in, const Op& op,
                 Oracle1<TFromD<typename P::To>, TFromD<typename P::From>> oracle, Accept how = Accept::kExact) {
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
    ApplyConvert(dfs, Rebind<TT>(dfs), N, in, actual.data(), op);
    CheckLanes(what + " strip n=" + std::to_string(n), expected.data(), actual.data(), in, 1, N, how);
  }
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
using TruncateCases = CaseList<VLAK_INT_NARROWING>;

VLAK_SIMD_TEST(Convert, DemoteTo, DemoteCases) {
  using TF = TFromD<typename D::From>;
  using TT = TFromD<typename D::To>;
  TestConvert<D>("DemoteTo", ConvertInputs<TF>(45), [](auto dt, auto df, auto v) { return DemoteTo(dt, df, v); },
                 [](TF x) -> TT {
                   if constexpr (kIsFloat<TF>) {
                     return static_cast<TT>(x);  // f64 -> f32: nearest even, overflow to inf
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
