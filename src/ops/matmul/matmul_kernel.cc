// Matmul f32 kernels, generic over the tag: compiled once per target.
//
// Algorithm: GotoBLAS/BLIS blocking, transposed for row-major C with the vector along n: B packed
//   per block (kc rows by nc, 1 MiB, L2-resident; kc 512 on x86, 256 elsewhere: matmul_config.h)
//   into [nc/NR][kc][NR] panels; A read in place through MR row pointers (L1); an MR x NR tile of
//   accumulators, c_i = MulAdd(b, A[i][p], c_i) per k step. x86 runs each packed block
//   panel-outer (PackedRows, each row tile prefetching its share of the next panel; AVX-512 asks
//   for its C lines before its k loop), RVV and scalar row-outer; x86 packs B row by row, and
//   TRANS_B's W by transposes.
// Order: each C element is one FMA chain in sequential k order, from a[i][0] * b[0][j] (or from C
//   with ACCUMULATE / after the first kc block): the same bits on every target, VLEN and thread
//   count, NaN payloads aside. Bound (vlak.h): |C - C64| <= 2 k 2^-24 sum_p |A[i][p]| |B[p][j]|
//   (Higham (3.4): gamma_(k-1) sum). NaN and inf propagate (inf * 0 = NaN, inf - inf = NaN).
// Epilogue (vlak_matmul_ex_f32): c = act(c + bias), BiasActivationRowsF32 per micro-panel in L1.
// Cost per k step of a tile: 1 vector-group load of B, MR scalar loads or broadcasts of A, MR FMAs.
// Tiles (AVX-512 6 x 64, AVX2 6 x 16, RVV 6 x (4 VLEN / 32), narrow ones), the loop nest, the
//   bound's derivation and the measurements: docs/ops/matmul.md.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <array>
#include <utility>

#include "ops/activation/activation_kernels.h"
#include "ops/buffer_pool.h"
#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_config.h"
#include "ops/matmul/matmul_kernels.h"
#include "parallel/parallel.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {

// Defined below; x86's Block runs it too, over the block it has just packed.
template <size_t kMR_, class D>
void PackedRows(D d, const MatmulArgs& g, size_t pc, size_t kc, const float* packed, size_t j0, size_t ncols,
                size_t i0, size_t i1);

// The epilogue (vlak_matmul_ex_f32) is the activation kernels' BiasActivationRowsF32 of this
// target, run on each tile of C right after its last k block is stored (still in L1).
VLAK_ACTIVATION_KERNELS(VLAK_DECLARE_KERNEL)

