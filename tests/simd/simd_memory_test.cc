// Memory ops, lane creation and strip-mining. Data is random bit patterns and compared bit for
// bit: loads and stores move bits, NaN payloads included. "Touches nothing beyond" is shown with
// guard pages (an access past the last lane faults) for reads and with canaries for writes.
#include "test_util.h"

namespace vlak::VLAK_NS::test {
namespace {

template <typename T>
[[gnu::noinline]] std::vector<T> RandomArray(size_t n, uint64_t salt) {
  Rng rng(salt);
  std::vector<T> v(n);
  for (T& x : v) x = RandomBits<T>(rng);
  return v;
}

// A canary no lane of the test data equals: the test data is rewritten to avoid it.
template <typename T>
T Canary() { return FromBits<T>(0xA5A5A5A5A5A5A5A5ull); }
template <typename T>
[[gnu::noinline]] void AvoidCanary(std::vector<T>& v) {
  for (T& x : v) {
    if (BitsOf(x) == BitsOf(Canary<T>())) x = FromBits<T>(BitsOf(x) ^ 1);
  }
}

// Expects `got` to hold `want` bit for bit at [0, n) and the canary elsewhere.
template <typename T>
[[gnu::noinline]] void ExpectWrittenThenCanary(const std::string& what, const T* got, size_t size, const T* want, size_t n) {
  for (size_t i = 0; i < size; ++i) {
    const T e = i < n ? want[i] : Canary<T>();
    if (BitsOf(got[i]) != BitsOf(e)) {
      ADD_FAILURE() << what << ": element " << i << " (n=" << n << ") expected " << Str(e) << ", got "
                    << Str(got[i]) << (i < n ? "" : " [written beyond n]");
      return;
    }
  }
}
template <typename T>
[[gnu::noinline]] void ExpectBits(const std::string& what, const T* got, const T* want, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (BitsOf(got[i]) != BitsOf(want[i])) {
      ADD_FAILURE() << what << ": lane " << i << " expected " << Str(want[i]) << ", got " << Str(got[i]);
      return;
    }
  }
}

// ------------------------------------------------------------------------ Lanes and MaxLanes
VLAK_SIMD_TEST(Memory, Lanes, AllTags) {
  const D d;
  const size_t vl = Lanes(d);
  EXPECT_GE(vl, size_t{1});
  EXPECT_LE(vl, MaxLanes(d)) << "arrays sized MaxLanes(d) must hold a vector";
  // Each LMUL step doubles the group (RVV's VLMAX = LMUL * VLEN / SEW; x86 groups of registers).
  if constexpr (Pow2FromD<D> > 0) {
    const Simd<TFromD<D>, Pow2FromD<D> - 1> dh;
    EXPECT_EQ(vl, 2 * Lanes(dh));
  }
  // A smaller lane type holds proportionally more lanes in the same LMUL.
  if constexpr (sizeof(TFromD<D>) > 1) {
    const Simd<uint8_t, Pow2FromD<D>> d8;
    EXPECT_EQ(vl * sizeof(TFromD<D>), Lanes(d8));
  }
  for (size_t n : StripLengths(vl)) EXPECT_EQ(Lanes(Strip(d, n)), n);
}

// ------------------------------------------------------------------------- Load and Store
VLAK_SIMD_TEST(Memory, LoadStoreAligned, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> src = RandomArray<T>(vl, 1);
  AvoidCanary(src);
  AlignedArray<T> in(vl), out(vl + 1);
  std::copy(src.begin(), src.end(), in.get());
  for (size_t i = 0; i <= vl; ++i) out[i] = Canary<T>();
  Store(d, Load(d, in.get()), out.get());
  ExpectWrittenThenCanary("Store(Load) " + TagString<D>(), out.get(), vl + 1, src.data(), vl);

  // Strips: n lanes read and written, nothing else. The source's first n lanes end as close to
  // the guard page as alignment allows.
  GuardedBuffer guard(vl * sizeof(T) + kAlignment);
  for (size_t n : StripLengths(vl)) {
    const size_t room = (n * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    T* p = reinterpret_cast<T*>(guard.end() - room);
    std::copy(src.begin(), src.begin() + n, p);
    for (size_t i = 0; i <= vl; ++i) out[i] = Canary<T>();
    const auto ds = Strip(d, n);
    Store(ds, Load(ds, p), out.get());
    ExpectWrittenThenCanary("Store(Load) " + TagString<D>() + " strip", out.get(), vl + 1, src.data(), n);
  }
}

VLAK_SIMD_TEST(Memory, LoadStoreUnaligned, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> src = RandomArray<T>(vl, 2);
  AvoidCanary(src);
  // Source and destination at every element offset within a 64-byte line (at least three).
  const size_t offsets = std::max<size_t>(kAlignment / sizeof(T), 3);
  AlignedArray<T> in(vl + offsets), out(vl + offsets + 1);
  for (size_t off = 0; off < offsets; ++off) {
    std::copy(src.begin(), src.end(), in.get() + off);
    for (size_t i = 0; i < out.size(); ++i) out[i] = Canary<T>();
    StoreU(d, LoadU(d, in.get() + off), out.get() + off);
    for (size_t i = 0; i < off; ++i) {
      if (BitsOf(out[i]) != BitsOf(Canary<T>())) ADD_FAILURE() << "StoreU wrote before its start, off=" << off;
    }
    ExpectWrittenThenCanary("StoreU(LoadU) " + TagString<D>() + " offset " + std::to_string(off),
                            out.get() + off, vl + 1, src.data(), vl);
  }
  // A vector that ends at the guard page reads and writes nothing past it.
  GuardedBuffer guard(vl * sizeof(T));
  {
    T* p = guard.AtEnd<T>(vl);
    std::copy(src.begin(), src.end(), p);
    StoreU(d, LoadU(d, p), out.get());
    ExpectBits("LoadU at page end " + TagString<D>(), out.get(), src.data(), vl);
    StoreU(d, LoadU(d, src.data()), p);
    ExpectBits("StoreU at page end " + TagString<D>(), p, src.data(), vl);
  }
  for (size_t n : StripLengths(vl)) {
    T* p = guard.AtEnd<T>(n);
    std::copy(src.begin(), src.begin() + n, p);
    for (size_t off = 0; off < 3; ++off) {
      for (size_t i = 0; i < out.size(); ++i) out[i] = Canary<T>();
      const auto ds = Strip(d, n);
      StoreU(ds, LoadU(ds, p), out.get() + off);
      ExpectWrittenThenCanary("StoreU(LoadU) " + TagString<D>() + " strip offset " + std::to_string(off),
                              out.get() + off, vl + 1, src.data(), n);
    }
    // And a strip store that ends at the guard page writes nothing past it.
    T* q = guard.AtEnd<T>(n);
    const auto ds = Strip(d, n);
    StoreU(ds, LoadU(d, src.data()), q);
    ExpectBits("StoreU strip at page end " + TagString<D>(), q, src.data(), n);
  }
}

// --------------------------------------------------------------------------- LoadN, StoreN
VLAK_SIMD_TEST(Memory, LoadN, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  const std::vector<T> src = RandomArray<T>(2 * vl + 3, 3);
  GuardedBuffer guard((2 * vl + 3) * sizeof(T));
  std::vector<T> out(MaxLanes(d));
  for (size_t n : CountLengths(vl)) {
    // The n elements end at the guard page, so reading past min(n, vl) faults.
    const size_t m = std::min(n, vl);
    T* p = guard.AtEnd<T>(m);
    std::copy(src.begin(), src.begin() + m, p);
    StoreU(d, LoadN(d, p, n), out.data());
    const std::string what = "LoadN " + TagString<D>() + " n=" + std::to_string(n);
    ExpectBits(what, out.data(), src.data(), m);
    for (size_t i = m; i < vl; ++i) {
      if (BitsOf(out[i]) != 0) {
        ADD_FAILURE() << what << ": lane " << i << " >= n must be zero, got " << Str(out[i]);
        break;
      }
    }
  }
  // With a strip tag only lanes < d.n exist: min(n, d.n) from memory, zero up to d.n.
  if (vl > 1) {
    const auto ds = Strip(d, vl - 1);
    for (size_t n : {size_t{0}, size_t{1}, vl - 1, vl, 2 * vl}) {
      const size_t m = std::min(n, vl - 1);
      T* p = guard.AtEnd<T>(m);
      std::copy(src.begin(), src.begin() + m, p);
      std::fill(out.begin(), out.end(), Canary<T>());
      StoreU(ds, LoadN(ds, p, n), out.data());
      const std::string what = "LoadN " + TagString<D>() + " strip n=" + std::to_string(n);
      ExpectBits(what, out.data(), src.data(), m);
      for (size_t i = m; i < vl - 1; ++i) {
        if (BitsOf(out[i]) != 0) ADD_FAILURE() << what << ": lane " << i << " must be zero";
      }
      EXPECT_EQ(BitsOf(out[vl - 1]), BitsOf(Canary<T>())) << what << ": strip StoreU wrote lane d.n";
    }
  }
}

VLAK_SIMD_TEST(Memory, StoreN, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> src = RandomArray<T>(vl, 4);
  AvoidCanary(src);
  const size_t size = 2 * vl + 8;
  std::vector<T> out(size);
  GuardedBuffer guard(vl * sizeof(T));
  for (size_t n : CountLengths(vl)) {
    const size_t m = std::min(n, vl);
    std::fill(out.begin(), out.end(), Canary<T>());
    StoreN(d, LoadU(d, src.data()), out.data() + 1, n);
    const std::string what = "StoreN " + TagString<D>() + " n=" + std::to_string(n);
    EXPECT_EQ(BitsOf(out[0]), BitsOf(Canary<T>())) << what << ": wrote before p";
    ExpectWrittenThenCanary(what, out.data() + 1, size - 1, src.data(), m);
    // Ending at the guard page: a store of the full vector and a blend would fault.
    T* p = guard.AtEnd<T>(m);
    StoreN(d, LoadU(d, src.data()), p, n);
    ExpectBits(what + " at page end", p, src.data(), m);
  }
}

// -------------------------------------------------------------------- MaskedLoad, MaskedStore
VLAK_SIMD_TEST(Memory, MaskedLoadStore, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> src = RandomArray<T>(vl, 5);
  AvoidCanary(src);
  Rng rng(6);
  std::vector<T> out(vl + 1);
  for (int trial = 0; trial < 24; ++trial) {
    std::vector<bool> active(vl);
    const uint64_t density = trial % 4;  // all off, sparse, dense, all on
    for (size_t i = 0; i < vl; ++i) active[i] = density == 3 || (density > 0 && rng.Below(3) < density);
    const auto m = MaskFromBools(d, active);
    const std::string what = TagString<D>() + " trial " + std::to_string(trial);

    // Inactive lanes read as zero.
    StoreU(d, MaskedLoad(d, m, src.data()), out.data());
    for (size_t i = 0; i < vl; ++i) {
      const T e = active[i] ? src[i] : T(0);
      if (BitsOf(out[i]) != BitsOf(e)) {
        ADD_FAILURE() << "MaskedLoad " << what << ": lane " << i << (active[i] ? " (active)" : " (inactive)")
                      << " expected " << Str(e) << ", got " << Str(out[i]);
        break;
      }
    }
    // Inactive lanes keep memory as it was.
    std::fill(out.begin(), out.end(), Canary<T>());
    MaskedStore(d, m, LoadU(d, src.data()), out.data());
    for (size_t i = 0; i <= vl; ++i) {
      const T e = i < vl && active[i] ? src[i] : Canary<T>();
      if (BitsOf(out[i]) != BitsOf(e)) {
        ADD_FAILURE() << "MaskedStore " << what << ": element " << i << " expected " << Str(e) << ", got "
                      << Str(out[i]);
        break;
      }
    }
  }
  // Inactive lanes' memory is not accessed: the first k lanes end at the guard page.
  GuardedBuffer guard(vl * sizeof(T));
  for (size_t k : StripLengths(vl)) {
    const auto m = FirstN(d, k);
    T* p = guard.AtEnd<T>(k);
    std::copy(src.begin(), src.begin() + k, p);
    StoreU(d, MaskedLoad(d, m, p), out.data());
    ExpectBits("MaskedLoad FirstN at page end " + TagString<D>(), out.data(), src.data(), k);
    MaskedStore(d, m, LoadU(d, src.data()), p);
    ExpectBits("MaskedStore FirstN at page end " + TagString<D>(), p, src.data(), k);
    // A strip ends the access at d.n whatever the mask says.
    const auto ds = Strip(d, k);
    const auto all = FirstN(d, vl);
    std::fill(out.begin(), out.end(), Canary<T>());
    StoreU(ds, MaskedLoad(ds, all, p), out.data());
    ExpectWrittenThenCanary("MaskedLoad strip at page end " + TagString<D>(), out.data(), vl + 1, src.data(), k);
    MaskedStore(ds, all, LoadU(d, src.data()), p);
    ExpectBits("MaskedStore strip at page end " + TagString<D>(), p, src.data(), k);
  }
}

// ---------------------------------------------------------------- LoadStrided, StoreStrided
VLAK_SIMD_TEST(Memory, LoadStrided, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> out(MaxLanes(d));
  for (ptrdiff_t stride : {ptrdiff_t{1}, ptrdiff_t{2}, ptrdiff_t{3}, ptrdiff_t{7}, ptrdiff_t{0}, ptrdiff_t{-1},
                           ptrdiff_t{-5}}) {
    const size_t step = static_cast<size_t>(stride < 0 ? -stride : stride);
    GuardedBuffer guard(((vl - 1) * step + 1) * sizeof(T));
    for (size_t n : StripLengths(vl)) {
      // The lanes' span ends at the upper guard (stride >= 0) or starts at the lower (stride < 0).
      const size_t span = n == 0 ? 0 : (n - 1) * step + 1;
      T* lo = stride >= 0 ? guard.AtEnd<T>(span) : guard.AtBegin<T>();
      const std::vector<T> data = RandomArray<T>(span, 7 + n);
      std::copy(data.begin(), data.end(), lo);
      T* p = stride >= 0 ? lo : lo + (span == 0 ? 0 : span - 1);
      std::vector<T> want(n);
      for (size_t i = 0; i < n; ++i) want[i] = p[static_cast<ptrdiff_t>(i) * stride];
      const std::string what = "LoadStrided " + TagString<D>() + " stride " + std::to_string(stride) + " n=" +
                               std::to_string(n);
      if (n == vl) {
        StoreU(d, LoadStrided(d, p, stride), out.data());
        ExpectBits(what, out.data(), want.data(), n);
      }
      const auto ds = Strip(d, n);
      StoreU(ds, LoadStrided(ds, p, stride), out.data());
      ExpectBits(what + " strip", out.data(), want.data(), n);
    }
  }
}

VLAK_SIMD_TEST(Memory, StoreStrided, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> src = RandomArray<T>(vl, 8);
  AvoidCanary(src);
  // Stride 0 (every lane on one address): StoreStridedZero below.
  for (ptrdiff_t stride : {ptrdiff_t{1}, ptrdiff_t{2}, ptrdiff_t{3}, ptrdiff_t{-1}, ptrdiff_t{-4}}) {
    const size_t step = static_cast<size_t>(stride < 0 ? -stride : stride);
    const size_t size = (vl - 1) * step + 1;
    GuardedBuffer guard(size * sizeof(T));
    for (size_t n : StripLengths(vl)) {
      T* lo = stride >= 0 ? guard.AtEnd<T>(size) : guard.AtBegin<T>();
      std::fill(lo, lo + size, Canary<T>());
      // Negative strides start at the top of the span; either way the last lane meets a guard.
      T* p = stride >= 0 ? lo : lo + (size - 1);
      std::vector<T> want(lo, lo + size);
      for (size_t i = 0; i < n; ++i) want[static_cast<size_t>((p - lo) + static_cast<ptrdiff_t>(i) * stride)] = src[i];
      StoreStrided(Strip(d, n), LoadU(d, src.data()), p, stride);
      const std::string what = "StoreStrided " + TagString<D>() + " stride " + std::to_string(stride) + " n=" +
                               std::to_string(n);
      ExpectBits(what + " strip", lo, want.data(), size);
      if (n == vl) {
        std::fill(lo, lo + size, Canary<T>());
        StoreStrided(d, LoadU(d, src.data()), p, stride);
        ExpectBits(what, lo, want.data(), size);
      }
    }
  }
  // The same with a strip whose last lane is exactly at the guard, for a positive stride.
  for (size_t n : StripLengths(vl)) {
    const size_t span = n == 0 ? 0 : (n - 1) * 3 + 1;
    GuardedBuffer guard(std::max<size_t>(span, 1) * sizeof(T));
    T* p = guard.AtEnd<T>(span);
    StoreStrided(Strip(d, n), LoadU(d, src.data()), p, 3);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(BitsOf(p[3 * i]), BitsOf(src[i])) << "StoreStrided strip stride 3 at page end, lane " << i;
    }
  }
}

// Stride 0: every active lane writes p[0] and the last one's value stays (scalar.h's lane
// order), nothing else is written, and an empty strip writes nothing. The lanes hold distinct
// values wherever the type has room, and the last active lane always holds one no other lane
// has, so a store of any other lane shows.
template <typename T>
T StrideZeroLane(size_t i, size_t n) {
  if constexpr (kIsFloat<T>) {
    return i + 1 == n ? T(-1.5) : FromBits<T>(i + 1);  // denormals 1, 2, 3, ...: none is -1.5
  } else {
    constexpr uint64_t kTop = static_cast<UInt<T>>(~uint64_t{0});  // all ones: the last lane only
    return FromBits<T>(i + 1 == n ? kTop : i % kTop);
  }
}

VLAK_SIMD_TEST(Memory, StoreStridedZero, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> src(MaxLanes(d));
  // p[0] is the last element before the upper guard page: a write beyond it faults; elements
  // below it hold canaries.
  GuardedBuffer guard(4 * sizeof(T));
  T* const p = guard.AtEnd<T>(1);
  for (size_t n : StripLengths(vl)) {
    for (size_t i = 0; i < vl; ++i) src[i] = StrideZeroLane<T>(i, n);
    const std::string what = "StoreStrided " + TagString<D>() + " stride 0 n=" + std::to_string(n);
    for (int whole = 0; whole < 2; ++whole) {
      if (whole && n != vl) continue;
      std::fill(p - 3, p + 1, Canary<T>());
      if (whole) {
        StoreStrided(d, LoadU(d, src.data()), p, 0);
      } else {
        StoreStrided(Strip(d, n), LoadU(d, src.data()), p, 0);
      }
      const T e = n == 0 ? Canary<T>() : src[n - 1];
      EXPECT_EQ(BitsOf(*p), BitsOf(e)) << what << (whole ? "" : " strip") << ": expected "
                                       << (n == 0 ? "no write" : "lane " + std::to_string(n - 1)) << " " << Str(e)
                                       << ", got " << Str(*p);
      for (int i = 1; i <= 3; ++i) {
        EXPECT_EQ(BitsOf(p[-i]), BitsOf(Canary<T>())) << what << ": wrote p[" << -i << "]";
      }
    }
  }
}

// ---------------------------------------------------------------------- Gather, TableLookup256
// Byte tables past 256 entries (16-bit indices), ending at a guard page; strips must not load
// the lanes at and above n.
VLAK_SIMD_TEST(Memory, Gather8, Gather8Tags) {
  using T = TFromD<D>;
  const D d;
  const auto di = Rebind<uint16_t>(d);
  const size_t vl = Lanes(d);
  ASSERT_EQ(Lanes(di), vl);
  const size_t size = 300 + 3 * vl;
  GuardedBuffer guard(size);
  T* table = guard.AtEnd<T>(size);
  const std::vector<T> data = RandomArray<T>(size, 19);
  std::copy(data.begin(), data.end(), table);
  Rng rng(20);
  std::vector<uint16_t> idx(MaxLanes(di));
  std::vector<T> out(MaxLanes(d));
  for (int trial = 0; trial < 16; ++trial) {
    for (size_t i = 0; i < vl; ++i) idx[i] = static_cast<uint16_t>(rng.Below(size));
    idx[0] = 0;
    idx[vl - 1] = static_cast<uint16_t>(size - 1);
    StoreU(d, Gather8(d, table, LoadU(di, idx.data())), out.data());
    for (size_t i = 0; i < vl; ++i) {
      ASSERT_EQ(BitsOf(out[i]), BitsOf(data[idx[i]])) << "Gather8 " << TagString<D>() << ": lane " << i << " index " << idx[i];
    }
    for (size_t n : StripLengths(vl)) {
      std::vector<uint16_t> idx_n(idx);
      for (size_t i = n; i < vl; ++i) idx_n[i] = static_cast<uint16_t>(size);
      const auto ds = Strip(d, n);
      StoreU(ds, Gather8(ds, table, LoadU(di, idx_n.data())), out.data());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(BitsOf(out[i]), BitsOf(data[idx[i]])) << "Gather8 strip n=" << n << " " << TagString<D>() << ": lane " << i;
      }
    }
  }
}

