// Differential fuzz target of vlak_attention_f32 (see fuzz_util.h): the status against vlak.h's
// rules, nothing written on error, the gaps between o rows untouched, every target within vlak.h's
// bound of the float64 reference (AttentionReferenceF64), and the same bits for 1 and 3 threads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "ops/attention/attention.h"

using namespace vlak_fuzz;

namespace {

// 1 + the largest element offset of a (d0, d1, d2, last) tensor, or 0 when empty; SIZE_MAX when
// its bytes overflow.
size_t Extent4(size_t d0, size_t d1, size_t d2, const size_t* st, size_t last) {
  if (d0 == 0 || d1 == 0 || d2 == 0 || last == 0) return 0;
  const unsigned __int128 e = static_cast<unsigned __int128>(d0 - 1) * st[0] +
                              static_cast<unsigned __int128>(d1 - 1) * st[1] +
                              static_cast<unsigned __int128>(d2 - 1) * st[2] + last;
  if (e * sizeof(float) > SIZE_MAX) return SIZE_MAX;
  return static_cast<size_t>(e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  vlak_attention_params p{};
  p.batch = in.Size(2);
  p.kv_heads = in.Size(2);
  const size_t group = 1 + in.Byte() % 4;
  p.q_heads = in.Byte() == 7 ? p.kv_heads * group + 1 : p.kv_heads * group;  // sometimes not a multiple
  p.q_len = in.Size(100);
  p.kv_len = in.Size(140);
  p.head_dim = in.Size(70);
  p.value_dim = in.Size(70);
  const uint8_t layout = in.Byte();
  const bool bsnh = layout & 1;
  const size_t o_gap = (layout >> 1) & 3, cap_extra = (layout >> 3) & 7;
  const uint8_t fb = in.Byte();
  p.flags = fb < 240 ? (fb & 3u) : 0x4u << (fb & 7);
  p.window = in.Byte() % 12;
  if (p.window > 8) p.window = 0;
  const uint8_t sb = in.Byte();
  p.scale = sb == 0 ? 0.0f : sb == 1 ? std::numeric_limits<float>::quiet_NaN() : (static_cast<int>(sb) - 128) / 32.0f;
  const int bias_mode = in.Byte() % 3;
  const bool want_lse = in.Bool();
  const uint8_t nulls = in.Byte() % 8;  // 1 q, 2 k, 3 v, 4 o, 5 o aliases q
  const uint8_t huge = in.Byte();       // > 240: an overflowing stride

  const size_t cap = p.kv_len + cap_extra;
  vlak::DenseStrides(bsnh, p.q_heads, p.q_len, p.head_dim, p.q_strides);
  vlak::DenseStrides(bsnh, p.kv_heads, cap, p.head_dim, p.k_strides);
  vlak::DenseStrides(bsnh, p.kv_heads, cap, p.value_dim, p.v_strides);
  vlak::DenseStrides(bsnh, p.q_heads, p.q_len, p.value_dim + o_gap, p.o_strides);
  if (huge > 240) {
    size_t* st = huge & 1 ? p.k_strides : p.q_strides;
    st[huge & 2 ? 1 : 0] = SIZE_MAX / 8 + (huge & 15);
  }
  if (bias_mode == 1) {
    p.bias_strides[0] = p.q_heads * p.q_len * p.kv_len;
    p.bias_strides[1] = p.q_len * p.kv_len;
    p.bias_strides[2] = p.kv_len;
  } else if (bias_mode == 2) {
    p.bias_strides[2] = p.kv_len;  // one [q_len][kv_len] for every batch and head
  }

  const size_t qe = Extent4(p.batch, p.q_heads, p.q_len, p.q_strides, p.head_dim);
  const size_t ke = Extent4(p.batch, p.kv_heads, p.kv_len, p.k_strides, p.head_dim);
  const size_t ve = Extent4(p.batch, p.kv_heads, p.kv_len, p.v_strides, p.value_dim);
  const size_t oe = Extent4(p.batch, p.q_heads, p.q_len, p.o_strides, p.value_dim);
  const size_t be = bias_mode == 0 ? 0 : Extent4(p.batch, p.q_heads, p.q_len, p.bias_strides, p.kv_len);
  const size_t le = want_lse ? p.batch * p.q_heads * p.q_len : 0;
  const bool overflow = qe == SIZE_MAX || ke == SIZE_MAX || (p.kv_len > 0 && ve == SIZE_MAX) || oe == SIZE_MAX;

  const bool empty = p.batch == 0 || p.q_heads == 0 || p.q_len == 0;
  const bool bad_args = (p.flags & ~3u) != 0 || p.flags == 3 || (p.window > 0 && p.flags == 0) ||
                        !std::isfinite(p.scale) || p.head_dim == 0 ||
                        (p.q_heads > 0 && (p.kv_heads == 0 || p.q_heads % p.kv_heads != 0));
  const bool bad_ptrs = nulls == 1 || nulls == 4 || (p.kv_len > 0 && (nulls == 2 || nulls == 3)) ||
                        (nulls == 5 && oe > 0);
  bool expect_error = bad_args || (!empty && (bad_ptrs || overflow));
  if (!overflow && (qe > kMaxElems || ke > kMaxElems || ve > kMaxElems || oe > kMaxElems || be > kMaxElems)) return 0;
  if (!empty && !bad_args && p.batch * p.q_heads * p.q_len * (p.kv_len + 1) * (p.head_dim + p.value_dim + 1) > 4000000) {
    return 0;  // the reference's time
  }

  Buffer q(overflow ? 0 : qe), k(overflow ? 0 : ke), v(overflow ? 0 : ve), bias(overflow ? 0 : be);
  FillFloats(in, q.data(), q.size());
  FillFloats(in, k.data(), k.size());
  FillFloats(in, v.data(), v.size());
  FillFloats(in, bias.data(), bias.size());
  if (bias.size() > 0 && bias_mode == 2) bias[0] = -std::numeric_limits<float>::infinity();
  p.bias = bias_mode == 0 ? nullptr : bias.data();
  // Key counts per batch row, decoded last (older corpora have none): 0 .. kv_len + 1, the last an error.
  std::vector<size_t> kv_lens;
  if (in.Bool()) {
    for (size_t b = 0; b < p.batch; ++b) kv_lens.push_back(in.Size(p.kv_len + 1));
    p.kv_lens = kv_lens.data();
    for (size_t n : kv_lens) expect_error = expect_error || (!empty && n > p.kv_len);
  }
  Describe("vlak_attention_f32(B %zu, H %zu:%zu, q %zu, kv %zu, D %zu, Dv %zu, %s, gap %zu, cap +%zu, flags 0x%x, "
           "window %zu, scale %g, bias %d, lse %d, nulls %d, huge %d, kv_lens %s) threads %d",
           p.batch, p.q_heads, p.kv_heads, p.q_len, p.kv_len, p.head_dim, p.value_dim, bsnh ? "bsnh" : "bnsh", o_gap,
           cap_extra, p.flags, p.window, p.scale, bias_mode, want_lse, nulls, huge, kv_lens.empty() ? "no" : "yes",
           vlak_get_num_threads());

  const size_t rows = empty ? 0 : p.batch * p.q_heads * p.q_len;
  std::vector<double> o64, lse64, mag, pabs;
  if (!expect_error && !empty && !overflow) {
    o64.resize(rows * p.value_dim);
    lse64.resize(rows);
    mag.resize(rows);
    pabs.resize(rows * p.value_dim);
    vlak::AttentionReferenceF64(p, q.data(), k.data(), v.data(), o64.data(), lse64.data(), mag.data(), pabs.data());
  }
  // Rows whose float intermediates may overflow where float64's do not (vlak.h: while the logits
  // stay finite): a dot product, a bias or the unnormalised sum of v near FLT_MAX. Their values are
  // not checked (a logit that overflows to -inf masks its key).
  const double kBig = std::numeric_limits<float>::max() / 4;
  auto row_big = [&](size_t b, size_t h, size_t i) {
    const size_t row = (b * p.q_heads + h) * p.q_len + i;
    const double sc = p.scale != 0 ? std::fabs(p.scale) : 1.0 / std::sqrt(static_cast<double>(p.head_dim));
    if (mag[row] / std::min(sc, 1.0) >= kBig) return true;
    const vlak::AttentionRange r = vlak::AttentionKeys(p, b, i);
    const size_t kvh = h / (p.q_heads / p.kv_heads);
    for (size_t j = r.lo; j < r.hi; ++j) {
      if (p.bias != nullptr) {
        const float bj = p.bias[b * p.bias_strides[0] + h * p.bias_strides[1] + i * p.bias_strides[2] + j];
        if (std::isfinite(bj) && std::fabs(bj) >= kBig) return true;
      }
    }
    for (size_t d = 0; d < p.value_dim; ++d) {
      double s = 0;
      for (size_t j = r.lo; j < r.hi; ++j) s += std::fabs(v[b * p.v_strides[0] + kvh * p.v_strides[1] + j * p.v_strides[2] + d]);
      if (s >= kBig) return true;
    }
    return false;
  };

  std::vector<float> o0(oe == SIZE_MAX ? 0 : oe, kSentinel);
  const std::vector<float> q0 = q.Copy();
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    Buffer o(o0.size());
    std::copy(o0.begin(), o0.end(), o.data());
    std::vector<float> lse(le, kSentinel);
    p.lse = le > 0 ? lse.data() : nullptr;
    std::copy(q0.begin(), q0.end(), q.data());
    // A tensor without elements (value_dim 0, kv_len 0 ...) still gets a pointer, not NULL: vlak.h
    // asks for q, o (and k, v when kv_len > 0) whatever their extent.
    static float none[1];
    auto ptr = [](float* x) { return x != nullptr ? x : none; };
    float* const op = nulls == 4 ? nullptr : nulls == 5 ? ptr(q.data()) : ptr(o.data());
    const vlak_status st = vlak_attention_f32(&p, nulls == 1 ? nullptr : ptr(q.data()), nulls == 2 ? nullptr : ptr(k.data()),
                                              nulls == 3 ? nullptr : ptr(v.data()), op);
    if (!HasResults(st, expect_error, empty, t, o, o0, "o written on error")) {
      CheckSentinels(lse, t, "lse written on error");
      CheckUnchanged(q, q0, t, "q written on error");
      continue;
    }
    const double dh = static_cast<double>(p.head_dim), u = 0x1.0p-24;
    const double ops = static_cast<double>(p.kv_len + 2 * p.head_dim + 8);
    for (size_t b = 0; b < p.batch; ++b) {
      for (size_t h = 0; h < p.q_heads; ++h) {
        for (size_t i = 0; i < p.q_len; ++i) {
          const size_t row = (b * p.q_heads + h) * p.q_len + i;
          const size_t at = b * p.o_strides[0] + h * p.o_strides[1] + i * p.o_strides[2];
          const bool big = row_big(b, h, i);
          // sum_j |v_jd| over the keys the row sees: vlak.h's underflow term.
          std::vector<double> vabs(p.value_dim, 0.0);
          const vlak::AttentionRange keys = vlak::AttentionKeys(p, b, i);
          const size_t kvh = h / (p.q_heads / p.kv_heads);
          for (size_t j = keys.lo; j < keys.hi; ++j) {
            for (size_t d = 0; d < p.value_dim; ++d) {
              vabs[d] += std::fabs(v[b * p.v_strides[0] + kvh * p.v_strides[1] + j * p.v_strides[2] + d]);
            }
          }
          for (size_t d = 0; d < p.value_dim; ++d) {
            const double ref = o64[row * p.value_dim + d];
            const float y = o[at + d];
            if (big) continue;  // float logits or sums may overflow (to -inf: a masked row) where float64's do not
            if (!std::isfinite(ref)) {
              Check(!std::isfinite(y), "o finite where float64's is not", t, at + d, y, ref);
              continue;
            }
            if (lse64[row] == -INFINITY) {  // no key, or all -inf: o = 0
              Check(y == 0.0f, "o not 0 in a row without keys", t, at + d, y, ref);
              continue;
            }
            if ((dh + 2) * u * mag[row] > 0x1.0p-10) {  // vlak.h: a convex combination of the row's v
              double lo = INFINITY, hi = -INFINITY, vmax = 0;
              for (size_t j = keys.lo; j < keys.hi; ++j) {
                const double x = v[b * p.v_strides[0] + kvh * p.v_strides[1] + j * p.v_strides[2] + d];
                lo = std::min(lo, x);
                hi = std::max(hi, x);
                vmax = std::max(vmax, std::fabs(x));
              }
              Check(y >= lo - 1e-5 * vmax - 0x1.0p-149 * ops && y <= hi + 1e-5 * vmax + 0x1.0p-149 * ops,
                    "o outside the convex hull of v", t, at + d, y, ref);
              continue;
            }
            const double bound = (1e-5 + 2 * (dh + 2) * u * mag[row] + 2 * static_cast<double>(p.kv_len) * u) *
                                     pabs[row * p.value_dim + d] +
                                 0x1.0p-126 * vabs[d];
            if (!Within(y, ref, bound, ops)) {  // the bound's parts, for the finding's report
              std::fprintf(stderr, "row %zu (b %zu h %zu i %zu) d %zu: bound %.3g, M %.3g, sum p|v| %.3g\n", row, b, h, i, d,
                           bound, mag[row], pabs[row * p.value_dim + d]);
            }
            Check(Within(y, ref, bound, ops), "o outside vlak.h's bound", t, at + d, y, ref);
          }
          for (size_t d = p.value_dim; d < p.value_dim + o_gap && at + d < o.size(); ++d) {
            Check(Bits(o[at + d]) == Bits(kSentinel), "gap between o rows written", t, at + d, o[at + d]);
          }
          if (le > 0) {
            const double ref = lse64[row];
            if (big) continue;
            if (!std::isfinite(ref)) {
              if (std::isnan(ref)) Check(std::isnan(lse[row]), "lse not NaN", t, row, lse[row], ref);
              if (std::isinf(ref)) Check(lse[row] == static_cast<float>(ref), "lse not inf", t, row, lse[row], ref);
              continue;
            }
            const double bound = 1e-5 * (1 + std::fabs(ref)) + 2 * (dh + 2) * u * mag[row];
            Check(Within(lse[row], ref, bound, ops), "lse outside vlak.h's bound", t, row, lse[row], ref);
          }
        }
      }
    }
    // The same bits with 3 threads (vlak.h: never depends on the thread count).
    Buffer o3(o0.size());
    std::copy(o0.begin(), o0.end(), o3.data());
    std::vector<float> lse3(le, kSentinel);
    p.lse = le > 0 ? lse3.data() : nullptr;
    Check(vlak::AttentionF32(&p, ptr(q.data()), ptr(k.data()), ptr(v.data()), ptr(o3.data()), 3) == VLAK_OK,
          "3 threads failed", t);
    for (size_t i = 0; i < o.size(); ++i) Check(SameValue(o[i], o3[i]), "3 threads differ from 1", t, i, o3[i], o[i]);
    for (size_t i = 0; i < le; ++i) Check(SameValue(lse[i], lse3[i]), "3 threads differ (lse)", t, i, lse3[i], lse[i]);
  }
  return 0;
}
