// Dispatch of the NPU model's lane loops to the active target.
#include "npu/npu_lanes.h"

#include "dispatch/dispatch.h"
#include "npu/npu_lanes_kernels.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_NPU_LANES_KERNELS)
}  // namespace vlak

namespace vlak::npu {

void LaneArith(Op op, int bits, bool sat, int k, const uint32_t* a, const uint32_t* b, uint32_t* r) {
  Dispatch(kNpuLaneArith)(static_cast<int>(op), bits, sat, static_cast<size_t>(k), a, b, r);
}

void LaneLut(const int32_t* wide_bank, int k, const uint32_t* idx, uint32_t* r) {
  Dispatch(kNpuLaneLut)(wide_bank, static_cast<size_t>(k), idx, r);
}

}  // namespace vlak::npu
