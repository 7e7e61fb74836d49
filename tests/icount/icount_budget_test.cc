// Instruction budgets on RISC-V (icount_budget.h) of exp and of the SFPI kernels; each operator's
// budgets and their tests are in its src/ops/<op>/<op>_icount.cc.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

using vlak_icount::BudgetTable;
using vlak_icount::CheckBudget;
using vlak_icount::Count;
using vlak_icount::IcountBudget;
using vlak_icount::kN;
using vlak_icount::Uniform;

// exp_f32: clang -O3's autovectorised plain C exp (src/ops/exp/exp_peer.c) retires 9,645 / 5,037 /
// 2,733.
const BudgetTable kBudgets({
    // case                       VLEN 128    256    512   X60 cycles
    {"exp_f32/schraudolph/2048",      2397,  1245,   669,    5427},
    {"exp_f32/bittrick_p3/2048",      2537,  1321,   713,    5648},
    {"exp_f32/bittrick_p5/2048",      5487,  2799,  1455,    6314},
    {"exp_f32/cephes/2048",           6257,  3185,  1649,    7339},
    {"exp_f32/accurate/2048",         5999,  3055,  1583,    7078},
    {"exp_f32/precise/2048",          7535,  3823,  1967,    9382},
    // SFPI kernels (vlak::sfpi::RunKernel), one 32 x 32 tile on Wormhole semantics: every SFPU
    // operation on 32 lanes is strip-mined at LMUL 2 (4 / 2 / 1 strips), SFPMAD ~75 vector ops.
    {"sfpi/exp-accurate/tile",         800377, 420491, 230548,  951884},
    {"sfpi/exp-bf16/tile",             228749, 124767,  72776,  276362},
    {"sfpi/exp-approx/tile",           200108, 110152,  65174,  234170},
    {"sfpi/exp-fast/tile",              87527,  50435,  31889,  108668},
    {"sfpi/recip/tile",                441570, 231550, 126540,  531470},
    {"sfpi/tanh/tile",                  74757,  41751,  25248,   86556},
    {"sfpi/sigmoid/tile",              166963,  93637,  56974,  193673},
    {"sfpi/gelu-approx/tile",          148831,  82801,  49786,  174695},
    {"sfpi/gelu-accurate/tile",        460355, 243157, 134558,  546676},
    {"sfpi/log/tile",                  378383, 203023, 115343,  453277},
    {"sfpi/sqrt/tile",                 676294, 355060, 194443,  816202},
});

class IcountBudgetExp : public IcountBudget, public testing::WithParamInterface<int> {};

TEST_P(IcountBudgetExp, Exp2048) {
  const auto variant = static_cast<vlak_exp_variant>(GetParam());
  const std::vector<float> x = Uniform(7, -87.0f, 0.0f);
  std::vector<float> y(kN);
  ASSERT_EQ(vlak_exp_f32(kN, x.data(), y.data(), variant), VLAK_OK);  // warm-up
  vlak_status st = VLAK_OK;
  const unsigned long long count = Count([&] { st = vlak_exp_f32(kN, x.data(), y.data(), variant); });
  ASSERT_EQ(st, VLAK_OK);
  CheckBudget(std::string("exp_f32/") + vlak_exp_variant_name(variant) + "/2048", count);
}

INSTANTIATE_TEST_SUITE_P(Variants, IcountBudgetExp, testing::Range(static_cast<int>(VLAK_EXP_SCHRAUDOLPH), static_cast<int>(VLAK_EXP_PRECISE) + 1),
                         [](const testing::TestParamInfo<int>& info) {
                           return std::string(vlak_exp_variant_name(static_cast<vlak_exp_variant>(info.param)));
                         });

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
