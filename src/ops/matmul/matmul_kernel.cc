// Matmul f32 kernels, generic over the tag: compiled once per target.
//
// Algorithm (GotoBLAS/BLIS blocking, transposed for row-major C with the vector along n):
//   for jc over n by nc:            B block of kc x nc floats (1 MiB), L2-resident
//     for pc over k by kc:
//       pack B[pc:pc+kc, jc:jc+nc] into panels [nc/NR][kc][NR] (zero-padded to NR)
//       for ir over the rows by MR:   the A micro-panel (MR row segments of kc) stays in L1
//         for jr over the block by NR:  Tile: MR x NR accumulators in registers
//           for p in kc: b = Load(panel + p*NR); c_i = MulAdd(b, A[i][p], c_i) for i < MR
// A is the broadcast operand and is read in place through MR row pointers (rows past m repeat
// row 0, computed and never stored): no copy of A. It is L1-resident across the jr loop. Packing
// it ([kc][MR] per micro-panel, a scalar transpose just before use) measured 71 / 75 / 82 % of
// peak at 256^3 / 512^3 / 1024^3 against 83 / 81 / 80 % in place (67 / 73 / 75 % with the 14 x 32
// tile, whose 14 row pointers otherwise spill on x86). The B panels are the streamed vector operand. kc = 256 (A micro-panel 6 KiB)
// and the 1 MiB B block measured best on the Xeon (AVX-512, 48 KiB L1, 2 MiB L2;
// one thread, % of the FMA peak at 256^3 / 512^3 / 1024^3): kc 128: 76 / 76 / 72, kc 256: 85 / 84 /
// 79, kc 384: 82 / 79 / 78; B block 512 KiB / 1 MiB / 2 MiB at 2048^3: 73 / 80 / 54.
//
// Order of operations: each C element is one chain in sequential k order,
//   c = a[i][0] * b[0][j] (rounded), then c = fma(a[i][p], b[p][j], c) for p = 1, ..., k-1,
// and with ACCUMULATE (or after the first kc block, whose result is in C) the chain continues from
// the C in memory: c = fma(a[i][p], b[p][j], c) for every p.
// That order does not depend on the tile, the blocking, the target, VLEN or the thread count, so
// every target and thread count gives the same bits, NaN payloads aside (matmul_test.cc
// compares every result with that chain computed by std::fma). Starting from the first product
// rather than from 0 keeps a zero vector group out of the tile (RVV spilled it at LMUL 8).
// Error bound (recursive summation, Higham (3.4); an FMA rounds once per step): |C - C64| <=
// gamma_(k-1) * sum_p |A[i][p]| |B[p][j]| ~ (k - 1) * 2^-24 * sum; the contract's 2 * k * 2^-24 *
// sum is what the tests assert (k up to 4096). With ACCUMULATE the old C is the chain's first
// term: k + 1 terms, |C_old| added to the sum. NaN and inf propagate as IEEE (inf * 0 = NaN,
// inf - inf = NaN).
//
// Register tiles (MR rows x NR = one vector group; a narrow tile, half the group, when n fits one
// narrow panel, where the wide one would be at least half padding):
//   AVX-512 6 x 64 (LMUL 4: 24 zmm accumulators + 4 for B + 1 broadcast); narrow 14 x 32. The
//           14 x 32 tile for every n measured 78 / 77 / 72 % of peak against 85 / 84 / 79.
//   AVX2    6 x 16 (LMUL 2: 12 ymm accumulators + 2 for B + 1 broadcast); narrow 12 x 8
//   RVV     6 x (4 * VLEN / 32) (LMUL 4: 6 accumulator groups + 2 B groups, software-pipelined;
//           vfmacc.vf reads A from an f register); narrow 8 x (2 * VLEN / 32) (LMUL 2).
//           Spill-free (ctest rvv.spill_check).
//   scalar  4 x 4
// Cost per k step of a tile: 1 vector-group load of B, MR scalar loads (RVV flw) or broadcasts
// (x86 vbroadcastss) of A, MR fused multiply-adds of a group.
// RVV tile by modelled cycles (2026-11-26, llvm-mca 22.1.8, clang 19.1.7; peak 8 FMA/cycle on all
// three models: vfmacc.vf e32 m1 1 cycle at VLEN 256 on the X60, 2 at 512 on the X280, 0.5 at 128
// on the P670). The main k loop's body (scripts/rvv-cycles --match Panel), % of peak on
// spacemit-x60 / sifive-x280 / sifive-p670:
//   LMUL 8 x 3 rows, B loaded just before its FMAs (before)   59 / 94 / 100
//   LMUL 4 x 6 rows, next step's B and A loaded first (now)   87 / 84 / 100
//   LMUL 2 x 8 rows, the same (the narrow tile)                80 / 72 / 100
// The in-order X60 issues the three vfmacc.vf m8 only after the B load's 8-cycle latency, every
// step; with the next step's load issued before the current step's FMAs the load pipe runs under
// them. Hand-written bodies under llvm-mca put LMUL 4 x 7 rows (not pipelined: no register
// group left) at 73 / 80 and LMUL 2 x 14 rows pipelined at 85 / 77, but clang keeps 14 row
// pointers only by reloading them from the stack (72 % on the X60).
// Whole calls (qemu-icount's instructions weighted by each model's reciprocal throughputs,
// tools/qemu-icount/rvv-costs.tsv: packing, edges and loop overhead included, but no overlap of
// the load and FMA pipes), % of peak at 64^3 / 128^3 / 256^3, before -> now:
//   spacemit-x60 (VLEN 256)  49.4 / 53.3 / 54.5 -> 56.5 / 60.2 / 63.2
//   sifive-x280  (VLEN 512)  63.8 / 67.5 / 68.8 -> 65.9 / 70.3 / 73.5
//   sifive-p670  (VLEN 128)  48.3 / 51.7 / 52.7 -> 52.5 / 55.7 / 58.5
// That sum cannot reach 75 % on the X60 with vfmacc.vf: per k step a tile of MR rows x G groups
// at LMUL L pays MR * G * L cycles of FMAs, G loads of B (4 / 8 / 16 cycles at m2 / m4 / m8) and
// MR flw (0.5 each); within 32 vector registers the best is LMUL 2 x 15 rows, 30 / (30 + 4 + 7.5)
// = 72 %, before loop overhead. More instructions than LMUL 8 (qemu-icount, 64^3: 28,069 against
// 17,412 at VLEN 256): every vector instruction counts one whatever its LMUL.
// Measured (qemu-icount, 64 x 64 x 64, tests/icount): 0.206 / 0.107 / 0.057 instructions per FMA
// at VLEN 128 / 256 / 512 (53,948 / 27,986 / 15,005); clang -O3's auto-vectorised plain C
// (src/ops/matmul/matmul_peer.c) 2.09 / 1.59 / 9.09: 10x / 15x / 159x more.
// Speed (Xeon with AVX-512, 2026-11-23, one thread, thread CPU time, best of 3, FMA peak 220
// GFLOP/s in the same run): 64^3 - 2048^3 and 256x512x256 at 76-83 % of peak, 12-36 % ahead of
// OpenBLAS and 1-21 % ahead of oneDNN 2.6; Q K^T 512x512x64 at 96 % of oneDNN. Two threads (wall
// time, 2 vCPUs): 1.73-1.95x one thread from 192^3 up; 128^3 and below stay on one thread.
#include <cstddef>
#include <cstdint>

