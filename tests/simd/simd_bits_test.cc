// Shifts (by a constant and by a vector of counts) and bitwise ops against per-lane C++ oracles,
// for every element type and LMUL they exist for, with whole-group and strip tags. A file of its
// own so that the arithmetic and bit tests build in parallel in similar time.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

// ---------------------------------------------------------------------------------- shifts
template <typename T>
T ShlOracle(T a, int s) { return Low<T>(U64(a) << s); }
template <typename T>
T ShrOracle(T a, int s) {
  // Arithmetic for signed types (C++20 defines >> on negative values as floor division by 2^s).
  if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<int64_t>(a) >> s);
  else return static_cast<T>(static_cast<uint64_t>(a) >> s);
}

// One instantiation per shift count; the counts cover zero, one, the middle and the top bit.
template <int kBits, class D>
void TestShiftConst(D d) {
  using T = TFromD<D>;
  const std::string suffix = "<" + std::to_string(kBits) + ">";
  TestElementwise<1>(d, ("ShiftLeft" + suffix).c_str(), UnaryInputs<T>(18 + kBits, 256),
                     [](auto dd, auto a) { return ShiftLeft<kBits>(dd, a); },
                     [](T a) { return ShlOracle(a, kBits); });
  TestElementwise<1>(d, ("ShiftRight" + suffix).c_str(), UnaryInputs<T>(19 + kBits, 256),
                     [](auto dd, auto a) { return ShiftRight<kBits>(dd, a); },
                     [](T a) { return ShrOracle(a, kBits); });
}

VLAK_SIMD_TEST(Bits, ShiftByConstant, IntTags) {
  using T = TFromD<D>;
  constexpr int kTop = sizeof(T) * 8 - 1;
  TestShiftConst<0>(D());
  TestShiftConst<1>(D());
  TestShiftConst<kTop / 2>(D());
  TestShiftConst<kTop>(D());
}

// Counts must be in [0, bits): every count appears against every special value, plus random.
template <typename T>
Inputs<T> ShiftInputs(uint64_t salt) {
  Rng rng(salt);
  Inputs<T> in;
  constexpr int kBits = sizeof(T) * 8;
  for (T x : Specials<T>()) {
    for (int s = 0; s < kBits; ++s) in.Push(x, static_cast<T>(s));
  }
  for (int i = 0; i < 1024; ++i) in.Push(RandomValue<T>(rng), static_cast<T>(rng.Below(kBits)));
  return in;
}

VLAK_SIMD_TEST(Bits, Shl, IntTags) {
  using T = TFromD<D>;
  TestElementwise<2>(D(), "Shl", ShiftInputs<T>(20),
                     [](auto d, auto a, auto s) { return Shl(d, a, s); },
                     [](T a, T s) { return ShlOracle(a, static_cast<int>(s)); });
}

VLAK_SIMD_TEST(Bits, Shr, IntTags) {
  using T = TFromD<D>;
  TestElementwise<2>(D(), "Shr", ShiftInputs<T>(21),
                     [](auto d, auto a, auto s) { return Shr(d, a, s); },
                     [](T a, T s) { return ShrOracle(a, static_cast<int>(s)); });
}

// ---------------------------------------------------------------------------------- bitwise
// On floats too: bit patterns in, bit patterns out, NaN payloads included.
template <typename T>
Inputs<T> BitsInputs(uint64_t salt) {
  Rng rng(salt);
  Inputs<T> in = BinaryInputs<T>(salt, 256);
  for (int i = 0; i < 1024; ++i) in.Push(RandomBits<T>(rng), RandomBits<T>(rng));
  return in;
}

VLAK_SIMD_TEST(Bits, And, AllTags) {
  using T = TFromD<D>;
  TestElementwise<2>(D(), "And", BitsInputs<T>(22), [](auto d, auto a, auto b) { return And(d, a, b); },
                     [](T a, T b) { return FromBits<T>(BitsOf(a) & BitsOf(b)); }, Accept::kBitExact);
}

VLAK_SIMD_TEST(Bits, Or, AllTags) {
  using T = TFromD<D>;
  TestElementwise<2>(D(), "Or", BitsInputs<T>(23), [](auto d, auto a, auto b) { return Or(d, a, b); },
                     [](T a, T b) { return FromBits<T>(BitsOf(a) | BitsOf(b)); }, Accept::kBitExact);
}

VLAK_SIMD_TEST(Bits, Xor, AllTags) {
  using T = TFromD<D>;
  TestElementwise<2>(D(), "Xor", BitsInputs<T>(24), [](auto d, auto a, auto b) { return Xor(d, a, b); },
                     [](T a, T b) { return FromBits<T>(BitsOf(a) ^ BitsOf(b)); }, Accept::kBitExact);
}

VLAK_SIMD_TEST(Bits, AndNot, AllTags) {
  using T = TFromD<D>;
  // AndNot(a, b) = ~a & b: the first operand is the one inverted.
  TestElementwise<2>(D(), "AndNot", BitsInputs<T>(25),
                     [](auto d, auto a, auto b) { return AndNot(d, a, b); },
                     [](T a, T b) { return FromBits<T>(~uint64_t{BitsOf(a)} & BitsOf(b)); }, Accept::kBitExact);
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
