// Scalar-operand forms (Add(d, v, s), MulAdd(d, a, s, c), Lt(d, v, s), ...) and the reductions
// into an LMUL-1 accumulator (ReduceSumInto/MinInto/MaxInto), against per-lane C++ oracles.
// Each scalar op is checked for several scalars s (special values and random ones): the inputs'
// operand column that s replaces holds s in every lane, the op receives s as a scalar (read back
// with GetLane from that column), and the oracle is the plain C++ op on the lanes.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

template <typename T>
std::vector<T> Scalars(uint64_t salt) {
  Rng rng(salt);
  std::vector<T> s = FewSpecials<T>();
  for (int i = 0; i < 3; ++i) s.push_back(RandomValue<T>(rng));
  return s;
}

// Column `col` (1 = b, 2 = c) of the inputs set to s in every lane.
template <typename T>
Inputs<T> WithScalar(Inputs<T> in, int col, T s) {
  for (size_t i = 0; i < in.size(); ++i) (col == 1 ? in.b[i] : in.c[i]) = s;
  return in;
}

template <typename T>
T MinNumber(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
  }
  return b < a ? b : a;
}
template <typename T>
T MaxNumber(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
  }
  return b > a ? b : a;
}

// Binary op with the scalar as its second operand.
#define VLAK_SCALAR_BINARY_TEST(Op, Cases, how, oracle)                                          \
  VLAK_SIMD_TEST(ScalarOperand, Op, Cases) {                                                     \
    using T = TFromD<D>;                                                                         \
    const Inputs<T> base = BinaryInputs<T>(__LINE__, 256);                                       \
    for (T s : Scalars<T>(__LINE__)) {                                                           \
      TestElementwise<2>(D(), (std::string(#Op "(v, s=") + Str(s) + ")").c_str(), WithScalar(base, 1, s),              \
                         [](auto d, auto a, auto b) { return Op(d, a, GetLane(d, b)); }, oracle, how); \
    }                                                                                            \
  }

VLAK_SCALAR_BINARY_TEST(Add, AllTags, Accept::kExact, ([](T a, T b) -> T {
  if constexpr (kIsFloat<T>) return a + b; else return Low<T>(U64(a) + U64(b));
}))
VLAK_SCALAR_BINARY_TEST(Sub, AllTags, Accept::kExact, ([](T a, T b) -> T {
  if constexpr (kIsFloat<T>) return a - b; else return Low<T>(U64(a) - U64(b));
}))
VLAK_SCALAR_BINARY_TEST(Mul, AllTags, Accept::kExact, ([](T a, T b) -> T {
  if constexpr (kIsFloat<T>) return a * b; else return Low<T>(U64(a) * U64(b));
}))
VLAK_SCALAR_BINARY_TEST(Div, FloatTags, Accept::kExact, ([](T a, T b) -> T { return a / b; }))
VLAK_SCALAR_BINARY_TEST(Min, AllTags, Accept::kMinMax, ([](T a, T b) -> T { return MinNumber(a, b); }))
VLAK_SCALAR_BINARY_TEST(Max, AllTags, Accept::kMinMax, ([](T a, T b) -> T { return MaxNumber(a, b); }))
VLAK_SCALAR_BINARY_TEST(And, IntTags, Accept::kBitExact, ([](T a, T b) -> T { return static_cast<T>(a & b); }))
VLAK_SCALAR_BINARY_TEST(Or, IntTags, Accept::kBitExact, ([](T a, T b) -> T { return static_cast<T>(a | b); }))
VLAK_SCALAR_BINARY_TEST(Xor, IntTags, Accept::kBitExact, ([](T a, T b) -> T { return static_cast<T>(a ^ b); }))
#undef VLAK_SCALAR_BINARY_TEST

// Compares with a scalar, read back as 1/0 lanes.
#define VLAK_SCALAR_CMP_TEST(Op, expr)                                                            \
  VLAK_SIMD_TEST(ScalarOperand, Op, AllTags) {                                                    \
    using T = TFromD<D>;                                                                          \
    const Inputs<T> base = BinaryInputs<T>(__LINE__, 256);                                        \
    for (T s : Scalars<T>(__LINE__)) {                                                            \
      TestElementwise<2>(D(), (std::string(#Op "(v, s=") + Str(s) + ")").c_str(), WithScalar(base, 1, s),               \
                         [](auto d, auto a, auto b) {                                             \
                           using TT = TFromD<decltype(d)>;                                        \
                           return IfThenElseZero(d, Op(d, a, GetLane(d, b)), Set(d, TT(1)));      \
                         },                                                                       \
                         [](T a, T b) { return (expr) ? T(1) : T(0); });                          \
    }                                                                                             \
  }
VLAK_SCALAR_CMP_TEST(Eq, a == b)
VLAK_SCALAR_CMP_TEST(Ne, !(a == b))
VLAK_SCALAR_CMP_TEST(Lt, a < b)
VLAK_SCALAR_CMP_TEST(Le, a <= b)
VLAK_SCALAR_CMP_TEST(Gt, b < a)
VLAK_SCALAR_CMP_TEST(Ge, b <= a)
#undef VLAK_SCALAR_CMP_TEST

// Multiply-adds with the scalar as the multiplier (col 1) or the addend (col 2). The random
// inputs include addends that cancel the product of the scalar and a, where fused and unfused
// forms round differently.
template <typename T>
Inputs<T> FmaInputs(uint64_t salt, int col, T s) {
  Inputs<T> in = WithScalar(TernaryInputs<T>(salt, 256), col, s);
  Rng rng(salt + 1);
  for (int i = 0; i < 64; ++i) {
    const T x = RandomFinite<T>(rng);
    if constexpr (kIsFloat<T>) {
      if (col == 1) in.Push(x, s, static_cast<T>(-(x * s)));
      else in.Push(x, static_cast<T>(-(s / x)), s);
    } else {
      in.Push(x, col == 1 ? s : RandomValue<T>(rng), col == 1 ? Low<T>(0 - U64(x) * U64(s)) : s);
    }
  }
  return in;
}

#define VLAK_SCALAR_FMA_TEST(Op, Name, col, call, oracle)                                        \
  VLAK_SIMD_TEST(ScalarOperand, Name, AllTags) {                                                 \
    using T = TFromD<D>;                                                                         \
    for (T s : Scalars<T>(__LINE__)) {                                                           \
      TestElementwise<3>(D(), (std::string(#Name "(s=") + Str(s) + ")").c_str(), FmaInputs<T>(__LINE__, col, s),       \
                         [](auto d, auto a, auto b, auto c) { return call; }, oracle);           \
    }                                                                                            \
  }
VLAK_SCALAR_FMA_TEST(MulAdd, MulAddScalarMul, 1, MulAdd(d, a, GetLane(d, b), c), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(a, b, c); else return Low<T>(U64(a) * U64(b) + U64(c));
}))
VLAK_SCALAR_FMA_TEST(MulAdd, MulAddScalarAdd, 2, MulAdd(d, a, b, GetLane(d, c)), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(a, b, c); else return Low<T>(U64(a) * U64(b) + U64(c));
}))
VLAK_SCALAR_FMA_TEST(NegMulAdd, NegMulAddScalarMul, 1, NegMulAdd(d, a, GetLane(d, b), c), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(-a, b, c); else return Low<T>(U64(c) - U64(a) * U64(b));
}))
VLAK_SCALAR_FMA_TEST(NegMulAdd, NegMulAddScalarAdd, 2, NegMulAdd(d, a, b, GetLane(d, c)), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(-a, b, c); else return Low<T>(U64(c) - U64(a) * U64(b));
}))
#undef VLAK_SCALAR_FMA_TEST