VLAK_SIMD_TEST(Memory, Gather, Tags32) {
  using T = TFromD<D>;
  const D d;
  const auto di = Rebind<int32_t>(d);
  const size_t vl = Lanes(d);
  ASSERT_EQ(Lanes(di), vl);
  // The table ends at the guard page; index `size` is the first element beyond it.
  const size_t size = 4 * vl + 17;
  GuardedBuffer guard(size * sizeof(T));
  T* table = guard.AtEnd<T>(size);
  const std::vector<T> data = RandomArray<T>(size, 9);
  std::copy(data.begin(), data.end(), table);
  Rng rng(10);
  std::vector<int32_t> idx(MaxLanes(di));
  std::vector<T> out(MaxLanes(d));
  for (int trial = 0; trial < 16; ++trial) {
    for (size_t i = 0; i < vl; ++i) idx[i] = static_cast<int32_t>(rng.Below(size));
    idx[0] = 0;
    idx[vl - 1] = static_cast<int32_t>(size - 1);
    StoreU(d, Gather(d, table, LoadU(di, idx.data())), out.data());
    for (size_t i = 0; i < vl; ++i) {
      if (BitsOf(out[i]) != BitsOf(data[idx[i]])) {
        ADD_FAILURE() << "Gather " << TagString<D>() << ": lane " << i << " index " << idx[i] << " expected "
                      << Str(data[idx[i]]) << ", got " << Str(out[i]);
        break;
      }
    }
    // Strip: lanes >= n hold an index past the table and must not be loaded.
    for (size_t n : StripLengths(vl)) {
      std::vector<int32_t> idx_n(idx);
      for (size_t i = n; i < vl; ++i) idx_n[i] = static_cast<int32_t>(size);
      const auto ds = Strip(d, n);
      StoreU(ds, Gather(ds, table, LoadU(di, idx_n.data())), out.data());
      for (size_t i = 0; i < n; ++i) {
        if (BitsOf(out[i]) != BitsOf(data[idx[i]])) {
          ADD_FAILURE() << "Gather strip n=" << n << " " << TagString<D>() << ": lane " << i;
          break;
        }
      }
    }
  }
}

