// layernorm f32 forward, rows x cols (Terapines AI-Benchmark's Layernorm, e.g. 1151x8192): the lab's view of it.
//   inputs: x uniform [-2, 2] plus a per-row offset in [-4, 4] (a common offset is what breaks a
//           one-pass E[x^2] - E[x]^2 variance), gamma uniform [0.5, 1.5], beta uniform [-0.5, 0.5];
//           eps 1e-5. output: y (mean and rstd are not asked for).
//   bytes:  read x, write y, read gamma and beta: 8 per element + 8 per column.
//   bound:  vlak.h's, |y - y64| <= 1e-5 (|gamma| (1 + |xhat64|) + |beta|); LayerNormReferenceF64.
#include <cmath>
#include <cstdio>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/layernorm/layernorm.h"
#include "vlak/vlak.h"

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(layernorm_f32, void(const float* x, const float* gamma, const float* beta, float* y, size_t rows, size_t cols, float eps))

namespace vlak::lab {

std::vector<OpDef> LabOps_layernorm() {
  OpDef op = RowsColsOp("layernorm", "8 bytes/element (read x, write y) + 8/column (gamma, beta)", 8.0, 8.0);
  op.make_problem = [](Problem* p) {
    const size_t rows = RowsOf(*p), cols = ColsOf(*p);
    const auto [x, gamma] = AddNormInputs(p);
    float* beta = p->AddInput("beta", {cols}).F32();
    std::vector<float> offset(rows);
    FillUniform(offset.data(), rows, -4.0f, 4.0f, 2);
    for (size_t r = 0; r < rows; ++r) for (size_t c = 0; c < cols; ++c) x[r * cols + c] += offset[r];
    FillUniform(beta, cols, -0.5f, 0.5f, 4);
    const Problem::ScaledRef y = p->AddScaledOutput("y", {rows, cols});
    LayerNormReferenceRowsF64(x, rows, cols, gamma, beta, kNormEps, y.ref, y.scale);
  };
  op.bound_text = BoundFormat("abs<=%.0e(|g|(1+|xhat|)+|b|)");
  op.baselines = {"onednn", "c-gcc", "c-clang"};
  op.test_dims = {{3, 64}};

  op.AddImpls(RowsVlakImpls("vlak_layernorm_f32", 1e-5, [](const Problem& p, Outputs& out, size_t rows, size_t cols) {
    return vlak_layernorm_f32(rows, cols, p.In(0).F32(), cols, p.In(1).F32(), p.In(2).F32(), kNormEps, out[0].F32(), cols,
                              nullptr, nullptr) == VLAK_OK;
  }));
  AddCrefImpls(&op, "src/ops/layernorm/layernorm_peer.c", Cref_layernorm_f32, [](auto* k, const Problem& p, Outputs& out, int threads) {
    const size_t cols = ColsOf(p);
    return RowBlocks(threads, p, [&](size_t r0, size_t r1) {
      k(p.In(0).F32() + r0 * cols, p.In(1).F32(), p.In(2).F32(), out[0].F32() + r0 * cols, r1 - r0, cols, kNormEps);
    });
  });
  ImplDef dnnl = LibraryImpl("onednn",
                             "oneDNN layer_normalization_forward, inference, scale and shift (its own ISA choice), "
                             "OpenMP threads", OnednnMissing);
  dnnl.prepare = [](const Problem& p, Outputs& out, int threads, std::string* err) {
    return OnednnLayernormForward(RowsOf(p), ColsOf(p), p.In(0).F32(), p.In(1).F32(), p.In(2).F32(), kNormEps, out[0].F32(),
                                  threads, err);
  };
  op.impls.push_back(dnnl);
  op.impls.push_back(TorchImpl(TorchOp::kLayernorm, kNormEps));
  return {op};
}

}  // namespace vlak::lab
