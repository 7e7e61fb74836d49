// Stream/StreamFence (non-temporal stores on x86) and MaxAccumulate (MaxTU for an accumulator that
// is never NaN), against per-lane C++.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

// Whole groups and strips of every length class into 64-byte aligned memory: the active lanes
// land, nothing else is written (canaries around and after them).
VLAK_SIMD_TEST(StreamAccumulate, Stream, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  Rng rng(91);
  std::vector<T> src(vl);
  for (auto& x : src) x = RandomValue<T>(rng);
  const T canary = NotValue(src[0]);
  AlignedArray<T> mem(vl + 64);
  for (size_t n : StripLengths(vl)) {
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = canary;
    const auto v = LoadU(d, src.data());
    if (n == vl) {
      Stream(d, v, mem.get());
    } else {
      Stream(Strip(d, n), v, mem.get());
    }
    StreamFence();
    for (size_t i = 0; i < mem.size(); ++i) {
      const T want = i < n ? src[i] : canary;
      ASSERT_EQ(BitsOf(mem[i]), BitsOf(want)) << TagString<D>() << " n=" << n << " element " << i;
    }
  }
}

// acc never NaN (finite or infinite); v anything: lanes < n get max(acc, v) with a NaN v ignored,
// lanes >= n keep acc bit for bit.
VLAK_SIMD_TEST(StreamAccumulate, MaxAccumulate, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  Rng rng(92);
  std::vector<T> acc(vl), v(vl), out(MaxLanes(d));
  for (int trial = 0; trial < 16; ++trial) {
    for (size_t i = 0; i < vl; ++i) {
      do {
        acc[i] = RandomValue<T>(rng);
      } while (kIsFloat<T> && std::isnan(acc[i]));
      v[i] = RandomValue<T>(rng);
      if (kIsFloat<T> && i % 5 == 0) v[i] = std::numeric_limits<T>::quiet_NaN();
    }
    for (size_t n : StripLengths(vl)) {
      const auto vacc = LoadU(d, acc.data());
      const auto vv = LoadU(d, v.data());
      StoreU(d, n == vl ? MaxAccumulate(d, vacc, vv) : MaxAccumulate(Strip(d, n), vacc, vv), out.data());
      for (size_t i = 0; i < vl; ++i) {
        if (i >= n) {
          ASSERT_EQ(BitsOf(out[i]), BitsOf(acc[i])) << TagString<D>() << " n=" << n << " lane " << i << " must keep acc";
          continue;
        }
        T want = acc[i];
        if constexpr (kIsFloat<T>) {
          if (!std::isnan(v[i]) && v[i] > acc[i]) want = v[i];
          const bool zeros = v[i] == 0 && acc[i] == 0;  // either zero is right
          ASSERT_TRUE(SameLane(want, out[i]) || (zeros && out[i] == 0))
              << TagString<D>() << " n=" << n << " lane " << i << " max(" << Str(acc[i]) << ", " << Str(v[i])
              << ") got " << Str(out[i]);
        } else {
          if (v[i] > acc[i]) want = v[i];
          ASSERT_EQ(want, out[i]) << TagString<D>() << " n=" << n << " lane " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