VLAK_SIMD_TEST(Memory, TableLookup256, U8Tags) {
  const D d;
  const size_t vl = Lanes(d);
  GuardedBuffer guard(256);
  uint8_t* table = guard.AtEnd<uint8_t>(256);
  const std::vector<uint8_t> data = RandomArray<uint8_t>(256, 11);
  std::copy(data.begin(), data.end(), table);
  Rng rng(12);
  std::vector<uint8_t> idx(MaxLanes(d)), out(MaxLanes(d));
  // Every index at least once, then random ones.
  for (size_t start = 0; start < 256 + 8 * vl; start += vl) {
    for (size_t i = 0; i < vl; ++i) {
      idx[i] = start + i < 256 ? static_cast<uint8_t>(start + i) : static_cast<uint8_t>(rng.Next());
    }
    StoreU(d, TableLookup256(d, table, LoadU(d, idx.data())), out.data());
    for (size_t i = 0; i < vl; ++i) {
      if (out[i] != data[idx[i]]) {
        ADD_FAILURE() << "TableLookup256 " << TagString<D>() << ": lane " << i << " index " << int{idx[i]}
                      << " expected " << int{data[idx[i]]} << ", got " << int{out[i]};
        break;
      }
    }
    for (size_t n : StripLengths(vl)) {
      std::fill(out.begin(), out.end(), uint8_t{0xA5});
      const auto ds = Strip(d, n);
      StoreU(ds, TableLookup256(ds, table, LoadU(ds, idx.data())), out.data());
      for (size_t i = 0; i < n; ++i) {
        if (out[i] != data[idx[i]]) {
          ADD_FAILURE() << "TableLookup256 strip n=" << n << " " << TagString<D>() << ": lane " << i;
          break;
        }
      }
    }
  }
}

