// Scalar-operand forms (Add(d, v, s), MulAdd(d, a, s, c), Lt(d, v, s), ...) and the reductions
// into an LMUL-1 accumulator (ReduceSumInto/MinInto/MaxInto), against per-lane C++ oracles.
// Each scalar op is checked for several scalars s (special values and random ones): the inputs'
// operand column that s replaces holds s in every lane, the op receives s as a scalar (read back
// with GetLane from that column), and the oracle is the plain C++ op on the lanes.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

template <typename T>
[[gnu::noinline]] std::vector<T> Scalars(uint64_t salt) {
  Rng rng(salt);
  std::vector<T> s = FewSpecials<T>();
  for (int i = 0; i < 3; ++i) s.push_back(RandomValue<T>(rng));
  return s;
}

// Column `col` (1 = b, 2 = c) of the inputs set to s in every lane.
template <typename T>
[[gnu::noinline]] Inputs<T> WithScalar(Inputs<T> in, int col, T s) {
  for (size_t i = 0; i < in.size(); ++i) (col == 1 ? in.b[i] : in.c[i]) = s;
  return in;
}

// "Add(v, s=...)", "MulAddScalarMul(s=...)": the op and the scalar it was given.
template <typename T>
[[gnu::noinline]] std::string WithScalarName(const char* op, const char* args, T s) {
  return std::string(op) + "(" + args + Str(s) + ")";
}

// TestElementwise for each scalar s, with `make_inputs(col, s)` giving the inputs: instantiated
// once per (arity, tag); each test only converts its op and oracle to pointers (test_util.h's
// element-wise harness says why).
template <int kArity, class D>
[[gnu::noinline]] void TestEachScalar(D d, const char* op, const char* args, const std::vector<TFromD<D>>& scalars,
                                      int col, Inputs<TFromD<D>> (*make_inputs)(uint64_t, int, TFromD<D>),
                                      uint64_t salt, VecOp<kArity, D> vop, VecOp<kArity, StripTag<D>> vop_strip,
                                      OracleN<kArity, TFromD<D>> oracle, Accept how) {
  for (TFromD<D> s : scalars) {
    TestElementwiseOps<kArity>(d, WithScalarName(op, args, s).c_str(), make_inputs(salt, col, s), vop, vop_strip,
                               oracle, how);
  }
}

