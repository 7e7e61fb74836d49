// The NPU model's lane loops, on the vector layer (npu_lanes_kernel.cc, compiled per target and
// picked like every vlak kernel: VLAK_TARGET / vlak_set_target). Every target gives the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "npu/npu.h"

namespace vlak::npu {

// r[i] = op(a[i], b[i]) at `bits` (8, 16, 32) for vadd/vsub/vrsub/vmul/vmax/vmin/vsra: operands are
// the low `bits` of a and b sign-extended; the result saturated (sat) or wrapped, zero-extended.
void LaneArith(Op op, int bits, bool sat, int k, const uint32_t* a, const uint32_t* b, uint32_t* r);
// r[i] = wide_bank[idx[i] & 255] (a bank's bytes zero-extended to 32 bits; idx, r: VX lanes).
void LaneLut(const int32_t* wide_bank, int k, const uint32_t* idx, uint32_t* r);

}  // namespace vlak::npu
