// Comparisons, masks, selection, tail-kept accumulation and reductions against per-lane C++.
// Masks are read back as 0/1 lanes through IfThenElseZero and cross-checked with CountTrue.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

// A compare as an element-wise op: 1 where the mask is set, 0 elsewhere.
#define VLAK_CMP_TEST(Op, expr)                                                                   \
  VLAK_SIMD_TEST(Compare, Op, AllTags) {                                                          \
    using T = TFromD<D>;                                                                          \
    TestElementwise<2>(D(), #Op, BinaryInputs<T>(__LINE__),                                       \
                       [](auto d, auto a, auto b) {                                               \
                         return IfThenElseZero(d, Op(d, a, b), Set(d, TFromD<decltype(d)>(1))); \
                       },                                                                         \
                       [](T a, T b) { return (expr) ? T(1) : T(0); });                            \
  }

// Floats: ordered (false with a NaN operand) except Ne; -0 == +0.
VLAK_CMP_TEST(Eq, a == b)
VLAK_CMP_TEST(Ne, !(a == b))
VLAK_CMP_TEST(Lt, a < b)
VLAK_CMP_TEST(Le, a <= b)
VLAK_CMP_TEST(Gt, b < a)
VLAK_CMP_TEST(Ge, b <= a)
#undef VLAK_CMP_TEST

VLAK_SIMD_TEST(Compare, IsNaN, FloatTags) {
  using T = TFromD<D>;
  TestElementwise<1>(D(), "IsNaN", UnaryInputs<T>(30),
                     [](auto d, auto a) { return IfThenElseZero(d, IsNaN(d, a), Set(d, TFromD<decltype(d)>(1))); },
                     [](T a) { return std::isnan(a) ? T(1) : T(0); });
}

// IfThenElse picks per lane; the mask comes from Lt, checked above.
VLAK_SIMD_TEST(Compare, IfThenElse, AllTags) {
  using T = TFromD<D>;
  TestElementwise<3>(D(), "IfThenElse", TernaryInputs<T>(31),
                     [](auto d, auto a, auto b, auto c) { return IfThenElse(d, Lt(d, a, b), b, c); },
                     [](T a, T b, T c) { return a < b ? b : c; }, Accept::kBitExact);
}

VLAK_SIMD_TEST(Compare, IfThenElseZero, AllTags) {
  using T = TFromD<D>;
  TestElementwise<2>(D(), "IfThenElseZero", BinaryInputs<T>(32),
                     [](auto d, auto a, auto b) { return IfThenElseZero(d, Lt(d, a, b), a); },
                     [](T a, T b) { return a < b ? a : T(0); }, Accept::kBitExact);
}

VLAK_SIMD_TEST(Compare, IfThenZeroElse, AllTags) {
  using T = TFromD<D>;
  TestElementwise<2>(D(), "IfThenZeroElse", BinaryInputs<T>(33),
                     [](auto d, auto a, auto b) { return IfThenZeroElse(d, Lt(d, a, b), a); },
                     [](T a, T b) { return a < b ? T(0) : a; }, Accept::kBitExact);
}

// -------------------------------------------------------------------------------------- masks
// Random masks of every density; for each, the mask ops' lanes and the counts over the whole
// group and over strips (which look at lanes < n only).
std::vector<bool> RandomBools(Rng& rng, size_t n, int density) {
  std::vector<bool> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = density == 4 || (density > 0 && rng.Below(4) < uint64_t(density));
  return b;
}

// The lane checks below take plain values and arrays and are compiled once (or once per element
// type); each test body per tag only runs the ops (test_util.h's element-wise harness says why).
[[gnu::noinline]] inline void ExpectBools(const std::string& what, const std::string& tag, const std::vector<bool>& got,
                                          const std::vector<bool>& want) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      ADD_FAILURE() << what << " " << tag << ": lane " << i << " expected " << want[i];
      return;
    }
  }
}

template <class D>
[[gnu::noinline]] void ExpectMask(const std::string& what, D d, MFromD<D> m, const std::vector<bool>& want) {
  ExpectBools(what, TagString<D>(), BoolsFromMask(d, m), want);
}

