// Per-target facts for `vlak info` and vlak_target_lanes: lanes per register group.
#include "dispatch/target_info_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {
template <typename T>
size_t LanesFor(int pow2) {
  switch (pow2) {
    case 0: return Lanes(Simd<T, 0>{});
    case 1: return Lanes(Simd<T, 1>{});
    case 2: return Lanes(Simd<T, 2>{});
    case 3: return Lanes(Simd<T, 3>{});
    default: return 0;
  }
}
}  // namespace

size_t TargetLanes(int lmul_pow2, size_t elem_size) {
  switch (elem_size) {
    case 1: return LanesFor<uint8_t>(lmul_pow2);
    case 2: return LanesFor<uint16_t>(lmul_pow2);
    case 4: return LanesFor<uint32_t>(lmul_pow2);
    case 8: return LanesFor<double>(lmul_pow2);
    default: return 0;
  }
}

VLAK_KERNELS_DEFINED(VLAK_TARGET_INFO_KERNELS)

}  // namespace vlak::VLAK_NS
