# Negative control: softmax16.s with an 8-bit exp table (one bank, E8[d] = round(255 exp(-scale d))).
# Small exps vanish (E8 = 0 once exp(-scale d) < 1/510) and the others carry up to 1/510 of
# absolute error each: it must miss the <= 1 LSB contract (tests/npu, `vlak npu accuracy`).
.set scale 0.0625

lutload A, exp8, vr7, $scale

row:
in vx0
vrmax vr1, vx0
vrsub vx8, vx0, vx4
vlut vx12, vx8, A            # VR3 = E8
vbcastImm vx13, 0
vbcastImm vx14, 0
vbcastImm vx15, 0
vsum vr4, vr3
sread s0, vr4
srecip s1, s2, s0
ext.vr vr5, s1
vmul vr3, vr3, vr5
sadd s3, s2, -1
sli s4, 1
sshl s4, s4, s3
ext.vr vr5, s4
vadd vr3, vr3, vr5
ext.vr vr5, s2
vsra vr3, vr3, vr5
sli s5, 128
ext.vr vr5, s5
vsub vr3, vr3, vr5
vcvt_s32_s8 vr0, vr3, sat
out vr0
