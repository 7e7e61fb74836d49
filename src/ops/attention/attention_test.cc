// vlak_attention_f32 against the float64 reference (src/ops/attention/attention_reference.cc) on
// every target this CPU (or qemu) runs, with vlak.h's bound; the same bits for every thread count.
// Also its rows of the tests across operators: GuardPages, its jobs for the concurrency test
// (VLAK_CONCURRENCY_JOBS) and CppApi (vlak::Attention against the C call).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "ops/attention/attention.h"
#include "ops/concurrency_jobs.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

constexpr double kU = 1.0 / (1 << 24);

// The worst error seen, as a fraction of the bound (printed by the last test).
double g_worst_o = 0, g_worst_lse = 0;

// A call's shape and layout.
struct Shape {
  size_t batch = 1, q_heads = 1, kv_heads = 1, q_len = 1, kv_len = 1, head_dim = 16, value_dim = 16;
  bool bsnh = false;     // (batch, seq, heads, dim) instead of (batch, heads, seq, dim)
  unsigned flags = 0;
  size_t window = 0;
  int bias = 0;          // 0: none; 1: dense [b][h][i][j]; 2: [i][j] broadcast over batch and heads, with -inf
  bool lse = true;
  float scale = 0;
  size_t kv_cap = 0;     // a KV cache of kv_cap >= kv_len positions (0: kv_len)
  float q_sd = 1.0f;     // larger: peakier softmax rows
};

// The sizes every test picks: queries, keys, and the dimensions of q/k and of v; the rest as above.
Shape Lens(size_t q_len, size_t kv_len, size_t head_dim, size_t value_dim) {
  Shape s;
  s.q_len = q_len;
  s.kv_len = kv_len;
  s.head_dim = head_dim;
  s.value_dim = value_dim;
  return s;
}

// The buffers of one call: strides per Shape, o rows padded by 3 floats of sentinel.
struct Call {
  vlak_attention_params p{};
  std::vector<float> q, k, v, bias, o, lse;
};

Call Make(const Shape& s, uint32_t seed) {
  Call c;
  vlak_attention_params& p = c.p;
  p.batch = s.batch;
  p.q_heads = s.q_heads;
  p.kv_heads = s.kv_heads;
  p.q_len = s.q_len;
  p.kv_len = s.kv_len;
  p.head_dim = s.head_dim;
  p.value_dim = s.value_dim;
  p.scale = s.scale;
  p.flags = s.flags;
  p.window = s.window;
  const size_t cap = s.kv_cap > s.kv_len ? s.kv_cap : s.kv_len;
  vlak::DenseStrides(s.bsnh, s.q_heads, s.q_len, s.head_dim, p.q_strides);
  vlak::DenseStrides(s.bsnh, s.kv_heads, cap, s.head_dim, p.k_strides);
  vlak::DenseStrides(s.bsnh, s.kv_heads, cap, s.value_dim, p.v_strides);
  vlak::DenseStrides(s.bsnh, s.q_heads, s.q_len, s.value_dim + 3, p.o_strides);
  c.q = Normal(s.batch * s.q_heads * s.q_len * s.head_dim, 0.0f, s.q_sd, seed);
  c.k = Normal(s.batch * s.kv_heads * cap * s.head_dim, 0.0f, 1.0f, seed + 1);
  c.v = Normal(s.batch * s.kv_heads * cap * s.value_dim, 0.5f, 1.0f, seed + 2);
  c.o.assign(s.batch * s.q_heads * s.q_len * (s.value_dim + 3), kSentinel);
  if (s.bias == 1) {
    c.bias = Normal(s.batch * s.q_heads * s.q_len * s.kv_len, 0.0f, 1.0f, seed + 3);
    p.bias_strides[0] = s.q_heads * s.q_len * s.kv_len;
    p.bias_strides[1] = s.q_len * s.kv_len;
    p.bias_strides[2] = s.kv_len;
  } else if (s.bias == 2) {
    c.bias = Normal(s.q_len * s.kv_len, 0.0f, 2.0f, seed + 3);
    std::mt19937 rng(seed + 4);
    for (auto& x : c.bias) {
      if (rng() % 8 == 0) x = -kInf;
    }
    for (size_t j = 0; j < s.kv_len; ++j) c.bias[(s.q_len / 2) * s.kv_len + j] = -kInf;  // a row all -inf
    p.bias_strides[0] = 0;
    p.bias_strides[1] = 0;
    p.bias_strides[2] = s.kv_len;
  }
  p.bias = c.bias.empty() ? nullptr : c.bias.data();
  if (s.lse) {
    c.lse.assign(s.batch * s.q_heads * s.q_len, kSentinel);
    p.lse = c.lse.data();
  }
  return c;
}

