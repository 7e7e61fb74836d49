// Attention internals shared by the API (attention.cc), the per-target kernel (attention_kernel.cc),
// the float64 reference, tests, the fuzz target and the lab.
#pragma once

#include <cstddef>

#include "vlak/vlak.h"

namespace vlak {

// The (batch, head, position) strides of a dense tensor of `heads` heads of `len` rows of `row`
// floats each, laid out [batch][position][head] (bsnh) or [batch][head][position] (the tests' and
// the fuzz target's layouts).
inline void DenseStrides(bool bsnh, size_t heads, size_t len, size_t row, size_t* st) {
  st[0] = heads * len * row;
  st[1] = bsnh ? row : len * row;
  st[2] = bsnh ? heads * row : row;
}

// One checked call. scale is resolved (never 0); group = q_heads / kv_heads.
// Work units: for each (batch, kv head), the group's query rows in order (query head of the group,
// then query position: row f is head kv * group + f / q_len, position f % q_len) cut into chunks
// of rows_per_unit rows. A unit's rows share every key block it reads.
struct AttentionArgs {
  vlak_attention_params p;
  const float* q;
  const float* k;
  const float* v;
  float* o;
  size_t group;
  size_t rows_per_unit;
  size_t chunks;  // units per (batch, kv head)
  // Keys of packed K^T and V a thread keeps between the units of one (batch, kv head) it runs: kv_len
  // when there are several units per (batch, kv head), else 0 (each block packed for its unit).
  size_t cached_keys;
  // Split-KV (decode: few query rows, many keys): with one chunk per (batch, kv head), its keys cut
  // into splits of split_keys keys (the last may be shorter), a unit each; unit u is split
  // u % splits of chunk u / splits % chunks of (batch, kv head) u / splits / chunks. A split's unit
  // writes its rows' parts instead of o and lse: part_o[(u * rows + r) * value_dim + d], the O
  // before the division by l, part_m (the max m) and part_l (l = sum e^(s - m)), and the call merges
  // them in split order. splits and split_keys depend only on the shape and the target's blocking,
  // never on the thread count, so the bits do not either. splits == 1: no split.
  size_t splits;
  size_t split_keys;
  float* part_o;
  float* part_m;
  double* part_l;
};

// A target's blocking: the register tile (mr rows x nr lanes), the key block (bc keys, a multiple
// of nr) and the most rows of a unit (br). scratch_floats: one thread's scratch for the call.
struct AttentionShape {
  size_t mr, nr, bc, br;
  size_t scratch_floats;
};

// The keys query row i of batch row b sees: [lo, hi) (lo == hi: none).
struct AttentionRange {
  size_t lo, hi;
};
inline AttentionRange AttentionKeys(const vlak_attention_params& p, size_t b, size_t i) {
  const size_t kv_len = p.kv_lens != nullptr ? p.kv_lens[b] : p.kv_len;  // <= p.kv_len (checked)
  const bool bottom_right = (p.flags & VLAK_ATTENTION_CAUSAL) != 0;
  const bool top_left = (p.flags & VLAK_ATTENTION_CAUSAL_TOP_LEFT) != 0;
  if (!bottom_right && !top_left) return {0, kv_len};
  // limit = i + kv_len - q_len (bottom-right) or i (top-left): the last key seen, maybe negative.
  size_t end;  // limit + 1 (0 when the limit is negative)
  if (top_left) {
    end = i + 1;
  } else if (i + kv_len + 1 <= p.q_len) {
    end = 0;
  } else {
    end = i + kv_len + 1 - p.q_len;
  }
  // The window counts back from the limit, before the limit is clamped to the keys there are.
  size_t lo = p.window > 0 && end > p.window ? end - p.window : 0;
  if (end > kv_len) end = kv_len;
  if (lo > end) lo = end;
  return {lo, end};
}

// vlak_attention_f32 with the thread count forced (0: the library's choice), for tests and the lab.
vlak_status AttentionF32(const vlak_attention_params* p, const float* q, const float* k, const float* v, float* o,
                         int threads);

// Float64 reference, written independently of the kernel (logits row by row, max, exp, sums):
// o64 gets [batch][q_heads][q_len][value_dim] dense, lse64 (if not null) [batch][q_heads][q_len].
// For the error bound: mag (if not null) gets each row's M = max over the keys it sees of
// |scale| * sum_d |q_d k_jd| + |bias_j| (-inf bias: 0), and pabs (if not null) sum_j p64_j |v_jd| per element of o64.
// Assumes the arguments were accepted by vlak_attention_f32.
void AttentionReferenceF64(const vlak_attention_params& p, const float* q, const float* k, const float* v, double* o64,
                           double* lse64, double* mag, double* pabs);

}  // namespace vlak
