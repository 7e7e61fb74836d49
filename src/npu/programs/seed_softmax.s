# The chisel-npu GEMM + softmax quantization tutorial's pipeline, instruction for instruction as
# its test NCoreBackendGemmSoftmaxSpec runs it. Known defective: it is kept to
# reproduce the tutorial's tests A-D (every lane -1) and to measure its error (tests/npu).
# Symbols: acc (the int8 accumulator broadcast to every lane), scale_int (the int8 scale).
# Sequencer steps (sread/sclamp/ext) are what the Scala harness does between instructions.
.set acc 10
.set scale_int 1

lutload A, seed_exp, vr0        # exp SQ1.6 -> UQ0.8 (stored as signed bytes)
lutload B, seed_recip, vr0      # recip SQ1.6 -> SQ1.6

# Phases 0-1: acc and scale to fp32, scaled score.
vbcastImm vx8, $acc
vcvt_s8_f32 vr0, vx8
vbcastImm vx8, $scale_int
vcvt_s8_f32 vr2, vx8
vfmul vr1, vr0, vr2
# Phase 2: fp32 -> SQ1.6 byte, RTZ + saturate (the harness left vr_out_addr = 2: VR2 gets it too).
vcvt_f32_s8 vx0, vr1, vr2

row:                            # VX0 = the SQ1.6 scores
# Phase 3: x - max, saturating (clamps at -2.0).
vrmax vr3, vx0
sread s0, vr3
ext vx5, s0
vsub vx1, vx0, vx5, sat
# Phase 4: exp via bank A.
vlut vx2, vx1, A
# Phase 5: sum of the (sign-extended!) exp bytes; the host clamps it to [1, 127].
vsum vr4, vx2
sread s1, vr4
sclamp s1, s1, 1, 127
ext vx6, s1
# Phase 6: reciprocal via bank B (indexed as SQ1.6 although the sum is in UQ0.8 units).
vlut vx7, vx6, B
# Phase 7: both to fp32, multiply.
vcvt_s8_f32 vr5, vx2
vcvt_s8_f32 vr6, vx7
vfmul vr7, vr5, vr6
# Phase 8: RTZ to int32, >> 7.
vcvt_f32_s32 vr0, vr7
vbcastImm vx8, 7
vcvt_s8_f32 vr1, vx8
vcvt_f32_s32 vr1, vr1
vsra vr3, vr0, vr1
# Phase 9: saturate to int8.
vcvt_s32_s8 vr2, vr3, sat
out vr2
