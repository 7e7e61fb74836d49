// vlak_attention_f32: argument checks, the work units (attention.h), threads, the scratch.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "dispatch/dispatch.h"
#include "ops/attention/attention.h"
#include "ops/attention/attention_kernels.h"
#include "ops/buffer_pool.h"
#include "parallel/parallel.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_ATTENTION_KERNELS)

namespace {

constexpr unsigned kKnownFlags = VLAK_ATTENTION_CAUSAL | VLAK_ATTENTION_CAUSAL_TOP_LEFT;
constexpr size_t kMaxElems = SIZE_MAX / sizeof(float);
// Split-KV: keys per split (rounded up to the target's key block), and the most floats of parts.
// 256 keys keep a split's unit at 256 (head_dim + value_dim) FMAs per query row (decode 32 heads x
// 4096 x 128: 16 splits, 128 units over 8 kv heads), while the parts (value_dim + 3 floats per row
// and split) stay a few % of the keys' own bytes at any q_len.
constexpr size_t kSplitKeys = 256;
constexpr size_t kMaxPartFloats = size_t{1} << 24;
// The most packed K^T and V floats a thread caches (16 MiB: 16384 keys at head_dim = value_dim = 128).
constexpr size_t kMaxCachedFloats = size_t{1} << 22;

// One core's time per FMA of the kernel, for the thread count only (results do not depend on it):
// the register tiles' (1/32), and the dot path's for units under MR rows (decode: a reduction per
// key and query row, 1/16). Powers of two near the measured rates, docs/ops/attention.md.
constexpr double kNsPerFma = 1.0 / 32;
constexpr double kDotNsPerFma = 1.0 / 16;
// Below this many FMAs a call stays on the calling thread (as matmul's kNeverSplitFmas); the dot
// path's floor is lower, as its FMAs cost more (about 8 us of one core either way).
constexpr double kNeverSplitFmas = double(size_t{1} << 21);
constexpr double kDotNeverSplitFmas = double(size_t{1} << 17);

// The tensor's last element + 1, in elements, or false if beyond SIZE_MAX bytes. dims: extents of
// (batch, heads, seq), last: the contiguous dimension's extent (> 0).
bool Extent(const size_t dims[3], const size_t strides[3], size_t last, size_t* end) {
  size_t off = 0;
  for (int i = 0; i < 3; ++i) {
    size_t t;
    if (__builtin_mul_overflow(dims[i] - 1, strides[i], &t) || __builtin_add_overflow(off, t, &off)) return false;
  }
  if (__builtin_add_overflow(off, last, &off) || off > kMaxElems) return false;
  *end = off;
  return true;
}

// Distinct elements: the strides of the dimensions longer than 1, in increasing order, each at
// least the extent (in elements) of everything below it.
bool Nested(const size_t dims[3], const size_t strides[3], size_t last) {
  size_t order[3] = {0, 1, 2};
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      if (strides[order[j]] < strides[order[i]]) {
        const size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
  }
  size_t span = last;  // extent of the dimensions checked so far
  for (int i = 0; i < 3; ++i) {
    const size_t dim = order[i];
    if (dims[dim] <= 1) continue;
    if (strides[dim] < span) return false;
    span = (dims[dim] - 1) * strides[dim] + span;  // no overflow: Extent checked the whole sum
  }
  return true;
}

bool Overlap(const void* a, size_t a_elems, const void* b, size_t b_elems) {
  if (a == nullptr || b == nullptr || a_elems == 0 || b_elems == 0) return false;
  const auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + b_elems * sizeof(float) && pb < pa + a_elems * sizeof(float);
}

// Split-KV's merge, per row, in split order (the same bits for every thread count): with M the
// largest part max, o = sum_s w_s O_s / L and lse = M + log L, L = sum_s w_s l_s, w_s = e^(m_s - M)
// in float64 (FlashDecoding's and llama.cpp's flash_attn_ext reduction). A part whose m is -inf saw
// no finite logit: its O and l (relative to e^0) are 0, or NaN, which w = 0 keeps (0 * NaN); when
// every part's m is -inf, all are relative to e^0 and w = 1. L == 0: o = 0 and lse = -inf.
// acc: value_dim doubles.
void MergeSplits(const AttentionArgs& g, double* acc) {
  const vlak_attention_params& p = g.p;
  const size_t rows = g.group * p.q_len, dv = p.value_dim, splits = g.splits;
  for (size_t bkv = 0; bkv < p.batch * p.kv_heads; ++bkv) {
    const size_t b = bkv / p.kv_heads, kvh = bkv % p.kv_heads;
    for (size_t r = 0; r < rows; ++r) {
      const size_t h = kvh * g.group + r / p.q_len, i = r % p.q_len;
      auto at = [&](size_t s) { return (bkv * splits + s) * rows + r; };
      float mx = -INFINITY;
      for (size_t s = 0; s < splits; ++s) mx = g.part_m[at(s)] > mx ? g.part_m[at(s)] : mx;
      double l = 0;
      for (size_t d = 0; d < dv; ++d) acc[d] = 0;
      for (size_t s = 0; s < splits; ++s) {
        const float ms = g.part_m[at(s)];
        const double w = mx == -INFINITY ? 1.0 : ms == -INFINITY ? 0.0 : std::exp(static_cast<double>(ms) - mx);
        l += w * g.part_l[at(s)];
        const float* po = g.part_o + at(s) * dv;
        for (size_t d = 0; d < dv; ++d) acc[d] += w * static_cast<double>(po[d]);
      }
      float* const orow = g.o + b * p.o_strides[0] + h * p.o_strides[1] + i * p.o_strides[2];
      const double inv = l == 0.0 ? 0.0 : 1.0 / l;
      for (size_t d = 0; d < dv; ++d) orow[d] = l == 0.0 ? 0.0f : static_cast<float>(acc[d] * inv);
      if (p.lse != nullptr) {
        p.lse[(b * p.q_heads + h) * p.q_len + i] =
            l == 0.0 ? -INFINITY : static_cast<float>((mx == -INFINITY ? 0.0 : static_cast<double>(mx)) + std::log(l));
      }
    }
  }
}

}  // namespace