// ------------------------------------------------------------ LoadInterleaved2, StoreInterleaved2
// Against the definition, element by element: a[i] = p[2i], b[i] = p[2i + 1]. Whole groups at
// every element offset within a 64-byte line; strips of every length 0..Lanes(d), their 2n
// elements ending at a guard page (a load or store reaching past them faults) and, for the
// store, canaries before and after the 2n elements.
VLAK_SIMD_TEST(Memory, Interleaved2, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> src = RandomArray<T>(2 * vl, 16);
  AvoidCanary(src);
  std::vector<T> a(MaxLanes(d)), b(MaxLanes(d));
  // The split lanes of a, b against src; n lanes checked.
  auto check_split = [&](const std::string& what, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (BitsOf(a[i]) != BitsOf(src[2 * i]) || BitsOf(b[i]) != BitsOf(src[2 * i + 1])) {
        ADD_FAILURE() << what << ": lane " << i << " expected (" << Str(src[2 * i]) << ", " << Str(src[2 * i + 1])
                      << "), got (" << Str(a[i]) << ", " << Str(b[i]) << ")";
        return;
      }
    }
  };
  // a and b as vectors, from src: a[i] = src[2i], b[i] = src[2i + 1], via plain loads.
  std::vector<T> src_a(MaxLanes(d)), src_b(MaxLanes(d));
  for (size_t i = 0; i < vl; ++i) {
    src_a[i] = src[2 * i];
    src_b[i] = src[2 * i + 1];
  }

  const size_t offsets = std::max<size_t>(kAlignment / sizeof(T), 3);
  AlignedArray<T> in(2 * vl + offsets), out(2 * vl + offsets + 1);
  for (size_t off = 0; off < offsets; ++off) {
    const std::string what = TagString<D>() + " offset " + std::to_string(off);
    std::copy(src.begin(), src.end(), in.get() + off);
    VFromD<D> va, vb;
    LoadInterleaved2(d, in.get() + off, va, vb);
    StoreU(d, va, a.data());
    StoreU(d, vb, b.data());
    check_split("LoadInterleaved2 " + what, vl);
    // Round trip, and the store alone from plainly loaded a, b.
    for (size_t i = 0; i < out.size(); ++i) out[i] = Canary<T>();
    StoreInterleaved2(d, va, vb, out.get() + off);
    for (size_t i = 0; i < off; ++i) {
      if (BitsOf(out[i]) != BitsOf(Canary<T>())) ADD_FAILURE() << "StoreInterleaved2 wrote before p, " << what;
    }
    ExpectWrittenThenCanary("StoreInterleaved2(LoadInterleaved2) " + what, out.get() + off, 2 * vl + 1, src.data(),
                            2 * vl);
    for (size_t i = 0; i < out.size(); ++i) out[i] = Canary<T>();
    StoreInterleaved2(d, LoadU(d, src_a.data()), LoadU(d, src_b.data()), out.get() + off);
    ExpectWrittenThenCanary("StoreInterleaved2 " + what, out.get() + off, 2 * vl + 1, src.data(), 2 * vl);
  }

  GuardedBuffer guard(2 * vl * sizeof(T));
  std::vector<T> canaried(2 * vl + 2);
  for (size_t n = 0; n <= vl; ++n) {
    const std::string what = TagString<D>() + " strip n=" + std::to_string(n);
    const auto ds = Strip(d, n);
    T* p = guard.AtEnd<T>(2 * n);
    std::copy(src.begin(), src.begin() + 2 * n, p);
    VFromD<D> va, vb;
    LoadInterleaved2(ds, p, va, vb);
    StoreU(d, va, a.data());
    StoreU(d, vb, b.data());
    check_split("LoadInterleaved2 " + what, n);

    // Writes exactly 2n elements: canaries on both sides, then ending at the guard page.
    std::fill(canaried.begin(), canaried.end(), Canary<T>());
    StoreInterleaved2(ds, LoadU(d, src_a.data()), LoadU(d, src_b.data()), canaried.data() + 1);
    EXPECT_EQ(BitsOf(canaried[0]), BitsOf(Canary<T>())) << "StoreInterleaved2 " << what << ": wrote before p";
    ExpectWrittenThenCanary("StoreInterleaved2 " + what, canaried.data() + 1, 2 * vl + 1, src.data(), 2 * n);
    std::fill(p, p + 2 * n, Canary<T>());
    StoreInterleaved2(ds, va, vb, p);
    ExpectBits("StoreInterleaved2(LoadInterleaved2) at page end " + what, p, src.data(), 2 * n);
  }
}

