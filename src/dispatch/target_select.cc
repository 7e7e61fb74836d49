// Which targets this CPU can run, and which one kernels use.
#include <cstdlib>
#include <cstring>
#include <mutex>

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

struct Selection {
  Target target = Target::kScalar;
  vlak_status error = VLAK_OK;
};

Target Best() {
  for (Target t : {Target::kAvx512, Target::kAvx2, Target::kRvv}) {
    if (TargetSupported(t)) return t;
  }
  return Target::kScalar;
}

std::mutex g_mutex;
Selection* g_selection = nullptr;

Selection& Get() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_selection == nullptr) {
    static Selection s;
    s.target = Best();
    if (const char* env = std::getenv("VLAK_TARGET"); env != nullptr && *env != '\0') {
      bool known = false;
      for (int i = 0; i < kNumTargets; ++i) {
        const Target t = static_cast<Target>(i);
        if (std::strcmp(env, TargetName(t)) == 0) {
          known = true;
          if (TargetSupported(t)) s.target = t; else s.error = VLAK_ERROR_TARGET_UNAVAILABLE;
        }
      }
      if (!known) s.error = VLAK_ERROR_INVALID_ARGUMENT;
    }
    g_selection = &s;
  }
  return *g_selection;
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
Target ActiveTarget() { return Get().target; }
vlak_status TargetError() { return Get().error; }

vlak_status SetTarget(Target t) {
  Selection& s = Get();
  if (!TargetSupported(t)) return VLAK_ERROR_TARGET_UNAVAILABLE;
  std::lock_guard<std::mutex> lock(g_mutex);
  s.target = t;
  s.error = VLAK_OK;
  return VLAK_OK;
}

}  // namespace vlak