namespace {

// C[0:rows, 0:cols] (row stride ldc; column j0 of the call) gets the epilogue, if the call has one.
inline void Epilogue(const MatmulArgs& g, float* c, size_t rows, size_t j0, size_t cols) {
  if (g.HasEpilogue()) BiasActivationRowsF32(g.act, rows, cols, g.bias != nullptr ? g.bias + j0 : nullptr, c, g.ldc);
}

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

// kc: the A micro-panel (MR x kc floats, 6 KiB at kc = 256, 12 KiB at 512) stays in L1 while the
// B panels stream. B block: kc x nc floats, 1 MiB, in L2. Per target: matmul_config.h.
constexpr size_t kKc = kMatmulBlockConfig.kc;
constexpr size_t kBlockFloats = kMatmulBlockConfig.block_floats;

// x86 prefetches B in software: one stream per Panel call, kPf prefetches per 4 k steps at pf,
// pf + pf_stride, ... (a count fixed at compile time, so the loop body stays straight-line and
// scripts/x86-cycles models it). RVV's in-order loop has its own pipelining and keeps its
// instruction count:
// - PackedRows (x86's Block, and MatmulPackedRowsF32) runs panel-outer: each row tile of a
//   panel fetches its share of the next panel into L2, so a B read from memory (a model's
//   weights, cold after the other layers ran) arrives while the panel's row tiles compute,
//   instead of in the first row tile's pass, which at 256 bytes per 24 FMAs runs at memory speed
//   (docs/ops/matmul.md).
//   One prefetch per 4 k steps covers a share when a panel has 16 row tiles or more; fewer take
//   the dense count, one per 64 bytes of B read (more tiles would prefetch one line many times
//   over, each a load-port slot: docs/ops/matmul.md).
#if defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_AVX2)
constexpr bool kPrefetch = true;
#else
constexpr bool kPrefetch = false;
#endif
constexpr size_t kPrefetchAheadFloats = 8192 / sizeof(float);
constexpr size_t kLineFloats = 64 / sizeof(float);
constexpr size_t kPackedRowsABytes = size_t{128} << 10;
// Prefetches per 4 k steps, dense: one per 64 bytes of B read (at least one).
template <class D>
constexpr size_t PfDense(D d) {
  return 4 * MaxLanes(d) / kLineFloats > 0 ? 4 * MaxLanes(d) / kLineFloats : 1;
}
constexpr size_t kPackedRowsSparseTiles = 16;
constexpr size_t kPanelGroupCols = 64;
constexpr bool kPackByRows = kPrefetch;  // PackB: B read row by row (x86), or panel by panel

#define VLAK_MM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
static_assert(kMR <= 16 && kNarrowMR <= 16, "VLAK_MM_ROWS covers 16 rows");

// AVX-512: asks for the lines of C[0:rows, 0:cols] (row stride ldc) for writing (prefetchw: the
// build has PRFCHW). A tile's first k block stores C without reading it: 24 lines at the end of
// each 6 x 64 tile, each store that misses L1 waiting for its line's read-for-ownership, which
// went unhidden when C is larger than the L2. Asked for at the tile's start, the lines arrive
// under its k loop. AVX2's Panel stores 6 lines per 6 x 16 tile, four tiles a call, and was
// slower with it. Measurements: docs/ops/matmul.md.
#if defined(VLAK_SIMD_AVX512)
constexpr bool kPrefetchC = true;
#else
constexpr bool kPrefetchC = false;
#endif
[[gnu::always_inline, maybe_unused]] inline void PrefetchTileForWrite(const float* c, size_t ldc, size_t rows,
                                                                      size_t cols) {
  for (size_t i = 0; i < rows; ++i) {
    for (size_t l = 0; l < cols; l += kLineFloats) __builtin_prefetch(c + i * ldc + l, 1, 3);
  }
}

// One row micro-panel of C (rows <= kMR rows from c, ncols columns) against the packed B block
// (panels of Lanes(d) columns, kc deep). Out of line: one call per micro-panel and kc block.
// x86: every 4 k steps (the unrolled loop's), kPf prefetches (kL2: into L2) pf_stride floats apart
// from pf, then pf moves past them. Prefetches never fault, so pf may run past the end of B.
// AVX-512, C's lines: a tile stored without being read (!load_c) asks for its own lines for writing
// at the start of its k loop; a tile that loads C asks for those of c_next (next_rows rows, the
// same columns: the next call's tile, or nullptr), as its own loads come first.
template <size_t kMR_, bool kL2, size_t kPf, class D>
[[gnu::noinline]] void Panel(D d, size_t kc, const float* a, size_t lda, size_t rows, const float* pb,
                             size_t ncols, float* c, size_t ldc, bool load_c, const float* pf, size_t pf_stride,
                             const float* c_next = nullptr, size_t next_rows = 0) {
  const size_t nr = Lanes(d);
  // Rows past the end read row 0 again (computed, never stored): no padding copy of A.
#define VLAK_MM_APTR(i) [[maybe_unused]] const float* const a##i = a + (i < rows ? i : 0) * lda;
  VLAK_MM_ROWS(VLAK_MM_APTR)
#undef VLAK_MM_APTR
  for (size_t j = 0; j < ncols; j += nr, pb += kc * nr, c += nr) {
    const size_t cols = ncols - j < nr ? ncols - j : nr;
    const bool full = cols == nr;
    if constexpr (kPrefetchC) {
      if (!load_c) {
        PrefetchTileForWrite(c, ldc, rows, cols);
      } else if (c_next != nullptr) {
        PrefetchTileForWrite(c_next + j, ldc, next_rows, cols);
      }
    }
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
        if constexpr (kPrefetch) {
          for (size_t q = 0; q < kPf; ++q) __builtin_prefetch(pf + q * pf_stride, 0, kL2 ? 2 : 3);
          pf += kPf * pf_stride;
        }
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

// Panel for a row tile of `rows` <= kMR_ rows. x86, the main tile (kMR rows): a tile of fewer rows
// (the last of a call or a task) runs the kernel of exactly that many rows, whose missing rows
// cost no FMAs (128 rows are 21 tiles of 6 and one of 2: the full kernel would spend 22 tiles'
// FMAs on 21.3 tiles' work). The narrow tiles (up to 14 rows, for n of one or two vectors) and RVV
// and scalar keep the full kernel (code size; RVV's instruction budgets and register allocation).
template <bool kL2, size_t kPf, class D, size_t... R>
constexpr auto PanelsByRows(std::index_sequence<R...>) {
  return std::array{&Panel<R + 1, kL2, kPf, D>...};
}
template <size_t kMR_, bool kL2, size_t kPf, class D>
[[gnu::always_inline]] inline void PanelRows(D d, size_t kc, const float* a, size_t lda, size_t rows, const float* pb,
                                             size_t ncols, float* c, size_t ldc, bool load_c, const float* pf,
                                             size_t pf_stride, const float* c_next, size_t next_rows) {
  if constexpr (kPrefetch && kMR_ == kMR) {
    if (rows < kMR_) {
      static constexpr auto kFns = PanelsByRows<kL2, kPf, D>(std::make_index_sequence<kMR_ - 1>{});
      return kFns[rows - 1](d, kc, a, lda, rows, pb, ncols, c, ldc, load_c, pf, pf_stride, c_next, next_rows);
    }
  }
  Panel<kMR_, kL2, kPf>(d, kc, a, lda, rows, pb, ncols, c, ldc, load_c, pf, pf_stride, c_next, next_rows);
}

// With TRANS_B, B's kc x cols pieces are transposed from W (n x k), bt[p][r] = w[r][p]: into
// PackB's panels and into the direct kernel's L1 buffer (and the direct kernel's rows of A into
// [p][r]). x86 transposes 16 x 16 (AVX-512) and 8 x 8 blocks in registers (unpack, then 128-bit
// lane shuffles); edges copy element-wise.
#if defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_AVX2)
[[gnu::always_inline]] inline void TransposeBlock4(const float* w, size_t ldw, float* bt, size_t ldbt) {
  const __m128 r0 = _mm_loadu_ps(w), r1 = _mm_loadu_ps(w + ldw), r2 = _mm_loadu_ps(w + 2 * ldw),
               r3 = _mm_loadu_ps(w + 3 * ldw);
  const __m128 t0 = _mm_unpacklo_ps(r0, r1), t1 = _mm_unpackhi_ps(r0, r1), t2 = _mm_unpacklo_ps(r2, r3),
               t3 = _mm_unpackhi_ps(r2, r3);
  _mm_storeu_ps(bt, _mm_movelh_ps(t0, t2));
  _mm_storeu_ps(bt + ldbt, _mm_movehl_ps(t2, t0));
  _mm_storeu_ps(bt + 2 * ldbt, _mm_movelh_ps(t1, t3));
  _mm_storeu_ps(bt + 3 * ldbt, _mm_movehl_ps(t3, t1));
}
[[gnu::always_inline]] inline void TransposeBlock8(const float* w, size_t ldw, float* bt, size_t ldbt) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(w + i * ldw);
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    const __m256d t0 = _mm256_castps_pd(t[4 * i]), t1 = _mm256_castps_pd(t[4 * i + 1]);
    const __m256d t2 = _mm256_castps_pd(t[4 * i + 2]), t3 = _mm256_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm256_castpd_ps(_mm256_unpacklo_pd(t0, t2));
    r[4 * i + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(t0, t2));
    r[4 * i + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(t1, t3));
    r[4 * i + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(t1, t3));
  }
  for (int q = 0; q < 4; ++q) {
    _mm256_storeu_ps(bt + q * ldbt, _mm256_permute2f128_ps(r[q], r[4 + q], 0x20));
    _mm256_storeu_ps(bt + (4 + q) * ldbt, _mm256_permute2f128_ps(r[q], r[4 + q], 0x31));
  }
}
#endif
#if defined(VLAK_SIMD_AVX512)
constexpr size_t kTBlock = 16;
[[gnu::always_inline]] inline void TransposeBlock(const float* w, size_t ldw, float* bt, size_t ldbt) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(w + i * ldw);
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // r[4 i + q], 128-bit lane l: rows 4 i .. 4 i + 3 of column 4 l + q.
  for (int i = 0; i < 4; ++i) {
    const __m512d t0 = _mm512_castps_pd(t[4 * i]), t1 = _mm512_castps_pd(t[4 * i + 1]);
    const __m512d t2 = _mm512_castps_pd(t[4 * i + 2]), t3 = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
  }
  for (int q = 0; q < 4; ++q) {
    const __m512 u0 = _mm512_shuffle_f32x4(r[q], r[4 + q], 0x44), u1 = _mm512_shuffle_f32x4(r[q], r[4 + q], 0xEE);
    const __m512 v0 = _mm512_shuffle_f32x4(r[8 + q], r[12 + q], 0x44), v1 = _mm512_shuffle_f32x4(r[8 + q], r[12 + q], 0xEE);
    _mm512_storeu_ps(bt + q * ldbt, _mm512_shuffle_f32x4(u0, v0, 0x88));
    _mm512_storeu_ps(bt + (4 + q) * ldbt, _mm512_shuffle_f32x4(u0, v0, 0xDD));
    _mm512_storeu_ps(bt + (8 + q) * ldbt, _mm512_shuffle_f32x4(u1, v1, 0x88));
    _mm512_storeu_ps(bt + (12 + q) * ldbt, _mm512_shuffle_f32x4(u1, v1, 0xDD));
  }
}
#elif defined(VLAK_SIMD_AVX2)
constexpr size_t kTBlock = 8;
[[gnu::always_inline]] inline void TransposeBlock(const float* w, size_t ldw, float* bt, size_t ldbt) {
  TransposeBlock8(w, ldw, bt, ldbt);
}
#else
constexpr size_t kTBlock = 0;
[[maybe_unused]] inline void TransposeBlock(const float*, size_t, float*, size_t) {}
#endif

