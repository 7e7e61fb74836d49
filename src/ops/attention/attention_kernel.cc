// Fused attention f32 kernel, generic over the tag: compiled once per target.
//
// Algorithm: FlashAttention (Dao et al. 2022, Algorithm 1) on registers and L1/L2. A unit is up to
// BR query rows of one (batch, kv head). Per block of BC keys: S = scale Q K^T (K packed into
// [BC/NR][D][NR] panels, an MR x NR register tile; units under MR rows take a dot product per key);
// per row m' = max(m, max S), alpha = e^(m - m'), P = exp(S - m'), l = l alpha + sum P in float64;
// O = O alpha + P V. At the end o = O / l, lse = m + log l. Split-KV (decode, > 256 keys): splits
// of 256 keys, merged in attention.cc. Masks: only visible blocks and panels are computed, and a
// key a row does not see (a future key's inf or NaN in V) never reaches it.
// Bits: fixed by the shape and the target (lanes, BC, BR, the exp, VLEN), never by thread count.
// Bound (u = 2^-24, D = head_dim, M = max_j |scale| sum |q k_j| + |bias_j|): vlak.h's
// (1e-5 + 2 (D + 2) u M + 2 kv_len u) sum p64 |v|; weights under 2^-126 of the largest flush to 0.
// Cost per block: D x BC floats packed, BR BC D FMAs (S), BR BC exps, BR BC value_dim FMAs (P V).
// Tiles and blocks: attention_config.h; the plan, the bound's derivation, the tile and block
// choices and the speed: docs/ops/attention.md.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "math/exp_accurate.h"
#include "ops/attention/attention_config.h"
#include "ops/attention/attention.h"
#include "ops/attention/attention_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

constexpr int kPow2 = kAttentionConfig.pow2;
constexpr size_t kMR = kAttentionConfig.mr;
using DF = Simd<float, kPow2>;
// P V's tile for value_dim up to half a group (a BERT-small head of 32 at 64 lanes): half the
// group, so that its FMAs carry no padding lanes and its loads are whole (the unswitched loop).
// Scalar: the same group.
using DFHalf = Simd<float, (kPow2 > 0 ? kPow2 - 1 : 0)>;
constexpr size_t kBR = kAttentionConfig.br_tiles * kMR;
constexpr size_t kMinBlockKeys = kAttentionConfig.min_block_keys;
// The dot path's keys per pass over a group's rows (below); 0 on RVV (docs/ops/attention.md).
constexpr size_t kDotKeys = kAttentionConfig.dot_keys;
// RVV: the exp's lean evaluation needs no splatted constants (exp_common.h).
constexpr ExpEval kEval = VLAK_TARGET_ID == ::vlak::Target::kRvv ? ExpEval::kLean : ExpEval::kFused;
constexpr float kInf = std::numeric_limits<float>::infinity();

size_t BlockKeys() {
  const size_t nr = Lanes(DF());
  return nr >= kMinBlockKeys ? nr : (kMinBlockKeys + nr - 1) / nr * nr;
}
size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The unit's per-row bookkeeping loops are scalar: auto-vectorised, clang hoisted splats of the block
// bounds out of the block loop and spilled them on RVV (rvv.spill_check).
#if defined(__clang__)
#define VLAK_AT_SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define VLAK_AT_SCALAR_LOOP
#endif

#define VLAK_AT_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
static_assert(kMR <= 6, "VLAK_AT_ROWS covers 6 rows");

// x86: full panels are copied element by element (a load and a store per float, each key's row
// read contiguously) instead of LoadStrided's gathers (vgatherdps).
constexpr bool kScalarPack = kAttentionConfig.scalar_pack;
// Packs keys [0, nkeys) of the block (k: its first key, ks: the key stride) into panels
// [ceil(nkeys / NR)][dh][NR] at kt, starting with panel p0; lanes past nkeys are zero.
[[gnu::noinline]] void PackKt(size_t dh, const float* k, size_t ks, size_t p0, size_t p1, size_t nkeys, float* kt) {
  const DF d;
  const size_t nr = Lanes(d);
  for (size_t pnl = p0; pnl < p1; ++pnl) {
    const size_t j = pnl * nr;
    const size_t cols = nkeys - j < nr ? nkeys - j : nr;
    const float* src = k + j * ks;
    float* dst = kt + pnl * dh * nr;
    if constexpr (kScalarPack) {
      if (cols == nr) {
        VLAK_AT_SCALAR_LOOP
        for (size_t jj = 0; jj < nr; ++jj) {
          const float* sj = src + jj * ks;
          VLAK_AT_SCALAR_LOOP
          for (size_t t = 0; t < dh; ++t) dst[t * nr + jj] = sj[t];
        }
        continue;
      }
    }
    const auto ds = Strip(d, cols);
    for (size_t t = 0; t < dh; ++t) {
      if (cols != nr) StoreU(d, Zero(d), dst + t * nr);
      StoreN(d, LoadStrided(ds, src + t, static_cast<ptrdiff_t>(ks)), dst + t * nr, cols);
    }
  }
}

