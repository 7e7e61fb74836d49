// add-layernorm and add-rmsnorm f32, rows x cols: the lab's view of the fused residual add + norm.
//   add-layernorm: BERT's post-LN block end, y = LayerNorm(x + r); inputs x, r uniform [-2, 2],
//                  gamma uniform [0.5, 1.5], beta uniform [-0.5, 0.5]; eps 1e-5. output y.
//   add-rmsnorm:   Llama's pre-norm, s = x + r (the residual stream, an output) and y = RMSNorm(s);
//                  gamma uniform [0.5, 1.5]; eps 1e-5. outputs y and sum.
//   bytes:  read x and r, write y (and sum): 12 (16) per element + 8 (4) per column.
//   bound:  vlak.h's bound of the norm on s = x + r, against its float64 reference on that s.
//   rows:   vlak (fused), vlak-2call (the add as a separate pass, clang -O3 -march=native's plain C,
//           then vlak_layernorm_f32 / vlak_rmsnorm_f32: what a caller without the fused operator
//           does), c-gcc / c-clang (add_norm_peer.c, fused in plain C).
#include <cmath>
#include <cstdio>
#include <memory>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/layernorm/layernorm.h"
#include "ops/rmsnorm/rmsnorm.h"
#include "vlak/vlak.h"

// The plain C peer beside this file (add_norm_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(add_f32, void(const float* x, const float* r, float* s, size_t n))
VLAK_LAB_CREF(add_layernorm_f32, void(const float* x, const float* r, const float* gamma, const float* beta, float* y,
                                      size_t rows, size_t cols, float eps))
VLAK_LAB_CREF(add_rmsnorm_f32, void(const float* x, const float* r, const float* gamma, float* y, float* s,
                                    size_t rows, size_t cols, float eps))