vlak_status Call1(Call& c, int threads = 0) {
  return vlak::AttentionF32(&c.p, c.q.data(), c.k.data(), c.v.data(), c.o.data(), threads);
}

// The result against the reference and vlak.h's bound; the gaps between o rows untouched.
void Verify(const Call& c) {
  const vlak_attention_params& p = c.p;
  const size_t rows = p.batch * p.q_heads * p.q_len;
  std::vector<double> o64(rows * p.value_dim), lse64(rows), mag(rows), pabs(rows * p.value_dim);
  vlak::AttentionReferenceF64(p, c.q.data(), c.k.data(), c.v.data(), o64.data(), lse64.data(), mag.data(),
                              pabs.data());
  const double dh = static_cast<double>(p.head_dim), kv = static_cast<double>(p.kv_len);
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.q_heads; ++h) {
      for (size_t i = 0; i < p.q_len; ++i) {
        const size_t row = (b * p.q_heads + h) * p.q_len + i;
        const float* o = c.o.data() + b * p.o_strides[0] + h * p.o_strides[1] + i * p.o_strides[2];
        for (size_t d = 0; d < p.value_dim; ++d) {
          const double ref = o64[row * p.value_dim + d];
          if (std::isnan(ref)) {
            ASSERT_TRUE(std::isnan(o[d])) << "b " << b << " h " << h << " i " << i << " d " << d;
            continue;
          }
          const double bound = (1e-5 + 2 * (dh + 2) * kU * mag[row] + 2 * kv * kU) * pabs[row * p.value_dim + d];
          const double err = std::fabs(o[d] - ref);
          ASSERT_LE(err, bound) << "b " << b << " h " << h << " i " << i << " d " << d << " o " << o[d] << " ref "
                                << ref;
          if (bound > 0) g_worst_o = std::max(g_worst_o, err / bound);
        }
        for (size_t d = p.value_dim; d < p.value_dim + 3; ++d) ASSERT_EQ(o[d], kSentinel) << "gap";
        if (p.lse != nullptr) {
          const double ref = lse64[row];
          const float got = p.lse[row];
          if (std::isnan(ref)) {
            ASSERT_TRUE(std::isnan(got)) << "lse row " << row;
          } else if (std::isinf(ref)) {
            ASSERT_EQ(got, static_cast<float>(ref)) << "lse row " << row;
          } else {
            const double bound = 1e-5 * (1 + std::fabs(ref)) + 2 * (dh + 2) * kU * mag[row];
            ASSERT_LE(std::fabs(got - ref), bound) << "lse row " << row << " " << got << " ref " << ref;
            g_worst_lse = std::max(g_worst_lse, std::fabs(got - ref) / bound);
          }
        }
      }
    }
  }
}

void Check(const Shape& s, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << "B " << s.batch << " H " << s.q_heads << ":" << s.kv_heads << " q " << s.q_len
                                  << " kv " << s.kv_len << " D " << s.head_dim << " Dv " << s.value_dim
                                  << (s.bsnh ? " bsnh" : " bnsh") << " flags " << s.flags << " window " << s.window
                                  << " bias " << s.bias);
  Call c = Make(s, seed);
  ASSERT_EQ(Call1(c), VLAK_OK);
  Verify(c);
}

TEST(Attention, OddSizes) {
  ForEachTarget([] {
    uint32_t seed = 1;
    const std::vector<size_t> lens = kEmulated ? std::vector<size_t>{1, 7, 65} : std::vector<size_t>{1, 2, 7, 47, 64, 65, 97, 131};
    for (size_t ql : lens) {
      for (size_t kl : lens) {
        const size_t dh = 16 + 8 * (seed % 5);
        Shape s = Lens(ql, kl, dh, dh + 8 - 16 * (seed % 2));
        s.q_heads = 2;
        Check(s, seed++);
      }
    }
  });
}