vlak_status AttentionF32(const vlak_attention_params* params, const float* q, const float* k, const float* v,
                         float* o, int threads) {
  if (params == nullptr) return VLAK_ERROR_NULL_POINTER;
  const vlak_attention_params& p = *params;
  if ((p.flags & ~kKnownFlags) != 0 || p.flags == kKnownFlags) return VLAK_ERROR_INVALID_ARGUMENT;
  if (p.window > 0 && p.flags == 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (!std::isfinite(p.scale) || p.head_dim == 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (p.q_heads > 0 && (p.kv_heads == 0 || p.q_heads % p.kv_heads != 0)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (p.batch == 0 || p.q_heads == 0 || p.q_len == 0) return VLAK_OK;
  if (p.kv_lens != nullptr) {
    for (size_t b = 0; b < p.batch; ++b) {
      if (p.kv_lens[b] > p.kv_len) return VLAK_ERROR_INVALID_ARGUMENT;
    }
  }
  if (q == nullptr || o == nullptr || (p.kv_len > 0 && (k == nullptr || v == nullptr))) {
    return VLAK_ERROR_NULL_POINTER;
  }
  // Rows (q's strides may be 0, so its extent does not bound them).
  size_t rows;
  if (__builtin_mul_overflow(p.batch, p.q_heads, &rows) || __builtin_mul_overflow(rows, p.q_len, &rows)) {
    return VLAK_ERROR_OVERFLOW;
  }
  // Extents (elements from the base pointer to the last element + 1).
  const size_t q_dims[3] = {p.batch, p.q_heads, p.q_len};
  const size_t kv_dims[3] = {p.batch, p.kv_heads, p.kv_len};
  size_t q_end, o_end = 0, k_end = 0, v_end = 0, bias_end = 0, lse_end = 0;
  if (!Extent(q_dims, p.q_strides, p.head_dim, &q_end)) return VLAK_ERROR_OVERFLOW;
  if (p.value_dim > 0 && !Extent(q_dims, p.o_strides, p.value_dim, &o_end)) return VLAK_ERROR_OVERFLOW;
  if (p.kv_len > 0) {
    if (!Extent(kv_dims, p.k_strides, p.head_dim, &k_end) || (p.value_dim > 0 && !Extent(kv_dims, p.v_strides, p.value_dim, &v_end))) {
      return VLAK_ERROR_OVERFLOW;
    }
    if (p.bias != nullptr && !Extent(q_dims, p.bias_strides, p.kv_len, &bias_end)) return VLAK_ERROR_OVERFLOW;
  }
  if (p.lse != nullptr) {
    size_t t;
    if (__builtin_mul_overflow(p.batch, p.q_heads, &t) || __builtin_mul_overflow(t, p.q_len, &lse_end) ||
        lse_end > kMaxElems) {
      return VLAK_ERROR_OVERFLOW;
    }
  }
  if (p.value_dim > 0 && !Nested(q_dims, p.o_strides, p.value_dim)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (Overlap(o, o_end, q, q_end) || Overlap(o, o_end, k, k_end) || Overlap(o, o_end, v, v_end) ||
      Overlap(o, o_end, p.bias, bias_end) || Overlap(o, o_end, p.lse, lse_end) || Overlap(p.lse, lse_end, q, q_end) ||
      Overlap(p.lse, lse_end, k, k_end) || Overlap(p.lse, lse_end, v, v_end) ||
      Overlap(p.lse, lse_end, p.bias, bias_end)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;

  const Target target = ActiveTarget();
  AttentionShape shape = Dispatch(kAttentionShape, target)(p.head_dim, p.value_dim, 0);
  AttentionArgs g{.p = p,
                  .q = q,
                  .k = k,
                  .v = v,
                  .o = o,
                  .group = p.q_heads / p.kv_heads,
                  .rows_per_unit = shape.br,
                  .chunks = 0,
                  .cached_keys = 0,
                  .splits = 1,
                  .split_keys = 0,
                  .part_o = nullptr,
                  .part_m = nullptr,
                  .part_l = nullptr};
  if (g.p.scale == 0.0f) g.p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.head_dim)));
  const size_t group_rows = g.group * p.q_len;  // <= rows
  g.chunks = (group_rows + g.rows_per_unit - 1) / g.rows_per_unit;
  // The K^T and V cache (attention.h), up to kMaxCachedFloats per thread (else each unit packs its blocks).
  if (g.chunks > 1 && p.kv_len <= kMaxCachedFloats / (p.head_dim + p.value_dim)) {
    g.cached_keys = p.kv_len;
    shape = Dispatch(kAttentionShape, target)(p.head_dim, p.value_dim, g.cached_keys);
  }
  // Split-KV (attention.h): one chunk per (batch, kv head) and more than kSplitKeys keys, while the
  // parts stay below kMaxPartFloats. Decided by the shape alone.
  size_t part_floats = 0;
  if (g.chunks == 1 && p.kv_len > kSplitKeys) g.split_keys = (kSplitKeys + shape.bc - 1) / shape.bc * shape.bc;
  if (g.split_keys > 0 && p.kv_len > g.split_keys) {
    const size_t splits = (p.kv_len + g.split_keys - 1) / g.split_keys;
    // rows * splits * (value_dim + 3): the parts' floats (l counts twice), in double against overflow;
    // the merge's value_dim doubles come with them (nothing to allocate once o is being written).
    const double floats = static_cast<double>(rows) * static_cast<double>(splits) * static_cast<double>(p.value_dim + 3);
    if (floats <= static_cast<double>(kMaxPartFloats)) {
      g.splits = splits;
      part_floats = rows * splits * (p.value_dim + 3) + 2 * p.value_dim;
    }
  }
  const size_t units = p.batch * p.kv_heads * g.chunks * g.splits;
  const bool dot_path = group_rows < shape.mr;  // units under MR rows: a reduction per key and row

  // Threads: the FMAs of S and P V (every key; a causal mask halves them), at kNsPerFma.
  const double fmas = static_cast<double>(p.batch * p.q_heads) * static_cast<double>(p.q_len) *
                      static_cast<double>(p.kv_len) * static_cast<double>(p.head_dim + p.value_dim);
  size_t t = 1;
  if (threads > 0) {
    t = static_cast<size_t>(threads);
  } else if (fmas >= (dot_path ? kDotNeverSplitFmas : kNeverSplitFmas) && NumThreads() > 1) {
    t = static_cast<size_t>(ThreadsForNs(fmas * (dot_path ? kDotNsPerFma : kNsPerFma), units));
  }
  if (t > units) t = units;
  // One scratch per participant, 64-byte aligned, from the buffer pool (ops/buffer_pool.h);
  // taken before anything is written.
  const size_t per = (shape.scratch_floats + 15) / 16 * 16;
  if (per > kMaxElems / t) return VLAK_ERROR_OVERFLOW;
  if (part_floats > kMaxElems - per * t) return VLAK_ERROR_OVERFLOW;
  const PooledBuffer buffer(per * t + part_floats);
  float* const scratch = buffer.data();
  if (scratch == nullptr) return VLAK_ERROR_OVERFLOW;
  double* merge_acc = nullptr;
  if (g.splits > 1) {  // l and the merge's sums (8-byte aligned: per * t is a multiple of 16), m, O
    const size_t n = rows * g.splits;
    g.part_l = reinterpret_cast<double*>(scratch + per * t);
    merge_acc = g.part_l + n;
    g.part_m = reinterpret_cast<float*>(merge_acc + p.value_dim);
    g.part_o = g.part_m + n;
  }
  if (g.cached_keys > 0) {  // the cache's header (attention_kernels.h)
    for (size_t w = 0; w < t; ++w) std::memset(scratch + w * per, 0, 16 * sizeof(float));
  }
  auto* const unit_fn = Dispatch(kAttentionUnit, target);
  ParallelFor(PlanChunks(units, static_cast<int>(t), 1, 4), [&](int worker, size_t begin, size_t end) {
    for (size_t u = begin; u < end; ++u) unit_fn(g, u, scratch + static_cast<size_t>(worker) * per);
  });
  if (g.splits > 1) MergeSplits(g, merge_acc);
  return VLAK_OK;
}

}  // namespace vlak

extern "C" vlak_status vlak_attention_f32(const vlak_attention_params* p, const float* q, const float* k, const float* v,
                                          float* o) {
  return vlak::AttentionF32(p, q, k, v, o, 0);
}