[[maybe_unused]] void TransposeW(const float* w, size_t ldw, size_t cols, size_t kc, float* bt, size_t ldbt) {
  size_t r0 = 0;
  if constexpr (kTBlock > 0) {
    const size_t pe = kc / kTBlock * kTBlock;
    for (; r0 + kTBlock <= cols; r0 += kTBlock) {
      for (size_t p = 0; p < pe; p += kTBlock) TransposeBlock(w + r0 * ldw + p, ldw, bt + p * ldbt + r0, ldbt);
      for (size_t p = pe; p < kc; ++p) {
        for (size_t r = r0; r < r0 + kTBlock; ++r) bt[p * ldbt + r] = w[r * ldw + p];
      }
    }
  }
#if defined(VLAK_SIMD_AVX512) || defined(VLAK_SIMD_AVX2)
  // What the big blocks leave, 8 rows (AVX-512) and then 4 at a time: the direct kernel's rows of
  // A, 1 to 16 of them.
  auto narrower = [&](auto rows, auto block) {
    if (r0 + rows > cols) return;
    const size_t pe = kc / rows * rows;
    for (size_t p = 0; p < pe; p += rows) block(w + r0 * ldw + p, ldw, bt + p * ldbt + r0, ldbt);
    for (size_t p = pe; p < kc; ++p) {
      for (size_t r = r0; r < r0 + rows; ++r) bt[p * ldbt + r] = w[r * ldw + p];
    }
    r0 += rows;
  };
  if constexpr (kTBlock > 8) narrower(std::integral_constant<size_t, 8>{}, TransposeBlock8);
  narrower(std::integral_constant<size_t, 4>{}, TransposeBlock4);
#endif
  for (size_t r = r0; r < cols; ++r) {
    for (size_t p = 0; p < kc; ++p) bt[p * ldbt + r] = w[r * ldw + p];
  }
}

