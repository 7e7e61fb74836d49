/*
 * QEMU TCG plugin: exact retired-instruction counts for a RISC-V guest.
 *
 *   qemu-riscv64 -plugin libqemu-icount.so[,out=FILE][,live=FILE][,sym=NAME]... prog
 *
 * Prints one line at exit:
 *   vlak-icount total=<N> region=<N> regions=<K> [sym:<NAME>=<N> ...] [error=<text>]
 * to FILE (appended) if out=FILE is given, else to stderr.
 *
 * live=FILE: at every end marker, FILE is rewritten with
 *   vlak-icount-live last=<N> region=<N> regions=<K>
 * before the guest executes its next instruction, so the program itself can read the count of
 * the region it just closed (vlak_icount_read_last() in icount_marker.h) and print it, as
 * the RISC-V hackathon softmax's (April 2025) harness prints rdinstret differences.
 *
 * total   every retired guest instruction.
 * region  instructions retired strictly between the begin/end marker HINTs
 *         (see icount_marker.h), summed over all regions; regions = count.
 * sym:X   instructions retired whose address lies inside function X itself
 *         (callees are not included). Needs the guest ELF symbol table (an
 *         unstripped binary; in linux-user only the main executable's, not
 *         shared libraries'). For aliased symbols QEMU reports just one of
 *         the names (e.g. static glibc printf shows up as _IO_printf).
 *
 * Build: gcc -O2 -shared -fPIC -o libqemu-icount.so icount.c
 *
 * Debian ships QEMU 7.2 without qemu-plugin.h, so the handful of API
 * declarations used here are written out by hand below. They match the 7.2
 * header (plugin API version 1); later QEMU releases changed several of these
 * (e.g. qemu_plugin_insn_data), so do not reuse them against another version.
 *
 * Only a single guest thread is supported: counters are plain uint64_t
 * updated by non-atomic inline ops and callbacks, and the region state is
 * global rather than per vCPU. With several guest threads the counts would be
 * racy and regions from different threads would interleave.
 *
 * Counting is done with a per-TB inline add at TB entry, which assumes every
 * entered TB runs to its end. That holds for ordinary user-mode code (ecall
 * and branches end TBs); an instruction faulting mid-TB (e.g. a SIGSEGV that
 * the guest handles) would make the counts slightly high.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Hand-written subset of QEMU 7.2 include/qemu/qemu-plugin.h ---- */

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
/* 7.2 accepts plugins declaring a version in [0, 1]. */
#define QEMU_PLUGIN_VERSION 1

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
    QEMU_PLUGIN_CB_NO_REGS,
    QEMU_PLUGIN_CB_R_REGS,
    QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
    QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
                                            void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
                                               struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
                                              enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags,
                                            void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
                                                 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv);

/* ---- Plugin ---- */

/* slti x0, x0, 0x5a1 / 0x5a2: architectural HINTs, executed as no-ops. */
#define MARKER_BEGIN 0x5a102013u
#define MARKER_END   0x5a202013u

#define MAX_SYMS 8

static uint64_t total;
static uint64_t region_sum;
static uint64_t region_count;
static uint64_t region_start;
static bool in_region;
static const char *error; /* first error only; later ones add no information */

static int nsyms;
static const char *sym_name[MAX_SYMS];
static uint64_t sym_count[MAX_SYMS];

static const char *out_path;
static const char *live_path;

/*
 * The TB's instruction count has already been added to `total` at TB entry
 * (QEMU emits TB-level inline ops ahead of the first instruction's callbacks),
 * so the number retired before instruction idx of an n-instruction TB is
 * total - n + idx. Both values fit easily (a TB has at most 512 insns), so
 * they travel packed in the callback's userdata pointer instead of a heap
 * allocation that could never be freed (TBs get retranslated at will).
 */
static inline uintptr_t pack(size_t n, size_t idx)
{
    return ((uintptr_t)n << 16) | (uintptr_t)idx;
}

static inline uint64_t retired_before(void *ud)
{
    uintptr_t v = (uintptr_t)ud;
    return total - (v >> 16) + (v & 0xffff);
}

static void set_error(const char *e)
{
    if (!error) {
        error = e;
    }
}