TEST(Attention, HeadDims) {
  ForEachTarget([] {
    uint32_t seed = 100;
    for (size_t dh : {size_t{16}, size_t{40}, size_t{64}, size_t{128}, size_t{200}, size_t{256}}) {
      Shape s = Lens(kEmulated ? 9 : 37, kEmulated ? 70 : 150, dh, dh == 64 ? 96 : dh);
      s.q_sd = 2.0f;
      Check(s, seed++);
    }
  });
}

TEST(Attention, GroupedAndMultiQuery) {
  ForEachTarget([] {
    uint32_t seed = 200;
    for (size_t kvh : {size_t{2}, size_t{1}}) {
      for (size_t ql : {size_t{1}, size_t{3}, size_t{kEmulated ? 7u : 29u}}) {
        for (bool bsnh : {false, true}) {
          Shape s = Lens(ql, kEmulated ? 37 : 133, 32, 24);
          s.batch = 2;
          s.q_heads = 8;
          s.kv_heads = kvh;
          s.bsnh = bsnh;
          s.flags = ql > 1 ? VLAK_ATTENTION_CAUSAL : 0;
          s.kv_cap = s.kv_len + 20;
          Check(s, seed++);
        }
      }
    }
  });
}

TEST(Attention, CausalAndWindows) {
  ForEachTarget([] {
    uint32_t seed = 300;
    const size_t big = kEmulated ? 40 : 140;
    const std::pair<size_t, size_t> lens[] = {{big, big}, {17, big}, {big, 17}, {1, big}, {5, 3}};
    for (auto [ql, kl] : lens) {
      for (unsigned flags : {VLAK_ATTENTION_CAUSAL, VLAK_ATTENTION_CAUSAL_TOP_LEFT}) {
        for (size_t window : {size_t{0}, size_t{1}, size_t{5}, size_t{64}}) {
          Shape s = Lens(ql, kl, 24, 20);
          s.q_heads = 3;
          s.flags = flags;
          s.window = window;
          s.bsnh = (seed % 2) != 0;
          Check(s, seed++);
        }
      }
    }
  });
}

TEST(Attention, BiasMasksAndLse) {
  ForEachTarget([] {
    uint32_t seed = 400;
    for (int bias : {1, 2}) {
      for (unsigned flags : {0u, VLAK_ATTENTION_CAUSAL}) {
        Shape s = Lens(kEmulated ? 11 : 53, kEmulated ? 69 : 130, 32, 32);
        s.batch = 2;
        s.q_heads = 2;
        s.bias = bias;
        s.flags = flags;
        s.scale = 0.3f;
        Check(s, seed++);
      }
    }
  });
}

TEST(Attention, FullyMaskedRowsAndEmptyKeys) {
  ForEachTarget([] {
    // Bottom-right with q_len > kv_len: the first q_len - kv_len rows see no key.
    Shape s = Lens(9, 4, 16, 8);
    s.flags = VLAK_ATTENTION_CAUSAL;
    Call c = Make(s, 7);
    ASSERT_EQ(Call1(c), VLAK_OK);
    Verify(c);
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(c.lse[i], -kInf);
      for (size_t d = 0; d < 8; ++d) EXPECT_EQ(c.o[i * c.p.o_strides[2] + d], 0.0f);
    }
    // kv_len 0: every row sees nothing; k and v may be null.
    s.kv_len = 0;
    s.flags = 0;
    Call e = Make(s, 8);
    ASSERT_EQ(vlak_attention_f32(&e.p, e.q.data(), nullptr, nullptr, e.o.data()), VLAK_OK);
    for (size_t i = 0; i < s.q_len; ++i) {
      EXPECT_EQ(e.lse[i], -kInf);
      for (size_t d = 0; d < 8; ++d) EXPECT_EQ(e.o[i * e.p.o_strides[2] + d], 0.0f);
    }
  });
}

TEST(Attention, SpecialValues) {
  ForEachTarget([] {
    Shape s = Lens(20, 20, 16, 16);
    s.flags = VLAK_ATTENTION_CAUSAL;
    Call c = Make(s, 9);
    c.q[3 * 16 + 5] = kNaN;   // row 3
    c.k[10 * 16 + 2] = kNaN;  // key 10: rows 10.. see it
    c.v[15 * 16 + 1] = kInf;  // key 15: rows 15.. see it
    ASSERT_EQ(Call1(c), VLAK_OK);
    Verify(c);  // the reference has the same NaNs
    for (size_t i = 0; i < 20; ++i) {
      const bool nan = i == 3 || i >= 10;
      EXPECT_EQ(std::isnan(c.o[i * c.p.o_strides[2] + 0]), nan) << i;
      EXPECT_EQ(std::isnan(c.lse[i]), i == 3 || i >= 10) << i;
    }
  });
}