// Copies keys [0, nkeys) of V's block (v: its first key, vs: the key stride) into [ceil(dv / NR)]
// [nkeys][NR] at vt (group stride bc * NR): the P V tile then reads each group's block contiguously
// instead of one cache line per key NR floats apart (in place it took 40 % longer than the S tile
// for the same FMAs: docs/ops/attention.md). Lanes past dv are zero.
[[gnu::noinline]] void PackV(size_t dv, const float* v, size_t vs, size_t nkeys, size_t bc, float* vt) {
  const DF d;
  const size_t nr = Lanes(d);
  for (size_t col = 0; col < dv; col += nr) {
    const size_t cols = dv - col < nr ? dv - col : nr;
    float* dst = vt + col / nr * bc * nr;
    const float* src = v + col;
    if (cols == nr) {
      for (size_t j = 0; j < nkeys; ++j) StoreU(d, LoadU(d, src + j * vs), dst + j * nr);
    } else {
      for (size_t j = 0; j < nkeys; ++j) StoreU(d, LoadN(d, src + j * vs, cols), dst + j * nr);
    }
  }
}

// S[i][pnl * NR ...] = scale * q_i . K^T panel, for kR rows (q rows qrow[0..kR)) and panels
// [p0, p1): one FMA chain over dh per logit, from the first product.
template <size_t kR>
[[gnu::noinline]] void STile(size_t dh, const float* const* qrow, const float* kt, size_t p0, size_t p1, float scale,
                             float* s, size_t bc) {
  const DF d;
  const size_t nr = Lanes(d);
#define VLAK_AT_QPTR(i) [[maybe_unused]] const float* const a##i = qrow[i < kR ? i : 0];
  VLAK_AT_ROWS(VLAK_AT_QPTR)
#undef VLAK_AT_QPTR
  for (size_t pnl = p0; pnl < p1; ++pnl) {
    const float* b = kt + pnl * dh * nr;
    const auto b0 = LoadU(d, b);
#define VLAK_AT_INIT(i) [[maybe_unused]] auto c##i = b0; if constexpr (i < kR) c##i = Mul(d, b0, a##i[0]);
    VLAK_AT_ROWS(VLAK_AT_INIT)
#undef VLAK_AT_INIT
#define VLAK_AT_FMA(i) if constexpr (i < kR) c##i = MulAdd(d, bv, a##i[t], c##i);
    b += nr;
    size_t t = 1;
    // Unrolled by 4, as matmul_kernel.cc's Panel (the chain's order stays t = 1, 2, ...).
    for (; t + 4 <= dh;) {
      for (int u = 0; u < 4; ++u, ++t, b += nr) {
        const auto bv = LoadU(d, b);
        VLAK_AT_ROWS(VLAK_AT_FMA)
      }
    }
    for (; t < dh; ++t, b += nr) {
      const auto bv = LoadU(d, b);
      VLAK_AT_ROWS(VLAK_AT_FMA)
    }
#undef VLAK_AT_FMA
#define VLAK_AT_STORE(i) if constexpr (i < kR) StoreU(d, Mul(d, c##i, scale), s + i * bc + pnl * nr);
    VLAK_AT_ROWS(VLAK_AT_STORE)
#undef VLAK_AT_STORE
  }
}

