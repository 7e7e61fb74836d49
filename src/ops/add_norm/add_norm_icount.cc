// add_layernorm_f32's and add_rmsnorm_f32's RVV instruction budgets at 32768 elements
// (tests/icount/icount_budget.h: how the count is taken), beside the plain norms' budgets
// (layernorm_icount.cc, rmsnorm_icount.cc): the add rides on the norm's first pass, about one
// load, add and store more per strip.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

constexpr Budget kBudgets[] = {
    // case                            VLEN 128    256    512
    {"add_layernorm_f32/16x2048",     58107, 30203, 16251},
    {"add_rmsnorm_f32/16x2048",       45648, 23504, 12432},
};

// X60 cycles (icount_budget.h): set by scripts/rvv-cycles --budgets --write, only down.
constexpr CycleBudget kCycleBudgets[] = {
    {"add_layernorm_f32/16x2048",                105314},
    {"add_rmsnorm_f32/16x2048",                   78927},
};
const bool kRegistered = RegisterBudgets(kBudgets) && RegisterCycleBudgets(kCycleBudgets);

struct Inputs {
  static constexpr size_t kRows = 16, kCols = 2048, kElems = kRows * kCols;
  std::vector<float> x = std::vector<float>(kElems), r = std::vector<float>(kElems), y = std::vector<float>(kElems),
                     s = std::vector<float>(kElems), gamma = std::vector<float>(kCols),
                     beta = std::vector<float>(kCols);
  Inputs() {
    std::mt19937 rng(9);
    for (float& v : x) v = static_cast<float>(rng() >> 8) * 0x1p-24f * 4 - 2;
    for (float& v : r) v = static_cast<float>(rng() >> 8) * 0x1p-24f * 2 - 1;
    for (size_t i = 0; i < kCols; ++i) gamma[i] = 1.0f + static_cast<float>(i % 7) * 0.01f;
    for (size_t i = 0; i < kCols; ++i) beta[i] = static_cast<float>(i % 5) * 0.01f;
  }
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