// Inputs of the binary tests: the same base set for every scalar.
template <typename T>
[[gnu::noinline]] Inputs<T> BinaryScalarInputs(uint64_t salt, int col, T s) {
  return WithScalar(BinaryInputs<T>(salt, 256), col, s);
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

// Binary op with the scalar as its second operand. `salt` picks the random inputs and scalars
// (each test's own, fixed: the values are kept when lines move).
#define VLAK_SCALAR_BINARY_TEST(Op, salt, Cases, how, oracle)                                    \
  VLAK_SIMD_TEST(ScalarOperand, Op, Cases) {                                                     \
    using T = TFromD<D>;                                                                         \
    auto vop = [](auto d, auto a, auto b) { return Op(d, a, GetLane(d, b)); };                  \
    TestEachScalar<2>(D(), #Op, "v, s=", Scalars<T>(salt), 1, &BinaryScalarInputs<T>, salt, vop, vop, oracle, how); \
  }

VLAK_SCALAR_BINARY_TEST(Add, 56, AllTags, Accept::kExact, ([](T a, T b) -> T {
  if constexpr (kIsFloat<T>) return a + b; else return Low<T>(U64(a) + U64(b));
}))
VLAK_SCALAR_BINARY_TEST(Sub, 59, AllTags, Accept::kExact, ([](T a, T b) -> T {
  if constexpr (kIsFloat<T>) return a - b; else return Low<T>(U64(a) - U64(b));
}))
VLAK_SCALAR_BINARY_TEST(Mul, 62, AllTags, Accept::kExact, ([](T a, T b) -> T {
  if constexpr (kIsFloat<T>) return a * b; else return Low<T>(U64(a) * U64(b));
}))
VLAK_SCALAR_BINARY_TEST(Div, 63, FloatTags, Accept::kExact, ([](T a, T b) -> T { return a / b; }))
VLAK_SCALAR_BINARY_TEST(Min, 64, AllTags, Accept::kMinMax, ([](T a, T b) -> T { return MinNumber(a, b); }))
VLAK_SCALAR_BINARY_TEST(Max, 65, AllTags, Accept::kMinMax, ([](T a, T b) -> T { return MaxNumber(a, b); }))
VLAK_SCALAR_BINARY_TEST(And, 66, IntTags, Accept::kBitExact, ([](T a, T b) -> T { return static_cast<T>(a & b); }))
VLAK_SCALAR_BINARY_TEST(Or, 67, IntTags, Accept::kBitExact, ([](T a, T b) -> T { return static_cast<T>(a | b); }))
VLAK_SCALAR_BINARY_TEST(Xor, 68, IntTags, Accept::kBitExact, ([](T a, T b) -> T { return static_cast<T>(a ^ b); }))
#undef VLAK_SCALAR_BINARY_TEST

// Compares with a scalar, read back as 1/0 lanes.
#define VLAK_SCALAR_CMP_TEST(Op, salt, expr)                                                      \
  VLAK_SIMD_TEST(ScalarOperand, Op, AllTags) {                                                    \
    using T = TFromD<D>;                                                                          \
    auto vop = [](auto d, auto a, auto b) {                                                       \
      using TT = TFromD<decltype(d)>;                                                             \
      return IfThenElseZero(d, Op(d, a, GetLane(d, b)), Set(d, TT(1)));                          \
    };                                                                                            \
    TestEachScalar<2>(D(), #Op, "v, s=", Scalars<T>(salt), 1, &BinaryScalarInputs<T>, salt, vop, vop, \
                      [](T a, T b) { return (expr) ? T(1) : T(0); }, Accept::kExact);             \
  }
VLAK_SCALAR_CMP_TEST(Eq, 85, a == b)
VLAK_SCALAR_CMP_TEST(Ne, 86, !(a == b))
VLAK_SCALAR_CMP_TEST(Lt, 87, a < b)
VLAK_SCALAR_CMP_TEST(Le, 88, a <= b)
VLAK_SCALAR_CMP_TEST(Gt, 89, b < a)
VLAK_SCALAR_CMP_TEST(Ge, 90, b <= a)
#undef VLAK_SCALAR_CMP_TEST

// Multiply-adds with the scalar as the multiplier (col 1) or the addend (col 2). The random
// inputs include addends that cancel the product of the scalar and a, where fused and unfused
// forms round differently.
template <typename T>
[[gnu::noinline]] Inputs<T> FmaInputs(uint64_t salt, int col, T s) {
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

#define VLAK_SCALAR_FMA_TEST(Op, Name, salt, col, call, oracle)                                  \
  VLAK_SIMD_TEST(ScalarOperand, Name, AllTags) {                                                 \
    using T = TFromD<D>;                                                                         \
    auto vop = [](auto d, auto a, auto b, auto c) { return call; };                              \
    TestEachScalar<3>(D(), #Name, "s=", Scalars<T>(salt), col, &FmaInputs<T>, salt, vop, vop, oracle, Accept::kExact); \
  }
VLAK_SCALAR_FMA_TEST(MulAdd, MulAddScalarMul, 122, 1, MulAdd(d, a, GetLane(d, b), c), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(a, b, c); else return Low<T>(U64(a) * U64(b) + U64(c));
}))
VLAK_SCALAR_FMA_TEST(MulAdd, MulAddScalarAdd, 125, 2, MulAdd(d, a, b, GetLane(d, c)), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(a, b, c); else return Low<T>(U64(a) * U64(b) + U64(c));
}))
VLAK_SCALAR_FMA_TEST(NegMulAdd, NegMulAddScalarMul, 128, 1, NegMulAdd(d, a, GetLane(d, b), c), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(-a, b, c); else return Low<T>(U64(c) - U64(a) * U64(b));
}))
VLAK_SCALAR_FMA_TEST(NegMulAdd, NegMulAddScalarAdd, 131, 2, NegMulAdd(d, a, b, GetLane(d, c)), ([](T a, T b, T c) -> T {
  if constexpr (kIsFloat<T>) return std::fma(-a, b, c); else return Low<T>(U64(c) - U64(a) * U64(b));
}))
#undef VLAK_SCALAR_FMA_TEST