// ------------------------------------------------------------------ Zero, Set, Iota, GetLane
VLAK_SIMD_TEST(Memory, ZeroSetGetLane, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> out(MaxLanes(d));
  StoreU(d, Zero(d), out.data());
  for (size_t i = 0; i < vl; ++i) EXPECT_EQ(BitsOf(out[i]), 0u) << "Zero " << TagString<D>() << " lane " << i;

  std::vector<T> values = Specials<T>();
  const std::vector<T> more = RandomArray<T>(16, 13);
  values.insert(values.end(), more.begin(), more.end());
  for (T x : values) {
    StoreU(d, Set(d, x), out.data());
    for (size_t i = 0; i < vl; ++i) {
      if (!SameLane(x, out[i])) {
        ADD_FAILURE() << "Set " << TagString<D>() << "(" << Str(x) << ") lane " << i << " = " << Str(out[i]);
        break;
      }
    }
    EXPECT_TRUE(SameLane(x, GetLane(d, Set(d, x)))) << "GetLane(Set(" << Str(x) << "))";
  }
  const std::vector<T> src = RandomArray<T>(vl, 14);
  const T first = GetLane(d, LoadU(d, src.data()));
  EXPECT_EQ(BitsOf(first), BitsOf(src[0])) << "GetLane " << TagString<D>() << " must return lane 0 bit for bit";
  EXPECT_EQ(BitsOf(GetLane(Strip(d, 1), LoadU(Strip(d, 1), src.data()))), BitsOf(src[0]));
}

