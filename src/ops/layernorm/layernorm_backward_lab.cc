// layernorm-bwd f32, rows x cols: the gradient of layernorm (Terapines AI-Benchmark
// times forward + backward;
// the lab times them apart). The lab's view of it:
//   inputs: dy uniform [-1, 1], x and gamma as layernorm's, and the forward's mean and rstd
//           (float64, rounded to float: what a training framework saved). eps 1e-5 (oneDNN's
//           variance is made from rstd with it).
//   outputs: dx (rows x cols), dgamma and dbeta (cols): sums over every row.
//   bytes:  read dy and x, write dx: 12 per element; + 12 per column (gamma, dgamma, dbeta) and 8
//           per row (mean, rstd).
//   bound:  vlak.h's: dx within 1e-5 max|dx64| of its row, dgamma/dbeta within 1e-5 sum_r |term64|
//           of their column; LayerNormBackwardReferenceF64.
//   threads: the C reference splits rows in one block per thread, each adding into its own
//           dgamma/dbeta partials, summed in thread order afterwards (AI-Benchmark's `omp reduction`).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/layernorm/layernorm.h"
#include "vlak/vlak.h"

// The plain C peer beside this file (layernorm_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(layernorm_bwd_f32, void(const float* dy, const float* x, const float* gamma, const float* mean,
                                      const float* rstd, float* dx, float* dgamma, float* dbeta, size_t rows, size_t cols))

namespace vlak::lab {
namespace {

enum { kDy, kX, kGamma, kMean, kRstd };  // input order
enum { kDx, kDgamma, kDbeta };           // output order

void MakeProblem(Problem* p) {
  const size_t rows = RowsOf(*p), cols = ColsOf(*p);
  float* dy = p->AddInput("dy", {rows, cols}).F32();
  float* x = p->AddInput("x", {rows, cols}).F32();
  float* gamma = p->AddInput("gamma", {cols}).F32();
  float* mean = p->AddInput("mean", {rows}).F32();
  float* rstd = p->AddInput("rstd", {rows}).F32();
  FillUniform(dy, rows * cols, -1.0f, 1.0f, 5);
  FillUniform(x, rows * cols, -2.0f, 2.0f, 1);
  std::vector<float> offset(rows);
  FillUniform(offset.data(), rows, -4.0f, 4.0f, 2);
  for (size_t r = 0; r < rows; ++r) for (size_t c = 0; c < cols; ++c) x[r * cols + c] += offset[r];
  FillUniform(gamma, cols, 0.5f, 1.5f, 3);
  p->AddOutput("dx", {rows, cols});
  p->AddOutput("dgamma", {cols});
  p->AddOutput("dbeta", {cols});
  // References taken after the last AddOutput (it may move the vectors).
  std::vector<double>& dx = p->ref[kDx];
  std::vector<double>& dgamma = p->ref[kDgamma];
  std::vector<double>& dbeta = p->ref[kDbeta];
  std::vector<float>& s_dx = p->scale[kDx];
  std::vector<float>& s_dg = p->scale[kDgamma];
  std::vector<float>& s_db = p->scale[kDbeta];
  s_dx.resize(rows * cols);
  std::vector<double> ys(cols), tg(cols), tb(cols), abs_g(cols, 0.0), abs_b(cols, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    double m = 0, rs = 0;
    LayerNormReferenceF64(x + r * cols, cols, gamma, nullptr, kNormEps, ys.data(), &m, &rs);
    mean[r] = static_cast<float>(m);
    rstd[r] = static_cast<float>(rs);
    double* dxr = dx.data() + r * cols;
    LayerNormBackwardReferenceF64(dy + r * cols, x + r * cols, cols, gamma, mean[r], rstd[r], dxr, tg.data(), tb.data());
    double row_max = 0;
    for (size_t c = 0; c < cols; ++c) row_max = std::max(row_max, std::fabs(dxr[c]));
    std::fill(s_dx.begin() + static_cast<long>(r * cols), s_dx.begin() + static_cast<long>((r + 1) * cols),
              static_cast<float>(row_max));
    for (size_t c = 0; c < cols; ++c) {
      dgamma[c] += tg[c];
      dbeta[c] += tb[c];
      abs_g[c] += std::fabs(tg[c]);
      abs_b[c] += std::fabs(tb[c]);
    }
  }
  s_dg.assign(abs_g.begin(), abs_g.end());
  s_db.assign(abs_b.begin(), abs_b.end());
}

// The C reference on `threads` row blocks, each with its own dgamma/dbeta partials.
bool CrefRun(cref_types::layernorm_bwd_f32* k, const Problem& p, Outputs& out, int threads, std::vector<float>& partials) {
  const size_t rows = RowsOf(p), cols = ColsOf(p);
  const size_t t = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), rows));
  partials.assign(2 * t * cols, 0.0f);  // zeroing is part of a reduction's cost
  // One index per thread: block i of the rows and partials i.
  ParallelBlocks(static_cast<int>(t), t, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) {
      const size_t r0 = rows * i / t, r1 = rows * (i + 1) / t;
      float* pg = partials.data() + 2 * i * cols;
      k(p.In(kDy).F32() + r0 * cols, p.In(kX).F32() + r0 * cols, p.In(kGamma).F32(),
                          p.In(kMean).F32() + r0, p.In(kRstd).F32() + r0, out[kDx].F32() + r0 * cols, pg, pg + cols,
                          r1 - r0, cols);
    }
  });
  float* dg = out[kDgamma].F32();
  float* db = out[kDbeta].F32();
  std::memcpy(dg, partials.data(), cols * sizeof(float));
  std::memcpy(db, partials.data() + cols, cols * sizeof(float));
  for (size_t i = 1; i < t; ++i) {
    const float* pg = partials.data() + 2 * i * cols;
    for (size_t c = 0; c < cols; ++c) {
      dg[c] += pg[c];
      db[c] += pg[cols + c];
    }
  }
  return true;
}

}  // namespace