// CountTrue, AllTrue and AllFalse of a mask of `lanes` lanes of which `want` are set.
[[gnu::noinline]] inline void ExpectCounts(size_t count, bool all, bool none, size_t want, size_t lanes,
                                           const std::string& count_what, const std::string& all_what,
                                           const std::string& none_what) {
  EXPECT_EQ(count, want) << count_what;
  EXPECT_EQ(all, want == lanes) << all_what;
  EXPECT_EQ(none, want == 0) << none_what;
}
[[gnu::noinline]] inline void ExpectCounts(size_t count, bool all, bool none, size_t want, size_t lanes,
                                           const std::string& what) {
  ExpectCounts(count, all, none, want, lanes, what, what, what);
}

VLAK_SIMD_TEST(Compare, MaskOps, AllTags) {
  const D d;
  const size_t vl = Lanes(d);
  Rng rng(33);
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<bool> a = RandomBools(rng, vl, trial % 5), b = RandomBools(rng, vl, (trial / 5) % 5);
    std::vector<bool> w_and(vl), w_or(vl), w_xor(vl), w_andnot(vl), w_not(vl);
    for (size_t i = 0; i < vl; ++i) {
      w_and[i] = a[i] && b[i];
      w_or[i] = a[i] || b[i];
      w_xor[i] = a[i] != b[i];
      w_andnot[i] = !a[i] && b[i];
      w_not[i] = !a[i];
    }
    const auto ma = MaskFromBools(d, a);
    const auto mb = MaskFromBools(d, b);
    ExpectMask("MaskFromBools", d, ma, a);
    ExpectMask("MaskAnd", d, MaskAnd(d, ma, mb), w_and);
    ExpectMask("MaskOr", d, MaskOr(d, ma, mb), w_or);
    ExpectMask("MaskXor", d, MaskXor(d, ma, mb), w_xor);
    ExpectMask("MaskAndNot", d, MaskAndNot(d, ma, mb), w_andnot);
    ExpectMask("MaskNot", d, MaskNot(d, ma), w_not);
  }
}

[[gnu::noinline]] inline std::vector<bool> FirstBools(size_t vl, size_t n) {
  std::vector<bool> want(vl);
  for (size_t i = 0; i < vl; ++i) want[i] = i < n;
  return want;
}

// A strip's FirstN read back as 1/0 through a strip store: lanes < s are 1 below k, 0 from k;
// lane s (past the strip) keeps its 2.
template <typename T>
[[gnu::noinline]] void CheckStripReadBack(const std::vector<T>& out, size_t s, size_t k, const std::string& ws) {
  for (size_t i = 0; i <= s; ++i) {
    const T e = i < s ? (i < k ? T(1) : T(0)) : T(2);
    if (out[i] != e) {
      ADD_FAILURE() << ws << ": lane " << i << (i < s ? "" : " (past the strip)") << " expected " << Str(e)
                    << ", got " << Str(out[i]);
      break;
    }
  }
}

// A masked store of ones under FirstN: elements < k are 1, the rest keep their 2.
template <typename T>
[[gnu::noinline]] void CheckMaskedStoreOnes(const std::vector<T>& out, size_t k, const std::string& ws) {
  for (size_t i = 0; i < out.size(); ++i) {
    const T e = i < k ? T(1) : T(2);
    if (out[i] != e) {
      ADD_FAILURE() << "MaskedStore " << ws << ": element " << i << " expected " << Str(e) << ", got "
                    << Str(out[i]);
      break;
    }
  }
}

