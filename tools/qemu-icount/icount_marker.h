/*
 * Region markers for the vlak-icount QEMU plugin (tools/qemu-icount).
 *
 * The markers are RISC-V HINT encodings (slti x0, x0, 0x5a1 / 0x5a2): real
 * hardware and QEMU execute them as no-ops, so instrumented binaries run
 * unchanged anywhere, and the plugin finds them by their exact bytes. They
 * are emitted as raw words so no assembler can rewrite or compress them.
 *
 * The "memory" clobber stops the compiler from moving loads/stores across a
 * marker; it cannot pin pure register arithmetic, so measure code whose work
 * is observable through memory (or put the markers in the same asm block).
 *
 * On non-RISC-V targets the markers compile to nothing.
 */
#ifndef VLAK_ICOUNT_MARKER_H
#define VLAK_ICOUNT_MARKER_H

#if defined(__riscv)
#define VLAK_ICOUNT_BEGIN_INSN ".4byte 0x5a102013" /* slti x0, x0, 0x5a1 */
#define VLAK_ICOUNT_END_INSN   ".4byte 0x5a202013" /* slti x0, x0, 0x5a2 */

static inline void vlak_icount_begin(void)
{
    __asm__ volatile(VLAK_ICOUNT_BEGIN_INSN ::: "memory");
}

static inline void vlak_icount_end(void)
{
    __asm__ volatile(VLAK_ICOUNT_END_INSN ::: "memory");
}
#else
static inline void vlak_icount_begin(void) {}
static inline void vlak_icount_end(void) {}
#endif

#endif /* VLAK_ICOUNT_MARKER_H */