// Several key blocks (256 keys or more each) and several units of query rows per kv head: the online
// softmax's rescales, the K^T and V blocks a thread packs once for its units, masks across blocks.
TEST(Attention, ManyKeyBlocks) {
  ForEachTarget([] {
    uint32_t seed = 600;
    for (size_t kvh : {size_t{1}, size_t{2}}) {
      for (int variant = 0; variant < 3; ++variant) {
        Shape s;
        s.q_heads = 8;
        s.kv_heads = kvh;
        s.q_len = kEmulated ? 13 : 50;  // 8 x 13 / kvh rows per kv head: more than one unit at kvh 1
        s.kv_len = kEmulated ? 600 : 1100;
        s.head_dim = 24;
        s.value_dim = 40;
        s.q_sd = 2.0f;
        if (variant == 1) {
          s.flags = VLAK_ATTENTION_CAUSAL;
          s.window = 300;
        } else if (variant == 2) {
          s.bias = 2;
          s.flags = VLAK_ATTENTION_CAUSAL_TOP_LEFT;
        }
        Check(s, seed++);
      }
    }
  });
}

// Split-KV: a call with one chunk of query rows per kv head (few rows: decode) and more than 256
// keys cuts the keys into splits whose parts are merged. Parts that see no key of a row (a window,
// -inf bias), rows that see none at all (bias 2's all -inf row), NaN in one split, GQA and MQA.
TEST(Attention, SplitKeys) {
  ForEachTarget([] {
    uint32_t seed = 500;
    // 257: a split of one key after the first; 520: three splits, the last of 8 keys.
    const std::vector<size_t> kvs = kEmulated ? std::vector<size_t>{520} : std::vector<size_t>{257, 700, 1300};
    for (size_t kl : kvs) {
      for (size_t kvh : {size_t{2}, size_t{1}}) {
        for (size_t ql : {size_t{1}, size_t{3}}) {
          for (int variant = 0; variant < 3; ++variant) {
            Shape s = Lens(ql, kl, 32, 24);
            s.batch = kEmulated ? 1 : 2;
            s.q_heads = kvh == 1 ? 4 : 8;
            s.kv_heads = kvh;
            s.bsnh = (seed % 2) != 0;
            s.kv_cap = kl + 5;
            if (variant == 1) {  // rows see only the last 100 keys: the earlier splits none
              s.flags = VLAK_ATTENTION_CAUSAL;
              s.window = 100;
            } else if (variant == 2) {
              s.bias = 2;  // broadcast, with -inf, and row q_len / 2 all -inf
              s.flags = ql > 1 ? VLAK_ATTENTION_CAUSAL_TOP_LEFT : 0;
            }
            Check(s, seed++);
          }
        }
      }
    }
    // NaN in one split's key: the rows that see it are NaN, the others are not.
    Shape s = Lens(2, kEmulated ? 520 : 900, 16, 16);
    s.flags = VLAK_ATTENTION_CAUSAL;
    s.window = 300;  // row 0 sees keys [kv - 301, kv - 2], row 1 [kv - 300, kv - 1]
    Call c = Make(s, 13);
    c.k[(s.kv_len - 301) * 16 + 3] = kNaN;  // row 0 only
    ASSERT_EQ(Call1(c), VLAK_OK);
    Verify(c);
    EXPECT_TRUE(std::isnan(c.o[0]) && std::isnan(c.lse[0]));
    EXPECT_FALSE(std::isnan(c.o[c.p.o_strides[2]]) || std::isnan(c.lse[1]));
  });
}