// FirstN(d, n) for any size_t n: lanes [0, min(n, Lanes(d))) set, for a whole group and for
// strips (whose lanes at and above d.n are unspecified, so only lanes < d.n are looked at).
VLAK_SIMD_TEST(Compare, FirstN, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  const std::string tag = TagString<D>();
  // Counts past the group: every lane set. Large ones catch a count truncated to the lane width
  // (RVV's vmsltu.vx compares SEW bits: u8 and 256 + 3 gives 3, u16 and 65536 + 3 gives 3) or a
  // shift by >= 64 when building a bit mask (64 byte lanes in one AVX-512 register).
  std::vector<size_t> counts = CountLengths(vl);
  counts.insert(counts.end(), {size_t{64}, size_t{255}, size_t{256}, size_t{257}, size_t{256 + 3}, size_t{65536},
                               size_t{65536 + 3}, (size_t{1} << 32) + 1, ~size_t{0}});
  std::vector<T> out(MaxLanes(d) + 1);
  for (size_t n : counts) {
    const std::string what = "FirstN(" + std::to_string(n) + ")";
    const auto m = FirstN(d, n);
    ExpectMask(what, d, m, FirstBools(vl, n));
    // std::min(n, vl) of vl lanes: AllTrue iff n >= vl, AllFalse iff n == 0.
    ExpectCounts(CountTrue(d, m), AllTrue(d, m), AllFalse(d, m), std::min(n, vl), vl,
                 "CountTrue(" + what + ") " + tag, "AllTrue(" + what + ") " + tag, "AllFalse(" + what + ") " + tag);

    // Strips: the mask made and used under the strip tag. Lanes < s read back 1/0 through a strip
    // store (which must not write lane s), counts see min(n, s) lanes, a masked store writes them.
    for (size_t s : StripLengths(vl)) {
      const auto ds = Strip(d, s);
      const auto ms = FirstN(ds, n);
      const size_t k = std::min(n, s);
      const std::string ws = what + " " + tag + " strip n=" + std::to_string(s);
      std::fill(out.begin(), out.end(), T(2));
      StoreU(ds, IfThenElseZero(ds, ms, Set(ds, T(1))), out.data());
      CheckStripReadBack(out, s, k, ws);
      ExpectCounts(CountTrue(ds, ms), AllTrue(ds, ms), AllFalse(ds, ms), k, s, "CountTrue " + ws, "AllTrue " + ws,
                   "AllFalse " + ws);
      std::fill(out.begin(), out.end(), T(2));
      MaskedStore(ds, ms, Set(ds, T(1)), out.data());
      CheckMaskedStoreOnes(out, k, ws);
    }
  }
}

[[gnu::noinline]] inline size_t CountBools(const std::vector<bool>& b, size_t n) {
  return static_cast<size_t>(std::count(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), true));
}

// The lanes above a strip of n set (`above`) and cleared (`below` = FirstN(n)): they must not
// count either way.
[[gnu::noinline]] inline void ExpectAboveIgnored(bool all_true_below, bool all_false_above, size_t count_above,
                                                 bool all_true_above, bool all_false_below, size_t n,
                                                 const std::string& tag) {
  EXPECT_TRUE(all_true_below) << tag << " n=" << n;
  EXPECT_TRUE(all_false_above) << tag << " n=" << n;
  EXPECT_EQ(count_above, 0u) << tag << " n=" << n;
  EXPECT_EQ(all_true_above, n == 0) << tag << " n=" << n;
  EXPECT_EQ(all_false_below, n == 0) << tag << " n=" << n;
}

VLAK_SIMD_TEST(Compare, CountTrueAllTrueAllFalse, AllTags) {
  const D d;
  const size_t vl = Lanes(d);
  const std::string tag = TagString<D>();
  Rng rng(34);
  for (int trial = 0; trial < 30; ++trial) {
    const std::vector<bool> b = RandomBools(rng, vl, trial % 5);
    const auto m = MaskFromBools(d, b);
    ExpectCounts(CountTrue(d, m), AllTrue(d, m), AllFalse(d, m), CountBools(b, vl), vl, tag);
    // A strip counts lanes < n only, whatever the lanes above hold.
    for (size_t n : StripLengths(vl)) {
      const auto ds = Strip(d, n);
      ExpectCounts(CountTrue(ds, m), AllTrue(ds, m), AllFalse(ds, m), CountBools(b, n), n,
                   tag + " strip n=" + std::to_string(n));
    }
  }
  // The lanes above a strip set and cleared: they must not count either way.
  for (size_t n : StripLengths(vl)) {
    const auto ds = Strip(d, n);
    const auto below = FirstN(d, n);
    const auto above = MaskNot(d, below);
    ExpectAboveIgnored(AllTrue(ds, below), AllFalse(ds, above), CountTrue(ds, above), AllTrue(ds, above),
                       AllFalse(ds, below), n, tag);
  }
}

// ------------------------------------------------------------------- tail-kept accumulation
// Lanes < n get the op; lanes >= n keep the accumulator's value bit for bit.
enum class TuOp { kAdd, kMin, kMax, kMulAdd };

