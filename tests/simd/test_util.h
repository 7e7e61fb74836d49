// Shared helpers for the vector-layer tests: tag lists and their printed names, input generators
// (random and special values), per-lane result checks, and guarded memory.
//
// Every expected value in these tests comes from plain C++ written in the test, one lane at a
// time, never from another target or from the scalar spec, so a wrong op shows up as a mismatch
// instead of agreeing with itself. The only vector ops used as plumbing are LoadU/StoreU to move
// lanes, and Ne/IfThenElseZero/Set to build and read back masks; each is tested on its own.
//
// Everything is generic over the tag: no target types, no `.raw`, vectors only as local variables
// and function arguments (RVV's sizeless types allow nothing else), lane counts from Lanes(d) at
// run time (on RVV they depend on VLEN).
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "simd/simd.h"

namespace vlak::VLAK_NS::test {

// ------------------------------------------------------------------ tag lists and test names
template <typename T>
constexpr const char* TypeName() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, uint32_t>) return "u32";
  else if constexpr (std::is_same_v<T, int16_t>) return "i16";
  else if constexpr (std::is_same_v<T, uint16_t>) return "u16";
  else if constexpr (std::is_same_v<T, int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, uint8_t>) return "u8";
  else return "?";
}

// "f32m2": element type and LMUL, as RVV spells a register group.
template <class D>
std::string TagString() {
  return std::string(TypeName<TFromD<D>>()) + "m" + std::to_string(1 << Pow2FromD<D>);
}

// A conversion case: source and destination tag (same lane count).
template <class DFrom, class DTo>
struct ConvPair {
  using From = DFrom;
  using To = DTo;
};

// What a test instance is named after: "f32m2" for a tag, "i32m2_to_i16m1" for a conversion.
template <class X>
struct CaseName {
  static std::string Get() { return TagString<X>(); }
};
template <class DFrom, class DTo>
struct CaseName<ConvPair<DFrom, DTo>> {
  static std::string Get() { return TagString<DFrom>() + "_to_" + TagString<DTo>(); }
};

// ---------------------------------------------------------------------------- registration
// Tests are registered one function per tag through ::testing::RegisterTest rather than with
// TYPED_TEST: gtest's typed-test registration costs about 60 ms of -O1 compile time and 3 KB of
// code per (test, type), which here would be most of the suite's build. The names read the same
// way: "Arith/f32m2.Add" is op Add on f32 at LMUL 2, so --gtest_filter='*/f32m2.*' or '*.Add'.
template <class... Cases>
struct CaseList {};

class FunctionTest : public ::testing::Test {
 public:
  explicit FunctionTest(void (*body)()) : body_(body) {}
  void TestBody() override { body_(); }

 private:
  void (*body_)();
};

[[gnu::noinline]] inline void RegisterOne(const char* suite, const std::string& case_name, const char* name,
                                          void (*body)(), const char* file, int line) {
  ::testing::RegisterTest((std::string(suite) + "/" + case_name).c_str(), name, nullptr, nullptr, file, line,
                          [body]() -> ::testing::Test* { return new FunctionTest(body); });
}

template <class Runner, class... Cases>
bool RegisterEach(const char* suite, const char* name, const char* file, int line, CaseList<Cases...>) {
  (RegisterOne(suite, CaseName<Cases>::Get(), name, &Runner::template Run<Cases>, file, line), ...);
  return true;
}

// VLAK_SIMD_TEST(Suite, Name, Cases) { body }: the body is a template over `D` (a tag, or a
// ConvPair for conversions), instantiated and registered once for each entry of Cases.
#define VLAK_SIMD_TEST(Suite, Name, Cases)                                                      \
  template <class D>                                                                           \
  void Suite##_##Name##_Body();                                                                \
  struct Suite##_##Name##_Runner {                                                             \
    template <class D>                                                                         \
    static void Run() { Suite##_##Name##_Body<D>(); }                                          \
  };                                                                                           \
  [[maybe_unused]] const bool Suite##_##Name##_registered =                                    \
      ::vlak::VLAK_NS::test::RegisterEach<Suite##_##Name##_Runner>(#Suite, #Name, __FILE__, __LINE__, \
                                                                   Cases());                   \
  template <class D>                                                                           \
  void Suite##_##Name##_Body()

