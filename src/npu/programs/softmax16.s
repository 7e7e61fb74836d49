# The corrected int8 softmax on the tutorial's instructions: 16-bit exp from two banks, an exact
# reciprocal in the sequencer. Output int8 with scale 1/256 and zero point -128 (TFLite's).
#
# Row q (K int8 from the input stream), logits scale*q. With d = max - q in [0, 255]:
#   E[d] = min(65535, round(65535 exp(-scale d)))        bank A = E >> 8, bank B = E & 255
#   S    = sum E                                          < 2^16 K (one vsum.vr)
#   M, sh: M = floor((2^sh 256 + S/2) / S) in [2^13, 2^14) (srecip), so M / 2^sh = 256/S (1 + e),
#          |e| <= 2^-14
#   y    = sat8(((E M + 2^(sh-1)) >> sh) - 128)           E M < 2^30: no overflow
# Error: |256 E/S - (E M) / 2^sh| <= 256 2^-14 = 1/64 LSB before the rounding, E's own rounding
# <= 0.5/65535 relative: y is round(256 p) - 128 except within ~1/50 LSB of a rounding boundary
# (measured: tests/npu, `vlak npu accuracy`). Per row: 12 vector ALU instructions, 6 sequencer
# steps, 4 host broadcasts (ext.vr), in and out.
.set scale 0.0625

lutload A, exp16_hi, vr7, $scale
lutload B, exp16_lo, vr7, $scale

row:
in vx0
vrmax vr1, vx0               # VR1 = m in every lane; VX4, its low byte, = m as a byte
vrsub vx8, vx0, vx4          # VX8 = (m - q) mod 256 = d exactly (sat = 0: the wrapped byte)
vlut vx13, vx8, A            # VR3 byte 1 = E >> 8
vlut vx12, vx8, B            # VR3 byte 0 = E & 255
vbcastImm vx14, 0
vbcastImm vx15, 0            # VR3 = E
vsum vr4, vr3                # S, 32-bit
sread s0, vr4
srecip s1, s2, s0            # s1 = M, s2 = sh
ext.vr vr5, s1
vmul vr3, vr3, vr5           # E M
sadd s3, s2, -1
sli s4, 1
sshl s4, s4, s3
ext.vr vr5, s4
vadd vr3, vr3, vr5           # + 2^(sh-1)
ext.vr vr5, s2
vsra vr3, vr3, vr5           # round(256 E / S)
sli s5, 128
ext.vr vr5, s5
vsub vr3, vr3, vr5           # - 128: the zero point
vcvt_s32_s8 vr0, vr3, sat    # [-128, 127]: p = 1 gives 127, not a wrap
out vr0