// Lanes < n: the op's result (Min/Max may pick either zero); lanes >= n: acc, bit for bit.
template <typename T>
[[gnu::noinline]] void CheckTailUndisturbed(TuOp op, const std::string& tag, size_t n, const std::vector<T>& acc,
                                            const std::vector<T>& a, const std::vector<T>& b,
                                            const std::vector<T>& out) {
  const char* name = op == TuOp::kAdd ? "AddTU" : op == TuOp::kMin ? "MinTU" : op == TuOp::kMax ? "MaxTU" : "MulAddTU";
  const Accept how = op == TuOp::kMin || op == TuOp::kMax ? Accept::kMinMax : Accept::kExact;
  auto oracle = [&](size_t i) -> T {
    switch (op) {
      case TuOp::kAdd:
        if constexpr (kIsFloat<T>) return acc[i] + a[i];
        else return static_cast<T>(static_cast<UInt<T>>(uint64_t{BitsOf(acc[i])} + BitsOf(a[i])));
      case TuOp::kMin:
        if constexpr (kIsFloat<T>) {
          if (std::isnan(acc[i])) return a[i];
          if (std::isnan(a[i])) return acc[i];
        }
        return a[i] < acc[i] ? a[i] : acc[i];
      case TuOp::kMax:
        if constexpr (kIsFloat<T>) {
          if (std::isnan(acc[i])) return a[i];
          if (std::isnan(a[i])) return acc[i];
        }
        return a[i] > acc[i] ? a[i] : acc[i];
      case TuOp::kMulAdd:
        if constexpr (kIsFloat<T>) return std::fma(a[i], b[i], acc[i]);
        else return static_cast<T>(static_cast<UInt<T>>(uint64_t{BitsOf(a[i])} * BitsOf(b[i]) + BitsOf(acc[i])));
    }
    return T();
  };
  for (size_t i = 0; i < acc.size(); ++i) {
    const T e = i < n ? oracle(i) : acc[i];
    const bool ok = i < n ? AcceptLane(how, e, out[i], acc[i], a[i]) : BitsOf(e) == BitsOf(out[i]);
    if (!ok) {
      ADD_FAILURE() << name << " " << tag << " n=" << n << ": lane " << i << (i < n ? "" : " (tail, must keep acc)")
                    << " expected " << Str(e) << ", got " << Str(out[i]);
      return;
    }
  }
}

template <typename T>
[[gnu::noinline]] void FillTailTrial(Rng& rng, std::vector<T>& acc, std::vector<T>& a, std::vector<T>& b) {
  for (size_t i = 0; i < acc.size(); ++i) {
    acc[i] = RandomValue<T>(rng);
    a[i] = RandomValue<T>(rng);
    b[i] = RandomValue<T>(rng);
  }
}

VLAK_SIMD_TEST(Compare, TailUndisturbed, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  const std::string tag = TagString<D>();
  Rng rng(35);
  std::vector<T> acc(vl), a(vl), b(vl), out(MaxLanes(d));
  for (int trial = 0; trial < 8; ++trial) {
    FillTailTrial(rng, acc, a, b);
    for (size_t n : StripLengths(vl)) {
      const auto ds = Strip(d, n);
      const auto vacc = LoadU(d, acc.data());
      const auto va = LoadU(d, a.data());
      const auto vb = LoadU(d, b.data());
      StoreU(d, AddTU(ds, vacc, va), out.data());
      CheckTailUndisturbed(TuOp::kAdd, tag, n, acc, a, b, out);
      StoreU(d, MinTU(ds, vacc, va), out.data());
      CheckTailUndisturbed(TuOp::kMin, tag, n, acc, a, b, out);
      StoreU(d, MaxTU(ds, vacc, va), out.data());
      CheckTailUndisturbed(TuOp::kMax, tag, n, acc, a, b, out);
      StoreU(d, MulAddTU(ds, va, vb, vacc), out.data());
      CheckTailUndisturbed(TuOp::kMulAdd, tag, n, acc, a, b, out);
    }
  }
}

// ------------------------------------------------------------------------------- reductions
// Lanes >= n of a strip hold values that would change every reduction if they were looked at.
template <typename T>
T Poison(int which) {
  using L = std::numeric_limits<T>;
  if constexpr (kIsFloat<T>) {
    const T v[] = {L::quiet_NaN(), -L::infinity(), L::infinity(), L::max()};
    return v[which % 4];
  } else {
    const T v[] = {L::min(), L::max(), T(1), static_cast<T>(L::max() / 3)};
    return v[which % 4];
  }
}

template <typename T>
struct ReduceWant {
  T sum_ordered, min, max;
  long double sum_exact, sum_abs;
  bool sum_nan, sum_inf, sum_pos_inf;
  T sum_wrap;
};

