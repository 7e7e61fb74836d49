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
 *   vlak-icount-live last=<N> region=<N> regions=<K> [cycles=<C> model=<M> uncosted=<U> unknown_vtype=<W>]
 * before the guest executes its next instruction, so the program itself can read the count of
 * the region it just closed (vlak_icount_read_live() in icount_live.h, the line's one reader) and
 * print it, as the RISC-V hackathon softmax's (April 2025) harness prints rdinstret differences.
 *
 * total   every retired guest instruction.
 * region  instructions retired strictly between the begin/end marker HINTs
 *         (see icount_marker.h), summed over all regions; regions = count.
 * costs=FILE,vlen=N: weighted cycles (below).
 * sym:X   instructions retired whose address lies inside function X itself
 *         (callees are not included). Needs the guest ELF symbol table (an
 *         unstripped binary; in linux-user only the main executable's, not
 *         shared libraries'). For aliased symbols QEMU reports just one of
 *         the names (e.g. static glibc printf shows up as _IO_printf).
 *
 * Weighted cycles (costs=FILE vlen=N [hist=FILE]). Inside the regions, every instruction is also
 * counted by its mnemonic (from qemu's disassembler) and, for vector instructions, by the SEW and
 * LMUL in force: the plugin follows vsetvli/vsetivli, whose vtype is an immediate. vsetvl takes
 * vtype from a register, which QEMU 7.2's plugin API cannot read: the vector instructions after it
 * count as "unknown vtype" until the next vsetvli. FILE is a cost table (tools/qemu-icount/
 * rvv-costs.tsv, written by scripts/rvv-cycles --cost-table from llvm-mca-22): cycles per
 * instruction by (mnemonic, vtype) for models at given VLENs; the model whose VLEN is N weights
 * each region's counts, and the live line and the exit line gain
 *   cycles=<C> model=<NAME> uncosted=<U> unknown_vtype=<W>
 * C = sum of count x cost; U = instructions of the regions without a cost (a mnemonic or vtype
 * the table lacks), W = vector instructions under an unknown vtype; neither is in C. With no model
 * at VLEN N, model=none and C = 0. hist=FILE writes at exit every (mnemonic, vtype) the regions
 * executed: count, cost, and one disassembled instance (what --cost-table needs to cost it).
 * Without costs= the plugin counts only per TB, as cheaply as before.
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
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
char *qemu_plugin_insn_disas(const struct qemu_plugin_insn *insn);
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

static void set_error(const char *e)
{
    if (!error) {
        error = e;
    }
}

/* ---- Weighted cycles: counts by (mnemonic, vtype) ---- */

/* vtype slots: 0 none (scalar, vset*), 1 + 7 * log2(SEW / 8) + (log2(LMUL) + 3) for SEW 8..64 and
 * LMUL 1/8..8, VT_UNKNOWN after a vsetvl. */
#define NVT 30
#define VT_UNKNOWN 29
#define MAX_MN 1024

static bool weigh;              /* costs= given */
static const char *costs_path;
static const char *hist_path;
static int vlen_arg;
static char model_name[64] = "none";
static int nmn;
static char *mn_name[MAX_MN];
static char *mn_sample[MAX_MN];       /* one disassembled instance, operands as qemu prints them */
static double cost[MAX_MN][NVT];      /* NaN: not in the table */
static uint64_t cnt[MAX_MN][NVT];     /* running counts, all code (regions are differences) */
static uint64_t snap[MAX_MN][NVT];    /* cnt at the open region's begin */
static uint64_t hist[MAX_MN][NVT];    /* summed over closed regions */
static unsigned cur_vt;               /* vtype slot in force */
static double cycles_sum, cycles_last;
static uint64_t uncosted_sum, unknown_sum, uncosted_last, unknown_last;

static int vt_slot(int sew, int lmul_log2)
{
    int s = sew == 8 ? 0 : sew == 16 ? 1 : sew == 32 ? 2 : sew == 64 ? 3 : -1;
    if (s < 0 || lmul_log2 < -3 || lmul_log2 > 3) {
        return -1;
    }
    return 1 + 7 * s + lmul_log2 + 3;
}

static void vt_name(int vt, char *buf, size_t n)
{
    static const char *lm[] = {"mf8", "mf4", "mf2", "m1", "m2", "m4", "m8"};
    if (vt == 0) {
        snprintf(buf, n, "-");
    } else if (vt == VT_UNKNOWN) {
        snprintf(buf, n, "unknown");
    } else {
        snprintf(buf, n, "e%d%s", 8 << ((vt - 1) / 7), lm[(vt - 1) % 7]);
    }
}

static int vt_parse(const char *s)
{
    if (strcmp(s, "-") == 0) {
        return 0;
    }
    for (int vt = 1; vt < VT_UNKNOWN; vt++) {
        char b[16];
        vt_name(vt, b, sizeof b);
        if (strcmp(b, s) == 0) {
            return vt;
        }
    }
    return -1;
}

/* The vtype slot of "e32,m8,ta,ma"-style operands (vsetvli/vsetivli), -1 if not found. */
static int vt_of_operands(const char *ops)
{
    int sew = 0, lmul = 99;
    const char *p = ops;
    while (*p) {
        while (*p == ',' || *p == ' ') {
            p++;
        }
        const char *q = p;
        while (*q && *q != ',' && *q != ' ') {
            q++;
        }
        size_t n = (size_t)(q - p);
        if (n >= 2 && p[0] == 'e' && p[1] >= '0' && p[1] <= '9') {
            sew = atoi(p + 1);
        } else if (n == 2 && p[0] == 'm' && p[1] >= '1' && p[1] <= '8') {
            lmul = p[1] == '1' ? 0 : p[1] == '2' ? 1 : p[1] == '4' ? 2 : p[1] == '8' ? 3 : 99;
        } else if (n == 3 && p[0] == 'm' && p[1] == 'f') {
            lmul = p[2] == '2' ? -1 : p[2] == '4' ? -2 : p[2] == '8' ? -3 : 99;
        }
        p = q;
    }
    return vt_slot(sew, lmul);
}

/* Index of a mnemonic, added if new; -1 when the table is full. */
static int mn_intern(const char *name, size_t len)
{
    for (int i = 0; i < nmn; i++) {
        if (strlen(mn_name[i]) == len && strncmp(mn_name[i], name, len) == 0) {
            return i;
        }
    }
    if (nmn == MAX_MN) {
        set_error("too_many_mnemonics");
        return -1;
    }
    mn_name[nmn] = strndup(name, len);
    for (int v = 0; v < NVT; v++) {
        cost[nmn][v] = __builtin_nan("");
    }
    return nmn++;
}

/*
 * The cost table: tab-separated lines
 *   models  NAME/VLEN ...             the cost columns' models, in order
 *   insn    MNEMONIC  SAMPLE          (for scripts/rvv-cycles; ignored here)
 *   cost    MNEMONIC  VTYPE  C ...    VTYPE "-" (scalar, vset*) or e<SEW>m<LMUL> / e<SEW>mf<1/LMUL>
 * and # comments.
 */
static int load_costs(void)
{
    FILE *f = fopen(costs_path, "r");
    if (!f) {
        fprintf(stderr, "vlak-icount: cannot open costs=%s\n", costs_path);
        return -1;
    }
    char line[1024];
    int col = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *save = NULL;
        char *kind = strtok_r(line, "\t", &save);
        if (!kind || kind[0] == '#') {
            continue;
        }
        if (strcmp(kind, "models") == 0) {
            char *m;
            for (int k = 0; (m = strtok_r(NULL, "\t", &save)); k++) {
                char *slash = strchr(m, '/');
                if (slash && atoi(slash + 1) == vlen_arg) {
                    col = k;
                    snprintf(model_name, sizeof model_name, "%.*s", (int)(slash - m), m);
                }
            }
            continue;
        }
        if (strcmp(kind, "cost") != 0) {
            continue;
        }
        char *mn = strtok_r(NULL, "\t", &save);
        char *vts = strtok_r(NULL, "\t", &save);
        int vt = vts ? vt_parse(vts) : -1;
        if (!mn || vt < 0) {
            fprintf(stderr, "vlak-icount: %s: bad line 'cost %s %s'\n", costs_path, mn ? mn : "",
                    vts ? vts : "");
            fclose(f);
            return -1;
        }
        char *c = NULL;
        for (int k = 0; k <= col; k++) {
            c = strtok_r(NULL, "\t", &save);
        }
        int i = mn_intern(mn, strlen(mn));
        if (col >= 0 && c && i >= 0) {
            cost[i][vt] = strtod(c, NULL);
        }
    }
    fclose(f);
    return 0;
}

static void on_vset(unsigned int vcpu, void *ud)
{
    (void)vcpu;
    cur_vt = (unsigned)(uintptr_t)ud;
}

static void on_vector(unsigned int vcpu, void *ud)
{
    (void)vcpu;
    cnt[(uintptr_t)ud][cur_vt ? cur_vt : VT_UNKNOWN]++;
}

/* Registers the per-instruction counting of one instruction of a TB being translated. */
static void weigh_insn(struct qemu_plugin_insn *insn)
{
    char *d = qemu_plugin_insn_disas(insn);
    if (!d) {
        set_error("no_disassembly");
        return;
    }
    /* "<encoding in hex> <mnemonic> <operands>", padded with spaces */
    const char *p = d + strspn(d, " ");
    p += strspn(p, "0123456789abcdef");
    p += strspn(p, " \t");
    size_t len = strcspn(p, " \t");
    int i = mn_intern(p, len);
    if (i < 0) {
        free(d);
        return;
    }
    const char *ops = p + len;
    while (*ops == ' ' || *ops == '\t') {
        ops++;
    }
    if (!mn_sample[i]) {
        /* qemu appends "# 0x..." to pc-relative operands: not part of the instruction */
        size_t n = strcspn(ops, "#");
        while (n && ops[n - 1] == ' ') {
            n--;
        }
        mn_sample[i] = malloc(len + n + 2);
        snprintf(mn_sample[i], len + n + 2, "%.*s %.*s", (int)len, p, (int)n, ops);
    }
    if (p[0] == 'v' && strncmp(p, "vset", 4) == 0) {
        int vt = len == 6 ? VT_UNKNOWN /* vsetvl */ : vt_of_operands(ops);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_vset, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)(vt < 0 ? VT_UNKNOWN : vt));
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &cnt[i][0], 1);
    } else if (p[0] == 'v') {
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_vector, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)i);
    } else {
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &cnt[i][0], 1);
    }
    free(d);
}

