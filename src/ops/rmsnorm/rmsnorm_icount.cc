// rmsnorm_f32's RVV instruction budget (tests/icount/icount_budget.h: how the count is taken).
// Measured at 32768 elements by TransformerOps (tests/icount/icount_budget_test.cc) with
// layernorm and rope on the same data, beside AI-Benchmark's plain C.
#include "icount/icount_budget.h"

namespace {

using vlak_icount::Budget;

constexpr Budget kBudgets[] = {
    // case                       VLEN 128    256    512
    {"rmsnorm_f32/16x2048",          34389, 17557,  9141},
};
const bool kRegistered = vlak_icount::RegisterBudgets(kBudgets);

}  // namespace