// The dot path (units of fewer than MR rows): s[j - j0] = scale * q . k_j for j in [a, e),
// head_dim along the vector, four keys at a time. RVV: half the group (LMUL 2), so that four
// accumulators, q and four keys fit the 32 registers (at LMUL 4 they spilled).
using DDot = Simd<float, kAttentionConfig.dot_pow2>;
[[gnu::noinline]] void SDot(size_t dh, const float* q, const float* k, size_t ks, size_t j0, size_t a, size_t e,
                            float scale, float* s) {
  const DDot d;
  size_t j = a;
  for (; j + 4 <= e; j += 4) {
    const float* k0 = k + (j - j0) * ks;
    const float* k1 = k0 + ks;
    const float* k2 = k1 + ks;
    const float* k3 = k2 + ks;
    auto c0 = Zero(d), c1 = Zero(d), c2 = Zero(d), c3 = Zero(d);
    ForEachStrip(d, dh, [&](auto ds, size_t t) {
      const auto qv = LoadU(ds, q + t);
      c0 = MulAddTU(ds, qv, LoadU(ds, k0 + t), c0);
      c1 = MulAddTU(ds, qv, LoadU(ds, k1 + t), c1);
      c2 = MulAddTU(ds, qv, LoadU(ds, k2 + t), c2);
      c3 = MulAddTU(ds, qv, LoadU(ds, k3 + t), c3);
    });
    s[j - j0] = ReduceSum(d, c0) * scale;
    s[j + 1 - j0] = ReduceSum(d, c1) * scale;
    s[j + 2 - j0] = ReduceSum(d, c2) * scale;
    s[j + 3 - j0] = ReduceSum(d, c3) * scale;
  }
  for (; j < e; ++j) {
    const float* k0 = k + (j - j0) * ks;
    auto c0 = Zero(d);
    ForEachStrip(d, dh, [&](auto ds, size_t t) { c0 = MulAddTU(ds, LoadU(ds, q + t), LoadU(ds, k0 + t), c0); });
    s[j - j0] = ReduceSum(d, c0) * scale;
  }
}

// O[i] = O[i] * alpha[i] + sum_j P[i][j - j0] V[j] for kR rows, each over its keys [a[i], e[i])
// (a row without keys keeps O). v: V's row j0; ob: O's first row (dvp floats per row). d: DF, or
// DFHalf when value_dim fits it (then V has one group, and each element's chain is the same).
// V's element (j, col) is at v + (j - j0) * vs + col / NR * vg + col % NR: vg = NR for V in place,
// bc * NR for a packed block (PackV). P's rows are BlockKeys() floats apart: on x86 a constant, so
// the six rows' broadcasts take one pointer and constant displacements; as an argument, clang
// rebuilt the row addresses with five adds per key in the hot loop (x86-64, clang 19).
template <size_t kR, class D>
[[gnu::noinline]] void PVTile(D d, size_t dv, size_t dvp, const float* p, size_t j0, const size_t* a, const size_t* e,
                              const float* v, size_t vs, size_t vg, float* ob, const float* alpha) {
  const size_t nr = Lanes(d);
  const size_t bc = BlockKeys();
  size_t ua = SIZE_MAX, ue = 0, ia = 0, ie = SIZE_MAX;
  VLAK_AT_SCALAR_LOOP
  for (size_t i = 0; i < kR; ++i) {
    if (a[i] < e[i]) {
      ua = a[i] < ua ? a[i] : ua;
      ue = e[i] > ue ? e[i] : ue;
    }
    ia = a[i] > ia ? a[i] : ia;
    ie = e[i] < ie ? e[i] : ie;
  }
  if (ue == 0) return;  // no row sees a key of this block (every alpha is 1)
  if (ia >= ie) ia = ie = ue;  // no key every row sees: all conditional
#define VLAK_AT_PROW(i) [[maybe_unused]] const float* const p##i = p + (i < kR ? i : 0) * bc;
  VLAK_AT_ROWS(VLAK_AT_PROW)
#undef VLAK_AT_PROW
  const float* vc = v;  // V at column col
  for (size_t col = 0; col < dv; col += nr, vc += vg) {
    const size_t cols = dv - col < nr ? dv - col : nr;
    const bool full = cols == nr;
#define VLAK_AT_INIT(i) [[maybe_unused]] auto c##i = Zero(d); if constexpr (i < kR) c##i = Mul(d, LoadU(d, ob + i * dvp + col), alpha[i]);
    VLAK_AT_ROWS(VLAK_AT_INIT)
#undef VLAK_AT_INIT
    auto vload = [&](size_t j) {
      const float* vp = vc + (j - j0) * vs;
      return full ? LoadU(d, vp) : LoadN(d, vp, cols);
    };
#define VLAK_AT_FMA(i) if constexpr (i < kR) c##i = MulAdd(d, vv, p##i[j - j0], c##i);
#define VLAK_AT_FMA_IF(i) if constexpr (i < kR) if (j >= a[i] && j < e[i]) c##i = MulAdd(d, vv, p##i[j - j0], c##i);
    for (size_t j = ua; j < ia; ++j) {
      const auto vv = vload(j);
      VLAK_AT_ROWS(VLAK_AT_FMA_IF)
    }
    if (full) {
      // The keys every row sees, the hot loop, unswitched on full: with the full test inside and
      // V's stride reloaded from the stack each key, this loop took 35 % longer than STile's for
      // the same FMAs (docs/ops/attention.md).
      const float* vp = vc + (ia - j0) * vs;
      size_t j = ia;
      for (; j + 4 <= ie;) {
        for (int u = 0; u < 4; ++u, ++j, vp += vs) {
          const auto vv = LoadU(d, vp);
          VLAK_AT_ROWS(VLAK_AT_FMA)
        }
      }
      for (; j < ie; ++j, vp += vs) {
        const auto vv = LoadU(d, vp);
        VLAK_AT_ROWS(VLAK_AT_FMA)
      }
    } else {
      for (size_t j = ia; j < ie; ++j) {
        const auto vv = LoadN(d, vc + (j - j0) * vs, cols);
        VLAK_AT_ROWS(VLAK_AT_FMA)
      }
    }
    for (size_t j = ie > ua ? ie : ua; j < ue; ++j) {
      const auto vv = vload(j);
      VLAK_AT_ROWS(VLAK_AT_FMA_IF)
    }
#undef VLAK_AT_FMA
#undef VLAK_AT_FMA_IF
#define VLAK_AT_STORE(i) if constexpr (i < kR) StoreU(d, c##i, ob + i * dvp + col);
    VLAK_AT_ROWS(VLAK_AT_STORE)
#undef VLAK_AT_STORE
  }
}