static void weigh_begin(void)
{
    memcpy(snap, cnt, sizeof(cnt[0]) * (size_t)nmn);
}

/* The closed region's counts: into hist, weighted into cycles_last. */
static void weigh_end(void)
{
    double c = 0;
    uint64_t unc = 0, unk = 0;
    for (int i = 0; i < nmn; i++) {
        for (int v = 0; v < NVT; v++) {
            uint64_t d = cnt[i][v] - snap[i][v];
            if (!d) {
                continue;
            }
            hist[i][v] += d;
            if (v == VT_UNKNOWN) {
                unk += d;
            } else if (cost[i][v] == cost[i][v]) {
                c += (double)d * cost[i][v];
            } else {
                unc += d;
            }
        }
    }
    cycles_last = c;
    cycles_sum += c;
    uncosted_last = unc;
    uncosted_sum += unc;
    unknown_last = unk;
    unknown_sum += unk;
}

static void write_hist(void)
{
    FILE *f = fopen(hist_path, "w");
    if (!f) {
        fprintf(stderr, "vlak-icount: cannot open hist=%s\n", hist_path);
        return;
    }
    fprintf(f, "# vlak-icount hist: regions=%llu model=%s; count mnemonic vtype cost sample\n",
            (unsigned long long)region_count, model_name);
    for (int i = 0; i < nmn; i++) {
        for (int v = 0; v < NVT; v++) {
            if (!hist[i][v]) {
                continue;
            }
            char vb[16];
            vt_name(v, vb, sizeof vb);
            fprintf(f, "%llu\t%s\t%s\t%g\t%s\n", (unsigned long long)hist[i][v], mn_name[i], vb,
                    cost[i][v], mn_sample[i] ? mn_sample[i] : mn_name[i]);
        }
    }
    fclose(f);
}

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
    if (weigh) {
        weigh_begin();
    }
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
    if (weigh) {
        weigh_end();
    }
    if (live_path) {
        FILE *f = fopen(live_path, "w");
        if (f) {
            fprintf(f, "vlak-icount-live last=%llu region=%llu regions=%llu",
                    (unsigned long long)last, (unsigned long long)region_sum,
                    (unsigned long long)region_count);
            if (weigh) {
                fprintf(f, " cycles=%.2f model=%s uncosted=%llu unknown_vtype=%llu", cycles_last,
                        model_name, (unsigned long long)uncosted_last,
                        (unsigned long long)unknown_last);
            }
            fputc('\n', f);
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
        } else if (weigh) {
            /* the markers are not part of the measured code, as in region= */
            weigh_insn(insn);
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
    if (weigh) {
        fprintf(f, " cycles=%.2f model=%s uncosted=%llu unknown_vtype=%llu", cycles_sum, model_name,
                (unsigned long long)uncosted_sum, (unsigned long long)unknown_sum);
    }
    if (error) {
        fprintf(f, " error=%s", error);
    }
    fputc('\n', f);
    if (hist_path) {
        write_hist();
    }

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
        } else if (strncmp(a, "costs=", 6) == 0 && a[6]) {
            costs_path = a + 6;
        } else if (strncmp(a, "vlen=", 5) == 0 && a[5]) {
            vlen_arg = atoi(a + 5);
        } else if (strncmp(a, "hist=", 5) == 0 && a[5]) {
            hist_path = a + 5;
        } else if (strncmp(a, "sym=", 4) == 0 && a[4]) {
            if (nsyms == MAX_SYMS) {
                fprintf(stderr, "vlak-icount: more than %d sym= arguments\n",
                        MAX_SYMS);
                return -1;
            }
            sym_name[nsyms++] = a + 4;
        } else {
            fprintf(stderr, "vlak-icount: unknown argument '%s' "
                            "(expected out=FILE, live=FILE, sym=NAME, costs=FILE, vlen=N "
                            "or hist=FILE)\n", a);
            return -1;
        }
    }
    if (costs_path) {
        if (vlen_arg <= 0) {
            fprintf(stderr, "vlak-icount: costs= needs vlen=N (the guest's VLEN in bits)\n");
            return -1;
        }
        if (load_costs() != 0) {
            return -1;
        }
        weigh = true;
    } else if (hist_path) {
        fprintf(stderr, "vlak-icount: hist= needs costs=FILE and vlen=N\n");
        return -1;
    }

    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
