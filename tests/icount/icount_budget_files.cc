// The budget files of the instruction-budget test (icount_budget.h: their form), read before any
// test runs; and tests of their parser. tests/CMakeLists.txt passes the source tree and the files:
// VLAK_SOURCE_DIR, and VLAK_ICOUNT_BUDGET_FILES (paths relative to it, separated by commas).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "icount/icount_budget.h"

#if !defined(VLAK_SOURCE_DIR) || !defined(VLAK_ICOUNT_BUDGET_FILES)
#error "tests/CMakeLists.txt defines VLAK_SOURCE_DIR and VLAK_ICOUNT_BUDGET_FILES for this file"
#endif

namespace {

using vlak_icount::BudgetTables;
using vlak_icount::ParseBudgets;

// A missing or malformed file stops the run before its first test (a fatal failure in a global
// set-up): no case is then checked against a table that was only partly read.
class BudgetFiles : public testing::Environment {
 public:
  void SetUp() override {
    const std::string errors = vlak_icount::LoadBudgetFiles(VLAK_SOURCE_DIR, VLAK_ICOUNT_BUDGET_FILES);
    if (!errors.empty()) GTEST_FAIL() << "the instruction budgets cannot be read:\n" << errors;
  }
};

testing::Environment* const kBudgetFiles = testing::AddGlobalTestEnvironment(new BudgetFiles);

std::string Parse(const std::string& text, BudgetTables& tables) {
  std::istringstream in(text);
  return ParseBudgets(in, "op_budgets.tsv", tables);
}

TEST(IcountBudgetFile, ReadsBudgetsAndGoals) {
  BudgetTables t;
  EXPECT_EQ(Parse("# case  VLEN 128  256  512  X60 cycles\n"
                  "\n"
                  "op/a   100 50\t25   400\n"
                  "op/b   0   0   0    90\n"
                  "  # a comment\n"
                  "[goals]\n"
                  "op/a   80  40  20\n",
                  t),
            "");
  ASSERT_EQ(t.budgets.size(), 2u);
  ASSERT_EQ(t.goals.size(), 1u);
  EXPECT_EQ(t.budgets[0].name, "op/a");
  EXPECT_EQ(t.budgets[0].vlen128, 100u);
  EXPECT_EQ(t.budgets[0].vlen256, 50u);
  EXPECT_EQ(t.budgets[0].vlen512, 25u);
  EXPECT_EQ(t.budgets[0].x60, 400u);
  EXPECT_EQ(t.budgets[0].where, "op_budgets.tsv:3");
  EXPECT_EQ(t.budgets[1].vlen128, 0u);
  EXPECT_EQ(t.budgets[1].x60, 90u);
  EXPECT_EQ(t.goals[0].vlen512, 20u);
  EXPECT_EQ(t.goals[0].x60, 0u);
  EXPECT_EQ(vlak_icount::FindBudget(t.budgets, "op/a", 256), 50u);
  EXPECT_EQ(vlak_icount::FindBudget(t.budgets, "op/c", 256), 0u);  // no row: printed only
}

TEST(IcountBudgetFile, NamesTheFileAndLineOfAnError) {
  const struct {
    const char* text;
    const char* error;
  } cases[] = {
      {"op/a 1 2 3\n", "op_budgets.tsv:1: 4 fields, not 5 (a budget row: case, VLEN 128, 256, 512, X60 cycles)"},
      {"# c\nop/a 1 2 3 4 5\n",
       "op_budgets.tsv:2: 6 fields, not 5 (a budget row: case, VLEN 128, 256, 512, X60 cycles)"},
      {"[goals]\nop/a 1 2 3 4\n", "op_budgets.tsv:2: 5 fields, not 4 (a goal row: case, VLEN 128, 256, 512)"},
      {"op/a 1 2 3 4,\n", "op_budgets.tsv:1: '4,' is not a whole number"},
      {"op/a 1 -2 3 4\n", "op_budgets.tsv:1: '-2' is not a whole number"},
      {"op/a 1 2 3 4\nop/a 1 2 3 4\n", "op_budgets.tsv:2: op/a has a budget row already, at op_budgets.tsv:1"},
      {"[goals]\n[goals]\n", "op_budgets.tsv:2: a second [goals] line"},
  };
  for (const auto& c : cases) {
    BudgetTables t;
    EXPECT_EQ(Parse(c.text, t), c.error) << c.text;
  }
}

TEST(IcountBudgetFile, MissingFile) {
  const std::string errors = vlak_icount::LoadBudgetFiles(VLAK_SOURCE_DIR, "src/ops/no_such_op/no_such_op_budgets.tsv");
  EXPECT_EQ(errors, std::string("src/ops/no_such_op/no_such_op_budgets.tsv: cannot read this budget file (in ") +
                        VLAK_SOURCE_DIR + ")\n");
}

}  // namespace