// kv_lens: a padded batch (every key count from 0 to kv_len), causal KV caches of different
// lengths, the split-KV path, GQA; against the reference (which applies kv_lens through the mask
// rule) and against the same call with a 0 / -inf bias per key; padded keys are never read (NaN
// there changes nothing).
TEST(Attention, KeyPaddingLengths) {
  ForEachTarget([] {
    uint32_t seed = 700;
    struct Variant {
      size_t q_len, kv_len, q_heads, kv_heads;
      unsigned flags;
    };
    const std::vector<Variant> variants = {
        {7, 37, 4, 4, 0},                                  // encoder rows, padded keys
        {1, kEmulated ? 300 : 700, 8, 2, VLAK_ATTENTION_CAUSAL},  // decode over caches of different lengths (split-KV)
        {5, 33, 6, 3, VLAK_ATTENTION_CAUSAL},              // a prefill chunk per cache
        {9, 20, 2, 1, VLAK_ATTENTION_CAUSAL_TOP_LEFT},
    };
    for (const Variant& var : variants) {
      Shape s = Lens(var.q_len, var.kv_len, 16, 12);
      s.batch = 4;
      s.q_heads = var.q_heads;
      s.kv_heads = var.kv_heads;
      s.flags = var.flags;
      s.bsnh = (seed % 2) != 0;
      SCOPED_TRACE(testing::Message() << "q " << s.q_len << " kv " << s.kv_len << " flags " << s.flags);
      Call c = Make(s, seed++);
      const std::vector<size_t> lens = {s.kv_len, 0, s.kv_len / 3, s.kv_len - 1};
      c.p.kv_lens = lens.data();
      // NaN in every padded key and value: never read into a row.
      for (size_t b = 0; b < s.batch; ++b) {
        for (size_t h = 0; h < s.kv_heads; ++h) {
          for (size_t j = lens[b]; j < s.kv_len; ++j) {
            c.k[b * c.p.k_strides[0] + h * c.p.k_strides[1] + j * c.p.k_strides[2]] = kNaN;
            c.v[b * c.p.v_strides[0] + h * c.p.v_strides[1] + j * c.p.v_strides[2] + 1] = kNaN;
          }
        }
      }
      ASSERT_EQ(Call1(c), VLAK_OK);
      Verify(c);
      for (size_t h = 0; h < s.q_heads; ++h) {  // batch row 1 sees no key: o = 0, lse = -inf
        for (size_t i = 0; i < s.q_len; ++i) {
          const float* o = c.o.data() + c.p.o_strides[0] + h * c.p.o_strides[1] + i * c.p.o_strides[2];
          for (size_t d = 0; d < s.value_dim; ++d) ASSERT_EQ(o[d], 0.0f);
          ASSERT_EQ(c.lse[(s.q_heads + h) * s.q_len + i], -kInf);
        }
      }
      if (var.flags != 0) continue;
      // Without a causal flag the same as a 0 / -inf bias per key (the NaN keys restored: a
      // bias computes every key).
      Call m = Make(s, seed - 1);
      std::vector<float> mask(s.batch * s.kv_len);
      for (size_t b = 0; b < s.batch; ++b) {
        for (size_t j = 0; j < s.kv_len; ++j) mask[b * s.kv_len + j] = j < lens[b] ? 0.0f : -kInf;
      }
      m.p.bias = mask.data();
      m.p.bias_strides[0] = s.kv_len;
      m.p.bias_strides[1] = 0;
      m.p.bias_strides[2] = 0;
      ASSERT_EQ(Call1(m), VLAK_OK);
      for (size_t i = 0; i < c.o.size(); ++i) {
        ASSERT_NEAR(c.o[i], m.o[i], 1e-6 * (1 + std::fabs(m.o[i]))) << i;
      }
    }
    // A kv_lens entry beyond kv_len: an error, nothing written.
    Shape s;
    s.batch = 2;
    s.kv_len = 8;
    Call c = Make(s, 77);
    const std::vector<size_t> bad = {8, 9};
    c.p.kv_lens = bad.data();
    ASSERT_EQ(Call1(c), VLAK_ERROR_INVALID_ARGUMENT);
    for (float x : c.o) ASSERT_EQ(x, kSentinel);
    for (float x : c.lse) ASSERT_EQ(x, kSentinel);
  });
}