#define VLAK_TEST_TAGS(T) \
  ::vlak::simd::Simd<T, 0>, ::vlak::simd::Simd<T, 1>, ::vlak::simd::Simd<T, 2>, ::vlak::simd::Simd<T, 3>

using AllTags = CaseList<VLAK_TEST_TAGS(float), VLAK_TEST_TAGS(double), VLAK_TEST_TAGS(int32_t),
                         VLAK_TEST_TAGS(uint32_t), VLAK_TEST_TAGS(int16_t), VLAK_TEST_TAGS(uint16_t),
                         VLAK_TEST_TAGS(int8_t), VLAK_TEST_TAGS(uint8_t)>;
using FloatTags = CaseList<VLAK_TEST_TAGS(float), VLAK_TEST_TAGS(double)>;
using IntTags = CaseList<VLAK_TEST_TAGS(int32_t), VLAK_TEST_TAGS(uint32_t), VLAK_TEST_TAGS(int16_t),
                         VLAK_TEST_TAGS(uint16_t), VLAK_TEST_TAGS(int8_t), VLAK_TEST_TAGS(uint8_t)>;
// Saturating arithmetic exists for 8- and 16-bit lanes only.
using SmallIntTags = CaseList<VLAK_TEST_TAGS(int16_t), VLAK_TEST_TAGS(uint16_t), VLAK_TEST_TAGS(int8_t),
                              VLAK_TEST_TAGS(uint8_t)>;
// Gather takes 32-bit lanes.
using Tags32 = CaseList<VLAK_TEST_TAGS(float), VLAK_TEST_TAGS(int32_t), VLAK_TEST_TAGS(uint32_t)>;
using U8Tags = CaseList<VLAK_TEST_TAGS(uint8_t)>;
// Gather8 takes 8-bit lanes up to LMUL 4 (its 16-bit indices take twice the registers).
using Gather8Tags = CaseList<::vlak::simd::Simd<int8_t, 0>, ::vlak::simd::Simd<int8_t, 1>, ::vlak::simd::Simd<int8_t, 2>,
                             ::vlak::simd::Simd<uint8_t, 0>, ::vlak::simd::Simd<uint8_t, 1>, ::vlak::simd::Simd<uint8_t, 2>>;
using F32Tags = CaseList<VLAK_TEST_TAGS(float)>;

// ----------------------------------------------------------------------------- bit patterns
template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

template <size_t kBytes>
struct UIntOfSize;
template <> struct UIntOfSize<1> { using type = uint8_t; };
template <> struct UIntOfSize<2> { using type = uint16_t; };
template <> struct UIntOfSize<4> { using type = uint32_t; };
template <> struct UIntOfSize<8> { using type = uint64_t; };
template <typename T>
using UInt = typename UIntOfSize<sizeof(T)>::type;

template <typename T>
UInt<T> BitsOf(T x) {
  UInt<T> u;
  std::memcpy(&u, &x, sizeof(T));
  return u;
}
template <typename T>
T FromBits(uint64_t bits) {
  const UInt<T> u = static_cast<UInt<T>>(bits);
  T x;
  std::memcpy(&x, &u, sizeof(T));
  return x;
}

// The contract's equality: floats bit for bit, any NaN matching any NaN.
template <typename T>
bool SameLane(T expected, T actual) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(expected)) return std::isnan(actual);
  }
  return BitsOf(expected) == BitsOf(actual);
}