// Panels hold NR floats per k step: 32 bytes for AVX2's narrow tile, 16 for scalar, so the
// panel accesses are LoadU/StoreU (the aligned forms promise 64 bytes).
// Packs B[0:kc, 0:ncols] (b points at its first element; with trans, b is the n x k matrix at
// row j0, column pc) into panels [ncols/NR][kc][NR], the last panel zero-padded.
template <class D>
[[gnu::noinline]] void PackB(D d, size_t kc, size_t ncols, const float* b, size_t ldb, bool trans, float* dst) {
  const size_t nr = Lanes(d);
  if (kPackByRows && !trans) {
    // x86, row by row: B's rows are read front to back and each row's NR-column pieces go to
    // their panels (ncols / NR sequential write streams), which the prefetchers follow better
    // than NR floats from every row, ldb apart (docs/ops/matmul.md). RVV keeps the panel loop:
    // the row loop's short inner loop retires more instructions (its budgets).
    const size_t full = ncols / nr * nr;
    for (size_t p = 0; p < kc; ++p) {
      const float* const src = b + p * ldb;
      float* out = dst + p * nr;
      size_t j = 0;
      for (; j < full; j += nr, out += kc * nr) StoreU(d, LoadU(d, src + j), out);
      if (j < ncols) StoreU(d, LoadN(d, src + j, ncols - j), out);
    }
    return;
  }
  for (size_t j = 0; j < ncols; j += nr, dst += kc * nr) {
    const size_t cols = ncols - j < nr ? ncols - j : nr;
    if (!trans) {
      const float* src = b + j;
      if (cols == nr) {
        for (size_t p = 0; p < kc; ++p) StoreU(d, LoadU(d, src + p * ldb), dst + p * nr);
      } else {
        for (size_t p = 0; p < kc; ++p) StoreU(d, LoadN(d, src + p * ldb, cols), dst + p * nr);
      }
    } else if constexpr (kTBlock > 0) {
      // x86: W's rows read front to back and transposed in registers (a strided load is a gather).
      if (cols != nr) {
        for (size_t p = 0; p < kc; ++p) StoreU(d, Zero(d), dst + p * nr);
      }
      TransposeW(b + j * ldb, ldb, cols, kc, dst, nr);
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
      if constexpr (kPrefetch) {
        PackedRows<kMR_>(d, g, pc, kc, scratch, jc, ncur, i0, i1);
      } else {
        const bool load_c = g.accumulate || pc > 0;
        const bool last = pc + kc == g.k;
        for (size_t i = i0; i < i1; i += kMR_) {
          const size_t rows = i1 - i < kMR_ ? i1 - i : kMR_;
          Panel<kMR_, false, PfDense(D())>(d, kc, g.a + i * g.lda + pc, g.lda, rows, scratch, ncur,
                                           g.c + i * g.ldc + jc, g.ldc, load_c, scratch + kPrefetchAheadFloats,
                                           4 * Lanes(d) / PfDense(d));
          if (last) Epilogue(g, g.c + i * g.ldc + jc, rows, jc, ncur);
        }
      }
    }
  }
}


// Direct kernel (few rows; on AVX-512 also more rows when B is in cache and A or B is small or
// each thread's rows few: MatmulTakesDirect): no packing. B streams from where it is, row p of the
// strip at a time, while the r rows of A (kc floats each) stay in L1 and an r x V register tile of
// C accumulates; a pass reads each B element once per r rows (once for m <= direct_rows). Same
// chains as the packed kernel: each C element is the sequential fma chain from a[i][0] * b[0][j]
// (from C with ACCUMULATE, and after each kc block, where the chains are stored and reloaded:
// exact; with several rows, to and from a buffer of the pass's tiles, each tile's rows together),
// so the bits are those of every other path. Cost per k step: V vector loads of B, r
// broadcasts of A (memory operands of the FMAs on x86), r x V FMAs, and on AVX-512, for B in
// cache, prefetches of the lines after the tile's in the same row of B, which the next strip
// reads (all V of them up to kNextStripLines vectors, else the first).
// B from memory comes as a few sequential streams (direct_kc_stream) that the hardware prefetchers
// follow, and the prefetch slowed them; AVX2's strips of 8 floats share lines, and it slowed those
// too. With two passes over B from memory (AVX2, 9-16 rows) each k block is read by both passes in
// turn (DirectTwoPassesKN): B comes from memory once.
#if !defined(VLAK_SIMD_RVV)
using D1 = Simd<float, 0>;
constexpr bool kPrefetchNextStrip = kPrefetchC;  // AVX-512 only, as C's prefetch
constexpr size_t kNextStripLines = 4;

template <size_t... I, class F>
[[gnu::always_inline]] inline void UnrollImpl(std::index_sequence<I...>, F&& f) {
  (f(std::integral_constant<size_t, I>{}), ...);
}
template <size_t N, class F>
[[gnu::always_inline]] inline void Unroll(F&& f) {
  UnrollImpl(std::make_index_sequence<N>{}, f);
}

// C[0:R, 0:cols] over kc steps; cols = V * Lanes, or (kTail) (V - 1) * Lanes + tail lanes.
// ap: the R rows of A for these kc steps, packed [kc][R] (one pointer, constant offsets: the
// broadcasts are memory operands of the FMAs, and rows lda apart cannot alias one L1 set).
template <size_t R, size_t V, bool kTail>
[[gnu::noinline]] void DirectTile(const float* ap, const float* b, size_t ldb, size_t kc, float* c, size_t ldc,
                                  size_t tail, bool from_c, bool next_strip) {
  const D1 d;
  const size_t L = Lanes(d);
  const auto dt = Strip(d, tail);
  VFromD<D1> acc[R][V];
  VFromD<D1> bv[V];
  auto load = [&](const float* p, auto v) __attribute__((always_inline)) {
    if constexpr (kTail && v == V - 1) return LoadU(dt, p + v * L);
    else return LoadU(d, p + v * L);
  };
  size_t p = 0;
  if (from_c) {
    Unroll<R>([&](auto r) __attribute__((always_inline)) {
      Unroll<V>([&](auto v) __attribute__((always_inline)) { acc[r][v] = load(c + r * ldc, v); });
    });
  } else {
    Unroll<V>([&](auto v) __attribute__((always_inline)) { bv[v] = load(b, v); });
    Unroll<R>([&](auto r) __attribute__((always_inline)) {
      Unroll<V>([&](auto v) __attribute__((always_inline)) { acc[r][v] = Mul(d, bv[v], ap[r]); });
    });
    p = 1;
  }
  for (; p < kc; ++p) {
    const float* const bp = b + p * ldb;  // formed only for rows of B that exist (ldb may be huge)
    // The next strip's lines in this row (past the end of B for the last strip of its last row:
    // prefetches never fault): each of them for a strip of at most kNextStripLines vectors (passes
    // of 6 rows or more), whose row steps are too short for the hardware to fetch the next strip
    // in time; the first only for wider strips, whose load slots the FMAs already fill.
    if (kPrefetchNextStrip && next_strip) {
      Unroll<(V <= kNextStripLines ? V : 1)>(
          [&](auto v) __attribute__((always_inline)) { __builtin_prefetch(bp + (V + v) * L); });
    }
    Unroll<V>([&](auto v) __attribute__((always_inline)) { bv[v] = load(bp, v); });
    Unroll<R>([&](auto r) __attribute__((always_inline)) {
      const float av = ap[p * R + r];
      Unroll<V>([&](auto v) __attribute__((always_inline)) { acc[r][v] = MulAdd(d, bv[v], av, acc[r][v]); });
    });
  }
  Unroll<R>([&](auto r) __attribute__((always_inline)) {
    Unroll<V>([&](auto v) __attribute__((always_inline)) {
      if constexpr (kTail && v == V - 1) StoreU(dt, acc[r][v], c + r * ldc + v * L);
      else StoreU(d, acc[r][v], c + r * ldc + v * L);
    });
  });
}