// PVTile for one row (a unit's tail row, or decode's single query): the same chain per element,
// but up to four groups of value_dim at once, so that four independent accumulators hide the FMA
// latency that one row's single chain per group would wait on (a 4-cycle FMA per key on Zen 3).
[[gnu::noinline]] void PVRow(size_t dv, const float* p, size_t j0, size_t a, size_t e, const float* v, size_t vs,
                             size_t vg, float* ob, float alpha) {
  const DF d;
  const size_t nr = Lanes(d);
  if (a >= e) return;
  const float* vc = v;  // V at column col
  for (size_t col = 0; col < dv; col += 4 * nr, vc += 4 * vg) {
    const size_t w = dv - col < 4 * nr ? dv - col : 4 * nr;
    const size_t groups = (w + nr - 1) / nr, last = w - (groups - 1) * nr;  // lanes of the last group
    float* const o = ob + col;
    auto c0 = Mul(d, LoadU(d, o), alpha), c1 = c0, c2 = c0, c3 = c0;
    if (groups > 1) c1 = Mul(d, LoadU(d, o + nr), alpha);
    if (groups > 2) c2 = Mul(d, LoadU(d, o + 2 * nr), alpha);
    if (groups > 3) c3 = Mul(d, LoadU(d, o + 3 * nr), alpha);
    if (groups == 4 && last == nr) {
      for (size_t j = a; j < e; ++j) {
        const float* vp = vc + (j - j0) * vs;
        const float pj = p[j - j0];
        c0 = MulAdd(d, LoadU(d, vp), pj, c0);
        c1 = MulAdd(d, LoadU(d, vp + vg), pj, c1);
        c2 = MulAdd(d, LoadU(d, vp + 2 * vg), pj, c2);
        c3 = MulAdd(d, LoadU(d, vp + 3 * vg), pj, c3);
      }
    } else {
      auto load = [&](const float* vp, size_t g) { return g + 1 < groups ? LoadU(d, vp) : LoadN(d, vp, last); };
      for (size_t j = a; j < e; ++j) {
        const float* vp = vc + (j - j0) * vs;
        const float pj = p[j - j0];
        c0 = MulAdd(d, load(vp, 0), pj, c0);
        if (groups > 1) c1 = MulAdd(d, load(vp + vg, 1), pj, c1);
        if (groups > 2) c2 = MulAdd(d, load(vp + 2 * vg, 2), pj, c2);
        if (groups > 3) c3 = MulAdd(d, load(vp + 3 * vg, 3), pj, c3);
      }
    }
    StoreU(d, c0, o);
    if (groups > 1) StoreU(d, c1, o + nr);
    if (groups > 2) StoreU(d, c2, o + 2 * nr);
    if (groups > 3) StoreU(d, c3, o + 3 * nr);
  }
}

