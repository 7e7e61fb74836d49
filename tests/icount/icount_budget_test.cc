// Instruction budgets on RISC-V (icount_budget.h) of the SFPI kernels (their budgets:
// sfpi_budgets.tsv); each operator's tests are in its src/ops/<op>/<op>_icount.cc, its budgets in
// src/ops/<op>/<op>_budgets.tsv.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

using vlak_icount::CheckBudget;
using vlak_icount::Count;
using vlak_icount::IcountBudget;

// SFPI kernels: one tile each (inputs in the kernels' usual ranges), one thread.
TEST_F(IcountBudget, SfpiKernelsPerTile) {
  vlak_set_num_threads(1);
  for (const char* name : {"exp-accurate", "exp-bf16", "exp-approx", "exp-fast", "recip", "tanh", "sigmoid",
                           "gelu-approx", "gelu-accurate", "log", "sqrt"}) {
    std::vector<float> tile(1024);
    std::mt19937 rng(9);
    for (float& v : tile) v = static_cast<float>(rng() >> 8) * 0x1p-24f * 8 - 4;
    std::vector<float> work = tile;
    ASSERT_EQ(::vlak::sfpi::RunKernel(name, work.data(), 1), 0);  // warm-up
    work = tile;
    int err = 0;
    const unsigned long long count = Count([&] { err = ::vlak::sfpi::RunKernel(name, work.data(), 1); });
    ASSERT_EQ(err, 0);
    CheckBudget(std::string("sfpi/") + name + "/tile", count);
  }
}

}  // namespace