namespace vlak::lab {
namespace {

// x, r, gamma (and beta) as the header says; s = x + r in float, the input of the references.
std::vector<float> MakeInputs(Problem* p, bool beta) {
  const size_t rows = RowsOf(*p), cols = ColsOf(*p);
  float* x = p->AddInput("x", {rows, cols}).F32();
  float* r = p->AddInput("r", {rows, cols}).F32();
  float* gamma = p->AddInput("gamma", {cols}).F32();
  FillUniform(x, rows * cols, -2.0f, 2.0f, 1);
  FillUniform(r, rows * cols, -2.0f, 2.0f, 2);
  FillUniform(gamma, cols, 0.5f, 1.5f, 3);
  if (beta) FillUniform(p->AddInput("beta", {cols}).F32(), cols, -0.5f, 0.5f, 4);
  std::vector<float> s(rows * cols);
  for (size_t i = 0; i < rows * cols; ++i) s[i] = x[i] + r[i];
  return s;
}

// vlak-2call: the add pass (clang's plain C, over rows on `threads` threads), then the vlak norm.
ImplDef TwoCalls(bool layer) {
  auto scratch = std::make_shared<std::vector<float>>();
  return PlainImpl(
      "vlak-2call", "vlak",
      layer ? "s = x + r (clang -O3 plain C), then vlak_layernorm_f32(s)" : "s = x + r (clang -O3 plain C), then vlak_rmsnorm_f32(s)",
      [] { return Cref_add_f32("clang") != nullptr ? std::string() : std::string("not built (clang's C peer)"); },
      [layer, scratch](const Problem& p, Outputs& out, int threads) {
        const size_t rows = RowsOf(p), cols = ColsOf(p);
        float* s = layer ? nullptr : out[1].F32();
        if (s == nullptr) {
          if (scratch->size() < rows * cols) scratch->resize(rows * cols);
          s = scratch->data();
        }
        auto* add = Cref_add_f32("clang");
        if (!ParallelOk(threads, rows, [&](size_t r0, size_t r1) {
              add(p.In(0).F32() + r0 * cols, p.In(1).F32() + r0 * cols, s + r0 * cols, (r1 - r0) * cols);
              return true;
            })) {
          return false;
        }
        vlak_set_num_threads(threads);
        return (layer ? vlak_layernorm_f32(rows, cols, s, cols, p.In(2).F32(), p.In(3).F32(), kNormEps, out[0].F32(),
                                           cols, nullptr, nullptr)
                      : vlak_rmsnorm_f32(rows, cols, s, cols, p.In(2).F32(), kNormEps, out[0].F32(), cols)) == VLAK_OK;
      });
}

// The inputs and y's reference of add-layernorm (layer) or add-rmsnorm; add-rmsnorm's sum is
// x + r rounded once: its reference is that float, and a zero scale allows it no error at all.
void MakeProblem(Problem* p, bool layer) {
  const size_t rows = RowsOf(*p), cols = ColsOf(*p);
  const std::vector<float> s = MakeInputs(p, layer);
  const float* gamma = p->In(2).F32();
  const Problem::ScaledRef y = p->AddScaledOutput("y", {rows, cols});
  if (layer) {
    LayerNormReferenceRowsF64(s.data(), rows, cols, gamma, p->In(3).F32(), kNormEps, y.ref, y.scale);
    return;
  }
  RmsNormReferenceRowsF64(s.data(), rows, cols, gamma, kNormEps, y.ref, y.scale);
  std::vector<double>& sum = p->AddOutput("sum", {rows, cols});
  for (size_t i = 0; i < rows * cols; ++i) sum[i] = s[i];
  p->scale[1].assign(rows * cols, 0.0f);
}

// After vlak's own rows: vlak-2call, then the C peer (add_norm_peer.c) built by gcc and by clang.
void AddTwoCallAndPeerImpls(OpDef* op, bool layer) {
  op->impls.push_back(TwoCalls(layer));
  const std::string file = "src/ops/add_norm/add_norm_peer.c";
  if (layer) {
    AddCrefImpls(op, file, Cref_add_layernorm_f32, [](auto* k, const Problem& p, Outputs& out, int threads) {
      const size_t cols = ColsOf(p);
      return RowBlocks(threads, p, [&](size_t r0, size_t r1) {
        const size_t at = r0 * cols;
        k(p.In(0).F32() + at, p.In(1).F32() + at, p.In(2).F32(), p.In(3).F32(), out[0].F32() + at, r1 - r0, cols, kNormEps);
      });
    });
    return;
  }
  AddCrefImpls(op, file, Cref_add_rmsnorm_f32, [](auto* k, const Problem& p, Outputs& out, int threads) {
    const size_t cols = ColsOf(p);
    return RowBlocks(threads, p, [&](size_t r0, size_t r1) {
      const size_t at = r0 * cols;
      k(p.In(0).F32() + at, p.In(1).F32() + at, p.In(2).F32(), out[0].F32() + at, out[1].F32() + at, r1 - r0, cols,
        kNormEps);
    });
  });
}

// add-layernorm (layer) or add-rmsnorm.
OpDef AddNormOp(bool layer) {
  OpDef op = layer ? RowsColsOp("add-layernorm", "12 bytes/element (read x and r, write y) + 8/column (gamma, beta)",
                                12.0, 8.0)
                   : RowsColsOp("add-rmsnorm", "16 bytes/element (read x and r, write y and sum) + 4/column (gamma)",
                                16.0, 4.0);
  op.make_problem = [layer](Problem* p) { MakeProblem(p, layer); };
  op.bound_text = BoundFormat(layer ? "abs<=%.0e(|g|(1+|xhat|)+|b|)" : "abs<=%.0e|g|(1+|xhat|), sum exact");
  op.baselines = {"vlak-2call", "c-gcc", "c-clang"};
  op.test_dims = {{3, 64}};
  op.AddImpls(RowsVlakImpls(layer ? "vlak_add_layernorm_f32" : "vlak_add_rmsnorm_f32", 1e-5,
                            [layer](const Problem& p, Outputs& out, size_t rows, size_t cols) {
                              const float *x = p.In(0).F32(), *r = p.In(1).F32(), *gamma = p.In(2).F32();
                              return (layer ? vlak_add_layernorm_f32(rows, cols, x, cols, r, cols, gamma,
                                                                     p.In(3).F32(), kNormEps, out[0].F32(), cols,
                                                                     nullptr, 0)
                                            : vlak_add_rmsnorm_f32(rows, cols, x, cols, r, cols, gamma, kNormEps,
                                                                   out[0].F32(), cols, out[1].F32(), cols)) ==
                                     VLAK_OK;
                            }));
  AddTwoCallAndPeerImpls(&op, layer);
  return op;
}

}  // namespace

std::vector<OpDef> LabOps_add_norm() { return {AddNormOp(true), AddNormOp(false)}; }

}  // namespace vlak::lab
