/*
 * Known-count guest program for the vlak-icount plugin (riscv64 only).
 * Build: clang-19 --target=riscv64-linux-gnu -march=rv64gcv -fuse-ld=lld -O2
 *          -I tools/qemu-icount tests/icount/icount_known_loop.c
 * Check: tests/icount/check_icount.sh (expected values are mirrored there).
 *
 * Every counted instruction is hand-written asm, and each region sits inside
 * a single asm statement together with its markers, so the compiler cannot
 * place its own instructions inside a region. Counts are in instructions, so
 * the assembler compressing some of them (RVC) does not change them.
 */
#include <stdio.h>

#include "icount_marker.h"

#if !defined(__riscv)
#error "icount_known_loop.c is a riscv64 guest program"
#endif

/* Both regions retire exactly 2001 instructions: REGION_INSNS * 2 = 4002. */
#define REGION_INSNS 2001
/* known_loop_fn retires 1 + 2*500 + 1 = 1002; called 3 times = 3006. */
#define FN_INSNS 1002
#define FN_CALLS 3

/*
 * Region A: begin marker in the middle of a TB (a nop precedes it in the same
 * block), end marker at the start of the TB that the loop falls through to.
 *   li t0,1000 (1) + 1000 * (addi + bnez) (2000) = 2001
 */
static void region_a(void)
{
    __asm__ volatile(
        "nop\n\t"
        VLAK_ICOUNT_BEGIN_INSN "\n\t"
        "li   t0, 1000\n\t"          /* fits simm12: a single addi */
        "1:\n\t"
        "addi t0, t0, -1\n\t"
        "bnez t0, 1b\n\t"
        VLAK_ICOUNT_END_INSN "\n\t"
        ::: "t0", "memory");
}

/*
 * Region B: the jump ends a TB, so the begin marker is the first instruction
 * of a TB, while the end marker sits mid-TB after two straight-line addis.
 *   li t0,999 (1) + 999 * 2 (1998) + 2 addi = 2001
 */
static void region_b(void)
{
    __asm__ volatile(
        "j    2f\n\t"
        "2:\n\t"
        VLAK_ICOUNT_BEGIN_INSN "\n\t"
        "li   t0, 999\n\t"
        "1:\n\t"
        "addi t0, t0, -1\n\t"
        "bnez t0, 1b\n\t"
        "addi t0, t0, 1\n\t"
        "addi t0, t0, 1\n\t"
        VLAK_ICOUNT_END_INSN "\n\t"
        ::: "t0", "memory");
}

/*
 * A real function for sym= mode, written in asm so its body is exactly
 * known; .size matters because QEMU's symbol lookup matches by
 * [st_value, st_value + st_size). Only t0 (caller-saved) is touched.
 */
void known_loop_fn(void);
__asm__(
    "\t.text\n"
    "\t.globl known_loop_fn\n"
    "\t.type  known_loop_fn, @function\n"
    "\t.p2align 2\n"
    "known_loop_fn:\n"
    "\tli   t0, 500\n"
    "1:\n"
    "\taddi t0, t0, -1\n"
    "\tbnez t0, 1b\n"
    "\tret\n"
    "\t.size known_loop_fn, .-known_loop_fn\n");

int main(void)
{
    region_a();
    region_b();
    for (int i = 0; i < FN_CALLS; i++) {
        known_loop_fn();
    }
    printf("icount_known_loop: expect region=%d regions=2 sym:known_loop_fn=%d\n",
           2 * REGION_INSNS, FN_CALLS * FN_INSNS);
    return 0;
}
