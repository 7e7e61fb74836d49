// correlation_i8's RVV instruction budgets (tests/icount/icount_budget.h: how the count is taken).
// Measured by ImageOps (tests/icount/icount_budget_test.cc) with warp, beside AI-Benchmark's plain C.
#include "icount/icount_budget.h"

namespace {

using vlak_icount::Budget;

constexpr Budget kBudgets[] = {
    // case                       VLEN 128    256    512
    // The counts include the call's one-thread path through the parallel layer
    // (src/ops/parallel_rows.h).
    {"correlation_i8/5x58x4x88",     36927, 25047, 13027},
    {"correlation_i8/wrap16",        29867, 20347, 10707},
};
const bool kRegistered = vlak_icount::RegisterBudgets(kBudgets);

}  // namespace
