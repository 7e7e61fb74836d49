// layernorm_f32's and layernorm_backward_f32's RVV instruction budgets (tests/icount/icount_budget.h:
// how the count is taken). Measured at 32768 elements by TransformerOps
// (tests/icount/icount_budget_test.cc) with rmsnorm and rope on the same data, beside AI-Benchmark's
// plain C.
#include "icount/icount_budget.h"

namespace {

using vlak_icount::Budget;

constexpr Budget kBudgets[] = {
    // case                       VLEN 128    256    512
    // The backward's column sums are reduced over blocks of rows fixed by the shape (the same bits
    // for every thread count): +9 instructions per call here, against 84,328 / 42,916 / 22,210
    // when they were reduced per thread.
    {"layernorm_f32/16x2048",        47063, 24535, 13271},
    {"layernorm_bwd_f32/16x2048",    84337, 42925, 22219},
};
const bool kRegistered = vlak_icount::RegisterBudgets(kBudgets);

}  // namespace
