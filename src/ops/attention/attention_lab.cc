// Fused attention f32 (vlak_attention_f32): the lab's view of it.
//   operators: "attention" (no mask) and "attention-causal" (VLAK_ATTENTION_CAUSAL, bottom-right).
//   shapes:  BxHxSxD (self-attention: q_len = kv_len = S) or BxHxSQxSKVxD (e.g. 1x8x1x4096x64, a
//            decode step against a 4096-key cache); value_dim = D; q, k, v, o dense (B, H, S, D).
//   inputs:  q, k, v uniform [-1, 1]; scale 1 / sqrt(D). output: o.
//   flops:   2 (D + D) per (query, visible key) pair and head (the causal operator counts only the
//            pairs a query sees); roofline against the FMA peak. bytes (GB/s only): q, k, v, o once.
//   bound:   vlak.h's, |o - o64| <= (1e-5 + 2 (D + 2) u M + 2 SKV u) sum_j p64_j |v_jd|, u = 2^-24 (the
//            scale column holds that over 1e-5); AttentionReferenceF64.
//   impls:   vlak (and vlak@target); vlak-composed: per head vlak_matmul_f32 (Q K^T, TRANS_B), a scale
//            (and mask) pass, vlak_softmax_f32, vlak_matmul_f32 (P V), the logits in memory: what a
//            framework without a fused kernel runs. PyTorch: Debian's libtorch 1.13, which the lab
//            links, has no scaled_dot_product_attention (PyTorch 2.0): no torch row; PyTorch 2.x
//            from PyPI is compared in Python instead (python/tools/sdpa.py, `scripts/bench sdpa`).
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "lab/ops.h"
#include "ops/attention/attention.h"
#include "vlak/vlak.h"

namespace vlak::lab {
namespace {

struct Dims {
  size_t b, h, sq, skv, d;
};
Dims DimsOf(const Shape& s) {
  const auto& v = s.dims;
  if (v.size() == 4) return {v[0], v[1], v[2], v[2], v[3]};
  return {v[0], v[1], v[2], v[3], v[4]};
}

vlak_attention_params Params(const Dims& x, unsigned flags) {
  vlak_attention_params p{};
  p.batch = x.b;
  p.q_heads = p.kv_heads = x.h;
  p.q_len = x.sq;
  p.kv_len = x.skv;
  p.head_dim = p.value_dim = x.d;
  p.q_strides[0] = p.o_strides[0] = x.h * x.sq * x.d;
  p.q_strides[1] = p.o_strides[1] = x.sq * x.d;
  p.q_strides[2] = p.o_strides[2] = x.d;
  p.k_strides[0] = p.v_strides[0] = x.h * x.skv * x.d;
  p.k_strides[1] = p.v_strides[1] = x.skv * x.d;
  p.k_strides[2] = p.v_strides[2] = x.d;
  p.flags = flags;
  return p;
}

// Query/key pairs a query sees, over one head.
double Pairs(const Dims& x, unsigned flags) {
  const vlak_attention_params p = Params(x, flags);
  double n = 0;
  for (size_t i = 0; i < x.sq; ++i) {
    const AttentionRange r = AttentionKeys(p, 0, i);
    n += static_cast<double>(r.hi - r.lo);
  }
  return n;
}

void MakeProblem(Problem* pr, unsigned flags) {
  const Dims x = DimsOf(pr->shape);
  float* q = pr->AddInput("q", {x.b, x.h, x.sq, x.d}).F32();
  float* k = pr->AddInput("k", {x.b, x.h, x.skv, x.d}).F32();
  float* v = pr->AddInput("v", {x.b, x.h, x.skv, x.d}).F32();
  FillUniform(q, x.b * x.h * x.sq * x.d, -1.0f, 1.0f, 1);
  FillUniform(k, x.b * x.h * x.skv * x.d, -1.0f, 1.0f, 2);
  FillUniform(v, x.b * x.h * x.skv * x.d, -1.0f, 1.0f, 3);
  const vlak_attention_params p = Params(x, flags);
  const size_t rows = x.b * x.h * x.sq, n = rows * x.d;
  std::vector<double> mag(rows), pabs(n);
  std::vector<double>& ref = pr->AddOutput("o", {x.b, x.h, x.sq, x.d});
  AttentionReferenceF64(p, q, k, v, ref.data(), nullptr, mag.data(), pabs.data());
  std::vector<float>& scale = pr->scale[0];
  scale.resize(n);
  const double u = std::ldexp(1.0, -24);
  for (size_t i = 0; i < n; ++i) {
    const double extra = 2 * static_cast<double>(x.d + 2) * u * mag[i / x.d] + 2 * static_cast<double>(x.skv) * u;
    scale[i] = static_cast<float>((1 + extra / 1e-5) * pabs[i]);
  }
}

// Unfused: per (batch, head) S = Q K^T (vlak_matmul_f32), S = scale S (and -inf where masked),
// P = softmax(S) in place (vlak_softmax_f32), O = P V (vlak_matmul_f32). vlak threads each call.
bool Composed(const Problem& pr, Outputs& out, int threads, unsigned flags, std::vector<float>& s) {
  const Dims x = DimsOf(pr.shape);
  const vlak_attention_params p = Params(x, flags);
  // The target the library picks (a vlak@target row before this one leaves its target forced).
  if (vlak_set_target(static_cast<vlak_target>(DefaultVlakTarget())) != VLAK_OK) return false;
  vlak_set_num_threads(threads);
  s.resize(x.sq * x.skv);
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x.d)));
  for (size_t bh = 0; bh < x.b * x.h; ++bh) {
    const float* q = pr.In(0).F32() + bh * x.sq * x.d;
    const float* k = pr.In(1).F32() + bh * x.skv * x.d;
    const float* v = pr.In(2).F32() + bh * x.skv * x.d;
    float* o = out[0].F32() + bh * x.sq * x.d;
    if (vlak_matmul_f32(x.sq, x.skv, x.d, q, x.d, k, x.d, s.data(), x.skv, VLAK_MATMUL_TRANS_B) != VLAK_OK) return false;
    for (size_t i = 0; i < x.sq; ++i) {
      float* row = s.data() + i * x.skv;
      const AttentionRange r = AttentionKeys(p, 0, i);
      for (size_t j = 0; j < x.skv; ++j) row[j] = j >= r.lo && j < r.hi ? row[j] * scale : -INFINITY;
    }
    if (vlak_softmax_f32(x.sq, x.skv, s.data(), x.skv, s.data(), x.skv, VLAK_SOFTMAX_SAFE) != VLAK_OK) return false;
    if (vlak_matmul_f32(x.sq, x.d, x.skv, s.data(), x.skv, v, x.d, o, x.d, 0) != VLAK_OK) return false;
  }
  return true;
}