// ------------------------------------------------------------ reductions into an m1 accumulator
// Lane 0 of the result folds the accumulator's lane 0 with the active lanes; for strips, lanes 1..
// keep the accumulator bit for bit and an empty strip returns the accumulator unchanged.
//
// The checks take the lanes stored to arrays and are instantiated per element type; the test
// body per tag only runs the ops (test_util.h's element-wise harness says why).
namespace reduce_into {

// Lanes 1.. of a strip's result keep the accumulator; an empty strip keeps lane 0 too.
template <typename T>
[[gnu::noinline]] void CheckTail(const char* op, const std::string& what, const T* out, const T* acc, size_t vl1,
                                 size_t n) {
  for (size_t i = 1; i < vl1; ++i) {
    ASSERT_EQ(BitsOf(out[i]), BitsOf(acc[i])) << op << " " << what << ": lane " << i << " must keep acc";
  }
  if (n == 0) ASSERT_EQ(BitsOf(out[0]), BitsOf(acc[0])) << op << " " << what << ": empty strip must keep acc";
}

// Min / max: exact (either zero for mixed zeros). `sep` goes between `what` and "want".
template <typename T>
[[gnu::noinline]] void CheckMinMax(const char* op, bool is_max, const std::string& what, const char* sep, T acc0,
                                   const T* v, size_t n, T got) {
  T want = acc0;
  for (size_t i = 0; i < n; ++i) want = is_max ? MaxNumber(want, v[i]) : MinNumber(want, v[i]);
  EXPECT_TRUE(SameLane(want, got) || (want == 0 && got == 0))
      << op << " " << what << sep << "want " << Str(want) << " got " << Str(got);
}

template <typename T>
[[gnu::noinline]] void CheckSum(const std::string& what, bool finite, T acc0, const T* v, size_t n, T got) {
  if constexpr (kIsFloat<T>) {
    long double exact = acc0, mag = std::fabs(static_cast<long double>(acc0));
    bool nan = std::isnan(acc0);
    for (size_t i = 0; i < n; ++i) {
      exact += v[i];
      mag += std::fabs(static_cast<long double>(v[i]));
      nan = nan || std::isnan(v[i]);
    }
    if (!finite) return;
    if (nan) {
      EXPECT_TRUE(std::isnan(got)) << "ReduceSumInto " << what;
    } else {
      const long double tol = mag * static_cast<long double>(std::numeric_limits<T>::epsilon()) * (n + 1);
      EXPECT_LE(std::fabs(static_cast<long double>(got) - exact), tol) << "ReduceSumInto " << what << " got " << Str(got);
    }
  } else {
    uint64_t want = U64(acc0);
    for (size_t i = 0; i < n; ++i) want += U64(v[i]);
    EXPECT_EQ(BitsOf(got), BitsOf(Low<T>(want))) << "ReduceSumInto " << what;
  }
}

// Trials 0-7: finite lanes (sums checked within a tolerance), acc[0] NaN in two of them;
// 8-11: any bit patterns (only min/max, the kept lanes and the empty strip are checked).
template <typename T>
[[gnu::noinline]] void FillTrial(Rng& rng, int trial, std::vector<T>& v, std::vector<T>& acc) {
  const bool finite = trial < 8;
  for (auto& x : v) x = finite ? RandomFinite<T>(rng) : RandomValue<T>(rng);
  for (auto& x : acc) x = finite ? RandomFinite<T>(rng) : RandomValue<T>(rng);
  if constexpr (kIsFloat<T>) {
    if (trial % 4 == 1) acc[0] = std::numeric_limits<T>::quiet_NaN();
  }
}

[[gnu::noinline]] inline std::string StripWhat(const std::string& tag, size_t n, int trial) {
  return tag + " n=" + std::to_string(n) + " trial " + std::to_string(trial);
}

}  // namespace reduce_into

VLAK_SIMD_TEST(ScalarOperand, ReduceInto, AllTags) {
  using T = TFromD<D>;
  const D d;
  const Simd<T, 0> d1;
  const size_t vl = Lanes(d), vl1 = Lanes(d1);
  Rng rng(77);
  std::vector<T> v(MaxLanes(d)), acc(MaxLanes(d1)), out(MaxLanes(d1));
  const std::string tag = TagString<D>();
  for (int trial = 0; trial < 12; ++trial) {
    const bool finite = trial < 8;
    reduce_into::FillTrial(rng, trial, v, acc);
    const auto vacc = LoadU(d1, acc.data());
    const auto vv = LoadU(d, v.data());
    // The whole group: lane 0 only (lanes 1.. are unspecified for whole groups).
    StoreU(d1, ReduceMaxInto(d, vv, vacc), out.data());
    reduce_into::CheckMinMax("ReduceMaxInto", true, tag, " whole group: ", acc[0], v.data(), vl, out[0]);
    for (size_t n : StripLengths(vl)) {
      const auto ds = Strip(d, n);
      const std::string what = reduce_into::StripWhat(tag, n, trial);
      StoreU(d1, ReduceMinInto(ds, vv, vacc), out.data());
      reduce_into::CheckTail("ReduceMinInto", what, out.data(), acc.data(), vl1, n);
      reduce_into::CheckMinMax("ReduceMinInto", false, what, " ", acc[0], v.data(), n, out[0]);
      StoreU(d1, ReduceMaxInto(ds, vv, vacc), out.data());
      reduce_into::CheckTail("ReduceMaxInto", what, out.data(), acc.data(), vl1, n);
      reduce_into::CheckMinMax("ReduceMaxInto", true, what, " ", acc[0], v.data(), n, out[0]);
      StoreU(d1, ReduceSumInto(ds, vv, vacc), out.data());
      reduce_into::CheckTail("ReduceSumInto", what, out.data(), acc.data(), vl1, n);
      reduce_into::CheckSum(what, finite, acc[0], v.data(), n, out[0]);
    }
  }
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