// dst[p][r] = A[i + r][p0 + p] for r < rows, p < kc: by the transposes TRANS_B uses for W
// (register blocks where rows is 8 or 16, the rest element-wise; rows by index: a pointer past the
// last row may not exist).
void PackDirectA(const MatmulArgs& g, size_t i, size_t rows, size_t p0, size_t kc, float* dst) {
  TransposeW(g.a + i * g.lda + p0, g.lda, rows, kc, dst, rows);
}

using DirectTileFn = void (*)(const float*, const float*, size_t, size_t, float*, size_t, size_t, bool, bool);

template <size_t R, size_t... I>
constexpr std::array<DirectTileFn, sizeof...(I)> DirectTails(std::index_sequence<I...>) {
  return {&DirectTile<R, I + 1, true>...};
}

// One tile of R rows and `cols` columns (at most a strip of V vectors): the whole strip's tile, or
// the tail tile of as many vectors as cols needs. ct: the tile's C, rows ldc apart.
template <size_t R>
inline void DirectTileCols(float* ct, size_t ldc, size_t cols, const float* a, const float* b, size_t ldb, size_t kc,
                           bool from_c, bool next_strip) {
  constexpr size_t V = MatmulDirectVectors(kMatmulDirectConfig, R);
  static constexpr auto kTails = DirectTails<R>(std::make_index_sequence<V>{});
  const size_t L = Lanes(D1());
  if (cols == V * L) return DirectTile<R, V, false>(a, b, ldb, kc, ct, ldc, L, from_c, next_strip);
  const size_t nv = (cols + L - 1) / L;
  kTails[nv - 1](a, b, ldb, kc, ct, ldc, cols - (nv - 1) * L, from_c, next_strip);
}

// B (or W) streams from memory: more than 8 times the per-core L2 (parallel_rows.h's rule).
inline bool DirectFromMemory(const MatmulArgs& g) {
  return static_cast<double>(g.k) * static_cast<double>(g.n) * sizeof(float) / 8 > static_cast<double>(L2CacheBytes());
}

// B as k x n: whether a pass over R rows reads B as few streams (one row, or B from memory), in k
// blocks of direct_kc_stream steps and without the next strip's prefetch; else blocks of direct_kc.
template <size_t R>
constexpr bool DirectFewStreams(bool from_memory) {
  return R <= kMatmulDirectConfig.direct_stream_rows && (R == 1 || from_memory);
}
template <size_t R>
constexpr size_t DirectKbKN(bool from_memory) {
  return DirectFewStreams<R>(from_memory) ? kMatmulDirectConfig.direct_kc_stream : kMatmulDirectConfig.direct_kc;
}

// One pass of the direct kernel with B as k x n: rows [i, i + R) of C, columns [j0, j1), its k
// blocks of at most kb steps given to Block in order, every one (a block's kc rows of B stream
// strip after strip; the last block stores C and applies the epilogue). Several rows and blocks:
// the tiles' chains wait between blocks in a buffer, each strip's R x w floats together, not in C,
// whose rows ldc apart share one L1 set when ldc is a multiple of 4 KiB (n = 1024, 2048, 4096),
// with the block's rows of B (ldb apart): R + kc lines of one set for every tile
// (docs/ops/matmul.md). The same floats are stored and reloaded. One row or one block, or no
// buffer to be had: C itself.
// a_packed: these rows of A packed [k][R] by the caller (MatmulDirectPackAF32), or nullptr.
template <size_t R>
class DirectPassKN {
 public:
  static constexpr size_t V = MatmulDirectVectors(kMatmulDirectConfig, R);
  static constexpr size_t kMaxKb = std::max(kMatmulDirectConfig.direct_kc, kMatmulDirectConfig.direct_kc_stream);

  DirectPassKN(const MatmulArgs& g, size_t i, size_t j0, size_t j1, const float* a_packed, size_t kb,
               bool next_strip)
      : g_(g), i_(i), j0_(j0), j1_(j1), a_packed_(a_packed), next_strip_(next_strip), c_(g.c + i * g.ldc) {
    const size_t w = V * Lanes(D1());
    buf_base_ = R > 1 && g.k > kb ? AcquireBuffer((j1 - j0 + w - 1) / w * R * w) : nullptr;
    buf_ = buf_base_ != nullptr ? buf_base_ + kPoolHeaderFloats : nullptr;
    if (buf_ != nullptr && g.accumulate) {
      for (size_t j = j0; j < j1; j += w) CopyRows(Tile(j), w, c_ + j, g.ldc, j1 - j < w ? j1 - j : w);
    }
  }
  DirectPassKN(const DirectPassKN&) = delete;
  DirectPassKN& operator=(const DirectPassKN&) = delete;
  ~DirectPassKN() {
    if (buf_base_ != nullptr) ReleaseBuffer(buf_base_);
  }