// Plain C++ over the first n lanes: the sum in lane order from +0, minimum/maximum ignoring
// NaN unless every lane is NaN, the empty reduction's identities.
template <typename T>
ReduceWant<T> Reduce(const std::vector<T>& v, size_t n) {
  using L = std::numeric_limits<T>;
  ReduceWant<T> w{};
  w.sum_ordered = T(0);
  w.min = kIsFloat<T> ? L::infinity() : L::max();
  w.max = kIsFloat<T> ? -L::infinity() : L::lowest();
  bool all_nan = n > 0, pos_inf = false, neg_inf = false;
  uint64_t wrap = 0;
  for (size_t i = 0; i < n; ++i) {
    const T x = v[i];
    if constexpr (kIsFloat<T>) {
      w.sum_ordered = w.sum_ordered + x;
      if (std::isnan(x)) { w.sum_nan = true; continue; }
      all_nan = false;
      if (std::isinf(x)) {
        (x > 0 ? pos_inf : neg_inf) = true;
      } else {
        w.sum_exact += static_cast<long double>(x);
        w.sum_abs += std::fabs(static_cast<long double>(x));
      }
    } else {
      wrap += static_cast<uint64_t>(x);
    }
    if (x < w.min) w.min = x;
    if (x > w.max) w.max = x;
  }
  if constexpr (kIsFloat<T>) {
    if (all_nan) w.min = w.max = L::quiet_NaN();
    if (pos_inf && neg_inf) w.sum_nan = true;
    w.sum_inf = pos_inf || neg_inf;
    w.sum_pos_inf = pos_inf;
  }
  w.sum_wrap = static_cast<T>(static_cast<UInt<T>>(wrap));
  return w;
}

// ReduceMin/Max: a zero result from lanes holding both zeros may be either zero.
template <typename T>
bool SameMinMax(T want, T got, const std::vector<T>& v, size_t n) {
  if (SameLane(want, got)) return true;
  if constexpr (kIsFloat<T>) {
    if (want == 0 && got == 0) {
      bool pos = false, neg = false;
      for (size_t i = 0; i < n; ++i) {
        if (v[i] == 0) (std::signbit(v[i]) ? neg : pos) = true;
      }
      return pos && neg;
    }
  }
  return false;
}

// What the reductions returned; ordered is ReduceSumOrdered (floats only).
template <typename T>
struct ReduceGot {
  T sum, ordered, min, max;
};

// The checks, per element type on plain values (the ops run in CheckReductions, per tag).
template <typename T>
[[gnu::noinline]] void CheckReduceGot(const std::vector<T>& v, size_t n, const ReduceGot<T>& got,
                                      const std::string& what) {
  const ReduceWant<T> w = Reduce(v, n);
  const T sum = got.sum;
  if constexpr (kIsFloat<T>) {
    if (w.sum_nan) {
      EXPECT_TRUE(std::isnan(sum)) << "ReduceSum " << what << " = " << Str(sum) << ", want NaN";
    } else if (w.sum_abs > static_cast<long double>(std::numeric_limits<T>::max()) / 2) {
      // Some association orders overflow and others do not: any result is allowed.
    } else if (w.sum_inf) {
      EXPECT_TRUE(std::isinf(sum) && (sum > 0) == w.sum_pos_inf) << "ReduceSum " << what << " = " << Str(sum);
    } else {
      // Any association order: each of the n - 1 additions errs by at most eps/2 of a partial sum
      // bounded by sum |x|.
      const long double tol = w.sum_abs * std::numeric_limits<T>::epsilon() * static_cast<long double>(n);
      const long double err = std::fabs(static_cast<long double>(sum) - w.sum_exact);
      EXPECT_LE(err, tol) << "ReduceSum " << what << " = " << Str(sum) << ", exact "
                          << static_cast<double>(w.sum_exact) << " (" << UlpDistance(sum, static_cast<T>(w.sum_exact))
                          << " ulp)";
    }
    const T ordered = got.ordered;
    EXPECT_TRUE(SameLane(w.sum_ordered, ordered))
        << "ReduceSumOrdered " << what << " = " << Str(ordered) << ", want " << Str(w.sum_ordered);
  } else {
    EXPECT_EQ(sum, w.sum_wrap) << "ReduceSum " << what;
  }
  const T mn = got.min, mx = got.max;
  EXPECT_TRUE(SameMinMax(w.min, mn, v, n)) << "ReduceMin " << what << " = " << Str(mn) << ", want " << Str(w.min);
  EXPECT_TRUE(SameMinMax(w.max, mx, v, n)) << "ReduceMax " << what << " = " << Str(mx) << ", want " << Str(w.max);
}

