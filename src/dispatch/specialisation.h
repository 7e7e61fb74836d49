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
