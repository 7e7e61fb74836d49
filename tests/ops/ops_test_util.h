// Helpers shared by the operator tests (src/ops/<op>/<op>_test.cc and tests/ops/*_test.cc).
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/test_random.h"
#include "vlak/vlak.h"

namespace vlak_test {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// Runs fn once per supported target with that target forced (fn() or fn(target)); restores the
// default after.
// On RISC-V with V the scalar target is left to the rv64gc build, which tests it once: its results
// do not depend on VLEN, and emulating it at every VLEN would triple the qemu time for nothing.
template <typename Fn>
void ForEachTarget(Fn fn) {
  const vlak_target saved = vlak_active_target();
  for (int i = VLAK_TARGET_SCALAR; i <= VLAK_TARGET_RVV; ++i) {
    const auto t = static_cast<vlak_target>(i);
    if (!vlak_target_supported(t)) continue;
#if defined(__riscv)
    if (t == VLAK_TARGET_SCALAR && vlak_target_supported(VLAK_TARGET_RVV)) continue;
#endif
    ASSERT_EQ(vlak_set_target(t), VLAK_OK);
    SCOPED_TRACE(std::string("target ") + vlak_target_name(t));
    if constexpr (std::is_invocable_v<Fn>) {
      fn();
    } else {
      fn(t);
    }
  }
  ASSERT_EQ(vlak_set_target(saved), VLAK_OK);
}

// Sets the thread count for a scope and restores the default after.
class ScopedThreads {
 public:
  explicit ScopedThreads(int n) { EXPECT_EQ(vlak_set_num_threads(n), VLAK_OK); }
  ~ScopedThreads() { vlak_set_num_threads(0); }
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;
};

// Whether the tests run emulated (the RISC-V builds, under qemu), where large inputs cost tens of
// seconds: the tests that loop over them take a smaller size there.
#if defined(__riscv)
inline constexpr bool kEmulated = true;
#else
inline constexpr bool kEmulated = false;
#endif
// A test's size: `native` on the host, `emulated` under qemu.
constexpr size_t NativeOrEmulated(size_t native, size_t emulated) { return kEmulated ? emulated : native; }

// Columns of the long-row accuracy tests: 10^6 natively; 10^5 under qemu, where generating and
// checking 10^6 elements costs ~20 s per VLEN (the kernels' sums block the same way at any length).
inline constexpr size_t kLongRow = NativeOrEmulated(1000000, 100000);

// A value no kernel computes from the tests' inputs: fills gaps that must stay untouched.
inline constexpr float kSentinel = -12345.678f;

inline std::vector<float> Normal(size_t n, float mean, float sd, uint32_t seed) {
  std::mt19937 rng(seed);
  NormalPolar<float> dist(mean, sd);  // std::normal_distribution<float>'s values (test_random.h)
  std::vector<float> v(n);
  for (auto& e : v) e = dist(rng);
  return v;
}

// `count` floats ending exactly at an inaccessible page: touching element `count` faults.
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t count) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    bytes_ = (count * sizeof(float) + page_ - 1) / page_ * page_ + page_;
    base_ = static_cast<char*>(mmap(nullptr, bytes_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED || mprotect(base_ + bytes_, page_, PROT_NONE) != 0) std::abort();
    data_ = reinterpret_cast<float*>(base_ + bytes_) - count;
    for (size_t i = 0; i < count; ++i) data_[i] = std::sin(static_cast<float>(i) * 0.7f) + 0.25f;
  }
  ~GuardedFloats() { munmap(base_, bytes_ + page_); }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  float* data() { return data_; }

 private:
  size_t page_, bytes_;
  char* base_;
  float* data_;
};

// Bytes ending exactly at an inaccessible page (the image operators' planes).
class GuardedBytes {
 public:
  explicit GuardedBytes(size_t count) : floats_((count + 3) / 4) {
    data_ = reinterpret_cast<uint8_t*>(floats_.data()) + (4 * ((count + 3) / 4) - count);
    for (size_t i = 0; i < count; ++i) data_[i] = static_cast<uint8_t>(i * 37 + 11);
  }
  uint8_t* u8() { return data_; }
  int8_t* i8() { return reinterpret_cast<int8_t*>(data_); }

 private:
  GuardedFloats floats_;
  uint8_t* data_;
};

// `count` bytes (or int16) ending at an inaccessible page, filled with a pattern.
template <typename T>
class GuardedInts {
 public:
  explicit GuardedInts(size_t count) : floats_((count * sizeof(T) + sizeof(float) - 1) / sizeof(float)) {
    // GuardedFloats ends at the page; the ints end there too when count * sizeof(T) is a multiple
    // of 4, else they start 1..3 bytes into its first float and still end at the page.
    const size_t bytes = (count * sizeof(T) + sizeof(float) - 1) / sizeof(float) * sizeof(float);
    data_ = reinterpret_cast<T*>(reinterpret_cast<char*>(floats_.data()) + (bytes - count * sizeof(T)));
    for (size_t i = 0; i < count; ++i) data_[i] = static_cast<T>(i * 37 + 11);
  }
  T* data() { return data_; }

 private:
  GuardedFloats floats_;
  T* data_;
};

// The guard-page tests (GuardPages.*, buffers ending at an inaccessible page) run every length
// 1 .. MaxLength() = 3 * lanes + 1, lanes of the widest float group any kernel uses (LMUL 8) on the
// active target: shorter than a group, whole groups, and groups with a tail.
inline size_t MaxLength() { return 3 * vlak_target_lanes(vlak_active_target(), 3, sizeof(float)) + 1; }

// buf's first 4 KiB-aligned float, plus `floats`: buffers at chosen offsets from each other modulo
// a page (buf needs 1024 floats more than used past the offset).
inline float* AtPageOffset(std::vector<float>& buf, size_t floats) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(buf.data());
  return reinterpret_cast<float*>((p + 4095) / 4096 * 4096) + floats;
}

// Bitwise equality of float arrays (NaN == NaN of the same payload, +0 != -0).
inline bool SameBits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

// got and want the same bits, except that any NaN matches any NaN: NaN payloads and signs are not
// part of the contracts (x86 propagates an input's payload, RVV returns the canonical NaN). The
// first 5 differences fail the test, named by `what` and the element.
inline void ExpectSameBitsNanAny(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int failures = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && failures++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
    }
  }
}

}  // namespace vlak_test
