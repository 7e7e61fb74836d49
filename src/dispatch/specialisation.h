// A run-time switch for a per-target specialisation (internal): the avx2 and avx512 kernels that
// sit beside a generic kernel (correlation's vpmaddwd and VNNI kernels, quant's VNNI and AMX
// kernels, warp's window kernel). VLAK_SPECIALISATION_SWITCH defines an operator's getter and
// setter of one.
//
// On where the CPU can run it (and, given a `prefers` test, prefers it: a tuning choice, not a
// capability) and the environment variable does not say "0"; read once, on first use. The setter
// (tests, the lab's `-generic` rows) can only turn it off, or on where the CPU can run it; it
// returns the previous setting. Relaxed atomics: a racing kernel call sees either setting, and
// both give the same bits.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "dispatch/dispatch.h"

namespace vlak {

// The CPU test of the avx2 target's specialisations: the build has the avx2 target and the CPU
// runs it.
inline bool CpuRunsAvx2Target() {
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX2)
  return TargetSupported(Target::kAvx2);
#else
  return false;
#endif
}

// The CPU test of the avx512 target's specialisations: the build has the avx512 target and the
// CPU runs it.
inline bool CpuRunsAvx512Target() {
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)
  return TargetSupported(Target::kAvx512);
#else
  return false;
#endif
}

// Whether the CPU issues each 512-bit operation as two 256-bit halves: AMD family 19h (Zen 4; Zen 3
// has no AVX-512). Such a core retires one zmm FMA a cycle where Intel's server cores with two FMA
// units (Skylake-SP Gold to Emerald Rapids) retire two from the same loads, so the best loop for a
// kernel can differ (a `prefers` test: quant's 512-bit decode, matmul's direct kernel at any m).
inline bool CpuSplitsZmm() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return false;
  const bool amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u;  // "AuthenticAMD"
  if (!amd || !__get_cpuid(1, &a, &b, &c, &d)) return false;
  const unsigned family = ((a >> 8) & 0xF) + (((a >> 8) & 0xF) == 0xF ? (a >> 20) & 0xFF : 0);
  return family == 0x19;
#else
  return false;
#endif
}

class SpecialisationSwitch {
 public:
  constexpr SpecialisationSwitch(const char* env, bool (*cpu)(), bool (*prefers)() = nullptr)
      : env_(env), cpu_(cpu), prefers_(prefers) {}

  bool Enabled() {
    int v = state_.load(std::memory_order_relaxed);
    if (v < 0) {
      const char* e = std::getenv(env_);
      v = cpu_() && (prefers_ == nullptr || prefers_()) && !(e != nullptr && std::strcmp(e, "0") == 0) ? 1 : 0;
      state_.store(v, std::memory_order_relaxed);
    }
    return v == 1;
  }

  bool Set(bool enabled) {
    const bool previous = Enabled();
    state_.store(enabled && cpu_() ? 1 : 0, std::memory_order_relaxed);
    return previous;
  }

 private:
  const char* env_;
  bool (*cpu_)();
  bool (*prefers_)();
  std::atomic<int> state_{-1};  // -1: not read yet; else 0 / 1
};

}  // namespace vlak

// Defines bool <Name>Enabled() and bool Set<Name>(bool enabled) (the getter and setter an operator
// declares for its specialisation) over one SpecialisationSwitch of `env` and `cpu` (and an
// optional `prefers` test). At namespace vlak scope, once per switch.
#define VLAK_SPECIALISATION_SWITCH(Name, env, ...)                                 \
  namespace {                                                                      \
  constinit SpecialisationSwitch g_switch_##Name{env, __VA_ARGS__};                \
  }                                                                                \
  bool Name##Enabled() { return g_switch_##Name.Enabled(); }                       \
  bool Set##Name(bool enabled) { return g_switch_##Name.Set(enabled); }
