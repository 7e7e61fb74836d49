// rmsnorm f32, rows x cols (Llama's RMSNorm): the lab's view of it.
//   inputs: x uniform [-2, 2], gamma uniform [0.5, 1.5]; eps 1e-5. output: y.
//   bytes:  read x, write y, read gamma: 8 per element + 4 per column.
//   bound:  vlak.h's, |y - y64| <= 1e-5 |gamma| (1 + |xhat64|); RmsNormReferenceF64.
#include <cmath>
#include <cstdio>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/rmsnorm/rmsnorm.h"
#include "vlak/vlak.h"

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(rmsnorm_f32, void(const float* x, const float* gamma, float* y, size_t rows, size_t cols, float eps))

namespace vlak::lab {

std::vector<OpDef> LabOps_rmsnorm() {
  OpDef op = RowsColsOp("rmsnorm", "8 bytes/element (read x, write y) + 4/column (gamma)", 8.0, 4.0);
  op.make_problem = [](Problem* p) {
    const size_t rows = RowsOf(*p), cols = ColsOf(*p);
    const auto [x, gamma] = AddNormInputs(p);
    const Problem::ScaledRef y = p->AddScaledOutput("y", {rows, cols});
    RmsNormReferenceRowsF64(x, rows, cols, gamma, kNormEps, y.ref, y.scale);
  };
  op.bound_text = BoundFormat("abs<=%.0e|g|(1+|xhat|)");
  op.baselines = {"c-gcc", "c-clang"};
  op.test_dims = {{3, 64}};

  op.AddImpls(RowsVlakImpls("vlak_rmsnorm_f32", 1e-5, [](const Problem& p, Outputs& out, size_t rows, size_t cols) {
    return vlak_rmsnorm_f32(rows, cols, p.In(0).F32(), cols, p.In(1).F32(), kNormEps, out[0].F32(), cols) == VLAK_OK;
  }));
  AddCrefImpls(&op, "src/ops/rmsnorm/rmsnorm_peer.c", Cref_rmsnorm_f32, [](auto* k, const Problem& p, Outputs& out, int threads) {
    const size_t cols = ColsOf(p);
    return RowBlocks(threads, p, [&](size_t r0, size_t r1) {
      k(p.In(0).F32() + r0 * cols, p.In(1).F32(), out[0].F32() + r0 * cols, r1 - r0, cols, kNormEps);
    });
  });
  return {op};
}

}  // namespace vlak::lab
