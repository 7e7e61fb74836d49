// Quantized activations times an x16-packed W with Intel AMX (AMX-TILE, AMX-INT8), 16 rows of A at
// a time: the avx512 target's kernel for vlak_matmul_q_packed_f32 from 16 rows (prefill) where the
// CPU has AMX and the OS grants its tile state; the rows past the last 16 go to the VNNI kernel
// (quant_packed_avx512vnni.cc).
//
// Algorithm: per group of 16 rows of W and block of 32, one tile product (TDPBSUD: A signed, W
//   unsigned; q8_0 TDPBSSD) of A's 16 x 32 int8 values and W's 8 x 64 bytes (the x16 record's
//   pieces) gives the exact 16 x 16 int32 s' = sum q_w q_a; s = s' - offset * sum q_a (q4_0 8,
//   else 0) and the float steps per row of A are the VNNI kernel's, in its order: its bits.
// Bound and special values: the VNNI kernel's.
// Cost per block, 16 x 16 (8192 products): two tile loads, one tile product and one tile store,
//   then about 90 vector ops for the rows of A, against about 250 for the VNNI kernel's passes.
// Tile state: each call loads its configuration, then puts back the thread's previous one or
//   releases the tiles; QuantCpuHasAmx requests AMX's state from Linux once.
// The tiles' layout, the ops, why K = 32 and the speed: docs/ops/quant.md, "AMX tiles for prefill".
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)

#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cpuid.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/quant/quant.h"
#include "ops/quant/quant_kernels.h"

namespace vlak {

void MatmulQActPackedAvx512Vnni(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1);

namespace {

constexpr size_t kTileRows = 16;
constexpr size_t kBTileBytes = 8 * 64;

// Palette 1: tiles 0-3 C (16 x 16 int32), 4 and 5 A (16 x 32 int8), 6 and 7 B (8 x 64 bytes).
struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {64, 64, 64, 64, 32, 32, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 8, 8};
};

// The 8 B-tile rows of one record (block) of a group, at dst (64-byte aligned).
template <int kType>
[[gnu::always_inline]] inline void UnpackB(const uint8_t* rec, uint8_t* dst) {
  constexpr size_t quants = kType == VLAK_Q4_1 ? 64 : 32;
  const __m512i low = _mm512_set1_epi8(0x0F);
  for (int p = 0; p < 4; ++p) {
    const __m512i v = _mm512_loadu_si512(rec + quants + 64 * p);
    _mm512_store_si512(dst + 64 * p, _mm512_and_si512(v, low));
    _mm512_store_si512(dst + 64 * (p + 4), _mm512_and_si512(_mm512_srli_epi16(v, 4), low));
  }
}

// acc[i] (row i0 + i of A, 16 columns) += block b's 16 x 16 s' at cs.
template <int kType>
[[gnu::always_inline]] inline void Scale(const QActRow* ar, size_t b, const uint8_t* rec, const int32_t* cs, __m512* acc) {
  constexpr int kOffset = kType == VLAK_Q4_0 ? 8 : 0;
  const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(rec)));
  [[maybe_unused]] __m512 mw;
  if constexpr (kType == VLAK_Q4_1) mw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(rec + 32)));
#pragma clang loop unroll(full)
  for (size_t i = 0; i < kTileRows; ++i) {  // unrolled: acc stays in registers
    __m512i s = _mm512_load_si512(cs + 16 * i);
    if constexpr (kOffset != 0) s = _mm512_sub_epi32(s, _mm512_set1_epi32(kOffset * ar[i].sum[b]));
    const float da = ar[i].d[b];
    acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(dw, _mm512_set1_ps(da)), acc[i]);
    if constexpr (kType == VLAK_Q4_1) {
      acc[i] = _mm512_fmadd_ps(mw, _mm512_set1_ps(da * static_cast<float>(ar[i].sum[b])), acc[i]);
    }
  }
}

// Block b's tile product: A tile kA (16 rows of A's 32 values at a, rows lda bytes apart) times
// B tile kB (bt), into C tile kC.
template <int kType, int kC, int kA, int kB>
[[gnu::always_inline]] inline void Product(const int8_t* a, size_t lda, const uint8_t* bt) {
  _tile_loadd(kA, a, lda);
  _tile_loadd(kB, bt, 64);
  _tile_zero(kC);
  if constexpr (kType == VLAK_Q8_0) {
    _tile_dpbssd(kC, kA, kB);
  } else {
    _tile_dpbsud(kC, kA, kB);
  }
}