static void on_begin(unsigned int vcpu, void *ud)
{
    (void)vcpu;
    if (in_region) {
        /* Keep the outer start so the outer region is still measured. */
        set_error("nested_begin");
        return;
    }
    in_region = true;
    region_start = retired_before(ud) + 1; /* exclude the marker itself */
}

static void on_end(unsigned int vcpu, void *ud)
{
    (void)vcpu;
    if (!in_region) {
        set_error("end_without_begin");
        return;
    }
    in_region = false;
    const uint64_t last = retired_before(ud) - region_start;
    region_sum += last;
    region_count++;
    if (live_path) {
        FILE *f = fopen(live_path, "w");
        if (f) {
            fprintf(f, "vlak-icount-live last=%llu region=%llu regions=%llu\n",
                    (unsigned long long)last, (unsigned long long)region_sum,
                    (unsigned long long)region_count);
            fclose(f);
        }
    }
}

static bool insn_is(const struct qemu_plugin_insn *insn, uint32_t word)
{
    if (qemu_plugin_insn_size(insn) != 4) {
        return false;
    }
    /* Guest is little-endian; decode explicitly rather than rely on host order. */
    const uint8_t *b = qemu_plugin_insn_data(insn);
    uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
                 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return v == word;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    uint64_t in_sym[MAX_SYMS] = {0};

    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
                                             &total, n);

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

        if (insn_is(insn, MARKER_BEGIN)) {
            qemu_plugin_register_vcpu_insn_exec_cb(
                insn, on_begin, QEMU_PLUGIN_CB_NO_REGS, (void *)pack(n, i));
        } else if (insn_is(insn, MARKER_END)) {
            qemu_plugin_register_vcpu_insn_exec_cb(
                insn, on_end, QEMU_PLUGIN_CB_NO_REGS, (void *)pack(n, i));
        }

        if (nsyms) {
            const char *s = qemu_plugin_insn_symbol(insn);
            for (int k = 0; s && k < nsyms; k++) {
                if (strcmp(s, sym_name[k]) == 0) {
                    in_sym[k]++;
                }
            }
        }
    }

    /*
     * A TB may straddle a function boundary, so add only the share of its
     * instructions that belong to the symbol; one inline op per TB keeps
     * this as cheap as the total count.
     */
    for (int k = 0; k < nsyms; k++) {
        if (in_sym[k]) {
            qemu_plugin_register_vcpu_tb_exec_inline(
                tb, QEMU_PLUGIN_INLINE_ADD_U64, &sym_count[k], in_sym[k]);
        }
    }
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    /*
     * Not qemu_plugin_outs(): in 7.2 that is qemu_log_mask(CPU_LOG_PLUGIN),
     * which linux-user drops unless "-d plugin" is given.
     */
    FILE *f = stderr;

    if (in_region) {
        set_error("unterminated_region");
    }
    if (out_path) {
        /* Append so several runs (e.g. per VLEN) can share one results file. */
        f = fopen(out_path, "a");
        if (!f) {
            /* Losing the result silently would be worse than mixing streams. */
            fprintf(stderr, "vlak-icount: cannot open out=%s, using stderr\n",
                    out_path);
            f = stderr;
        }
    }

    fprintf(f, "vlak-icount total=%llu region=%llu regions=%llu",
            (unsigned long long)total, (unsigned long long)region_sum,
            (unsigned long long)region_count);
    for (int k = 0; k < nsyms; k++) {
        fprintf(f, " sym:%s=%llu", sym_name[k],
                (unsigned long long)sym_count[k]);
    }
    if (error) {
        fprintf(f, " error=%s", error);
    }
    fputc('\n', f);

    if (f == stderr) {
        fflush(f);
    } else {
        fclose(f);
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "out=", 4) == 0 && a[4]) {
            out_path = a + 4; /* argv outlives the plugin */
        } else if (strncmp(a, "live=", 5) == 0 && a[5]) {
            live_path = a + 5;
        } else if (strncmp(a, "sym=", 4) == 0 && a[4]) {
            if (nsyms == MAX_SYMS) {
                fprintf(stderr, "vlak-icount: more than %d sym= arguments\n",
                        MAX_SYMS);
                return -1;
            }
            sym_name[nsyms++] = a + 4;
        } else {
            fprintf(stderr, "vlak-icount: unknown argument '%s' "
                            "(expected out=FILE, live=FILE or sym=NAME)\n", a);
            return -1;
        }
    }

    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