// Distance in representable values, for messages and tolerances; huge across NaN.
template <typename T>
uint64_t UlpDistance(T a, T b) {
  static_assert(kIsFloat<T>);
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : ~uint64_t{0};
  // Map the sign-magnitude encoding onto a line where adjacent floats differ by one.
  auto key = [](T x) -> int64_t {
    const uint64_t u = BitsOf(x);
    const uint64_t sign = uint64_t{1} << (sizeof(T) * 8 - 1);
    return (u & sign) ? -static_cast<int64_t>(u & ~sign) : static_cast<int64_t>(u);
  };
  const int64_t ka = key(a), kb = key(b);
  return ka > kb ? static_cast<uint64_t>(ka - kb) : static_cast<uint64_t>(kb - ka);
}

template <typename T>
std::string Str(T x) {
  char buf[96];
  if constexpr (std::is_same_v<T, float>) {
    std::snprintf(buf, sizeof(buf), "%.9g [0x%08" PRIx32 "]", static_cast<double>(x), BitsOf(x));
  } else if constexpr (std::is_same_v<T, double>) {
    std::snprintf(buf, sizeof(buf), "%.17g [0x%016" PRIx64 "]", x, BitsOf(x));
  } else if constexpr (std::is_same_v<T, bool>) {
    std::snprintf(buf, sizeof(buf), "%s", x ? "true" : "false");
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(x));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(x));
  }
  return buf;
}

// Integer oracles compute in 64 bits and keep the low bits: modular arithmetic, written apart
// from any target's wrap helpers.
template <typename T>
T Low(uint64_t x) { return static_cast<T>(static_cast<UInt<T>>(x)); }
template <typename T>
uint64_t U64(T x) { return static_cast<uint64_t>(static_cast<int64_t>(x)); }  // sign-extends signed T

// ----------------------------------------------------------------------------- random input
// SplitMix64: tiny and the same on every host, so a failing input reproduces on any target.
class Rng {
 public:
  explicit Rng(uint64_t salt) : state_(BaseSeed() ^ (salt * 0x9E3779B97F4A7C15ull)) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1p-53; }  // [0, 1)

  // VLAK_TEST_SEED=<n> explores other inputs; the default keeps runs reproducible.
  static uint64_t BaseSeed() {
    const char* s = std::getenv("VLAK_TEST_SEED");
    return s ? std::strtoull(s, nullptr, 0) : 0x766C616Bull;
  }

 private:
  uint64_t state_;
};

// Any bit pattern: for floats that includes NaNs with payloads, infinities and denormals.
template <typename T>
T RandomBits(Rng& rng) { return FromBits<T>(rng.Next()); }

// Values from where bugs live rather than uniform bits.
template <typename T>
T RandomValue(Rng& rng) {
  using L = std::numeric_limits<T>;
  if constexpr (kIsFloat<T>) {
    switch (rng.Below(5)) {
      case 0: return RandomBits<T>(rng);
      case 1:  // quarter steps in [-16, 16]: integers, ties and non-ties for the rounding ops
        return static_cast<T>(static_cast<int>(rng.Below(129)) - 64) * T(0.25);
      case 2: {  // log-uniform magnitude with a full mantissa
        const int range = std::is_same_v<T, float> ? 60 : 300;
        const T m = static_cast<T>(1.0 + rng.Unit());
        const T x = std::ldexp(m, static_cast<int>(rng.Below(2 * range + 1)) - range);
        return rng.Below(2) ? -x : x;
      }
      default: return static_cast<T>((rng.Unit() - 0.5) * 200.0);  // [-100, 100)
    }
  } else {
    switch (rng.Below(4)) {
      case 0:
      case 1: return RandomBits<T>(rng);
      case 2: return static_cast<T>(static_cast<int>(rng.Below(17)) - 8);
      default: {
        const T off = static_cast<T>(rng.Below(4));
        return rng.Below(2) ? static_cast<T>(L::min() + off) : static_cast<T>(L::max() - off);
      }
    }
  }
}

