/*
 * Known-answer guest program for the qemu-icount plugin's weighted cycles (costs=, vlen=), riscv64
 * with V only. Checked by tests/icount/check_weighted.sh with a cost table of its own whose costs
 * are powers of two, so each instruction class shows up in its own bits of the sum.
 *
 * One region, hand-written asm with its markers in the same statement:
 *   li t0,100 (addi)                              1
 *   vsetivli zero,8,e32,m8,ta,ma                  1
 *   100 x (vfadd.vv at e32 m8, addi, bnez)      300
 *   vsetivli zero,8,e8,mf2,ta,ma                  1
 *   vadd.vv at e8 mf2                             1
 *   li t1,0xd0 (addi; vtype e32 m1, ta)           1
 *   vsetvl t2,zero,t1: vtype from a register      1
 *   vadd.vv under that unknown vtype              1
 *   xor t2,t2,t2 (no cost in the test's table)    1
 * = 308 instructions.
 */
#include <stdio.h>

#include "icount_marker.h"

#if !defined(__riscv_vector)
#error "icount_weighted_loop.c is a riscv64 guest program with V"
#endif

int main(void)
{
    __asm__ volatile(
        VLAK_ICOUNT_BEGIN_INSN "\n\t"
        "li       t0, 100\n\t"
        "vsetivli zero, 8, e32, m8, ta, ma\n\t"
        "1:\n\t"
        "vfadd.vv v8, v8, v16\n\t"
        "addi     t0, t0, -1\n\t"
        "bnez     t0, 1b\n\t"
        "vsetivli zero, 8, e8, mf2, ta, ma\n\t"
        "vadd.vv  v1, v1, v2\n\t"
        "li       t1, 0xd0\n\t"
        "vsetvl   t2, zero, t1\n\t"
        "vadd.vv  v1, v1, v2\n\t"
        "xor      t2, t2, t2\n\t"
        VLAK_ICOUNT_END_INSN "\n\t"
        ::: "t0", "t1", "t2", "v1", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "memory");
    printf("icount_weighted_loop: expect region=308 cycles=1950 uncosted=1 unknown_vtype=1\n");
    return 0;
}