VLAK_SIMD_TEST(Memory, Iota, AllTags) {
  using T = TFromD<D>;
  using L = std::numeric_limits<T>;
  const D d;
  const size_t vl = Lanes(d);
  std::vector<T> out(MaxLanes(d));
  std::vector<T> firsts;
  if constexpr (kIsFloat<T>) {
    // 2^24 - 3 (f32): lanes past 2^24 round to even.
    firsts = {T(0), T(1), T(-3), T(0.5), T(-7.25), T(1e30), T(16777213.0), T(-1) / L::epsilon()};
  } else {
    // Near the top the lanes wrap around to the bottom.
    firsts = {T(0), T(1), static_cast<T>(-1), L::min(), static_cast<T>(L::max() - 2), static_cast<T>(L::max() / 2)};
  }
  for (T first : firsts) {
    StoreU(d, Iota(d, first), out.data());
    for (size_t i = 0; i < vl; ++i) {
      T e;
      if constexpr (kIsFloat<T>) e = first + static_cast<T>(i);
      else e = static_cast<T>(static_cast<UInt<T>>(static_cast<uint64_t>(first) + i));
      if (!SameLane(e, out[i])) {
        ADD_FAILURE() << "Iota " << TagString<D>() << "(" << Str(first) << ") lane " << i << " expected " << Str(e)
                      << ", got " << Str(out[i]);
        break;
      }
    }
  }
}

