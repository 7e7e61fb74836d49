// warp_i8's RVV instruction budget (tests/icount/icount_budget.h: how the count is taken). Measured
// by ImageOps (tests/icount/icount_budget_test.cc) with correlation, beside AI-Benchmark's plain C.
#include "icount/icount_budget.h"

namespace {

using vlak_icount::Budget;

constexpr Budget kBudgets[] = {
    // case                       VLEN 128    256    512
    // The count includes the call's one-thread path through the parallel layer
    // (src/ops/parallel_rows.h).
    {"warp_i8/3x8x1024",             13954,  7834,  4954},
};
const bool kRegistered = vlak_icount::RegisterBudgets(kBudgets);

}  // namespace