std::vector<OpDef> LabOps_layernorm_backward() {
  OpDef op = RowsColsOp("layernorm-bwd",
                        "12 bytes/element (read dy, x; write dx) + 12/column (gamma, dgamma, dbeta) + 8/row (mean, rstd)",
                        12.0, 12.0, 8.0);
  op.make_problem = MakeProblem;
  op.bound_text = BoundFormat("dx<=%.0e*rowmax|dx|, dg,db<=%.0e*sum|term|");
  op.baselines = {"onednn", "c-gcc", "c-clang"};
  op.test_dims = {{5, 32}};

  op.AddImpls(VlakTargetImpls("vlak_layernorm_backward_f32", 1e-5,
                              Available,
                              [](const Problem& p, Outputs& out) {
                                return vlak_layernorm_backward_f32(
                                           RowsOf(p), ColsOf(p), p.In(kDy).F32(), p.In(kX).F32(), ColsOf(p),
                                           p.In(kGamma).F32(), p.In(kMean).F32(), p.In(kRstd).F32(),
                                           out[kDx].F32(), out[kDgamma].F32(), out[kDbeta].F32()) == VLAK_OK;
                              }));
  for (const char* cc : {"gcc", "clang"}) {
    auto* fn = Cref_layernorm_bwd_f32(cc);
    ImplDef d = CrefImpl(cc, "src/ops/layernorm/layernorm_peer.c", fn, [](auto*, const Problem&, Outputs&, int) { return false; });
    d.description += "; dgamma/dbeta: per-thread partials summed in order";
    d.prepare = [fn](const Problem& p, Outputs& out, int threads, std::string*) {
      Prepared pr;
      auto partials = std::make_shared<std::vector<float>>();
      pr.run = [&p, &out, threads, fn, partials] { return fn != nullptr && CrefRun(fn, p, out, threads, *partials); };
      return pr;
    };
    op.impls.push_back(d);
  }
  ImplDef dnnl = LibraryImpl("onednn",
                             "oneDNN layer_normalization_backward, prop backward, scale and shift gradients, OpenMP "
                             "threads", OnednnMissing);
  dnnl.prepare = [](const Problem& p, Outputs& out, int threads, std::string* err) {
    return OnednnLayernormBackward(RowsOf(p), ColsOf(p), p.In(kDy).F32(), p.In(kX).F32(), p.In(kGamma).F32(),
                                   p.In(kMean).F32(), p.In(kRstd).F32(), kNormEps, out[kDx].F32(), out[kDgamma].F32(),
                                   out[kDbeta].F32(), threads, err);
  };
  op.impls.push_back(dnnl);
  return {op};
}

}  // namespace vlak::lab