// ------------------------------------------------------------ reductions into an m1 accumulator
// Lane 0 of the result folds the accumulator's lane 0 with the active lanes; for strips, lanes 1..
// keep the accumulator bit for bit and an empty strip returns the accumulator unchanged.
VLAK_SIMD_TEST(ScalarOperand, ReduceInto, AllTags) {
  using T = TFromD<D>;
  const D d;
  const Simd<T, 0> d1;
  const size_t vl = Lanes(d), vl1 = Lanes(d1);
  Rng rng(77);
  std::vector<T> v(MaxLanes(d)), acc(MaxLanes(d1)), out(MaxLanes(d1));
  for (int trial = 0; trial < 12; ++trial) {
    // Trials 0-7: finite lanes (sums checked within a tolerance), acc[0] NaN in two of them;
    // 8-11: any bit patterns (only min/max, the kept lanes and the empty strip are checked).
    const bool finite = trial < 8;
    for (auto& x : v) x = finite ? RandomFinite<T>(rng) : RandomValue<T>(rng);
    for (auto& x : acc) x = finite ? RandomFinite<T>(rng) : RandomValue<T>(rng);
    if constexpr (kIsFloat<T>) {
      if (trial % 4 == 1) acc[0] = std::numeric_limits<T>::quiet_NaN();
    }
    const auto vacc = LoadU(d1, acc.data());
    const auto vv = LoadU(d, v.data());
    {  // The whole group: lane 0 only (lanes 1.. are unspecified for whole groups).
      T want = acc[0];
      for (size_t i = 0; i < vl; ++i) want = MaxNumber(want, v[i]);
      StoreU(d1, ReduceMaxInto(d, vv, vacc), out.data());
      EXPECT_TRUE(SameLane(want, out[0]) || (want == 0 && out[0] == 0))
          << "ReduceMaxInto " << TagString<D>() << " whole group: want " << Str(want) << " got " << Str(out[0]);
    }
    for (size_t n : StripLengths(vl)) {
      const auto ds = Strip(d, n);
      const std::string what = TagString<D>() + " n=" + std::to_string(n) + " trial " + std::to_string(trial);
      auto check_tail = [&](const char* op) {
        for (size_t i = 1; i < vl1; ++i) {
          ASSERT_EQ(BitsOf(out[i]), BitsOf(acc[i])) << op << " " << what << ": lane " << i << " must keep acc";
        }
        if (n == 0) ASSERT_EQ(BitsOf(out[0]), BitsOf(acc[0])) << op << " " << what << ": empty strip must keep acc";
      };
      // Min / max: exact (either zero for mixed zeros).
      T want_min = acc[0], want_max = acc[0];
      for (size_t i = 0; i < n; ++i) {
        want_min = MinNumber(want_min, v[i]);
        want_max = MaxNumber(want_max, v[i]);
      }
      StoreU(d1, ReduceMinInto(ds, vv, vacc), out.data());
      check_tail("ReduceMinInto");
      EXPECT_TRUE(SameLane(want_min, out[0]) || (want_min == 0 && out[0] == 0)) << "ReduceMinInto " << what << " want " << Str(want_min) << " got " << Str(out[0]);
      StoreU(d1, ReduceMaxInto(ds, vv, vacc), out.data());
      check_tail("ReduceMaxInto");
      EXPECT_TRUE(SameLane(want_max, out[0]) || (want_max == 0 && out[0] == 0)) << "ReduceMaxInto " << what << " want " << Str(want_max) << " got " << Str(out[0]);
      StoreU(d1, ReduceSumInto(ds, vv, vacc), out.data());
      check_tail("ReduceSumInto");
      if constexpr (kIsFloat<T>) {
        long double exact = acc[0], mag = std::fabs(static_cast<long double>(acc[0]));
        bool nan = std::isnan(acc[0]);
        for (size_t i = 0; i < n; ++i) {
          exact += v[i];
          mag += std::fabs(static_cast<long double>(v[i]));
          nan = nan || std::isnan(v[i]);
        }
        if (!finite) continue;
        if (nan) {
          EXPECT_TRUE(std::isnan(out[0])) << "ReduceSumInto " << what;
        } else {
          const long double tol = mag * static_cast<long double>(std::numeric_limits<T>::epsilon()) * (n + 1);
          EXPECT_LE(std::fabs(static_cast<long double>(out[0]) - exact), tol) << "ReduceSumInto " << what << " got " << Str(out[0]);
        }
      } else {
        uint64_t want = U64(acc[0]);
        for (size_t i = 0; i < n; ++i) want += U64(v[i]);
        EXPECT_EQ(BitsOf(out[0]), BitsOf(Low<T>(want))) << "ReduceSumInto " << what;
      }
    }
  }
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
