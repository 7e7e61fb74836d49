// C API of the exp family: argument checks and dispatch (compiled once, not per target).
#include "dispatch/dispatch.h"
#include "ops/exp/exp_kernels.h"
#include "vlak/vlak.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_EXP_KERNELS)
}  // namespace vlak

extern "C" {

const char* vlak_exp_variant_name(vlak_exp_variant variant) {
  switch (variant) {
    case VLAK_EXP_SCHRAUDOLPH: return "schraudolph";
    case VLAK_EXP_BITTRICK_P3: return "bittrick_p3";
    case VLAK_EXP_BITTRICK_P5: return "bittrick_p5";
    case VLAK_EXP_CEPHES: return "cephes";
    case VLAK_EXP_ACCURATE: return "accurate";
    case VLAK_EXP_PRECISE: return "precise";
  }
  return nullptr;
}

vlak_status vlak_exp_f32(size_t n, const float* x, float* y, vlak_exp_variant variant) {
  if (vlak_exp_variant_name(variant) == nullptr) return VLAK_ERROR_INVALID_ARGUMENT;
  if (n > 0 && (x == nullptr || y == nullptr)) return VLAK_ERROR_NULL_POINTER;
  if (const vlak_status e = vlak::TargetError(); e != VLAK_OK) return e;
  if (n == 0) return VLAK_OK;
  vlak::Dispatch(vlak::kExpF32)(static_cast<vlak::ExpVariant>(variant), x, y, n);
  return VLAK_OK;
}

}  // extern "C"
