// linear and linear-gelu f32: a Linear layer, C (m x n) = act(A (m x k) W^T + bias), W stored
// [n][k] as a model's weights are: the lab's view of vlak_matmul_ex_f32 (matmul with an epilogue).
//   shapes: MxNxK, as matmul's (a transformer's: 128x1536x384 is BERT-small's FFN up at 128 tokens).
//   inputs: A uniform [-1, 1], W uniform [-3/sqrt(k), 3/sqrt(k)] (C of unit variance, as a trained
//           layer's pre-activations), bias uniform [-1, 1]. output: C.
//   linear: bias only; linear-gelu: bias, then GELU (erf).
//   flops:  2 m n k (the epilogue's few per element are not counted). bytes: 4 (mk + nk + n + mn).
//   bound:  vlak.h's for vlak_matmul_ex_f32: |C - C64| <= L (2 k 2^-24 sum|A||W| + 2^-24 |x|)
//           + 2 ULPs of C64 for the activation (L = 1.13 for GELU; without it, L = 1 and no ULPs);
//           here as 2^-24 times the per-element scale L (2k sum + |x|) + 4 |C64|.
//   rows:   vlak (fused epilogue), vlak-2pass (vlak_matmul_f32, then the bias and activation as
//           a separate vectorised pass over C on the same threads: what a caller without the
//           epilogue does at best), vlak-packed (the weights packed once, vlak_matmul_packed_f32),
//           onednn (matmul primitive with bias and a gelu_erf post-op).
#include <cmath>
#include <cstdio>
#include <memory>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/activation/activation.h"
#include "vlak/vlak.h"

namespace vlak::lab {
namespace {

size_t M(const Problem& p) { return p.shape.dims[0]; }
size_t N(const Problem& p) { return p.shape.dims[1]; }
size_t K(const Problem& p) { return p.shape.dims[2]; }

constexpr double kGeluSlope = 1.13;  // max |GELU'(x)| = 1.1289 at x = sqrt(2)

void MakeProblem(Problem* p, bool gelu) {
  const size_t m = M(*p), n = N(*p), k = K(*p);
  float* a = p->AddInput("A", {m, k}).F32();
  float* w = p->AddInput("W", {n, k}).F32();
  float* bias = p->AddInput("bias", {n}).F32();
  // W scaled as a trained layer's: C (before the bias) has about unit variance whatever k, the
  // range where GELU matters. (Uniform [-1, 1] W gave C a deviation of 6.5 at k = 384, where GELU
  // is x or 0 and its tail, |x| > 13, makes denormal intermediates: x86's microcode assists then
  // slow any exact GELU 4x, docs/ops/activation.md.)
  const float wmax = 3.0f / std::sqrt(static_cast<float>(k > 0 ? k : 1));
  FillUniform(a, m * k, -1.0f, 1.0f, 1);
  FillUniform(w, n * k, -wmax, wmax, 2);
  FillUniform(bias, n, -1.0f, 1.0f, 3);
  std::vector<double>& ref = p->AddOutput("C", {m, n});
  std::vector<float>& scale = p->scale[0];
  scale.resize(m * n);
  const double slope = gelu ? kGeluSlope : 1.0;
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double x = bias[j], mag = 0;
      for (size_t q = 0; q < k; ++q) {
        const double t = static_cast<double>(a[i * k + q]) * w[j * k + q];
        x += t;
        mag += std::fabs(t);
      }
      const double c = gelu ? ActivationReferenceF64(VLAK_ACT_GELU, x) : x;
      ref[i * n + j] = c;
      scale[i * n + j] = static_cast<float>(slope * (2.0 * static_cast<double>(k) * mag + std::fabs(x)) +
                                            (gelu ? 4.0 * std::fabs(c) + 0x1p-100 : 0.0));
    }
  }
}

vlak_matmul_epilogue EpilogueOf(const Problem& p, bool gelu) {
  return vlak_matmul_epilogue{p.In(2).F32(), gelu ? VLAK_EPILOGUE_ACTIVATION : 0u, VLAK_ACT_GELU};
}