// Rows [i0, i0 + 16) of A against one group of W (records at grp; B tiles at bts, or the records'
// own bytes for q8_0): C's 16 columns from j, the first `store` of them written. The tile unit
// runs its instructions in order, so they are software-pipelined: block b's product (C tiles 0-3
// in turn, A and B tiles 4-7 by parity) is issued before block b - 1's result is stored, and
// block b - 3's stored result is scaled then, its store long complete.
template <int kType>
void Tile(const QMatmulArgs& g, uint8_t* act, const uint8_t* grp, const uint8_t* bts, size_t i0, size_t j, __mmask16 store) {
  constexpr size_t rec = kQGroup * QBlockBytes(kType);
  constexpr size_t quants = kType == VLAK_Q4_1 ? 64 : 32;
  const size_t nb = g.k / kQBlock;
  const size_t lda = QActBytes(g.k);
  QActRow ar[kTileRows];
  for (size_t i = 0; i < kTileRows; ++i) ar[i] = QActRowAt(act, g.k, i0 + i);
  alignas(64) int32_t cs[4][kTileRows * 16];
  auto store_c = [&](size_t b) {
    switch (b & 3) {
      case 0: _tile_stored(0, cs[0], 64); break;
      case 1: _tile_stored(1, cs[1], 64); break;
      case 2: _tile_stored(2, cs[2], 64); break;
      default: _tile_stored(3, cs[3], 64); break;
    }
  };
  __m512 acc[kTileRows];
  for (auto& x : acc) x = _mm512_setzero_ps();
  for (size_t b = 0; b < nb; ++b) {
    const int8_t* const a = ar[0].qs + b * kQBlock;
    const uint8_t* const bt = kType == VLAK_Q8_0 ? grp + b * rec + quants : bts + b * kBTileBytes;
    switch (b & 3) {
      case 0: Product<kType, 0, 4, 6>(a, lda, bt); break;
      case 1: Product<kType, 1, 5, 7>(a, lda, bt); break;
      case 2: Product<kType, 2, 4, 6>(a, lda, bt); break;
      default: Product<kType, 3, 5, 7>(a, lda, bt); break;
    }
    if (b >= 1) store_c(b - 1);
    if (b >= 3) Scale<kType>(ar, b - 3, grp + (b - 3) * rec, cs[(b - 3) & 3], acc);
  }
  store_c(nb - 1);
  for (size_t b = nb >= 3 ? nb - 3 : 0; b < nb; ++b) Scale<kType>(ar, b, grp + b * rec, cs[b & 3], acc);
  for (size_t i = 0; i < kTileRows; ++i) _mm512_mask_storeu_ps(g.c + (i0 + i) * g.ldc + j, store, acc[i]);
}

template <int kType>
void Packed(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  const size_t rec = kQGroup * QBlockBytes(kType), nb = g.k / kQBlock;
  const size_t full = g.m / kTileRows * kTileRows;
  uint8_t* const actm = const_cast<uint8_t*>(act);
  std::vector<uint8_t> bts_storage(kType == VLAK_Q8_0 ? 0 : nb * kBTileBytes + 64);
  uint8_t* const bts = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(bts_storage.data()) + 63) & ~uintptr_t{63});
  // Another library may hold a configuration on this thread (ggml's AMX kernels configure a
  // thread once and keep it): saved here, put back at the end.
  alignas(64) uint8_t saved[64];
  _tile_storeconfig(saved);
  const TileConfig cfg;
  _tile_loadconfig(&cfg);
  for (size_t j = j0; j < j1; j += kQGroup) {
    const uint8_t* const grp = g.w + j / kQGroup * nb * rec;
    const size_t cols = j1 - j < kQGroup ? j1 - j : kQGroup;
    const __mmask16 store = static_cast<__mmask16>((1u << cols) - 1u);
    // The next group's records, while this one's tiles run: a model's weights come from memory.
    if (j + kQGroup < j1) {
      const char* const next = reinterpret_cast<const char*>(grp + nb * rec);
      for (size_t line = 0; line < nb * rec; line += 64) _mm_prefetch(next + line, _MM_HINT_T1);
    }
    if constexpr (kType != VLAK_Q8_0) {
      for (size_t b = 0; b < nb; ++b) UnpackB<kType>(grp + b * rec, bts + b * kBTileBytes);
    }
    for (size_t i0 = 0; i0 < full; i0 += kTileRows) Tile<kType>(g, actm, grp, bts, i0, j, store);
  }
  if (saved[0] != 0) {
    _tile_loadconfig(saved);
  } else {
    _tile_release();
  }
  if (full < g.m) {  // the last m % 16 rows: the VNNI kernel, on their own rows of A, act and C
    QMatmulArgs rest = g;
    rest.m = g.m - full;
    rest.a = g.a + full * g.lda;
    rest.c = g.c + full * g.ldc;
    MatmulQActPackedAvx512Vnni(rest, act + full * QActBytes(g.k), j0, j1);
  }
}

bool AmxUsable() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool tile = (d >> 24) & 1, int8 = (d >> 25) & 1;
  if (!tile || !int8 || !__builtin_cpu_supports("avx512vnni")) return false;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return false;  // OSXSAVE
  // Ask Linux for the tile data state (XFEATURE_XTILEDATA, 18), then check that XCR0 enables
  // both tile components (bits 17 and 18).
  constexpr long kArchReqXcompPerm = 0x1023;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, 18) != 0) return false;
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & (3u << 17)) == (3u << 17);
}

}  // namespace

void MatmulQActPackedAvx512Amx(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return Packed<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return Packed<VLAK_Q4_0>(g, act, j0, j1);
  Packed<VLAK_Q4_1>(g, act, j0, j1);
}

bool QuantCpuHasAmx() {
  static const bool usable = AmxUsable();
  return usable;
}

}  // namespace vlak

#endif