// "Nice" floats: finite, moderate magnitude, full mantissa; for sums with a tolerance.
template <typename T>
T RandomFinite(Rng& rng) {
  if constexpr (kIsFloat<T>) {
    const T m = static_cast<T>(1.0 + rng.Unit());
    const T x = std::ldexp(m, static_cast<int>(rng.Below(41)) - 20);
    return rng.Below(2) ? -x : x;
  } else {
    return RandomBits<T>(rng);
  }
}

// Edge cases every op sees, whatever its arity.
template <typename T>
std::vector<T> Specials() {
  using L = std::numeric_limits<T>;
  if constexpr (kIsFloat<T>) {
    const T eps = L::epsilon();
    const T big = T(1) / eps;  // 2^23 or 2^52: from here on every float is an integer
    std::vector<T> v = {
        L::quiet_NaN(), -L::quiet_NaN(), L::signaling_NaN(), L::infinity(), -L::infinity(), T(0), -T(0),
        L::denorm_min(), -L::denorm_min(), L::min() - L::denorm_min(), -(L::min() - L::denorm_min()),
        L::min(), -L::min(), L::max(), -L::max(), T(1), T(-1), T(0.5), T(-0.5), T(1.5), T(-1.5),
        T(2.5), T(-2.5), T(3), T(-3), T(0.5) - eps / 4, -(T(0.5) - eps / 4), T(1) + eps, -(T(1) + eps),
        big - T(0.5), -(big - T(0.5)), big, big + T(1), -(big + T(1)), T(2) * big + T(2),
        T(2147483648.0), T(-2147483648.0), T(1e10), T(-1e10), T(100.25), T(-7.75)};
    if constexpr (std::is_same_v<T, float>) {
      // Around the int32 range, where float->int conversions saturate.
      v.insert(v.end(), {2147483520.0f, -2147483904.0f, 16777215.0f, 16777216.0f});
    } else {
      v.insert(v.end(), {2147483647.0, 2147483647.5, 2147483646.5, -2147483648.5, -2147483649.0,
                         // Around f32's range and rounding, for f64 -> f32.
                         static_cast<double>(std::numeric_limits<float>::max()), 0x1.fffffefffffffp127,
                         0x1.ffffffp127, 1e300, -1e300, 1e-300, 0x1p-150, 0x1.8p-150, 0x1p-149, 0x1p-126,
                         1.0 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-52, 1.0 + 3 * 0x1p-24, -(1.0 + 3 * 0x1p-24)});
    }
    return v;
  } else {
    constexpr int kBits = sizeof(T) * 8;
    const T mx = L::max(), mn = L::min();
    return {T(0), T(1), static_cast<T>(-1), T(2), T(3), T(7), mx, mn, static_cast<T>(mx - 1),
            static_cast<T>(mn + 1), static_cast<T>(mx / 2), static_cast<T>(mx / 2 + 1), static_cast<T>(mn / 2),
            FromBits<T>(0x5555555555555555ull), FromBits<T>(0xAAAAAAAAAAAAAAAAull), T(kBits - 1), T(kBits)};
  }
}

// A smaller set for three-operand ops, whose cross product grows as the cube.
template <typename T>
std::vector<T> FewSpecials() {
  using L = std::numeric_limits<T>;
  if constexpr (kIsFloat<T>) {
    return {L::quiet_NaN(), L::infinity(), -L::infinity(), T(0), -T(0), L::denorm_min(), L::min(), L::max(),
            -L::max(), T(1), T(-1), T(1) + L::epsilon(), T(0.5), T(3)};
  } else {
    return {T(0), T(1), static_cast<T>(-1), T(2), L::max(), L::min(), static_cast<T>(L::max() / 2 + 1)};
  }
}