// One row's block: s[0, n) (the keys [a, e) it sees) plus bias; returns the block's max (NaN
// ignored: a NaN logit poisons the row through its exp instead). Out of line: the exp pass below
// then keeps its registers to itself.
[[gnu::noinline]] float BiasMax(float* s, const float* bias, size_t n) {
  const DF d;
  auto m = Set(d, -kInf);
  if (bias != nullptr) {
    ForEachStrip(d, n, [&](auto ds, size_t t) {
      const auto x = Add(ds, LoadU(ds, s + t), LoadU(ds, bias + t));
      StoreU(ds, x, s + t);
      m = MaxAccumulate(ds, m, x);
    });
  } else {
    ForEachStrip(d, n, [&](auto ds, size_t t) { m = MaxAccumulate(ds, m, LoadU(ds, s + t)); });
  }
  return ReduceMax(d, m);
}

// p = exp(s - m) in place over [0, n); returns sum p. x86: four registers per step (LMUL 4), as
// softmax_kernel.cc: more independent exps in flight (at two the exps took 6.7 % of 1x8x512x64
// against softmax's 4.4 %). RVV keeps the tiles' LMUL 4: LMUL 8 costs 4.4 % more SpacemiT X60
// cycles on the budget test's call. Figures: docs/ops/attention.md.
using DExp = Simd<float, kAttentionConfig.exp_pow2>;
[[gnu::noinline]] float ExpSum(float* s, size_t n, float m) {
  const DExp d;
  auto acc = Zero(d);
  ForEachStrip(d, n, [&](auto ds, size_t t) {
    const auto e = ExpAccurateNonPositive<kEval>(ds, Sub(ds, LoadU(ds, s + t), m));
    StoreU(ds, e, s + t);
    acc = AddTU(ds, acc, e);
  });
  return ReduceSum(d, acc);
}

// P V for a unit of 2 to MR - 1 rows on the dot path (V in place) in one PVTile, so that each V
// row is loaded once for all of them (PVRow's chains: the same bits as a call per row).
[[gnu::noinline]] void PVRows(size_t rows, size_t dv, size_t dvp, const float* p, size_t j0, const size_t* a,
                              const size_t* e, const float* v, size_t vs, float* ob, const float* alpha) {
  auto tile = [&](auto d) {
    const size_t nr = Lanes(d);
    switch (rows) {
      case 2: return PVTile<2>(d, dv, dvp, p, j0, a, e, v, vs, nr, ob, alpha);
      case 3: return PVTile<3>(d, dv, dvp, p, j0, a, e, v, vs, nr, ob, alpha);
      case 4: if constexpr (kMR > 4) return PVTile<4>(d, dv, dvp, p, j0, a, e, v, vs, nr, ob, alpha);
              break;
      default: if constexpr (kMR > 5) return PVTile<5>(d, dv, dvp, p, j0, a, e, v, vs, nr, ob, alpha);
               break;
    }
  };
  if (dv <= Lanes(DFHalf())) {
    tile(DFHalf());
  } else {
    tile(DF());
  }
}

[[gnu::noinline]] void ScaleStore(const float* src, size_t n, float f, float* dst) {
  const DF d;
  ForEachStrip(d, n, [&](auto ds, size_t t) { StoreU(ds, Mul(ds, LoadU(ds, src + t), f), dst + t); });
}

}  // namespace

// Scratch: a header (the (batch, kv head) + 1 whose keys the cache holds, 0: none; the caller zeroes
// it before a call's first unit), one byte per key block (packed yet), the packed K^T (every block of
// the cached keys, or one block), the packed V (every block of the cached keys, or none), S/P, O.
constexpr size_t kHeaderFloats = 16;
size_t FlagFloats(size_t cached_keys, size_t bc) { return RoundUp((cached_keys + bc - 1) / bc, 64) / 4; }
size_t KtFloats(size_t head_dim, size_t cached_keys, size_t bc) {
  return RoundUp(head_dim * (cached_keys > 0 ? RoundUp(cached_keys, bc) : bc), 16);
}
size_t VtFloats(size_t dvp, size_t cached_keys, size_t bc) { return RoundUp(dvp * RoundUp(cached_keys, bc), 16); }

AttentionShape AttentionShapeF32(size_t head_dim, size_t value_dim, size_t cached_keys) {
  const size_t nr = Lanes(DF());
  const size_t bc = BlockKeys();
  const size_t dvp = RoundUp(value_dim, nr);
  const size_t floats = kHeaderFloats + FlagFloats(cached_keys, bc) + KtFloats(head_dim, cached_keys, bc) +
                        VtFloats(dvp, cached_keys, bc) + kBR * bc + kBR * dvp;
  return AttentionShape{kMR, nr, bc, kBR, floats};
}