OpDef MakeOp(const char* name, unsigned flags) {
  OpDef op = NewOp(name, "BxHxSxD or BxHxSQxSKVxD (e.g. 1x8x512x64, 1x8x1x4096x64)", "S",
                   "4 (q + k + v + o) bytes; 4 D flop per visible (query, key) pair and head");
  op.roofline = "compute";
  op.check_shape = ShapeRule({4, 5}, "attention shapes are BxHxSxD or BxHxSQxSKVxD (e.g. 1x8x512x64)",
                             [](const std::vector<size_t>& dims) { return dims.back() > 0; });
  op.elements = [](const Shape& s) {
    const Dims x = DimsOf(s);
    return x.b * x.h * x.sq * x.d;
  };
  op.bytes_per_run = [](const Shape& s) {
    const Dims x = DimsOf(s);
    return 4.0 * static_cast<double>(x.b * x.h) * static_cast<double>(2 * x.sq * x.d + 2 * x.skv * x.d);
  };
  op.flops_per_run = [flags](const Shape& s) {
    const Dims x = DimsOf(s);
    return 4.0 * static_cast<double>(x.b * x.h) * static_cast<double>(x.d) * Pairs(x, flags);
  };
  op.make_problem = [flags](Problem* p) { MakeProblem(p, flags); };
  op.bound_text = [](double) { return std::string("(1e-5+2(D+2)uM+2Su)sum p|v|"); };
  op.baselines = {"vlak-composed"};
  op.test_dims = {{1, 2, 5, 16}, {2, 2, 3, 70, 24}};
  op.AddImpls(VlakTargetImpls("vlak_attention_f32", 1e-5, Available,
                              [flags](const Problem& pr, Outputs& out) {
                                const vlak_attention_params p = Params(DimsOf(pr.shape), flags);
                                return vlak_attention_f32(&p, pr.In(0).F32(), pr.In(1).F32(), pr.In(2).F32(),
                                                          out[0].F32()) == VLAK_OK;
                              }));
  op.impls.push_back(PlainImpl(
      "vlak-composed", "vlak",  // vlak's own calls and threads, not a library baseline
      "per head: vlak_matmul_f32 Q K^T, scale/mask pass, vlak_softmax_f32, vlak_matmul_f32 P V (logits in memory)",
      Available,
      [flags](const Problem& pr, Outputs& out, int threads) {
        thread_local std::vector<float> s;
        return Composed(pr, out, threads, flags, s);
      }));
  return op;
}

}  // namespace

std::vector<OpDef> LabOps_attention() {
  return {MakeOp("attention", 0), MakeOp("attention-causal", VLAK_ATTENTION_CAUSAL)};
}

}  // namespace vlak::lab