// The same bits for 1, 2, 3 and 5 threads (the units never depend on the thread count).
TEST(Attention, SameBitsForEveryThreadCount) {
  ForEachTarget([] {
    Shape s = Lens(kEmulated ? 30 : 100, kEmulated ? 40 : 150, 32, 32);
    s.batch = 2;
    s.q_heads = 4;
    s.kv_heads = 2;
    s.flags = VLAK_ATTENTION_CAUSAL;
    // Also split-KV's decode (one query row against many keys: the splits and their merge) and
    // several units per kv head (the packed K^T and V a thread keeps between them).
    Shape decode = s;
    decode.q_len = 1;
    decode.kv_len = kEmulated ? 520 : 1500;
    decode.bias = 2;
    Shape many = s;
    many.q_len = kEmulated ? 70 : 230;
    many.kv_len = kEmulated ? 90 : 300;
    many.flags = 0;
    for (const Shape& x : {s, decode, many}) {
      Call one = Make(x, 11);
      ASSERT_EQ(Call1(one, 1), VLAK_OK);
      for (int t : {2, 3, 5}) {
        Call c = Make(x, 11);
        ASSERT_EQ(Call1(c, t), VLAK_OK);
        EXPECT_TRUE(SameBits(c.o.data(), one.o.data(), c.o.size())) << t << " q_len " << x.q_len;
        EXPECT_TRUE(SameBits(c.lse.data(), one.lse.data(), c.lse.size())) << t << " q_len " << x.q_len;
      }
    }
  });
}

TEST(Attention, BadArgumentsWriteNothing) {
  Shape s;
  s.q_heads = 4;
  s.kv_heads = 2;
  s.q_len = 5;
  s.kv_len = 6;
  Call c = Make(s, 12);
  const std::vector<float> o0 = c.o, lse0 = c.lse;
  auto expect = [&](vlak_attention_params p, vlak_status want, const char* what, const float* q, const float* k,
                    const float* v, float* o) {
    EXPECT_EQ(vlak_attention_f32(&p, q, k, v, o), want) << what;
    EXPECT_TRUE(SameBits(c.o.data(), o0.data(), o0.size())) << what;
    EXPECT_TRUE(SameBits(c.lse.data(), lse0.data(), lse0.size())) << what;
  };
  const float *q = c.q.data(), *k = c.k.data(), *v = c.v.data();
  float* o = c.o.data();
  EXPECT_EQ(vlak_attention_f32(nullptr, q, k, v, o), VLAK_ERROR_NULL_POINTER);
  expect(c.p, VLAK_ERROR_NULL_POINTER, "q", nullptr, k, v, o);
  expect(c.p, VLAK_ERROR_NULL_POINTER, "k", q, nullptr, v, o);
  expect(c.p, VLAK_ERROR_NULL_POINTER, "v", q, k, nullptr, o);
  expect(c.p, VLAK_ERROR_NULL_POINTER, "o", q, k, v, nullptr);
  // Each a change to the valid call's parameters and the status it must give.
  using Params = vlak_attention_params;
  const struct {
    const char* what;
    vlak_status want;
    std::function<void(Params&)> change;
  } kBad[] = {
      {"kv_heads 3", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.kv_heads = 3; }},
      {"kv_heads 0", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.kv_heads = 0; }},
      {"head_dim 0", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.head_dim = 0; }},
      {"unknown flag", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.flags = 0x4; }},
      {"both causal flags", VLAK_ERROR_INVALID_ARGUMENT,
       [](Params& p) { p.flags = VLAK_ATTENTION_CAUSAL | VLAK_ATTENTION_CAUSAL_TOP_LEFT; }},
      {"window without causal", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.window = 3; }},
      {"scale NaN", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.scale = kNaN; }},
      {"scale inf", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.scale = kInf; }},
      {"o rows overlap", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.o_strides[2] = 8; }},  // value_dim 16
      {"o heads overlap", VLAK_ERROR_INVALID_ARGUMENT, [](Params& p) { p.o_strides[1] = 1; }},
      {"lse overlaps o", VLAK_ERROR_INVALID_ARGUMENT, [o](Params& p) { p.lse = o + 2; }},
      {"k extent", VLAK_ERROR_OVERFLOW,
       [](Params& p) {
         p.k_strides[0] = SIZE_MAX / 2;
         p.batch = 3;
       }},
      {"q extent", VLAK_ERROR_OVERFLOW, [](Params& p) { p.q_strides[2] = SIZE_MAX / 8; }},
      // broadcast queries (strides 0), no o elements, rows beyond size_t
      {"rows", VLAK_ERROR_OVERFLOW,
       [](Params& p) {
         p.q_strides[0] = p.q_strides[1] = p.q_strides[2] = p.k_strides[0] = p.v_strides[0] = 0;
         p.value_dim = 0;
         p.lse = nullptr;
         p.batch = SIZE_MAX / 2;
       }},
      // Nothing to do: still VLAK_OK, nothing written.
      {"batch 0", VLAK_OK, [](Params& p) { p.batch = 0; }},
  };
  for (const auto& bad : kBad) {
    Params p = c.p;
    bad.change(p);
    expect(p, bad.want, bad.what, q, k, v, o);
  }
  expect(c.p, VLAK_ERROR_INVALID_ARGUMENT, "o overlaps q", q, k, v, const_cast<float*>(q) + 1);
  // Nothing to do: still VLAK_OK, nothing written.
  Params p = c.p;
  p.q_len = 0;
  expect(p, VLAK_OK, "q_len 0", nullptr, nullptr, nullptr, nullptr);
}

