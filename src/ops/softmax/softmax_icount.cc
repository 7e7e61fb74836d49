// softmax_f32's RVV instruction budgets (tests/icount/icount_budget.h: how the count is taken; the
// budgets: softmax_budgets.tsv).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "icount/icount_budget.h"
#include "ops/softmax/softmax.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

TEST_F(IcountBudget, Softmax2048) {
  const std::vector<float> x = Uniform(2024, 0.0f, 1.0f);  // vlak gen-golden's data (RNG seed = 2024)
  std::vector<float> y(kN);
  unsigned long long count = 0;
  ASSERT_NO_FATAL_FAILURE(CountAfterWarmUp([&] { return vlak_softmax_f32(1, kN, x.data(), kN, y.data(), kN, 0); }, count));

  // Accuracy against a float64 softmax, the harness's SNR: 10 log10(sum g^2 / sum (g - o)^2).
  double m = x[0];
  for (float v : x) m = std::fmax(m, v);
  std::vector<double> g(kN);
  double sum = 0;
  for (size_t i = 0; i < kN; ++i) sum += g[i] = std::exp(static_cast<double>(x[i]) - m);
  double sg = 0, se = 0;
  for (size_t i = 0; i < kN; ++i) {
    g[i] /= sum;
    sg += g[i] * g[i];
    se += (g[i] - y[i]) * (g[i] - y[i]);
  }
  const double snr = 10.0 * std::log10(sg / se);  // +inf if exact
  std::printf("[ icount   ] softmax_f32/2048 SNR %.1f dB\n", snr);
  EXPECT_GE(snr, 100.0);

  CheckBudget("softmax_f32/2048", count);
}

// The other modes on the same row: the fast exp, log-softmax, and the two-pass algorithm (which
// vlak_softmax_f32 takes on its own only for rows beyond L2; forced here through SoftmaxF32).
void CountMode(const char* name, unsigned flags, vlak::SoftmaxAlgo algo) {
  const std::vector<float> x = Uniform(2024, 0.0f, 1.0f);
  std::vector<float> y(kN);
  unsigned long long count = 0;
  ASSERT_NO_FATAL_FAILURE(vlak_icount::CountAfterWarmUp(
      [&] { return vlak::SoftmaxF32(1, kN, x.data(), kN, y.data(), kN, flags, algo); }, count));
  CheckBudget(name, count);
}

TEST_F(IcountBudget, Softmax2048Fast) {
  CountMode("softmax_f32/2048/fast", VLAK_SOFTMAX_EXP_FAST, vlak::SoftmaxAlgo::kThreePass);
}
TEST_F(IcountBudget, Softmax2048Log) {
  CountMode("softmax_f32/2048/log", VLAK_SOFTMAX_LOG, vlak::SoftmaxAlgo::kThreePass);
}
TEST_F(IcountBudget, Softmax2048TwoPass) {
  CountMode("softmax_f32/2048/2pass", 0, vlak::SoftmaxAlgo::kTwoPass);
}

}  // namespace
