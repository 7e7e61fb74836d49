// activation_f32's and glu_f32's RVV instruction budgets (tests/icount/icount_budget.h: how the
// count is taken; the budgets: activation_budgets.tsv), n = 2048 floats uniform on [-10, 10],
// beside the plain C of activation_peer.c (the formulas in float64, within the same bound) built by
// clang -O3 for rv64gcv.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

extern "C" void vlak_ref_clang_activation_f32(const float* x, float* y, size_t n, int op);
extern "C" void vlak_ref_clang_glu_f32(const float* gate, const float* up, float* y, size_t n, int op);

namespace {

using namespace vlak_icount;

const char* const kNames[] = {"sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"};

// The vlak call's count after a warm-up, checked against the case's budget, beside its plain C
// peer's (counted without one), printed.
template <typename Call, typename Peer>
void MeasureBesidePeer(const std::string& name, Call call, Peer peer) {
  unsigned long long count = 0;
  ASSERT_NO_FATAL_FAILURE(CountAfterWarmUp(call, count));
  const unsigned long long ref = Count(peer);
  std::printf("[ icount   ] %s: plain C (clang -O3) %llu instructions\n", name.c_str(), ref);
  CheckBudget(name, count);
}

TEST_F(IcountBudget, Activations) {
  const std::vector<float> x = Uniform(2026, -10.0f, 10.0f);
  const std::vector<float> u = Uniform(2027, -2.0f, 2.0f);
  std::vector<float> y(kN);
  for (int op = 0; op < 6; ++op) {
    const auto a = static_cast<vlak_activation>(op);
    ASSERT_NO_FATAL_FAILURE(MeasureBesidePeer(
        std::string("activation_f32/") + kNames[op] + "/2048",
        [&] { return vlak_activation_f32(kN, x.data(), y.data(), a); },
        [&] { vlak_ref_clang_activation_f32(x.data(), y.data(), kN, op); }));
  }
  // The fast tier (fast.h, the division kept on RVV too): counted and printed, no budget yet.
  for (const vlak_activation a : {VLAK_ACT_SIGMOID, VLAK_ACT_TANH, VLAK_ACT_SILU}) {
    vlak_status fst = VLAK_OK;
    const unsigned long long count = Count([&] { fst = vlak_activation_f32(kN, x.data(), y.data(), a | VLAK_ACT_FAST); });
    ASSERT_EQ(fst, VLAK_OK);
    std::printf("[ icount   ] activation_f32/%s/2048 VLAK_ACT_FAST: %llu instructions\n", kNames[a], count);
  }
  MeasureBesidePeer(
      "glu_f32/silu/2048", [&] { return vlak_glu_f32(1, kN, x.data(), kN, u.data(), kN, y.data(), kN, VLAK_ACT_SILU); },
      [&] { vlak_ref_clang_glu_f32(x.data(), u.data(), y.data(), kN, 4); });
}

}  // namespace
