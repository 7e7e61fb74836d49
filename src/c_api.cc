// The C API's target and status functions; kernels have their own files under src/ops.
#include "dispatch/dispatch.h"
#include "dispatch/target_info_kernels.h"
#include "vlak/vlak.h"

namespace vlak {
vlak_status SetTarget(Target t);
VLAK_PER_TARGET_TABLES(VLAK_TARGET_INFO_KERNELS)
}  // namespace vlak

namespace {
bool ValidTarget(vlak_target t) { return t >= VLAK_TARGET_SCALAR && t <= VLAK_TARGET_RVV; }
}  // namespace

extern "C" {

const char* vlak_version(void) { return VLAK_VERSION_STRING; }

const char* vlak_status_string(vlak_status status) {
  switch (status) {
    case VLAK_OK: return "ok";
    case VLAK_ERROR_NULL_POINTER: return "null pointer";
    case VLAK_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case VLAK_ERROR_OVERFLOW: return "size overflow";
    case VLAK_ERROR_TARGET_UNAVAILABLE: return "target unavailable on this CPU or build";
  }
  return "unknown status";
}

const char* vlak_target_name(vlak_target t) {
  return ValidTarget(t) ? vlak::TargetName(static_cast<vlak::Target>(t)) : nullptr;
}

int vlak_target_compiled(vlak_target t) {
  return ValidTarget(t) && vlak::TargetCompiled(static_cast<vlak::Target>(t));
}

int vlak_target_supported(vlak_target t) {
  return ValidTarget(t) && vlak::TargetSupported(static_cast<vlak::Target>(t));
}

vlak_target vlak_active_target(void) { return static_cast<vlak_target>(vlak::ActiveTarget()); }

vlak_status vlak_target_error(void) { return vlak::TargetError(); }

vlak_status vlak_set_target(vlak_target t) {
  if (!ValidTarget(t)) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak::SetTarget(static_cast<vlak::Target>(t));
}

size_t vlak_target_lanes(vlak_target t, int lmul_pow2, size_t elem_size) {
  if (!vlak_target_supported(t) || lmul_pow2 < 0 || lmul_pow2 > 3) return 0;
  return vlak::kTargetLanes[t](lmul_pow2, elem_size);
}

}  // extern "C"
