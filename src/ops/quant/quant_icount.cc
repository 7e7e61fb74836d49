// vlak_matmul_q_f32's RVV instruction budgets (tests/icount/icount_budget.h: how the count is
// taken; the budgets: quant_budgets.tsv): decode, one row of A against SmolLM2's 576 x 576
// projection, in both modes and the three block types, and q4_1 through vlak_matmul_q_packed_f32.
// Per weight: the count / (n k). Measurements and ggml's figures: docs/ops/quant.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

// packed: W repacked by vlak_matmul_q_pack (on RVV the rows as given) and vlak_matmul_q_packed_f32.
void CountCase(const char* name, vlak_qtype t, unsigned flags, bool packed = false) {
  const size_t m = 1, n = 576, k = 576, rb = vlak_qtype_row_bytes(t, k);
  std::mt19937 rng(5);
  const std::vector<float> a = Uniform(rng, m * k, -0.5f, 0.5f), wf = Uniform(rng, n * k, -0.5f, 0.5f);
  std::vector<float> c(m * n);
  std::vector<uint8_t> w(n * rb);
  ASSERT_EQ(vlak_quantize_f32(t, n, k, wf.data(), k, w.data(), rb), VLAK_OK);
  std::vector<uint8_t> p(vlak_matmul_q_packed_size(t, n, k));
  if (packed) ASSERT_EQ(vlak_matmul_q_pack(t, n, k, w.data(), rb, p.data(), p.size()), VLAK_OK);
  auto call = [&] {
    return packed ? vlak_matmul_q_packed_f32(m, n, k, a.data(), k, p.data(), c.data(), n, flags, nullptr)
                  : vlak_matmul_q_f32(m, n, k, a.data(), k, t, w.data(), rb, c.data(), n, flags, nullptr);
  };
  ASSERT_EQ(call(), VLAK_OK);  // warm-up: buffers allocated here
  vlak_status st = VLAK_OK;
  const unsigned long long count = Count([&] { st = call(); });
  EXPECT_EQ(st, VLAK_OK);
  std::printf("[ icount   ] %s VLEN %4d: %llu (%.4f per weight)\n", name, Vlen(), count,
              static_cast<double>(count) / static_cast<double>(n * k));
  CheckBudget(name, count);
}

TEST_F(IcountBudget, MatmulQ40QuantizedA) { CountCase("matmul_q4_0_qa/1x576x576", VLAK_Q4_0, VLAK_MATMUL_Q_QUANTIZE_A); }
TEST_F(IcountBudget, MatmulQ41QuantizedA) { CountCase("matmul_q4_1_qa/1x576x576", VLAK_Q4_1, VLAK_MATMUL_Q_QUANTIZE_A); }
TEST_F(IcountBudget, MatmulQ80QuantizedA) { CountCase("matmul_q8_0_qa/1x576x576", VLAK_Q8_0, VLAK_MATMUL_Q_QUANTIZE_A); }
TEST_F(IcountBudget, MatmulQ40Exact) { CountCase("matmul_q4_0/1x576x576", VLAK_Q4_0, 0); }
TEST_F(IcountBudget, MatmulQ40QuantizedAPacked) {
  CountCase("matmul_q4_0_qa_packed/1x576x576", VLAK_Q4_0, VLAK_MATMUL_Q_QUANTIZE_A, true);
}
TEST_F(IcountBudget, MatmulQ41QuantizedAPacked) {
  CountCase("matmul_q4_1_qa_packed/1x576x576", VLAK_Q4_1, VLAK_MATMUL_Q_QUANTIZE_A, true);
}
TEST_F(IcountBudget, MatmulQ80QuantizedAPacked) {
  CountCase("matmul_q8_0_qa_packed/1x576x576", VLAK_Q8_0, VLAK_MATMUL_Q_QUANTIZE_A, true);
}

}  // namespace