// Every length 1 .. MaxLength() as head_dim, value_dim and kv_len, with every buffer ending at an
// inaccessible page: a read or write past the last element faults.
TEST(GuardPages, Attention) {
  ForEachTarget([] {
    const size_t max = vlak_test::MaxLength();
    for (size_t n = 1; n <= max; n += (kEmulated ? 5 : 1)) {
      const size_t ql = 3, kl = n, dh = n, dv = n;
      GuardedFloats q(2 * ql * dh), k(kl * dh), v(kl * dv), o(2 * ql * dv), bias(kl), lse(2 * ql);
      vlak_attention_params p{};
      p.batch = 1;
      p.q_heads = 2;
      p.kv_heads = 1;
      p.q_len = ql;
      p.kv_len = kl;
      p.head_dim = dh;
      p.value_dim = dv;
      p.q_strides[1] = ql * dh;
      p.q_strides[2] = dh;
      p.k_strides[2] = dh;
      p.v_strides[2] = dv;
      p.o_strides[1] = ql * dv;
      p.o_strides[2] = dv;
      p.bias = bias.data();  // one row for all: strides 0
      p.lse = lse.data();
      p.flags = VLAK_ATTENTION_CAUSAL;
      ASSERT_EQ(vlak_attention_f32(&p, q.data(), k.data(), v.data(), o.data()), VLAK_OK) << n;
      ASSERT_TRUE(std::isfinite(o.data()[2 * ql * dv - 1])) << n;
    }
  });
}

// Its jobs for the concurrency test: r x c of in.x as q, k and v of one head each (head_dim c).
VLAK_CONCURRENCY_JOBS(attention, in) {
  const size_t r = in.r, c = in.c;
  const auto x = in.x;
  std::vector<vlak_test::ConcurrencyJob> jobs;
  jobs.push_back({[=](std::vector<float>& out) {
                    vlak_attention_params p{};
                    p.batch = p.q_heads = p.kv_heads = 1;
                    p.q_len = p.kv_len = r;
                    p.head_dim = p.value_dim = c;
                    p.q_strides[2] = p.k_strides[2] = p.v_strides[2] = p.o_strides[2] = c;
                    p.flags = VLAK_ATTENTION_CAUSAL;
                    out.resize(r * c);
                    return vlak_attention_f32(&p, x->data(), x->data(), x->data(), out.data());
                  },
                  false});
  return jobs;
}

// vlak::Attention (vlak.hpp): the same bits as the C call; spans too short are refused.
TEST(CppApi, AttentionMatchesTheCApiAndChecksSizes) {
  Shape s = Lens(9, 13, 16, 8);
  s.batch = 2;
  s.q_heads = 4;
  s.kv_heads = 2;
  Call c = Make(s, 21);
  ASSERT_EQ(Call1(c), VLAK_OK);
  Call d = Make(s, 21);
  ASSERT_EQ(vlak::Attention(d.p, d.q, d.k, d.v, d.o), VLAK_OK);
  EXPECT_TRUE(SameBits(c.o.data(), d.o.data(), c.o.size()));
  EXPECT_EQ(vlak::Attention(d.p, std::span<const float>(d.q).first(d.q.size() - 1), d.k, d.v, d.o),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::Attention(d.p, d.q, d.k, d.v, std::span<float>(d.o).first(10)), VLAK_ERROR_INVALID_ARGUMENT);
}

TEST(Attention, WorstErrorAgainstTheBound) {
  std::printf("attention: worst |o - o64| / bound %.3g, |lse - lse64| / bound %.3g\n", g_worst_o, g_worst_lse);
}

}  // namespace
