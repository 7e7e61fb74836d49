// Widening integer ops against per-lane C++: WidenMul, WidenMulAdd, WidenAdd on i8 -> i16 and
// i16 -> i32, every LMUL at which the wide side is a register group, whole groups and strips.
// Inputs cover the extremes (MIN * MIN, MIN * MAX) and wrap-around of the wide accumulator.
#include <random>

#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

#define VLAK_W2(F, T) ConvPair<Simd<F, 0>, Simd<T, 1>>, ConvPair<Simd<F, 1>, Simd<T, 2>>, ConvPair<Simd<F, 2>, Simd<T, 3>>
using WidenCases = CaseList<VLAK_W2(int8_t, int16_t), VLAK_W2(int16_t, int32_t)>;

// Wide value of x wrapped to TW (two's complement).
template <typename TW>
TW WrapTo(int64_t x) {
  using U = std::make_unsigned_t<TW>;
  return static_cast<TW>(static_cast<U>(static_cast<uint64_t>(x)));
}

VLAK_SIMD_TEST(Widen, MulMulAddAdd, WidenCases) {
  using DN = typename D::From;
  using DW = typename D::To;
  using TN = TFromD<DN>;
  using TW = TFromD<DW>;
  const DN dn;
  const DW dw;
  const size_t N = Lanes(dn);
  ASSERT_EQ(Lanes(dw), N);
  // Several groups of inputs: extremes first, then random; accumulators near the wide limits.
  const size_t count = 8 * N;
  std::vector<TN> a(count), b(count);
  std::vector<TW> acc(count);
  std::mt19937 rng(7);
  const int64_t lo = std::numeric_limits<TN>::min(), hi = std::numeric_limits<TN>::max();
  const int64_t extremes[4] = {lo, hi, -1, 0};
  std::uniform_int_distribution<int64_t> narrow(lo, hi);
  std::uniform_int_distribution<int64_t> wide(std::numeric_limits<TW>::min(), std::numeric_limits<TW>::max());
  for (size_t i = 0; i < count; ++i) {
    a[i] = static_cast<TN>(i < 16 ? extremes[i % 4] : narrow(rng));
    b[i] = static_cast<TN>(i < 16 ? extremes[i / 4] : narrow(rng));
    acc[i] = static_cast<TW>(i % 3 == 0 ? std::numeric_limits<TW>::max() : i % 3 == 1 ? std::numeric_limits<TW>::min() : wide(rng));
  }
  for (size_t n : {N, N - 1, size_t{1}, N / 2 + 1}) {
    if (n == 0 || n > N) continue;
    std::vector<TW> mul(count, 11), mla(count, 11), add(count, 11);
    for (size_t i = 0; i + N <= count; i += N) {
      auto run = [&](auto ns, auto ws) {
        const auto va = LoadU(ns, &a[i]);
        const auto vb = LoadU(ns, &b[i]);
        const auto vacc = LoadU(ws, &acc[i]);
        StoreU(ws, WidenMul(ws, ns, va, vb), &mul[i]);
        StoreU(ws, WidenMulAdd(ws, ns, va, vb, vacc), &mla[i]);
        StoreU(ws, WidenAdd(ws, ns, vacc, va), &add[i]);
      };
      if (n == N) run(dn, dw);
      else run(Strip(dn, n), Strip(dw, n));
    }
    for (size_t i = 0; i < count; ++i) {
      const size_t lane = i % N;
      if (lane >= n) {  // beyond the strip: memory untouched
        ASSERT_EQ(mul[i], TW{11});
        ASSERT_EQ(mla[i], TW{11});
        ASSERT_EQ(add[i], TW{11});
        continue;
      }
      const int64_t p = int64_t{a[i]} * int64_t{b[i]};
      ASSERT_EQ(mul[i], static_cast<TW>(p)) << CaseName<D>::Get() << " n=" << n << " lane " << i;
      ASSERT_EQ(mla[i], WrapTo<TW>(int64_t{acc[i]} + p)) << CaseName<D>::Get() << " n=" << n << " lane " << i;
      ASSERT_EQ(add[i], WrapTo<TW>(int64_t{acc[i]} + a[i])) << CaseName<D>::Get() << " n=" << n << " lane " << i;
    }
  }
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