  // k steps [pc, pc + kc), kc <= kb, over every strip; the last block stores C and its epilogue.
  void Block(size_t pc, size_t kc) {
    const size_t w = V * Lanes(D1());
    const float* a = a_packed_ + pc * R;
    if (a_packed_ == nullptr) {
      PackDirectA(g_, i_, R, pc, kc, ap_);
      a = ap_;
    }
    const bool last = pc + kc == g_.k, from_c = g_.accumulate || pc > 0;
    for (size_t j = j0_; j < j1_; j += w) {
      const size_t cols = j1_ - j < w ? j1_ - j : w;
      const float* const bj = g_.b + pc * g_.ldb + j;
      float* const ct = buf_ != nullptr ? Tile(j) : c_ + j;
      DirectTileCols<R>(ct, buf_ != nullptr ? w : g_.ldc, cols, a, bj, g_.ldb, kc, from_c, next_strip_);
      if (last) {
        if (buf_ != nullptr) CopyRows(c_ + j, g_.ldc, ct, w, cols);
        Epilogue(g_, c_ + j, R, j, cols);
      }
    }
  }

 private:
  float* Tile(size_t j) const { return buf_ + (j - j0_) / (V * Lanes(D1())) * R * V * Lanes(D1()); }
  static void CopyRows(float* dst, size_t ldd, const float* src, size_t lds, size_t cols) {
    for (size_t r = 0; r < R; ++r) std::memcpy(dst + r * ldd, src + r * lds, cols * sizeof(float));
  }

  const MatmulArgs& g_;
  const size_t i_, j0_, j1_;
  const float* const a_packed_;
  const bool next_strip_;
  float* const c_;
  float* buf_base_;
  float* buf_;
  alignas(64) float ap_[kMaxKb * R];
};

// Rows [i, i + R) of C, columns [j0, j1). B as k x n: one DirectPassKN. TRANS_B: A packed once
// per kKcA k steps; over those, strips outer and k blocks inner, so that each of the strip's rows
// of W is read front to back.
// a_packed: these rows of A packed [k][R] by the caller (MatmulDirectPackAF32), or nullptr.
template <size_t R>
void DirectRows(const MatmulArgs& g, size_t i, size_t j0, size_t j1, const float* a_packed) {
  constexpr size_t V = MatmulDirectVectors(kMatmulDirectConfig, R);
  constexpr MatmulDirectConfig cfg = kMatmulDirectConfig;
  constexpr size_t kKcW = cfg.direct_kc_trans;
  const size_t w = V * Lanes(D1());
  const bool from_memory = DirectFromMemory(g);
  if (!g.b_trans) {
    const size_t kb = DirectKbKN<R>(from_memory);
    DirectPassKN<R> pass(g, i, j0, j1, a_packed, kb, !DirectFewStreams<R>(from_memory));
    for (size_t pc = 0; pc < g.k; pc += kb) pass.Block(pc, g.k - pc < kb ? g.k - pc : kb);
    return;
  }
  // A packed [p][R], kKcA k steps at a time (TRANS_B): 16 KiB, so that a call with few rows (m =
  // 1: 4096 steps) reads each row of W once, front to back.
  constexpr size_t kKcA = std::max(kKcW, 4096 / R / kKcW * kKcW);
  alignas(64) float ap[kKcA * R];
  alignas(64) float bt[kKcW * V * MaxLanes(D1())];
  float* const c = g.c + i * g.ldc;
  // A's k steps [p0, p0 + kc) as [p][R]: the caller's, or packed into ap here.
  auto a_block = [&](size_t p0, size_t kc) -> const float* {
    if (a_packed != nullptr) return a_packed + p0 * R;
    PackDirectA(g, i, R, p0, kc, ap);
    return ap;
  };
  // W from memory, few rows: longer blocks of the strip's rows in a pooled buffer (on the stack
  // otherwise: 16 KiB), prefetched two blocks ahead into L2.
  float* const long_base = cfg.direct_kc_trans_stream > 0 && R <= cfg.direct_stream_rows && from_memory
                               ? AcquireBuffer(cfg.direct_kc_trans_stream * w)
                               : nullptr;
  const bool stream = long_base != nullptr;
  const size_t kt = stream ? cfg.direct_kc_trans_stream : kKcW;
  float* const btp = stream ? long_base + kPoolHeaderFloats : bt;
  for (size_t pa = 0; pa < g.k; pa += kKcA) {
    const size_t ka = g.k - pa < kKcA ? g.k - pa : kKcA;
    const float* const a = a_block(pa, ka);
    for (size_t j = j0; j < j1; j += w) {
      const size_t cols = j1 - j < w ? j1 - j : w;
      for (size_t pc = pa; pc < pa + ka; pc += kt) {
        const size_t kc = pa + ka - pc < kt ? pa + ka - pc : kt;
        const float* wj = g.b + j * g.ldb + pc;
        if (stream && pc + 2 * kt < pa + ka) {
          for (size_t r = 0; r < cols; ++r) {
            for (size_t q = 0; q < kc; q += 16) __builtin_prefetch(wj + r * g.ldb + 2 * kt + q, 0, 1);
          }
        } else if (!stream && pc + 4 * kt < pa + ka) {  // the strip's rows a few blocks ahead
          for (size_t r = 0; r < cols; ++r) {
            for (size_t q = 0; q < kc; q += 16) __builtin_prefetch(wj + r * g.ldb + 4 * kt + q);
          }
        }
        TransposeW(wj, g.ldb, cols, kc, btp, w);
        DirectTileCols<R>(c + j, g.ldc, cols, a + (pc - pa) * R, btp, w, kc, g.accumulate || pc > 0, false);
      }
      if (pa + ka == g.k) Epilogue(g, c + j, R, j, cols);
    }
  }
  if (long_base != nullptr) ReleaseBuffer(long_base);
}