template <class DS, typename T>
[[gnu::noinline]] void CheckReductions(DS ds, const std::vector<T>& v, const std::string& what) {
  const auto vec = LoadU(FullTag<DS>(), v.data());
  ReduceGot<T> got{};
  got.sum = ReduceSum(ds, vec);
  if constexpr (kIsFloat<T>) got.ordered = ReduceSumOrdered(ds, vec);
  got.min = ReduceMin(ds, vec);
  got.max = ReduceMax(ds, vec);
  CheckReduceGot(v, Lanes(ds), got, what);
}

template <typename T>
[[gnu::noinline]] std::vector<T> PoisonFrom(const std::vector<T>& v, size_t n, size_t vl) {
  std::vector<T> p(v);
  for (size_t i = n; i < vl; ++i) p[i] = Poison<T>(static_cast<int>(i));
  return p;
}

template <class D>
[[gnu::noinline]] void TestReductions(D d, const std::vector<TFromD<D>>& v, const std::string& what) {
  const size_t vl = Lanes(d);
  const std::string tag = TagString<D>();
  CheckReductions(d, v, what + " " + tag);
  for (size_t n : StripLengths(vl)) {
    CheckReductions(Strip(d, n), PoisonFrom(v, n, vl), what + " " + tag + " strip n=" + std::to_string(n));
  }
}

VLAK_SIMD_TEST(Compare, Reductions, AllTags) {
  using T = TFromD<D>;
  using L = std::numeric_limits<T>;
  const D d;
  const size_t vl = Lanes(d);
  Rng rng(36);
  std::vector<T> v(MaxLanes(d));
  // Finite values: the float sum is checked against its tolerance.
  for (int trial = 0; trial < 8; ++trial) {
    for (size_t i = 0; i < vl; ++i) v[i] = RandomFinite<T>(rng);
    TestReductions(d, v, "random finite");
  }
  // Anything at all, special values included (integers: extremes wrap the sum).
  for (int trial = 0; trial < 8; ++trial) {
    for (size_t i = 0; i < vl; ++i) v[i] = RandomValue<T>(rng);
    TestReductions(d, v, "random");
  }
  const std::vector<T> sp = Specials<T>();
  for (size_t k = 0; k < sp.size(); k += vl) {
    for (size_t i = 0; i < vl; ++i) v[i] = sp[(k + i) % sp.size()];
    TestReductions(d, v, "specials");
  }
  for (T x : sp) {
    std::fill(v.begin(), v.end(), x);
    TestReductions(d, v, "all " + Str(x));
  }
  if constexpr (kIsFloat<T>) {
    // One lane that is not NaN wins min and max wherever it is.
    for (size_t j = 0; j < vl; ++j) {
      std::fill(v.begin(), v.end(), L::quiet_NaN());
      v[j] = T(-2.5);
      TestReductions(d, v, "one non-NaN at " + std::to_string(j));
    }
    // Zeros of both signs: either zero from min/max; the ordered sum from +0 gives +0.
    for (size_t i = 0; i < vl; ++i) v[i] = i % 2 ? T(0) : -T(0);
    TestReductions(d, v, "mixed zeros");
    std::fill(v.begin(), v.end(), -T(0));
    TestReductions(d, v, "negative zeros");
  }
}

// n = 0 gives the identities: 0 for sums, +inf/-inf (floats) or max/min (integers) for min/max.
VLAK_SIMD_TEST(Compare, ReductionsEmpty, AllTags) {
  using T = TFromD<D>;
  using L = std::numeric_limits<T>;
  const D d;
  const auto ds = Strip(d, 0);
  const auto v = Set(d, Poison<T>(0));
  EXPECT_EQ(ReduceSum(ds, v), T(0));
  if constexpr (kIsFloat<T>) {
    EXPECT_TRUE(SameLane(ReduceSumOrdered(ds, v), T(0))) << "+0";
    EXPECT_TRUE(SameLane(ReduceMin(ds, v), L::infinity()));
    EXPECT_TRUE(SameLane(ReduceMax(ds, v), -L::infinity()));
  } else {
    EXPECT_EQ(ReduceMin(ds, v), L::max());
    EXPECT_EQ(ReduceMax(ds, v), L::min());
  }
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