// Operand columns of an element-wise test; lane i of the op sees a[i], b[i], c[i].
template <typename T>
struct Inputs {
  std::vector<T> a, b, c;
  size_t size() const { return a.size(); }
  void Push(T x, T y = T(), T z = T()) {
    a.push_back(x);
    b.push_back(y);
    c.push_back(z);
  }
  // Repeats leading lanes so that every vector of `lanes` is full.
  void PadTo(size_t lanes) {
    for (size_t i = 0; a.size() % lanes != 0; ++i) Push(a[i], b[i], c[i]);
  }
};

template <typename T>
[[gnu::noinline]] Inputs<T> UnaryInputs(uint64_t salt, size_t num_random = 1024) {
  Rng rng(salt);
  Inputs<T> in;
  for (T x : Specials<T>()) in.Push(x);
  for (size_t i = 0; i < num_random; ++i) in.Push(RandomValue<T>(rng));
  return in;
}

template <typename T>
[[gnu::noinline]] Inputs<T> BinaryInputs(uint64_t salt, size_t num_random = 1024) {
  Rng rng(salt);
  Inputs<T> in;
  const std::vector<T> sp = Specials<T>();
  for (T x : sp) {
    for (T y : sp) in.Push(x, y);
  }
  for (T x : sp) {
    in.Push(x, RandomValue<T>(rng));
    in.Push(RandomValue<T>(rng), x);
  }
  for (size_t i = 0; i < num_random; ++i) in.Push(RandomValue<T>(rng), RandomValue<T>(rng));
  return in;
}

template <typename T>
[[gnu::noinline]] Inputs<T> TernaryInputs(uint64_t salt, size_t num_random = 2048) {
  Rng rng(salt);
  Inputs<T> in;
  const std::vector<T> sp = FewSpecials<T>();
  for (T x : sp) {
    for (T y : sp) {
      for (T z : sp) in.Push(x, y, z);
    }
  }
  for (size_t i = 0; i < num_random; ++i) {
    in.Push(RandomValue<T>(rng), RandomValue<T>(rng), RandomValue<T>(rng));
  }
  // Addends that cancel the product: floats, where a fused and an unfused multiply-add round
  // differently; integers, where the wrapped product must come out exactly.
  for (size_t i = 0; i < num_random; ++i) {
    const T x = RandomFinite<T>(rng), y = RandomFinite<T>(rng);
    if constexpr (kIsFloat<T>) {
      in.Push(x, y, static_cast<T>(-(x * y) * static_cast<T>(1 + rng.Below(3))));
    } else {
      in.Push(x, y, FromBits<T>(uint64_t{0} - uint64_t{BitsOf(x)} * uint64_t{BitsOf(y)} + rng.Below(3)));
    }
  }
  return in;
}

// ------------------------------------------------------------------------------- lane checks
// How a result lane may differ from the oracle's.
enum class Accept {
  kExact,     // the contract's equality: floats bit for bit, any NaN matching any NaN
  kBitExact,  // bit for bit, NaN payload included: ops that only move or combine bits
  kMinMax,    // Min/Max: with a -0 and a +0 operand, either zero is right
};

template <typename TOut, typename TIn>
bool AcceptLane(Accept how, TOut expected, TOut actual, TIn a, TIn b) {
  switch (how) {
    case Accept::kBitExact: return BitsOf(expected) == BitsOf(actual);
    case Accept::kMinMax:
      if constexpr (kIsFloat<TOut> && std::is_same_v<TOut, TIn>) {
        if (a == 0 && b == 0 && std::signbit(a) != std::signbit(b) && actual == 0) return true;
      }
      return SameLane(expected, actual);
    case Accept::kExact: break;
  }
  return SameLane(expected, actual);
}

