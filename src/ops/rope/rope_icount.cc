// rope_f32's RVV instruction budget (tests/icount/icount_budget.h: how the count is taken).
// Measured at 32768 elements by TransformerOps (tests/icount/icount_budget_test.cc) with
// layernorm and rmsnorm on the same data, beside AI-Benchmark's plain C.
#include "icount/icount_budget.h"

namespace {

using vlak_icount::Budget;

constexpr Budget kBudgets[] = {
    // case                       VLEN 128    256    512
    // RoPE takes one divide per position instead of per row (-794 / -794 / -794; a divide is one
    // instruction here but tens of cycles on in-order cores).
    {"rope_f32/16x16x128",           22721, 12993,  8129},
};
const bool kRegistered = vlak_icount::RegisterBudgets(kBudgets);

}  // namespace