template <size_t... R>
constexpr std::array<void (*)(const MatmulArgs&, size_t, size_t, size_t, const float*), sizeof...(R)> DirectRowFns(
    std::index_sequence<R...>) {
  return {&DirectRows<R + 1>...};
}

// B as k x n from memory in two passes (ForEachDirectPass: R1 = direct_rows rows from i, then R2):
// k blocks outer, both passes inner, so that the second pass reads each block of B (x86:
// direct_kc_stream rows) from the caches, not from memory. Each C element's chain is DirectRows'
// (the blocks' boundaries only store and reload it): the same bits.
// a_packed: the rows packed as MatmulDirectPackAF32 packs them, or nullptr.
template <size_t R1, size_t R2>
void DirectTwoPassesKN(const MatmulArgs& g, size_t i, size_t j0, size_t j1, const float* a_packed) {
  constexpr size_t kb = std::min(DirectKbKN<R1>(true), DirectKbKN<R2>(true));
  DirectPassKN<R1> first(g, i, j0, j1, a_packed, kb, !DirectFewStreams<R1>(true));
  DirectPassKN<R2> second(g, i + R1, j0, j1, a_packed != nullptr ? a_packed + R1 * g.k : nullptr, kb,
                          !DirectFewStreams<R2>(true));
  for (size_t pc = 0; pc < g.k; pc += kb) {
    const size_t kc = g.k - pc < kb ? g.k - pc : kb;
    first.Block(pc, kc);
    second.Block(pc, kc);
  }
}

template <size_t R1, size_t... R>
constexpr std::array<void (*)(const MatmulArgs&, size_t, size_t, size_t, const float*), sizeof...(R)>
DirectTwoPassFns(std::index_sequence<R...>) {
  return {&DirectTwoPassesKN<R1, R + 1>...};
}

// Rows [i0, i1) by DirectTwoPassesKN where B as k x n comes from memory and they make two passes;
// false otherwise. Only targets whose passes of direct_rows rows read B as few streams (AVX2)
// take it, and only they instantiate it (a template: the discarded branch is not compiled).
template <bool kTwoPasses = (kMatmulDirectConfig.direct_stream_rows >= kMatmulDirectConfig.direct_rows &&
                             kMatmulDirectConfig.direct_max_m > kMatmulDirectConfig.direct_rows)>
bool DirectTwoPassesFromMemory(const MatmulArgs& g, size_t i0, size_t i1, size_t j0, size_t j1,
                               const float* a_packed) {
  if constexpr (kTwoPasses) {
    constexpr size_t kRows = kMatmulDirectConfig.direct_rows;
    if (g.b_trans || !DirectFromMemory(g) || i1 - i0 <= kRows || i1 - i0 > 2 * kRows) return false;
    static constexpr auto kTwo = DirectTwoPassFns<kRows>(std::make_index_sequence<kRows>{});
    kTwo[i1 - i0 - kRows - 1](g, i0, j0, j1, a_packed);
    return true;
  } else {
    (void)g, (void)i0, (void)i1, (void)j0, (void)j1, (void)a_packed;
    return false;
  }
}

// The direct kernel's passes over rows [i0, i1): f(i, rows) for each. B in cache with
// direct_cache_rows: as few passes as that height allows (TRANS_B: as direct_rows allows, since
// each pass transposes W's strips again), of balanced heights; otherwise passes of direct_rows
// rows, the last one the rest.
template <class F>
void ForEachDirectPass(const MatmulArgs& g, size_t i0, size_t i1, F&& f) {
  constexpr MatmulDirectConfig cfg = kMatmulDirectConfig;
  const size_t m = i1 - i0;
  if (cfg.direct_cache_rows > 0 && !DirectFromMemory(g)) {
    const size_t most = g.b_trans ? cfg.direct_rows : cfg.direct_cache_rows;
    const size_t passes = (m + most - 1) / most;
    for (size_t p = 0, i = i0; p < passes; ++p) {
      const size_t rows = m / passes + (p < m % passes ? 1 : 0);
      f(i, rows);
      i += rows;
    }
    return;
  }
  for (size_t i = i0; i < i1; i += cfg.direct_rows) f(i, i1 - i < cfg.direct_rows ? i1 - i : cfg.direct_rows);
}
#endif  // !VLAK_SIMD_RVV

}  // namespace