void AttentionUnitF32(const AttentionArgs& g, size_t unit, float* scratch) {
  const vlak_attention_params& p = g.p;
  const DF d;
  const size_t nr = Lanes(d);
  const size_t bc = BlockKeys();
  const size_t dh = p.head_dim, dv = p.value_dim, dvp = RoundUp(dv, nr);
  const size_t cached = g.cached_keys;
  unsigned char* const packed = reinterpret_cast<unsigned char*>(scratch + kHeaderFloats);
  float* const kt = scratch + kHeaderFloats + FlagFloats(cached, bc);
  float* const vt = kt + KtFloats(dh, cached, bc);
  float* const sp = vt + VtFloats(dvp, cached, bc);
  float* const ob = sp + kBR * bc;

  const size_t split = unit % g.splits, bkv = unit / g.splits / g.chunks, chunk = unit / g.splits % g.chunks;
  // Split-KV: this unit's keys [k0, k1) (all of them without a split).
  const bool split_unit = g.splits > 1;
  const size_t k0 = split * g.split_keys, k1 = split_unit && p.kv_len - k0 > g.split_keys ? k0 + g.split_keys : p.kv_len;
  const size_t b = bkv / p.kv_heads, kvh = bkv % p.kv_heads;
  const size_t f0 = chunk * g.rows_per_unit, total = g.group * p.q_len;
  const size_t rows = total - f0 < g.rows_per_unit ? total - f0 : g.rows_per_unit;

  const float* qrow[kBR];
  const float* brow[kBR];
  size_t lo[kBR], hi[kBR], a[kBR], e[kBR];
  float m[kBR], alpha[kBR];
  double l[kBR];
  size_t ulo = SIZE_MAX, uhi = 0;
  VLAK_AT_SCALAR_LOOP
  for (size_t r = 0; r < rows; ++r) {
    const size_t h = kvh * g.group + (f0 + r) / p.q_len, i = (f0 + r) % p.q_len;
    qrow[r] = g.q + b * p.q_strides[0] + h * p.q_strides[1] + i * p.q_strides[2];
    brow[r] = p.bias != nullptr ? p.bias + b * p.bias_strides[0] + h * p.bias_strides[1] + i * p.bias_strides[2]
                                : nullptr;
    const AttentionRange range = AttentionKeys(p, b, i);
    lo[r] = range.lo;
    hi[r] = range.hi;
    if (lo[r] < hi[r]) {
      ulo = lo[r] < ulo ? lo[r] : ulo;
      uhi = hi[r] > uhi ? hi[r] : uhi;
    }
    m[r] = -kInf;
    l[r] = 0;
  }
  if (split_unit) {  // a loop of its own: the rows of an unsplit unit pay nothing for it
    ulo = SIZE_MAX;
    uhi = 0;
    VLAK_AT_SCALAR_LOOP
    for (size_t r = 0; r < rows; ++r) {
      lo[r] = lo[r] > k0 ? lo[r] : k0;
      hi[r] = hi[r] < k1 ? hi[r] : k1;
      if (lo[r] > hi[r]) lo[r] = hi[r];
      if (lo[r] < hi[r]) {
        ulo = lo[r] < ulo ? lo[r] : ulo;
        uhi = hi[r] > uhi ? hi[r] : uhi;
      }
    }
  }
  std::memset(ob, 0, rows * dvp * sizeof(float));

  // k and v may be null when no row sees a key (kv_len 0).
  const float* const kh = uhi > 0 ? g.k + b * p.k_strides[0] + kvh * p.k_strides[1] : nullptr;
  const float* const vh = uhi > 0 ? g.v + b * p.v_strides[0] + kvh * p.v_strides[1] : nullptr;
  const size_t ks = p.k_strides[2], vs = p.v_strides[2];
  const bool pack = rows >= kMR;
  // The K^T cache: the units of one (batch, kv head) read the same key blocks, so with several
  // units per (batch, kv head) (cached > 0) each block is packed once per thread and call, not
  // once per unit (the packing was 12 % of 1x8x512x64's time at 96 rows per unit).
  if (pack && cached > 0) {
    size_t tag;
    std::memcpy(&tag, scratch, sizeof tag);
    if (tag != bkv + 1) {
      tag = bkv + 1;
      std::memcpy(scratch, &tag, sizeof tag);
      std::memset(packed, 0, (p.kv_len + bc - 1) / bc);
    }
  }
  // The online softmax of row r's block (its S at srow, key j0 first): bias, the max, P in place,
  // l and m updated, alpha = e^(m_old - m_new) for the P V step.
  auto softmax_row = [&](size_t r, float* srow, size_t j0) {
    alpha[r] = 1.0f;
    if (a[r] >= e[r]) return;
    float* const s = srow + (a[r] - j0);
    const size_t n = e[r] - a[r];
    const float bm = BiasMax(s, brow[r] != nullptr ? brow[r] + a[r] : nullptr, n);
    const float m_new = bm > m[r] ? bm : m[r];
    // A row whose logits are all -inf so far: exp(s - 0) gives its zeros (and NaNs).
    const float m_use = m_new == -kInf ? 0.0f : m_new;
    // alpha = 1 exactly when the max did not grow (most blocks after the first few): no exp.
    const double al = m[r] == -kInf   ? 0.0
                      : m[r] == m_use ? 1.0
                                      : std::exp(static_cast<double>(m[r]) - static_cast<double>(m_use));
    const float sum = ExpSum(s, n, m_use);
    l[r] = l[r] * al + static_cast<double>(sum);
    m[r] = m_new;
    alpha[r] = static_cast<float>(al);
  };
  // Block j0's end, and its keys [a[r], e[r]) for every row.
  auto block = [&](size_t j0) {
    const size_t j1 = p.kv_len - j0 < bc ? p.kv_len : j0 + bc;
    VLAK_AT_SCALAR_LOOP
    for (size_t r = 0; r < rows; ++r) {
      a[r] = lo[r] > j0 ? lo[r] : j0;
      e[r] = hi[r] < j1 ? hi[r] : j1;
      if (a[r] > e[r]) a[r] = e[r];
    }
    return j1;
  };
  // Two block loops, the packed path's and the dot path's: in one loop, the packed path's row
  // tiles made the unit's register allocation reload more from the stack on the dot path (grouped
  // decode, 0.1 % more RVV instructions).
  const size_t jb = uhi > 0 ? ulo / bc * bc : 0;
  if (pack) {
    for (size_t j0 = jb; j0 < uhi; j0 += bc) {
      const size_t j1 = block(j0);
      const size_t ba = ulo > j0 ? ulo : j0, be = uhi < j1 ? uhi : j1;  // keys any row sees here
      const float* kb = kt;
      if (cached > 0) {
        kb = kt + j0 * dh;
        if (packed[j0 / bc] == 0) {
          PackKt(dh, kh + j0 * ks, ks, 0, (j1 - j0 + nr - 1) / nr, j1 - j0, kt + j0 * dh);
          if (dv > 0) PackV(dv, vh + j0 * vs, vs, j1 - j0, bc, vt + j0 * dvp);
          packed[j0 / bc] = 1;
        }
      } else {
        PackKt(dh, kh + j0 * ks, ks, (ba - j0) / nr, (be - j0 + nr - 1) / nr, j1 - j0, kt);
      }
      // S for every row tile, the online softmax, then P V for every row tile: each step streams
      // one packed block (K^T, then V) through the tiles. Per row tile instead (S/P in L1) ran
      // 3-5 % slower: each tile then streamed both 64 KiB blocks (docs/ops/attention.md).
      const bool vpacked = cached > 0;
      const float* const vb = vpacked ? vt + j0 * dvp : vh + j0 * vs;
      const size_t vks = vpacked ? nr : vs, vg = vpacked ? bc * nr : nr;
      for (size_t r = 0; r < rows;) {
        const size_t tr = rows - r >= kMR ? kMR : 1;
        size_t ta = SIZE_MAX, te = 0;
        VLAK_AT_SCALAR_LOOP
        for (size_t t = r; t < r + tr; ++t) {
          if (a[t] < e[t]) {
            ta = a[t] < ta ? a[t] : ta;
            te = e[t] > te ? e[t] : te;
          }
        }
        if (te > 0) {
          const size_t p0 = (ta - j0) / nr, p1 = (te - j0 + nr - 1) / nr;
          if (tr == kMR) {
            STile<kMR>(dh, qrow + r, kb, p0, p1, p.scale, sp + r * bc, bc);
          } else {
            STile<1>(dh, qrow + r, kb, p0, p1, p.scale, sp + r * bc, bc);
          }
        }
        r += tr;
      }
      for (size_t r = 0; r < rows; ++r) softmax_row(r, sp + r * bc, j0);
      for (size_t r = 0; r < rows && dv > 0;) {
        if (rows - r >= kMR) {
          if (dv <= Lanes(DFHalf())) {
            PVTile<kMR>(DFHalf(), dv, dvp, sp + r * bc, j0, a + r, e + r, vb, vks, vg, ob + r * dvp, alpha + r);
          } else {
            PVTile<kMR>(DF(), dv, dvp, sp + r * bc, j0, a + r, e + r, vb, vks, vg, ob + r * dvp, alpha + r);
          }
          r += kMR;
        } else {
          if (a[r] < e[r]) PVRow(dv, sp + r * bc, j0, a[r], e[r], vb, vks, vg, ob + r * dvp, alpha[r]);
          r += 1;
        }
      }
    }
  } else {
    for (size_t j0 = jb; j0 < uhi; j0 += bc) {
      const size_t j1 = block(j0);
      const size_t ba = ulo > j0 ? ulo : j0, be = uhi < j1 ? uhi : j1;  // keys any row sees here
      // 1. S. Rows of a group (grouped-query decode) share the keys: kDotKeys at a time for all of
      // them, so that each key is read from L1 by all but the first (1x32:8x1x4096x128 at one
      // thread ran 6 % slower with whole 256-key blocks per row than with 64; one row reads
      // straight on).
      if constexpr (kDotKeys > 0) {
        const size_t step = rows > 1 ? kDotKeys : bc;
        for (size_t c0 = ba; c0 < be; c0 += step) {
          const size_t c1 = be - c0 > step ? c0 + step : be;
          for (size_t r = 0; r < rows; ++r) {
            const size_t ra = a[r] > c0 ? a[r] : c0, re = e[r] < c1 ? e[r] : c1;
            if (ra < re) SDot(dh, qrow[r], kh + j0 * ks, ks, j0, ra, re, p.scale, sp + r * bc);
          }
        }
      } else {
        for (size_t r = 0; r < rows; ++r) {
          if (a[r] < e[r]) SDot(dh, qrow[r], kh + j0 * ks, ks, j0, a[r], e[r], p.scale, sp + r * bc);
        }
      }
      // 2. Online softmax, row by row.
      for (size_t r = 0; r < rows; ++r) softmax_row(r, sp + r * bc, j0);
      // 3. O = O alpha + P V: a group's rows (grouped-query decode) in one tile, so that each V
      // row is loaded once for all of them; each element's chain is PVRow's (the same bits).
      if (dv > 0) {
        const float* const vb = vh + j0 * vs;
        if (rows > 1) {
          PVRows(rows, dv, dvp, sp, j0, a, e, vb, vs, ob, alpha);
        } else if (a[0] < e[0]) {
          PVRow(dv, sp, j0, a[0], e[0], vb, vs, nr, ob, alpha[0]);
        }
      }
    }
  }

  // A split's part (attention.h): O as it stands (relative to e^m, or to e^0 while m is -inf), m, l.
  if (g.splits > 1) {
    for (size_t r = 0; r < rows; ++r) {
      const size_t at = unit * rows + r;  // one chunk: rows == group * q_len
      std::memcpy(g.part_o + at * dv, ob + r * dvp, dv * sizeof(float));
      g.part_m[at] = m[r];
      g.part_l[at] = l[r];
    }
    return;
  }
  // o = O / l, lse = m + log l; a row that saw no key (l == 0): o = 0, lse = -inf.
  for (size_t r = 0; r < rows; ++r) {
    const size_t h = kvh * g.group + (f0 + r) / p.q_len, i = (f0 + r) % p.q_len;
    float* const orow = g.o + b * p.o_strides[0] + h * p.o_strides[1] + i * p.o_strides[2];
    const double lr = l[r];
    if (lr == 0.0) {
      std::memset(orow, 0, dv * sizeof(float));
    } else {
      ScaleStore(ob + r * dvp, dv, static_cast<float>(1.0 / lr), orow);
    }
    if (p.lse != nullptr) {
      const float lse = lr == 0.0 ? -kInf : static_cast<float>(static_cast<double>(m[r]) + std::log(lr));
      p.lse[(b * p.q_heads + h) * p.q_len + i] = lse;
    }
  }
}

VLAK_KERNELS_DEFINED(VLAK_ATTENTION_KERNELS)

}  // namespace vlak::VLAK_NS
