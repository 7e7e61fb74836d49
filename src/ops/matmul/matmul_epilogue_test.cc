// vlak_matmul_ex_f32 (matmul with a bias and activation epilogue) on every target this CPU (or
// qemu) runs. Oracles: the composition the contract names (vlak_matmul_f32, then the bias added in
// float, then vlak_activation_f32), bit for bit; and the float64 product through the float64
// activation (activation_reference.cc) within the stated bound.
// Also its rows of the tests across operators: GuardPages and its concurrency jobs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ops/activation/activation.h"
#include "ops/concurrency_jobs.h"
#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_test_problem.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.h"
#include "vlak/vlak.hpp"

namespace {

using namespace vlak_test;

// The activations of the epilogue: every op of vlak_activation_f32, both tiers, and none (-1).
constexpr int kNone = -1;
const int kActs[] = {kNone,
                     VLAK_ACT_SIGMOID,
                     VLAK_ACT_TANH,
                     VLAK_ACT_GELU,
                     VLAK_ACT_GELU_TANH,
                     VLAK_ACT_SILU,
                     VLAK_ACT_SOFTPLUS,
                     VLAK_ACT_SIGMOID | VLAK_ACT_FAST,
                     VLAK_ACT_TANH | VLAK_ACT_FAST,
                     VLAK_ACT_SILU | VLAK_ACT_FAST};

vlak_matmul_epilogue Epilogue(const float* bias, int act) {
  vlak_matmul_epilogue e{};
  e.bias = bias;
  e.flags = act == kNone ? 0u : VLAK_EPILOGUE_ACTIVATION;
  e.activation = static_cast<vlak_activation>(act == kNone ? 0 : act);
  return e;
}

// A strided problem (gaps after every row; C's hold sentinels), B plain or transposed (a Linear
// layer's [out][in] weights), and n bias values.
struct Problem : MatmulProblem {
  std::vector<float> bias;

  Problem(size_t m_, size_t n_, size_t k_, bool trans_, uint32_t seed) : MatmulProblem(m_, n_, k_, trans_, seed) {
    const UniformReal<float> u(-1.0f, 1.0f);
    bias.resize(n);
    for (float& x : bias) x = 2.0f * u(rng);
  }
  // vlak_matmul_ex_f32 with epilogue e on C = c0: the status and C.
  vlak_status CallEx(bool accumulate, const vlak_matmul_epilogue& e, std::vector<float>* c) const {
    *c = c0;
    return vlak_matmul_ex_f32(m, n, k, a.data(), lda, b.data(), ldb, c->data(), ldc, Flags(accumulate), &e);
  }
  // The contract's composition, by the public functions: matmul, bias in float, activation. The
  // product is computed once per ACCUMULATE flag and target, and kept: a test composes it with
  // every bias and activation (vlak_matmul_f32's bits do not depend on the call).
  std::vector<float> Composed(bool accumulate, bool with_bias, int act) const {
    Product& p = products_[accumulate];
    if (p.c.empty() || p.target != vlak_active_target()) {
      EXPECT_EQ(Call(accumulate, &p.c), VLAK_OK);
      p.target = vlak_active_target();
    }
    std::vector<float> c = p.c;
    for (size_t i = 0; i < m; ++i) {
      float* row = c.data() + i * ldc;
      if (with_bias)
        for (size_t j = 0; j < n; ++j) row[j] += bias[j];
      if (act != kNone) EXPECT_EQ(vlak_activation_f32(n, row, row, static_cast<vlak_activation>(act)), VLAK_OK);
    }
    return c;
  }