// The blocking for a call with n columns (the tile is chosen by n). scratch_floats covers both
// tiles' blocks.
MatmulShape MatmulShapeF32(size_t n) {
  const bool narrow = UseNarrow(n);
  const size_t nr = narrow ? Lanes(DFNarrow()) : Lanes(DF());
  const size_t nc_wide = NcFor(Lanes(DF())), nc_narrow = NcFor(Lanes(DFNarrow()));
  return MatmulShape{narrow ? kNarrowMR : kMR,
                     nr,
                     kKc,
                     narrow ? nc_narrow : nc_wide,
                     kKc * (nc_wide > nc_narrow ? nc_wide : nc_narrow),
                     kMatmulDirectConfig.direct_max_m,
                     kMatmulDirectConfig.direct_any_m ? kMatmulDirectConfig.direct_rows : 0,
                     narrow};
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
// chain continues from C when pc > 0 or with ACCUMULATE): a kc step of Block's loop, panel-outer
// (each panel's row tiles in turn, the epilogue on each tile), so that the row tiles of one panel
// prefetch the next one between them (kPrefetch above). The packed B is one stream in the order
// one thread reads it (column blocks, then k blocks, then panels: matmul.cc's BlockBase), so the
// next panel is the one that follows in memory (after a block's last, the next block's first).
template <size_t kMR_, class D>
void PackedRows(D d, const MatmulArgs& g, size_t pc, size_t kc, const float* packed, size_t j0, size_t ncols,
                size_t i0, size_t i1) {
  const size_t nr = Lanes(d);
  const bool load_c = g.accumulate || pc > 0;
  const bool last = pc + kc == g.k;
  // Panels in groups of at least kPanelGroupCols columns (AVX2: 4 panels of 16), so that each
  // Panel call and each epilogue call covers as many columns as AVX-512's one panel of 64.
  constexpr size_t kGroupPanels = kPanelGroupCols / MaxLanes(D()) > 0 ? kPanelGroupCols / MaxLanes(D()) : 1;
  const size_t step = kGroupPanels * nr;
  // Rows in groups whose A block (rows x kc floats, at most kPackedRowsABytes) stays in L2 beside
  // the B block while the panels pass over it (BLIS's mc).
  const size_t group_rows = std::max<size_t>(1, kPackedRowsABytes / sizeof(float) / kc / kMR_) * kMR_;
  const size_t groups = kc > 4 ? (kc - 1) / 4 : 1;  // Panel's unrolled groups per panel (from step 1)
  for (size_t ig = i0; ig < i1; ig += group_rows) {
    const size_t ig1 = i1 - ig < group_rows ? i1 : ig + group_rows;
    const size_t tiles = (ig1 - ig + kMR_ - 1) / kMR_;
    const bool sparse = tiles >= kPackedRowsSparseTiles;
    // Each row tile's share of the next panel group, spread over its unrolled groups of 4 k steps,
    // kPf prefetches each, pf_stride floats apart (below a line: some lines twice).
    const size_t share = (kc * step + tiles - 1) / tiles;
    for (size_t j = 0; j < ncols; j += step) {
      const size_t cols = ncols - j < step ? ncols - j : step;
      const size_t panels = (cols + nr - 1) / nr;
      const float* const panel = packed + j * kc;
      const size_t per_group = panels * groups * (sparse ? 1 : PfDense(d));
      const size_t pf_stride = std::max<size_t>(1, (share + per_group - 1) / per_group);
      for (size_t t = 0, i = ig; i < ig1; ++t, i += kMR_) {
        const size_t rows = ig1 - i < kMR_ ? ig1 - i : kMR_;
        float* const c = g.c + i * g.ldc + j0 + j;
        const float* const a = g.a + i * g.lda + pc;
        const float* const pf = panel + panels * nr * kc + t * share;
        // The next row tile of this panel group, for a tile that loads C (Panel).
        const size_t next_rows = i + kMR_ < ig1 ? std::min(kMR_, ig1 - i - kMR_) : 0;
        const float* const c_next = next_rows > 0 ? c + kMR_ * g.ldc : nullptr;
        if (sparse) {
          PanelRows<kMR_, true, 1>(d, kc, a, g.lda, rows, panel, cols, c, g.ldc, load_c, pf, pf_stride, c_next,
                                   next_rows);
        } else {
          PanelRows<kMR_, true, PfDense(D())>(d, kc, a, g.lda, rows, panel, cols, c, g.ldc, load_c, pf, pf_stride,
                                              c_next, next_rows);
        }
        if (last) Epilogue(g, c, rows, j0 + j, cols);
      }
    }
  }
}

void MatmulPackedRowsF32(const MatmulArgs& g, bool narrow, size_t pc, size_t kc, const float* packed, size_t j0,
                         size_t ncols, size_t i0, size_t i1) {
  if (narrow) return PackedRows<kNarrowMR>(DFNarrow(), g, pc, kc, packed, j0, ncols, i0, i1);
  PackedRows<kMR>(DF(), g, pc, kc, packed, j0, ncols, i0, i1);
}

// C[i0:i1, j0:j1] by the direct kernel (MatmulTakesDirect), on one thread; narrow unused (the
// signature of MatmulBlockF32). a_packed: rows [i0, i1) of A as MatmulDirectPackAF32 packs them,
// or nullptr (the call packs A's blocks as it goes). k > 0.
void MatmulDirectF32(const MatmulArgs& g, bool, size_t i0, size_t i1, size_t j0, size_t j1, float* a_packed) {
#if !defined(VLAK_SIMD_RVV)
  constexpr size_t kRows = kMatmulDirectConfig.direct_rows;
  static constexpr auto kFns = DirectRowFns(std::make_index_sequence<kRows>{});
  // B as k x n from memory in two passes (direct_rows, then the rest): B read from memory once.
  if (DirectTwoPassesFromMemory(g, i0, i1, j0, j1, a_packed)) return;
  ForEachDirectPass(g, i0, i1, [&](size_t i, size_t rows) {
    kFns[rows - 1](g, i, j0, j1, a_packed != nullptr ? a_packed + (i - i0) * g.k : nullptr);
  });
#else
  (void)g, (void)i0, (void)i1, (void)j0, (void)j1, (void)a_packed;  // never called: direct_max_m is 0
#endif
}

// Rows [i0, i1) of A, all k steps, into dst ((i1 - i0) x k floats) for MatmulDirectF32: each pass
// (ForEachDirectPass) as [k][rows], the passes one after another.
void MatmulDirectPackAF32(const MatmulArgs& g, size_t i0, size_t i1, float* dst) {
#if !defined(VLAK_SIMD_RVV)
  ForEachDirectPass(g, i0, i1, [&](size_t i, size_t rows) { PackDirectA(g, i, rows, 0, g.k, dst + (i - i0) * g.k); });
#else
  (void)g, (void)i0, (void)i1, (void)dst;  // never called: direct_max_m is 0
#endif
}

VLAK_KERNELS_DEFINED(VLAK_MATMUL_KERNELS)

}  // namespace vlak::VLAK_NS