#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

// Two tiles per target: the wide one, and a narrow one (half the group, more rows) for calls whose
// n fits one narrow panel, where the wide tile would be at least half padding (attention's P V
// with head_dim 64 at VLEN 512, or n = 32 on AVX-512). Registers: accumulators MR groups + one B
// group (+ one broadcast register on x86; RVV's vfmacc.vf reads A from an f register).
// RVV: LMUL 8 with 3 rows retires the fewest instructions per FMA (every vector instruction counts
// one whatever the LMUL), but on the in-order X60 model its B load (16 cycles at m8) stalls the
// three vfmacc.vf behind it, and there is no register group left to load the next step's B early.
#if defined(VLAK_SIMD_RVV)
// Chosen by modelled cycles, not instruction counts (llvm-mca-22's spacemit-x60, sifive-x280 and
// sifive-p670; the comment at the top of this file has the figures). Software-pipelined (below):
// two B groups live.
constexpr int kPow2 = 2;  // 6 x 4 + 2 x 4 = 32 registers
constexpr size_t kMR = 6;
constexpr int kNarrowPow2 = 1;  // 8 x 2 + 2 x 2 = 20
constexpr size_t kNarrowMR = 8;
constexpr bool kPipelined = true;
#elif defined(VLAK_SIMD_AVX512)
constexpr int kPow2 = 2;  // 6 x 4 + 4 + 1 = 29 zmm
constexpr size_t kMR = 6;
constexpr int kNarrowPow2 = 1;  // 14 x 2 + 2 + 1 = 31
constexpr size_t kNarrowMR = 14;
constexpr bool kPipelined = false;
#elif defined(VLAK_SIMD_AVX2)
constexpr int kPow2 = 1;  // 6 x 2 + 2 + 1 = 15 ymm
constexpr size_t kMR = 6;
constexpr int kNarrowPow2 = 0;  // 12 + 1 + 1 = 14
constexpr size_t kNarrowMR = 12;
constexpr bool kPipelined = false;
#else
constexpr int kPow2 = 0;
constexpr size_t kMR = 4;
constexpr int kNarrowPow2 = 0;  // no narrower group: the same tile
constexpr size_t kNarrowMR = 4;
constexpr bool kPipelined = false;
#endif
using DF = Simd<float, kPow2>;
using DFNarrow = Simd<float, kNarrowPow2>;

