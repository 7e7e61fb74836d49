// vlak_attention_f32's RVV instruction budgets (tests/icount/icount_budget.h: how the count is
// taken; the budgets: attention_budgets.tsv): a prefill tile (one head, 64 queries x 64 keys,
// causal: the packed Q K^T and P V tiles, the diagonal block's masks) and a decode step (4 query
// heads on one kv head against 256 keys: grouped-query rows through the dot-product path).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "icount/icount_budget.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_icount;

// The scratch comes from the buffer pool (ops/buffer_pool.h): after the warm-up call the counted
// one allocates nothing, so the count does not depend on the tests that ran before.
unsigned long long CountAttention(size_t q_heads, size_t kv_heads, size_t q_len, size_t kv_len, size_t d,
                                  unsigned flags) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> q(q_heads * q_len * d), k(kv_heads * kv_len * d), v(kv_heads * kv_len * d),
      o(q_heads * q_len * d);
  for (auto* t : {&q, &k, &v}) {
    for (float& x : *t) x = u(rng);
  }
  vlak_attention_params p{};
  p.batch = 1;
  p.q_heads = q_heads;
  p.kv_heads = kv_heads;
  p.q_len = q_len;
  p.kv_len = kv_len;
  p.head_dim = p.value_dim = d;
  p.q_strides[1] = p.o_strides[1] = q_len * d;
  p.q_strides[2] = p.o_strides[2] = d;
  p.k_strides[1] = p.v_strides[1] = kv_len * d;
  p.k_strides[2] = p.v_strides[2] = d;
  p.flags = flags;
  EXPECT_EQ(vlak_attention_f32(&p, q.data(), k.data(), v.data(), o.data()), VLAK_OK);  // warm-up
  vlak_status st = VLAK_OK;
  const unsigned long long n = Count([&] { st = vlak_attention_f32(&p, q.data(), k.data(), v.data(), o.data()); });
  EXPECT_EQ(st, VLAK_OK);
  for (float x : o) {
    if (!std::isfinite(x)) {
      ADD_FAILURE() << "non-finite output";
      break;
    }
  }
  return n;
}

TEST_F(IcountBudget, AttentionPrefillCausal) {
  const unsigned long long n = CountAttention(1, 1, 64, 64, 64, VLAK_ATTENTION_CAUSAL);
  const double fmas = 2.0 * 64 * (64.0 * 65 / 2);
  std::printf("[ icount   ] attention_f32/1x1x64x64x64_causal VLEN %4d: %llu (%.4f per FMA)\n", Vlen(), n,
              static_cast<double>(n) / fmas);
  CheckBudget("attention_f32/1x1x64x64x64_causal", n);
}

TEST_F(IcountBudget, AttentionDecodeGrouped) {
  const unsigned long long n = CountAttention(4, 1, 1, 256, 64, 0);
  const double fmas = 2.0 * 64 * 4 * 256;
  std::printf("[ icount   ] attention_f32/decode_4:1x1x256x64 VLEN %4d: %llu (%.4f per FMA)\n", Vlen(), n,
              static_cast<double>(n) / fmas);
  CheckBudget("attention_f32/decode_4:1x1x256x64", n);
}

}  // namespace