 private:
  struct Product {
    std::vector<float> c;
    vlak_target target;
  };
  mutable Product products_[2];
};

struct Dims {
  size_t m, n, k;
};
// The direct kernel (m <= 16 on x86), the packed one, tails of every tile, k blocks (32, 256),
// k == 0, and one skinny call (m * n <= 4096, k >= 4096: k cut into segments).
constexpr Dims kShapes[] = {{1, 1, 1},   {1, 37, 19},  {3, 17, 33},  {7, 64, 40},   {16, 70, 9},  {17, 5, 3},
                            {6, 16, 7},  {13, 33, 257}, {25, 129, 31}, {40, 96, 300}, {2, 3, 0},   {4, 6, 4100}};

// Every shape of kShapes in its four variants (B transposed or not, ACCUMULATE or not), each with
// its own data (seeds seed, seed + 1, ...): fn(shape, problem, accumulate). Stops at a fatal failure.
template <class Fn>
void ForEachShapeVariant(uint32_t seed, Fn fn) {
  for (const Dims& s : kShapes) {
    for (int variant = 0; variant < 4; ++variant) {
      const bool trans = (variant & 1) != 0, accumulate = (variant & 2) != 0;
      fn(s, Problem(s.m, s.n, s.k, trans, seed++), accumulate);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

// Every shape, B layout, ACCUMULATE, with and without bias, every activation: the same bits as
// the composition, on every target; sentinels in C's gaps survive. Under qemu the largest shape
// (40 x 96 x 300, most of the products) takes three of the combinations: where the epilogue runs
// in the k blocks does not depend on the activation, and the other shapes take every one.
TEST(MatmulEpilogue, SameBitsAsComposition) {
  ForEachTarget([] {
    ForEachShapeVariant(7000, [](const Dims& s, const Problem& pr, bool accumulate) {
      const bool few = vlak_test::kEmulated && s.m * s.n * s.k > 500000;
      const auto in_few = [](bool with_bias, int act) {
        return with_bias ? act == kNone || act == VLAK_ACT_GELU : act == (VLAK_ACT_SILU | VLAK_ACT_FAST);
      };
      for (const bool with_bias : {false, true}) {
        for (const int act : kActs) {
          if (!with_bias && act == kNone) continue;
          if (few && !in_few(with_bias, act)) continue;
          const std::string what = "m n k " + std::to_string(s.m) + " " + std::to_string(s.n) + " " +
                                   std::to_string(s.k) + (pr.trans ? " transB" : "") + (accumulate ? " acc" : "") +
                                   (with_bias ? " bias" : "") + " act " + std::to_string(act);
          std::vector<float> c;
          ASSERT_EQ(pr.CallEx(accumulate, Epilogue(with_bias ? pr.bias.data() : nullptr, act), &c), VLAK_OK) << what;
          ExpectSameBitsNanAny(c, pr.Composed(accumulate, with_bias, act), what);
        }
      }
    });
  });
}

// The paths that split: shared packed B over tiles, columns of the direct kernel, k segments;
// 1 to 4 threads give the bits of the composition.
TEST(MatmulEpilogue, ThreadsSameBits) {
  ForEachTarget([] {
    const Dims shapes[] = {{8, 300, 64}, {70, 200, 100}, {3, 40, 5000}};
    uint32_t seed = 7100;
    for (const Dims& s : shapes) {
      for (const bool trans : {false, true}) {
        const Problem pr(s.m, s.n, s.k, trans, seed++);
        for (const int act : {kNone, int{VLAK_ACT_GELU}, int{VLAK_ACT_SILU | VLAK_ACT_FAST}}) {
          const std::vector<float> want = pr.Composed(false, true, act);
          for (int threads = 1; threads <= 4; ++threads) {
            std::vector<float> c = pr.c0;
            vlak::MatmulArgs g{pr.m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, c.data(), pr.ldc, trans, false};
            g.bias = pr.bias.data();
            g.act = act == kNone ? vlak::kActNone : vlak::ActivationKernelOp(act);
            ASSERT_EQ(vlak::MatmulF32(g, pr.Flags(false), threads, nullptr), VLAK_OK);
            ExpectSameBitsNanAny(c, want, "threads " + std::to_string(threads) + " act " + std::to_string(act));
          }
        }
      }
    }
  });
}

// Against float64: x64 = sum a b + bias, C64 = act64(x64). The contract's bound: the matmul's
// 2 k 2^-24 sum |a b| plus 2^-24 |x| for the bias's rounding, times the activation's slope bound
// L, plus the activation's own bound (2 ULPs; fast tier 4) at the float result.
TEST(MatmulEpilogue, AccuracyAgainstFloat64) {
  ForEachTarget([] {
    const Problem pr(9, 77, 300, true, 7200);
    struct Act {
      int op;
      double slope, ulps;
    };
    const Act acts[] = {{kNone, 1.0, 0.0},          {VLAK_ACT_SIGMOID, 0.25, 2},      {VLAK_ACT_TANH, 1.0, 2},
                        {VLAK_ACT_GELU, 1.13, 2},   {VLAK_ACT_GELU_TANH, 1.13, 2},    {VLAK_ACT_SILU, 1.10, 2},
                        {VLAK_ACT_SOFTPLUS, 1.0, 2}, {VLAK_ACT_SILU | VLAK_ACT_FAST, 1.10, 4}};
    for (const Act& act : acts) {
      const vlak_matmul_epilogue e = Epilogue(pr.bias.data(), act.op);
      std::vector<float> c = pr.c0;
      ASSERT_EQ(vlak_matmul_ex_f32(pr.m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, c.data(), pr.ldc,
                                   pr.Flags(false), &e),
                VLAK_OK);
      double worst = 0;
      for (size_t i = 0; i < pr.m; ++i) {
        for (size_t j = 0; j < pr.n; ++j) {
          double x64 = pr.bias[j], mag = 0;
          for (size_t p = 0; p < pr.k; ++p) {
            x64 += static_cast<double>(pr.a[i * pr.lda + p]) * pr.B(p, j);
            mag += std::fabs(static_cast<double>(pr.a[i * pr.lda + p]) * pr.B(p, j));
          }
          const vlak_activation base = static_cast<vlak_activation>(act.op & 0xff);
          const double c64 = act.op == kNone ? x64 : vlak::ActivationReferenceF64(base, x64);
          const double input_err = 2.0 * pr.k * 0x1p-24 * mag + 0x1p-24 * std::fabs(x64) * 1.0001;
          const double ulp = std::ldexp(1.0, std::ilogb(std::fabs(c64) > 0x1p-126 ? c64 : 0x1p-126) - 23);
          const double bound = act.slope * input_err + act.ulps * ulp;
          const double err = std::fabs(c[i * pr.ldc + j] - c64);
          if (err / bound > worst) worst = err / bound;
          ASSERT_LE(err, bound) << "act " << act.op << " C[" << i << "][" << j << "] " << c[i * pr.ldc + j]
                                << " float64 " << c64;
        }
      }
      EXPECT_GT(worst, 0.0) << "act " << act.op;  // the check saw some error: not vacuous
    }
  });
}

TEST(MatmulEpilogue, NullEpilogueIsMatmul) {
  const Problem pr(5, 9, 11, false, 7300);
  std::vector<float> c = pr.c0, want = pr.c0;
  ASSERT_EQ(vlak_matmul_ex_f32(pr.m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, c.data(), pr.ldc, 0, nullptr),
            VLAK_OK);
  ASSERT_EQ(vlak_matmul_f32(pr.m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, want.data(), pr.ldc, 0),
            VLAK_OK);
  ExpectSameBitsNanAny(c, want, "NULL epilogue");
  const vlak_matmul_epilogue none{};
  c = pr.c0;
  ASSERT_EQ(vlak_matmul_ex_f32(pr.m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, c.data(), pr.ldc, 0, &none),
            VLAK_OK);
  ExpectSameBitsNanAny(c, want, "empty epilogue");
}

// Errors write nothing; the epilogue is checked before the sizes (an empty call with a bad
// epilogue is an error too, as vlak_activation_f32 checks its op first).
TEST(MatmulEpilogue, BadArguments) {
  const Problem pr(4, 6, 5, false, 7400);
  auto call = [&](const vlak_matmul_epilogue& e, size_t m = 4, unsigned flags = 0) {
    std::vector<float> c = pr.c0;
    const vlak_status s =
        vlak_matmul_ex_f32(m, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, c.data(), pr.ldc, flags, &e);
    if (s != VLAK_OK) ExpectSameBitsNanAny(c, pr.c0, "nothing written");
    return s;
  };
  vlak_matmul_epilogue e = Epilogue(pr.bias.data(), VLAK_ACT_GELU);
  e.flags = 0x2;
  EXPECT_EQ(call(e), VLAK_ERROR_INVALID_ARGUMENT);
  e = Epilogue(pr.bias.data(), 6);  // not an op
  EXPECT_EQ(call(e), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(e, 0), VLAK_ERROR_INVALID_ARGUMENT);
  e = Epilogue(pr.bias.data(), VLAK_ACT_GELU | 0x200);  // not a tier
  EXPECT_EQ(call(e), VLAK_ERROR_INVALID_ARGUMENT);
  e = Epilogue(pr.bias.data(), VLAK_ACT_GELU | VLAK_ACT_FAST);  // the fast tier is an activation too
  EXPECT_EQ(call(e), VLAK_OK);
  e = Epilogue(pr.bias.data(), VLAK_ACT_TANH);
  EXPECT_EQ(call(e, 4, 0x80), VLAK_ERROR_INVALID_ARGUMENT);  // matmul's own checks still apply
  EXPECT_EQ(vlak_matmul_ex_f32(4, pr.n, pr.k, pr.a.data(), pr.lda, pr.b.data(), pr.ldb, nullptr, pr.ldc, 0, &e),
            VLAK_ERROR_NULL_POINTER);
}

// k == 0: C = act(0 + bias), or act(C_old + bias) with ACCUMULATE; NaN and inf through the
// addition and the activation as IEEE and vlak_activation_f32 say.
TEST(MatmulEpilogue, EmptyKAndSpecialValues) {
  ForEachTarget([] {
    const size_t m = 3, n = 5;
    std::vector<float> c(m * n, 0.5f), bias = {0.0f, -1.0f, kInf, -kInf, kNaN};
    vlak_matmul_epilogue e = Epilogue(bias.data(), VLAK_ACT_SIGMOID);
    ASSERT_EQ(vlak_matmul_ex_f32(m, n, 0, nullptr, 0, nullptr, n, c.data(), n, 0, &e), VLAK_OK);
    for (size_t i = 0; i < m; ++i) {
      EXPECT_EQ(c[i * n + 0], 0.5f);
      EXPECT_NEAR(c[i * n + 1], 1.0 / (1.0 + std::exp(1.0)), 1e-7);
      EXPECT_EQ(c[i * n + 2], 1.0f);
      EXPECT_EQ(c[i * n + 3], 0.0f);
      EXPECT_TRUE(std::isnan(c[i * n + 4]));
    }
    std::fill(c.begin(), c.end(), 2.0f);
    e = Epilogue(bias.data(), kNone);
    ASSERT_EQ(vlak_matmul_ex_f32(m, n, 0, nullptr, 0, nullptr, n, c.data(), n, VLAK_MATMUL_ACCUMULATE, &e), VLAK_OK);
    EXPECT_EQ(c[1], 1.0f);
    EXPECT_EQ(c[3], -kInf);
    // inf in A: the product is inf (or NaN from inf * 0), then the activation's limit.
    const size_t k = 3;
    std::vector<float> a = {1.0f, kInf, 1.0f}, b(k * n, 1.0f), y(n);
    b[1 * n + 2] = 0.0f;  // inf * 0 in column 2
    e = Epilogue(nullptr, VLAK_ACT_TANH);
    ASSERT_EQ(vlak_matmul_ex_f32(1, n, k, a.data(), k, b.data(), n, y.data(), n, 0, &e), VLAK_OK);
    EXPECT_EQ(y[0], 1.0f);
    EXPECT_TRUE(std::isnan(y[2]));
  });
}

TEST(MatmulEpilogue, CppOverload) {
  const size_t m = 3, n = 4, k = 5;
  std::vector<float> a(m * k, 0.5f), w(n * k, 0.25f), bias = {1, 2, 3, 4}, y(m * n), want(m * n);
  const vlak_matmul_epilogue e{bias.data(), VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_SILU};
  ASSERT_EQ(vlak::Matmul(a, w, y, m, n, k, VLAK_MATMUL_TRANS_B, e), VLAK_OK);
  ASSERT_EQ(vlak_matmul_ex_f32(m, n, k, a.data(), k, w.data(), k, want.data(), n, VLAK_MATMUL_TRANS_B, &e), VLAK_OK);
  ExpectSameBitsNanAny(y, want, "vlak::Matmul with an epilogue");
  EXPECT_EQ(vlak::Matmul(a, w, std::span<float>(y).first(5), m, n, k, VLAK_MATMUL_TRANS_B, e),
            VLAK_ERROR_INVALID_ARGUMENT);
}

// The bias ends at an inaccessible page (n of every length, both kernels).
TEST(GuardPages, MatmulEpilogue) {
  ForEachTarget([] {
    for (size_t n = 1; n <= vlak_test::MaxLength(); ++n) {
      for (const size_t m : {size_t{2}, size_t{20}}) {
        const size_t k = 3;
        vlak_test::GuardedFloats a(m * k), b(k * n), c(m * n), bias(n);
        const vlak_matmul_epilogue e{bias.data(), VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_GELU};
        ASSERT_EQ(vlak_matmul_ex_f32(m, n, k, a.data(), k, b.data(), n, c.data(), n, 0, &e), VLAK_OK);
        ASSERT_EQ(vlak_matmul_ex_f32(m, n, k, a.data(), k, b.data(), k, c.data(), n, VLAK_MATMUL_TRANS_B, &e), VLAK_OK);
        ASSERT_TRUE(std::isfinite(c.data()[m * n - 1])) << m << "x" << n;
      }
    }
  });
}

VLAK_CONCURRENCY_JOBS(matmul_epilogue, in) {
  const uint32_t seed = in.seed;
  const size_t m = in.r, n = in.c / 3, k = 9 + seed % 30;
  auto a = std::make_shared<std::vector<float>>(vlak_test::Normal(m * k, 0.0f, 1.0f, seed + 5));
  auto w = std::make_shared<std::vector<float>>(vlak_test::Normal(n * k, 0.0f, 1.0f, seed + 6));
  auto bias = std::make_shared<std::vector<float>>(vlak_test::Normal(n, 0.0f, 1.0f, seed + 7));
  std::vector<vlak_test::ConcurrencyJob> jobs;
  jobs.push_back({[=](std::vector<float>& out) {
                    out.assign(m * n, 0.0f);
                    const vlak_matmul_epilogue e{bias->data(), VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_GELU};
                    return vlak_matmul_ex_f32(m, n, k, a->data(), k, w->data(), k, out.data(), n, VLAK_MATMUL_TRANS_B,
                                              &e);
                  },
                  false});
  return jobs;
}

}  // namespace

namespace {

// B packed once (vlak_matmul_pack_b_f32), then vlak_matmul_packed_f32: the bits of
// vlak_matmul_ex_f32 with that B, on every path (k segments and k == 0 included), 1 to 3
// threads, with and without the epilogue.
TEST(MatmulPacked, SameBitsAsMatmul) {
  ForEachTarget([] {
    ForEachShapeVariant(7500, [](const Dims& s, const Problem& pr, bool accumulate) {
      const bool trans = pr.trans;
      const size_t bytes = vlak_matmul_packed_size_f32(pr.k, pr.n);
      ASSERT_GT(bytes, 0u);
      std::vector<float> packed(bytes / sizeof(float) + 1);
      ASSERT_EQ(vlak_matmul_pack_b_f32(pr.k, pr.n, pr.b.data(), pr.ldb, trans ? VLAK_MATMUL_TRANS_B : 0u,
                                       packed.data(), bytes),
                VLAK_OK);
      for (const int act : {kNone, int{VLAK_ACT_GELU}}) {
        const vlak_matmul_epilogue e = Epilogue(act == kNone ? nullptr : pr.bias.data(), act);
        std::vector<float> want;
        ASSERT_EQ(pr.CallEx(accumulate, e, &want), VLAK_OK);
        for (int threads = 0; threads <= 3; ++threads) {
          std::vector<float> c = pr.c0;
          vlak::MatmulArgs g{pr.m, pr.n, pr.k, pr.a.data(), pr.lda, nullptr, 0, c.data(), pr.ldc, false, false};
          g.bias = e.bias;
          g.act = act == kNone ? vlak::kActNone : vlak::ActivationKernelOp(act);
          ASSERT_EQ(vlak::MatmulPackedF32(g, packed.data(), accumulate ? VLAK_MATMUL_ACCUMULATE : 0u, threads),
                    VLAK_OK);
          ExpectSameBitsNanAny(c, want,
                         "packed m n k " + std::to_string(s.m) + " " + std::to_string(s.n) + " " +
                             std::to_string(s.k) + (trans ? " transB" : "") + (accumulate ? " acc" : "") +
                             " act " + std::to_string(act) + " threads " + std::to_string(threads));
        }
        std::vector<float> c = pr.c0;
        ASSERT_EQ(vlak_matmul_packed_f32(pr.m, pr.n, pr.k, pr.a.data(), pr.lda, packed.data(), c.data(), pr.ldc,
                                         accumulate ? VLAK_MATMUL_ACCUMULATE : 0u, &e),
                  VLAK_OK);
        ExpectSameBitsNanAny(c, want, "public packed call");
      }
    });
  });
}

// A packed buffer from another target, k or n, a short or corrupted one, unknown flags: refused,
// nothing written.
TEST(MatmulPacked, BadArguments) {
  const Problem pr(5, 40, 30, true, 7600);
  const size_t bytes = vlak_matmul_packed_size_f32(pr.k, pr.n);
  std::vector<char> packed(bytes);
  EXPECT_EQ(vlak_matmul_pack_b_f32(pr.k, pr.n, pr.b.data(), pr.ldb, VLAK_MATMUL_TRANS_B, packed.data(), bytes - 1),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_matmul_pack_b_f32(pr.k, pr.n, pr.b.data(), pr.ldb, VLAK_MATMUL_ACCUMULATE, packed.data(), bytes),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_matmul_pack_b_f32(pr.k, pr.n, pr.b.data(), pr.k - 1, VLAK_MATMUL_TRANS_B, packed.data(), bytes),
            VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_matmul_pack_b_f32(pr.k, pr.n, nullptr, pr.ldb, VLAK_MATMUL_TRANS_B, packed.data(), bytes),
            VLAK_ERROR_NULL_POINTER);
  EXPECT_EQ(vlak_matmul_packed_size_f32(SIZE_MAX / 2, 3), 0u);
  ASSERT_EQ(vlak_matmul_pack_b_f32(pr.k, pr.n, pr.b.data(), pr.ldb, VLAK_MATMUL_TRANS_B, packed.data(), bytes),
            VLAK_OK);
  auto call = [&](size_t m, size_t n, size_t k, const void* p, unsigned flags) {
    std::vector<float> c = pr.c0;
    const vlak_status s = vlak_matmul_packed_f32(m, n, k, pr.a.data(), pr.lda, p, c.data(), pr.ldc, flags, nullptr);
    if (s != VLAK_OK) ExpectSameBitsNanAny(c, pr.c0, "nothing written");
    return s;
  };
  EXPECT_EQ(call(pr.m, pr.n, pr.k, packed.data(), 0), VLAK_OK);
  EXPECT_EQ(call(pr.m, pr.n - 1, pr.k, packed.data(), 0), VLAK_ERROR_INVALID_ARGUMENT);  // another n
  EXPECT_EQ(call(pr.m, pr.n, pr.k - 1, packed.data(), 0), VLAK_ERROR_INVALID_ARGUMENT);  // another k
  EXPECT_EQ(call(pr.m, pr.n, pr.k, packed.data(), VLAK_MATMUL_TRANS_B), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(call(pr.m, pr.n, pr.k, nullptr, 0), VLAK_ERROR_NULL_POINTER);
  std::vector<char> corrupt = packed;
  corrupt[0] ^= 1;
  EXPECT_EQ(call(pr.m, pr.n, pr.k, corrupt.data(), 0), VLAK_ERROR_INVALID_ARGUMENT);
  // Packed on one target, used on another: refused (the panel widths differ).
  const vlak_target saved = vlak_active_target();
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    if (t == saved || !vlak_target_supported(static_cast<vlak_target>(t))) continue;
    ASSERT_EQ(vlak_set_target(static_cast<vlak_target>(t)), VLAK_OK);
    EXPECT_EQ(call(pr.m, pr.n, pr.k, packed.data(), 0), VLAK_ERROR_INVALID_ARGUMENT) << t;
  }
  vlak_set_target(saved);
}

// The packed buffer ends at an inaccessible page: nothing reads past it.
TEST(GuardPages, MatmulPacked) {
  ForEachTarget([] {
    for (size_t n = 1; n <= vlak_test::MaxLength(); ++n) {
      const size_t m = 7, k = 5;
      vlak_test::GuardedFloats a(m * k), b(n * k), c(m * n);
      const size_t bytes = vlak_matmul_packed_size_f32(k, n);
      vlak_test::GuardedFloats packed((bytes + 3) / 4);
      ASSERT_EQ(vlak_matmul_pack_b_f32(k, n, b.data(), k, VLAK_MATMUL_TRANS_B, packed.data(), bytes), VLAK_OK);
      ASSERT_EQ(vlak_matmul_packed_f32(m, n, k, a.data(), k, packed.data(), c.data(), n, 0, nullptr), VLAK_OK);
      ASSERT_TRUE(std::isfinite(c.data()[m * n - 1])) << n;
    }
  });
}

}  // namespace

namespace {

TEST(MatmulPacked, CppOverloads) {
  const size_t m = 4, n = 6, k = 5;
  std::vector<float> a(m * k), w(n * k), bias(n), y(m * n), want(m * n), packed;
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.125f * static_cast<float>(i % 9) - 0.5f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i % 7) - 0.75f;
  for (size_t i = 0; i < n; ++i) bias[i] = static_cast<float>(i);
  const vlak_matmul_epilogue e{bias.data(), VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_TANH};
  ASSERT_EQ(vlak::PackB(w, k, n, VLAK_MATMUL_TRANS_B, packed), VLAK_OK);
  ASSERT_EQ(vlak::MatmulPacked(a, packed, y, m, n, k, 0, &e), VLAK_OK);
  ASSERT_EQ(vlak::Matmul(a, w, want, m, n, k, VLAK_MATMUL_TRANS_B, e), VLAK_OK);
  ExpectSameBitsNanAny(y, want, "vlak::MatmulPacked");
  EXPECT_EQ(vlak::PackB(std::span<const float>(w).first(3), k, n, 0, packed), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak::MatmulPacked(a, packed, y, m, n, k + 1), VLAK_ERROR_INVALID_ARGUMENT);
}

}  // namespace