OpDef LinearOp(bool gelu) {
  OpDef op = NewOp(gelu ? "linear-gelu" : "linear", "MxNxK (e.g. 128x1536x384)", "k",
                   "4 (mk + nk + n + mn) bytes (read A, W, bias; write C); 2mnk flop");
  op.roofline = "compute";
  op.check_shape = ShapeRule({3}, "linear shapes are MxNxK (e.g. 128x1536x384)");
  op.bytes_per_run = [](const Shape& s) {
    const double m = static_cast<double>(s.dims[0]), n = static_cast<double>(s.dims[1]), k = static_cast<double>(s.dims[2]);
    return 4.0 * (m * k + n * k + n + m * n);
  };
  op.flops_per_run = [](const Shape& s) {
    return 2.0 * static_cast<double>(s.dims[0]) * static_cast<double>(s.dims[1]) * static_cast<double>(s.dims[2]);
  };
  op.make_problem = [gelu](Problem* p) { MakeProblem(p, gelu); };
  op.bound_text = [gelu](double) {
    return std::string(gelu ? "abs<=2^-24(1.13(2k sum|A||W|+|x|)+4|C64|)" : "abs<=2^-24(2k sum|A||W|+|x|)");
  };
  op.baselines = {"vlak-2pass", "onednn"};
  op.test_dims = {{8, 12, 20}, {20, 12, 20}};

  op.AddImpls(VlakTargetImpls("vlak_matmul_ex_f32", 0x1p-24, Available,
                              [gelu](const Problem& p, Outputs& out) {
                                const vlak_matmul_epilogue e = EpilogueOf(p, gelu);
                                return vlak_matmul_ex_f32(M(p), N(p), K(p), p.In(0).F32(), K(p), p.In(1).F32(),
                                                          K(p), out[0].F32(), N(p), VLAK_MATMUL_TRANS_B,
                                                          &e) == VLAK_OK;
                              }));
  // The weights packed once, outside the timing (a model packs them when it loads).
  {
    auto packed = std::make_shared<std::vector<float>>();
    struct Key {
      const float* w;
      size_t k, n;
    };
    auto packed_for = std::make_shared<Key>(Key{nullptr, 0, 0});
    op.impls.push_back(PlainImpl(
        "vlak-packed", "vlak", "vlak_matmul_packed_f32 on W packed once by vlak_matmul_pack_b_f32 (not timed)",
        Available,
        [gelu, packed, packed_for](const Problem& p, Outputs& out, int threads) {
          const size_t m = M(p), n = N(p), k = K(p);
          vlak_set_num_threads(threads);
          const size_t bytes = vlak_matmul_packed_size_f32(k, n);
          if (packed_for->w != p.In(1).F32() || packed_for->k != k || packed_for->n != n) {
            packed->assign(bytes / sizeof(float) + 1, 0.0f);
            if (vlak_matmul_pack_b_f32(k, n, p.In(1).F32(), k, VLAK_MATMUL_TRANS_B, packed->data(), bytes) != VLAK_OK) {
              return false;
            }
            *packed_for = Key{p.In(1).F32(), k, n};
          }
          const vlak_matmul_epilogue e = EpilogueOf(p, gelu);
          return vlak_matmul_packed_f32(m, n, k, p.In(0).F32(), k, packed->data(), out[0].F32(), n, 0, &e) == VLAK_OK;
        }));
  }
  // The separate pass is vlak's own epilogue kernel run alone (k = 0 with ACCUMULATE:
  // C = act(C + bias)), over row blocks on the row's threads.
  op.impls.push_back(PlainImpl(
      "vlak-2pass", "vlak",
      gelu ? "vlak_matmul_f32, then C = gelu(C + bias) as a second pass (vlak's vectorised epilogue alone)"
           : "vlak_matmul_f32, then C += bias as a second pass (vlak's vectorised epilogue alone)",
      Available,
      [gelu](const Problem& p, Outputs& out, int threads) {
        const size_t m = M(p), n = N(p), k = K(p);
        vlak_set_num_threads(threads);
        if (vlak_matmul_f32(m, n, k, p.In(0).F32(), k, p.In(1).F32(), k, out[0].F32(), n, VLAK_MATMUL_TRANS_B) !=
            VLAK_OK) {
          return false;
        }
        const vlak_matmul_epilogue e = EpilogueOf(p, gelu);
        return ParallelOk(threads, m, [&](size_t i0, size_t i1) {
          return vlak_matmul_ex_f32(i1 - i0, n, 0, nullptr, 0, nullptr, n, out[0].F32() + i0 * n, n,
                                    VLAK_MATMUL_ACCUMULATE, &e) == VLAK_OK;
        });
      }));
  ImplDef dnnl = LibraryImpl("onednn",
                             gelu ? "oneDNN matmul primitive, W^T by strides, bias, post-op eltwise_gelu_erf; OpenMP threads"
                                  : "oneDNN matmul primitive, W^T by strides, bias; OpenMP threads",
                             OnednnMissing);
  dnnl.prepare = [gelu](const Problem& p, Outputs& out, int threads, std::string* err) {
    return OnednnLinear(M(p), N(p), K(p), p.In(0).F32(), p.In(1).F32(), p.In(2).F32(), gelu, out[0].F32(), threads,
                        err);
  };
  op.impls.push_back(dnnl);
  return op;
}

}  // namespace

std::vector<OpDef> LabOps_linear() { return {LinearOp(false), LinearOp(true)}; }

}  // namespace vlak::lab
