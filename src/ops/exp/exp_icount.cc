// vlak_exp_f32's RVV instruction budgets, one per variant on 2048 floats uniform on [-87, 0]
// (tests/icount/icount_budget.h: how the count is taken; the budgets: exp_budgets.tsv).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using vlak_icount::CheckBudget;
using vlak_icount::Count;
using vlak_icount::IcountBudget;
using vlak_icount::kN;
using vlak_icount::Uniform;

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

INSTANTIATE_TEST_SUITE_P(Variants, IcountBudgetExp,
                         testing::Range(static_cast<int>(VLAK_EXP_SCHRAUDOLPH), static_cast<int>(VLAK_EXP_PRECISE) + 1),
                         [](const testing::TestParamInfo<int>& info) {
                           return std::string(vlak_exp_variant_name(static_cast<vlak_exp_variant>(info.param)));
                         });

}  // namespace