// Compares every lane and reports the first few mismatches with their operands; `lanes` is the
// vector length used, so a message names the lane within its vector. Out of line: instantiated
// once per type pair, not once per op and LMUL (the tests' compile time is mostly code size).
template <typename TOut, typename TIn>
[[gnu::noinline]] void CheckLanes(const std::string& what, const TOut* expected, const TOut* actual,
                                  const Inputs<TIn>& in, int arity, size_t lanes, Accept how) {
  size_t failures = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (AcceptLane(how, expected[i], actual[i], in.a[i], in.b[i])) continue;
    if (++failures > 8) continue;
    std::string operands = Str(in.a[i]);
    if (arity > 1) operands += ", " + Str(in.b[i]);
    if (arity > 2) operands += ", " + Str(in.c[i]);
    ADD_FAILURE() << what << ": lane " << i % lanes << " of " << lanes << " (element " << i << "), op("
                  << operands << ") expected " << Str(expected[i]) << ", got " << Str(actual[i]);
  }
  if (failures > 8) ADD_FAILURE() << what << ": " << failures << " mismatching lanes in all";
}

// Strip lengths to try for a group of `vl` lanes: empty, one, one short, full.
inline std::vector<size_t> StripLengths(size_t vl) {
  std::vector<size_t> v = {0, 1, vl - 1, vl};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
// Counts to try where a length is an argument: around one and two vectors.
inline std::vector<size_t> CountLengths(size_t vl) {
  std::vector<size_t> v = {0, 1, vl - 1, vl, vl + 1, 2 * vl + 3};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Lanes that an op must not have written are pre-filled with the complement of the expected
// value: never equal to it, and never a NaN when the expected value is one.
template <typename T>
T NotValue(T x) { return FromBits<T>(~uint64_t{BitsOf(x)}); }

// Oracles are plain functions (captureless lambdas convert), so the loops that call them are
// instantiated per element type only.
template <typename TOut, typename TIn>
using Oracle1 = TOut (*)(TIn);
template <typename TOut, typename TIn>
using Oracle2 = TOut (*)(TIn, TIn);
template <typename TOut, typename TIn>
using Oracle3 = TOut (*)(TIn, TIn, TIn);

template <typename TOut, typename TIn>
[[gnu::noinline]] std::vector<TOut> Expected(const Inputs<TIn>& in, Oracle1<TOut, TIn> f) {
  std::vector<TOut> e(in.size());
  for (size_t i = 0; i < in.size(); ++i) e[i] = f(in.a[i]);
  return e;
}
template <typename TOut, typename TIn>
[[gnu::noinline]] std::vector<TOut> Expected(const Inputs<TIn>& in, Oracle2<TOut, TIn> f) {
  std::vector<TOut> e(in.size());
  for (size_t i = 0; i < in.size(); ++i) e[i] = f(in.a[i], in.b[i]);
  return e;
}
template <typename TOut, typename TIn>
[[gnu::noinline]] std::vector<TOut> Expected(const Inputs<TIn>& in, Oracle3<TOut, TIn> f) {
  std::vector<TOut> e(in.size());
  for (size_t i = 0; i < in.size(); ++i) e[i] = f(in.a[i], in.b[i], in.c[i]);
  return e;
}

// Before a strip pass: lanes < n of each group poisoned, lanes >= n already right, so the check
// catches both a lane the strip failed to write and one it wrote but must not have.
template <typename T>
[[gnu::noinline]] void PoisonStripLanes(const std::vector<T>& expected, T* actual, size_t lanes, size_t n) {
  for (size_t i = 0; i < expected.size(); ++i) actual[i] = i % lanes < n ? NotValue(expected[i]) : expected[i];
}

// ---------------------------------------------------------------------- element-wise harness
// The harness is split so that the compiler sees little code per test: the op under test is a
// small function per (test, tag) in which the op is inlined the way kernels see it, while the
// load/store loop, the oracle loop and the checks are instantiated once per (arity, tag) and
// reach the op through a function pointer. Inlining everything into each test (the earlier
// form) made the optimizer and code generator redo the same strip loads and stores (on AVX2
// up to 8 registers of partial byte loads per operand) for every op: most of the build.
template <int kArity, class D>
struct VecOpT;
template <class D>
struct VecOpT<1, D> { using type = VFromD<D> (*)(D, VFromD<D>); };
template <class D>
struct VecOpT<2, D> { using type = VFromD<D> (*)(D, VFromD<D>, VFromD<D>); };
template <class D>
struct VecOpT<3, D> { using type = VFromD<D> (*)(D, VFromD<D>, VFromD<D>, VFromD<D>); };
// The op for one tag: a captureless generic lambda converts to it.
template <int kArity, class D>
using VecOp = typename VecOpT<kArity, D>::type;

template <int kArity, typename T>
struct OracleT;
template <typename T>
struct OracleT<1, T> { using type = Oracle1<T, T>; };
template <typename T>
struct OracleT<2, T> { using type = Oracle2<T, T>; };
template <typename T>
struct OracleT<3, T> { using type = Oracle3<T, T>; };
template <int kArity, typename T>
using OracleN = typename OracleT<kArity, T>::type;

template <class D>
using StripTag = decltype(Strip(D(), 0));

// Runs `op` over the inputs one vector at a time; `step` is the group's lane count, so with a
// strip tag only the first n lanes of each group change.
template <int kArity, class D>
[[gnu::noinline]] void ApplyOp(D d, size_t step, const Inputs<TFromD<D>>& in, TFromD<D>* out, VecOp<kArity, D> op) {
  for (size_t i = 0; i < in.size(); i += step) {
    if constexpr (kArity == 1) {
      StoreU(d, op(d, LoadU(d, &in.a[i])), out + i);
    } else if constexpr (kArity == 2) {
      StoreU(d, op(d, LoadU(d, &in.a[i]), LoadU(d, &in.b[i])), out + i);
    } else {
      StoreU(d, op(d, LoadU(d, &in.a[i]), LoadU(d, &in.b[i]), LoadU(d, &in.c[i])), out + i);
    }
  }
}

template <int kArity, class D>
[[gnu::noinline]] void TestElementwiseOps(D d, const char* name, Inputs<TFromD<D>> in, VecOp<kArity, D> vop,
                                          VecOp<kArity, StripTag<D>> vop_strip, OracleN<kArity, TFromD<D>> oracle,
                                          Accept how) {
  using T = TFromD<D>;
  const size_t N = Lanes(d);
  in.PadTo(N);
  const std::vector<T> expected = Expected<T, T>(in, oracle);
  std::vector<T> actual(in.size());
  ApplyOp<kArity>(d, N, in, actual.data(), vop);
  const std::string what = std::string(name) + " " + TagString<D>();
  CheckLanes(what, expected.data(), actual.data(), in, kArity, N, how);

  for (size_t n : StripLengths(N)) {
    PoisonStripLanes(expected, actual.data(), N, n);
    ApplyOp<kArity>(Strip(d, n), N, in, actual.data(), vop_strip);
    CheckLanes(what + " strip n=" + std::to_string(n), expected.data(), actual.data(), in, kArity, N, how);
  }
}

// Checks a same-type element-wise op against its per-lane oracle, with the whole-group tag and
// with strip tags of each StripLengths: lanes < n must be right, and lanes >= n of memory must
// not be written by the strip's StoreU. `vop` is a captureless generic lambda taking the tag
// first, `oracle` a captureless lambda on T.
template <int kArity, class D, class Op, class Oracle>
void TestElementwise(D d, const char* name, Inputs<TFromD<D>> in, const Op& vop, const Oracle& oracle,
                     Accept how = Accept::kExact) {
  const VecOp<kArity, D> full = vop;
  const VecOp<kArity, StripTag<D>> strip = vop;
  const OracleN<kArity, TFromD<D>> lane = oracle;
  TestElementwiseOps<kArity>(d, name, std::move(in), full, strip, lane, how);
}

// -------------------------------------------------------------------------------- memory
// A 64-byte aligned heap array (Load/Store need kAlignment).
template <typename T>
class AlignedArray {
 public:
  explicit AlignedArray(size_t n) : n_(n) {
    p_ = static_cast<T*>(::operator new((n ? n : 1) * sizeof(T), std::align_val_t{kAlignment}));
    std::memset(static_cast<void*>(p_), 0, (n ? n : 1) * sizeof(T));
  }
  ~AlignedArray() { ::operator delete(p_, std::align_val_t{kAlignment}); }
  AlignedArray(const AlignedArray&) = delete;
  AlignedArray& operator=(const AlignedArray&) = delete;
  T* get() { return p_; }
  T& operator[](size_t i) { return p_[i]; }
  size_t size() const { return n_; }

 private:
  T* p_;
  size_t n_;
};

// Memory with an inaccessible page on each side. Touching even one byte outside [begin, end)
// faults, which is the portable way to show that a strip, masked or counted access reads and
// writes nothing beyond its lanes: a full-width load that blends afterwards dies here.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t bytes) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    data_ = std::max<size_t>(1, (bytes + page_ - 1) / page_) * page_;
    void* p = mmap(nullptr, data_ + 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    base_ = static_cast<uint8_t*>(p);
    if (mprotect(base_, page_, PROT_NONE) != 0 || mprotect(base_ + page_ + data_, page_, PROT_NONE) != 0) {
      std::abort();
    }
  }
  ~GuardedBuffer() { munmap(base_, data_ + 2 * page_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  uint8_t* begin() { return base_ + page_; }
  uint8_t* end() { return base_ + page_ + data_; }
  // `count` elements that end exactly at the upper guard page.
  template <typename T>
  T* AtEnd(size_t count) { return reinterpret_cast<T*>(end() - count * sizeof(T)); }
  // Elements that start exactly at the lower guard page.
  template <typename T>
  T* AtBegin() { return reinterpret_cast<T*>(begin()); }

 private:
  size_t page_, data_;
  uint8_t* base_;
};

// A guard-page fault kills the test binary; say which test touched memory it must not have
// before dying, instead of a bare "Segmentation fault" after the last [ RUN ] line.
namespace detail {
[[noreturn]] inline void OnFault(int sig) {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  char msg[512];
  const int len = std::snprintf(msg, sizeof(msg),
                                "\nFATAL: signal %d in %s.%s: memory accessed outside the lanes an op may touch "
                                "(guard page), or another crash\n",
                                sig, t ? t->test_suite_name() : "?", t ? t->name() : "?");
  if (len > 0) (void)!write(2, msg, static_cast<size_t>(std::min<int>(len, sizeof(msg) - 1)));
  _exit(128 + sig);
}
inline const bool kFaultHandlerInstalled = [] {
  std::signal(SIGSEGV, OnFault);
  std::signal(SIGBUS, OnFault);
  return true;
}();
}  // namespace detail

// Mask lanes from bools, built with a compare so only the vector API is used.
template <class D>
[[gnu::noinline]] MFromD<D> MaskFromBools(D d, const std::vector<bool>& b) {
  using T = TFromD<D>;
  std::vector<T> v(MaxLanes(d), T(0));
  for (size_t i = 0; i < Lanes(d) && i < b.size(); ++i) v[i] = b[i] ? T(1) : T(0);
  return Ne(d, LoadU(d, v.data()), Zero(d));
}

// Mask lanes as 0/1 values of the whole group (a strip's lanes >= n are whatever the op left).
template <class D>
[[gnu::noinline]] std::vector<bool> BoolsFromMask(D d, MFromD<D> m) {
  using T = TFromD<D>;
  const FullTag<D> df;
  std::vector<T> v(MaxLanes(d));
  StoreU(df, IfThenElseZero(df, m, Set(df, T(1))), v.data());
  std::vector<bool> b(Lanes(df));
  for (size_t i = 0; i < b.size(); ++i) b[i] = v[i] != T(0);
  return b;
}

}  // namespace vlak::VLAK_NS::test
