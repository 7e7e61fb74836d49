// add_layernorm_f32's and add_rmsnorm_f32's RVV instruction budgets at 32768 elements
// (tests/icount/icount_budget.h: how the count is taken; the budgets: add_norm_budgets.tsv),
// beside the plain norms' budgets (layernorm_icount.cc, rmsnorm_icount.cc): the add rides on the
// norm's first pass, about one load, add and store more per strip.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

struct Inputs {
  static constexpr size_t kRows = 16, kCols = 2048, kElems = kRows * kCols;
  explicit Inputs(std::mt19937 rng = std::mt19937(9))
      : x(Uniform(rng, kElems, -2.0f, 2.0f)), r(Uniform(rng, kElems, -1.0f, 1.0f)), y(kElems), s(kElems),
        gamma(Periodic(kCols, 1.0f, 0.01f, 7)), beta(Periodic(kCols, 0.0f, 0.01f, 5)) {}
  std::vector<float> x, r, y, s, gamma, beta;
};

// 16 x 2048, gamma and beta given, the residual stream written (sum), one thread.
TEST_F(IcountBudget, AddLayerNorm) {
  Inputs in;
  MeasurePerElement("add_layernorm_f32/16x2048", Inputs::kElems, [&] {
    return vlak_add_layernorm_f32(Inputs::kRows, Inputs::kCols, in.x.data(), Inputs::kCols, in.r.data(),
                                  Inputs::kCols, in.gamma.data(), in.beta.data(), 1e-5f, in.y.data(), Inputs::kCols,
                                  in.s.data(), Inputs::kCols);
  });
}

TEST_F(IcountBudget, AddRmsNorm) {
  Inputs in;
  MeasurePerElement("add_rmsnorm_f32/16x2048", Inputs::kElems, [&] {
    return vlak_add_rmsnorm_f32(Inputs::kRows, Inputs::kCols, in.x.data(), Inputs::kCols, in.r.data(), Inputs::kCols,
                                in.gamma.data(), 1e-6f, in.y.data(), Inputs::kCols, in.s.data(), Inputs::kCols);
  });
}

}  // namespace