// kc: the A micro-panel (MR x kc floats, 6 KiB at kc = 256) stays in L1 while the B panels stream.
// B block: kc x nc floats, 1 MiB, in L2.
constexpr size_t kKc = 256;
constexpr size_t kBlockFloats = size_t{1} << 18;

#define VLAK_MM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
static_assert(kMR <= 16 && kNarrowMR <= 16, "VLAK_MM_ROWS covers 16 rows");

// One row micro-panel of C (rows <= kMR rows from c, ncols columns) against the packed B block
// (panels of Lanes(d) columns, kc deep). Out of line: one call per micro-panel and kc block.
template <size_t kMR_, class D>
[[gnu::noinline]] void Panel(D d, size_t kc, const float* a, size_t lda, size_t rows, const float* pb,
                             size_t ncols, float* c, size_t ldc, bool load_c) {
  const size_t nr = Lanes(d);
  // Rows past the end read row 0 again (computed, never stored): no padding copy of A.
#define VLAK_MM_APTR(i) [[maybe_unused]] const float* const a##i = a + (i < rows ? i : 0) * lda;
  VLAK_MM_ROWS(VLAK_MM_APTR)
#undef VLAK_MM_APTR
  for (size_t j = 0; j < ncols; j += nr, pb += kc * nr, c += nr) {
    const size_t cols = ncols - j < nr ? ncols - j : nr;
    const bool full = cols == nr;
    // k step 0 starts the chains: the product alone (no zero vector: RVV cannot rematerialise
    // a splat of 0 and spilled a whole LMUL-8 group for it), or an FMA onto C. A partial tile
    // loads C as a strip; its lanes >= cols are unspecified and never stored.
    const float* b = pb;
    const VFromD<D> b0 = LoadU(d, b);
#define VLAK_MM_INIT(i)                                                                             \
  [[maybe_unused]] VFromD<D> c##i = b0;                                                             \
  if constexpr (i < kMR_) {                                                                         \
    if (load_c && i < rows) {                                                                       \
      c##i = MulAdd(d, b0, a##i[0], full ? LoadU(d, c + i * ldc) : LoadU(Strip(d, cols), c + i * ldc)); \
    } else {                                                                                        \
      c##i = Mul(d, b0, a##i[0]);                                                                   \
    }                                                                                               \
  }
    VLAK_MM_ROWS(VLAK_MM_INIT)
#undef VLAK_MM_INIT
#define VLAK_MM_FMA(i) \
  if constexpr (i < kMR_) c##i = MulAdd(d, bv, a##i[p], c##i);
    size_t p = 1;
    b += nr;
    if constexpr (kPipelined) {
      // Software-pipelined for in-order cores: step p + 1's B group and A scalars are loaded
      // before step p's fused multiply-adds, so on the X60 (in-order, dual issue) the vector
      // load and the flw run under the previous step's vfmacc instead of stalling the next one
      // for their latency. Two B groups and two sets of MR A scalars are live. The loop stops
      // one step early so the look-ahead never reads past the panel; the tail reloads.
      if (kc > 4) {
        VFromD<D> bn = LoadU(d, b);
#define VLAK_MM_AN(i) [[maybe_unused]] float an##i = i < kMR_ ? a##i[1] : 0.0f;
        VLAK_MM_ROWS(VLAK_MM_AN)
#undef VLAK_MM_AN
#define VLAK_MM_FMA_PIPE(i)                 \
  if constexpr (i < kMR_) {                 \
    const float ac##i = an##i;              \
    an##i = a##i[p + 1];                    \
    c##i = MulAdd(d, bv, ac##i, c##i);      \
  }
        for (; p + 4 < kc;) {
          for (int u = 0; u < 4; ++u, ++p, b += nr) {
            const VFromD<D> bv = bn;
            bn = LoadU(d, b + nr);
            VLAK_MM_ROWS(VLAK_MM_FMA_PIPE)
          }
        }
#undef VLAK_MM_FMA_PIPE
      }
    } else {
      // Unrolled by 4 (the order per accumulator stays p = 1, 2, ...): on RVV the row pointers'
      // increments and the branch are paid once per 4 steps.
      for (; p + 4 <= kc;) {
        for (int u = 0; u < 4; ++u, ++p, b += nr) {
          const VFromD<D> bv = LoadU(d, b);
          VLAK_MM_ROWS(VLAK_MM_FMA)
        }
      }
    }
    for (; p < kc; ++p, b += nr) {
      const VFromD<D> bv = LoadU(d, b);
      VLAK_MM_ROWS(VLAK_MM_FMA)
    }
#undef VLAK_MM_FMA
#define VLAK_MM_STORE(i)                                   \
  if constexpr (i < kMR_) {                                \
    if (i < rows) {                                        \
      if (full) {                                          \
        StoreU(d, c##i, c + i * ldc);                      \
      } else {                                             \
        StoreN(d, c##i, c + i * ldc, cols);                \
      }                                                    \
    }                                                      \
  }
    VLAK_MM_ROWS(VLAK_MM_STORE)
#undef VLAK_MM_STORE
  }
}

// Panels hold NR floats per k step: 32 bytes for AVX2's narrow tile, 16 for scalar, so the
// panel accesses are LoadU/StoreU (the aligned forms promise 64 bytes).
// Packs B[0:kc, 0:ncols] (b points at its first element; with trans, b is the n x k matrix at
// row j0, column pc) into panels [ncols/NR][kc][NR], the last panel zero-padded.
template <class D>
[[gnu::noinline]] void PackB(D d, size_t kc, size_t ncols, const float* b, size_t ldb, bool trans, float* dst) {
  const size_t nr = Lanes(d);
  for (size_t j = 0; j < ncols; j += nr, dst += kc * nr) {
    const size_t cols = ncols - j < nr ? ncols - j : nr;
    if (!trans) {
      const float* src = b + j;
      if (cols == nr) {
        for (size_t p = 0; p < kc; ++p) StoreU(d, LoadU(d, src + p * ldb), dst + p * nr);
      } else {
        for (size_t p = 0; p < kc; ++p) StoreU(d, LoadN(d, src + p * ldb, cols), dst + p * nr);
      }
    } else {
      // Column p of the panel is row segment p of B^T: a strided load across the n x k rows.
      const float* src = b + j * ldb;
      const auto ds = Strip(d, cols);
      for (size_t p = 0; p < kc; ++p) {
        if (cols != nr) StoreU(d, Zero(d), dst + p * nr);
        StoreN(d, LoadStrided(ds, src + p, static_cast<ptrdiff_t>(ldb)), dst + p * nr, cols);
      }
    }
  }
}

size_t NcFor(size_t nr) {
  const size_t nc = kBlockFloats / kKc / nr * nr;
  return nc > nr ? nc : nr;
}

bool UseNarrow(size_t n) { return kNarrowPow2 != kPow2 && n <= Lanes(DFNarrow()); }

template <size_t kMR_, class D>
void Block(D d, const MatmulArgs& g, size_t i0, size_t i1, size_t j0, size_t j1, float* scratch) {
  const size_t nr = Lanes(d);
  const size_t nc = NcFor(nr);
  for (size_t jc = j0; jc < j1; jc += nc) {
    const size_t ncur = j1 - jc < nc ? j1 - jc : nc;
    for (size_t pc = 0; pc < g.k; pc += kKc) {
      const size_t kc = g.k - pc < kKc ? g.k - pc : kKc;
      const float* bsrc = g.b_trans ? g.b + jc * g.ldb + pc : g.b + pc * g.ldb + jc;
      PackB(d, kc, ncur, bsrc, g.ldb, g.b_trans, scratch);
      const bool load_c = g.accumulate || pc > 0;
      for (size_t i = i0; i < i1; i += kMR_) {
        const size_t rows = i1 - i < kMR_ ? i1 - i : kMR_;
        Panel<kMR_>(d, kc, g.a + i * g.lda + pc, g.lda, rows, scratch, ncur, g.c + i * g.ldc + jc, g.ldc, load_c);
      }
    }
  }
}

}  // namespace

// The blocking for a call with n columns (the tile is chosen by n). scratch_floats covers both
// tiles' blocks.
MatmulShape MatmulShapeF32(size_t n) {
  const bool narrow = UseNarrow(n);
  const size_t nr = narrow ? Lanes(DFNarrow()) : Lanes(DF());
  const size_t scratch = kKc * NcFor(Lanes(DF())) > kKc * NcFor(Lanes(DFNarrow())) ? kKc * NcFor(Lanes(DF()))
                                                                                      : kKc * NcFor(Lanes(DFNarrow()));
  return MatmulShape{narrow ? kNarrowMR : kMR, nr, kKc, NcFor(nr), scratch, narrow};
}

// C[i0:i1, j0:j1] of the call, single-threaded, with the tile of MatmulShapeF32(g.n) (narrow:
// its field); scratch holds its scratch_floats, 64-byte aligned. k > 0.
void MatmulBlockF32(const MatmulArgs& g, bool narrow, size_t i0, size_t i1, size_t j0, size_t j1, float* scratch) {
  if (narrow) return Block<kNarrowMR>(DFNarrow(), g, i0, i1, j0, j1, scratch);
  Block<kMR>(DF(), g, i0, i1, j0, j1, scratch);
}

// Several threads share one packed copy of B (matmul.cc): B[pc : pc + kc, j0 : j0 + ncols]
// (j0 a multiple of the tile's NR) packed into dst as that many panels [ncols/NR][kc][NR].
void MatmulPackBF32(const MatmulArgs& g, bool narrow, size_t pc, size_t kc, size_t j0, size_t ncols, float* dst) {
  const float* bsrc = g.b_trans ? g.b + j0 * g.ldb + pc : g.b + pc * g.ldb + j0;
  if (narrow) return PackB(DFNarrow(), kc, ncols, bsrc, g.ldb, g.b_trans, dst);
  PackB(DF(), kc, ncols, bsrc, g.ldb, g.b_trans, dst);
}

// C[i0:i1, j0:j0 + ncols] += the kc block at pc, from panels packed by MatmulPackBF32 (the
// chain continues from C when pc > 0 or with ACCUMULATE): a kc step of Block's loop.
void MatmulPackedRowsF32(const MatmulArgs& g, bool narrow, size_t pc, size_t kc, const float* packed, size_t j0,
                         size_t ncols, size_t i0, size_t i1) {
  const bool load_c = g.accumulate || pc > 0;
  const size_t mr = narrow ? kNarrowMR : kMR;
  for (size_t i = i0; i < i1; i += mr) {
    const size_t rows = i1 - i < mr ? i1 - i : mr;
    if (narrow) {
      Panel<kNarrowMR>(DFNarrow(), kc, g.a + i * g.lda + pc, g.lda, rows, packed, ncols, g.c + i * g.ldc + j0, g.ldc,
                       load_c);
    } else {
      Panel<kMR>(DF(), kc, g.a + i * g.lda + pc, g.lda, rows, packed, ncols, g.c + i * g.ldc + j0, g.ldc, load_c);
    }
  }
}

VLAK_KERNELS_DEFINED(VLAK_MATMUL_KERNELS)

}  // namespace vlak::VLAK_NS