// ----------------------------------------------------------------------------- ForEachStrip
// Each element exactly once, in order, in strips of at most Lanes(d) where only the last may be
// short; and strip-mined AddTU/MaxTU accumulations that must match per-lane sums and maxima
// computed in plain C++ (lane j of the accumulator sees elements j, j + vl, j + 2 vl, ...).
VLAK_SIMD_TEST(Memory, ForEachStrip, AllTags) {
  using T = TFromD<D>;
  const D d;
  const size_t vl = Lanes(d);
  Rng rng(15);
  std::vector<T> acc_lanes(MaxLanes(d));
  for (size_t n : CountLengths(vl)) {
    const std::string what = "ForEachStrip " + TagString<D>() + " n=" + std::to_string(n);
    // Data ends at the guard page: any strip reading past n faults.
    GuardedBuffer guard(n * sizeof(T));
    T* p = guard.AtEnd<T>(n);
    for (size_t i = 0; i < n; ++i) p[i] = RandomFinite<T>(rng);

    std::vector<int> seen(n, 0);
    size_t next = 0, calls = 0;
    bool short_strip_seen = false;
    ForEachStrip(d, n, [&](auto dd, size_t i) {
      ++calls;
      const size_t len = Lanes(dd);
      EXPECT_EQ(i, next) << what << ": strips must be contiguous and in order";
      EXPECT_GE(len, size_t{1}) << what << ": empty strip";
      EXPECT_LE(len, vl) << what;
      EXPECT_FALSE(short_strip_seen) << what << ": a short strip must be the last";
      if (len < vl) short_strip_seen = true;
      for (size_t j = 0; j < len && i + j < n; ++j) ++seen[i + j];
      next = i + len;
    });
    EXPECT_EQ(next, n) << what;
    EXPECT_EQ(calls, (n + vl - 1) / vl) << what;
    for (size_t i = 0; i < n; ++i) {
      if (seen[i] != 1) {
        ADD_FAILURE() << what << ": element " << i << " visited " << seen[i] << " times";
        break;
      }
    }

    // Sum: integers wrap and are exact; floats are exact per lane (fixed order within a lane).
    auto sum = Zero(d);
    ForEachStrip(d, n, [&](auto dd, size_t i) { sum = AddTU(dd, sum, LoadU(dd, p + i)); });
    StoreU(d, sum, acc_lanes.data());
    for (size_t j = 0; j < vl; ++j) {
      T e = T(0);
      for (size_t i = j; i < n; i += vl) {
        if constexpr (kIsFloat<T>) e = e + p[i];
        else e = static_cast<T>(static_cast<UInt<T>>(uint64_t{BitsOf(e)} + uint64_t{BitsOf(p[i])}));
      }
      if (!SameLane(e, acc_lanes[j])) {
        ADD_FAILURE() << what << " AddTU: accumulator lane " << j << " expected " << Str(e) << ", got "
                      << Str(acc_lanes[j]);
        break;
      }
    }
    // Max, starting from the lowest value: untouched lanes must keep it.
    const T lowest = kIsFloat<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    auto mx = Set(d, lowest);
    ForEachStrip(d, n, [&](auto dd, size_t i) { mx = MaxTU(dd, mx, LoadU(dd, p + i)); });
    StoreU(d, mx, acc_lanes.data());
    for (size_t j = 0; j < vl; ++j) {
      T e = lowest;
      for (size_t i = j; i < n; i += vl) e = p[i] > e ? p[i] : e;
      if (!SameLane(e, acc_lanes[j])) {
        ADD_FAILURE() << what << " MaxTU: accumulator lane " << j << " expected " << Str(e) << ", got "
                      << Str(acc_lanes[j]);
        break;
      }
    }
    T max_all = lowest;
    for (size_t i = 0; i < n; ++i) max_all = p[i] > max_all ? p[i] : max_all;
    EXPECT_TRUE(SameLane(max_all, ReduceMax(d, mx))) << what << " ReduceMax of the MaxTU accumulator";
  }
}

}  // namespace
}  // namespace vlak::VLAK_NS::test
