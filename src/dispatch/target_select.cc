// Which targets this CPU can run, and which one kernels use.
#include <cstdlib>
#include <cstring>
#include <atomic>

#include "dispatch/dispatch.h"

#if defined(__riscv)
#include <sys/auxv.h>
#endif

namespace vlak {
namespace {

bool CpuHas(Target t) {
  switch (t) {
    case Target::kScalar:
      return true;
#if defined(__x86_64__)
    // __builtin_cpu_supports also checks that the OS saves the wider register state (XGETBV).
    case Target::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    case Target::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
#if defined(__riscv)
    case Target::kRvv: {
      // The kernel reports V in AT_HWCAP (bit 'V' - 'A') only when it also manages V state.
      const unsigned long hwcap = getauxval(AT_HWCAP);
      return (hwcap >> ('V' - 'A')) & 1;
    }
#endif
    default:
      return false;
  }
}

Target Best() {
  for (Target t : {Target::kAvx512, Target::kAvx2, Target::kRvv}) {
    if (TargetSupported(t)) return t;
  }
  return Target::kScalar;
}

constexpr unsigned Pack(Target t, vlak_status e) { return static_cast<unsigned>(t) | (static_cast<unsigned>(e) << 8); }

unsigned FromEnvironment() {
  Target target = Best();
  vlak_status error = VLAK_OK;
  if (const char* env = std::getenv("VLAK_TARGET"); env != nullptr && *env != '\0') {
    bool known = false;
    for (int i = 0; i < kNumTargets; ++i) {
      const Target t = static_cast<Target>(i);
      if (std::strcmp(env, TargetName(t)) == 0) {
        known = true;
        if (TargetSupported(t)) target = t; else error = VLAK_ERROR_TARGET_UNAVAILABLE;
      }
    }
    if (!known) error = VLAK_ERROR_INVALID_ARGUMENT;
  }
  return Pack(target, error);
}

}  // namespace

bool TargetCompiled(Target t) {
  switch (t) {
    case Target::kScalar: return true;
#if defined(VLAK_HAVE_TARGET_AVX2)
    case Target::kAvx2: return true;
#endif
#if defined(VLAK_HAVE_TARGET_AVX512)
    case Target::kAvx512: return true;
#endif
#if defined(VLAK_HAVE_TARGET_RVV)
    case Target::kRvv: return true;
#endif
    default: return false;
  }
}

bool TargetSupported(Target t) { return TargetCompiled(t) && CpuHas(t); }

namespace detail {
std::atomic<unsigned> g_selection{kUnsetSelection};

// First use, possibly on several threads at once: all compute the same value, the first store
// wins, and a vlak_set_target() that came first is kept.
unsigned InitSelection() {
  unsigned expected = kUnsetSelection;
  const unsigned computed = FromEnvironment();
  return g_selection.compare_exchange_strong(expected, computed, std::memory_order_relaxed) ? computed : expected;
}
}  // namespace detail

vlak_status SetTarget(Target t) {
  if (!TargetSupported(t)) return VLAK_ERROR_TARGET_UNAVAILABLE;
  detail::g_selection.store(Pack(t, VLAK_OK), std::memory_order_relaxed);
  return VLAK_OK;
}

}  // namespace vlak
