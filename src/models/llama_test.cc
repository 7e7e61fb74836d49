// The Llama forward pass (llama.h) with SmolLM2-135M-Instruct against llama.cpp's greedy tokens and
// top-5 logits (tests/models/smollm2/generate.json, made by scripts/smollm2-generate-reference):
// the prompt ids of vlak's tokenizer, then 64 greedy tokens per prompt. Tokens must be equal, except that the
// sequences may part at a step where llama.cpp's two best logits are closer than kNearTie (the
// step is reported, and the comparison of that prompt stops there). On the steps where the tokens
// agree, llama.cpp's top-5 logits must be within kLogitBound of vlak's. The default matmul mode
// (exact weights); also quantized activations and the auto mode on three prompts, exact weights
// against a float64 forward pass, the same tokens on every target, prefill in one batch against
// token by token, and the load errors. Under qemu: the first, short prompt and 8 tokens with int8
// activations (RVV's grouped kernels), and the exact weights' first token against float64.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/gguf_test_writer.h"
#include "models/llama.h"
#include "models/model_dir.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.h"

namespace {

using vlak::models::Llama;

// How far vlak's logits may be from llama.cpp's. vlak runs the weights exactly (float products of
// the dequantized weights, an f32 KV cache); llama.cpp quantizes each activation row to int8 per
// block of 32 (q8_1 / q8_0) and keeps its KV cache, and the queries in attention, in fp16. Those
// roundings are not small next to float order: SmolLM2's activations have outliers, so a block's
// int8 step is coarse, and a 1e-6 change of an input can move an int8 value by one step. vlak's own
// quantized-activation mode shows it: its prefill (one batch) and its token-by-token pass differ by
// up to 1.1 in a logit where the float sums differ by 1e-6. Measured over the top-5 logits of the
// 247 steps compared (logits of size 10 to 35): at most 0.96 (the same on scalar, AVX2, AVX-512).
// The bound leaves 30 % over that; a wrong operator (a missing norm, the other RoPE pairing) parts
// the tokens at once, at steps that are no near-ties.
constexpr double kLogitBound = 1.25;
// A step where llama.cpp's best two logits differ by less than this is a near-tie: the sequences
// may part there. The gap between those two tokens as vlak computes it differs from llama.cpp's
// by at most 0.60 on the test set (the two logits' errors are correlated, so less than twice the
// logit bound); 0.75 leaves 25 % over that. The partings seen are at gaps of 0.03 to 0.23.
constexpr double kNearTie = 0.75;

// vlak (exact weights) against a float64 forward pass of the same weights: see ExactWeightsMatchFloat64.
constexpr double kFloat64Bound = 5e-4;

std::string ModelPath() { return vlak::models::DefaultModelDir("SmolLM2-135M-Instruct.Q4_1.gguf"); }

struct Case {
  std::string prompt;
  std::vector<int32_t> prompt_ids, tokens;
  std::vector<std::vector<std::pair<int32_t, double>>> top5;
};

struct Shared {
  Llama model;
  std::vector<Case> cases;
  std::string error;
  bool ok = false;
  Shared() {
    struct stat st;
    if (stat(ModelPath().c_str(), &st) != 0) {
      error = "no model at " + ModelPath() + ": run scripts/models install smollm2";
      return;
    }
    std::ifstream f(std::string(VLAK_SOURCE_DIR) + "/tests/models/smollm2/generate.json");
    if (!f) {
      error = "no tests/models/smollm2/generate.json";
      return;
    }
    const nlohmann::json j = nlohmann::json::parse(f);
    for (const auto& c : j.at("cases")) {
      Case x;
      x.prompt = c.at("prompt").get<std::string>();
      x.prompt_ids = c.at("prompt_ids").get<std::vector<int32_t>>();
      x.tokens = c.at("tokens").get<std::vector<int32_t>>();
      for (const auto& s : c.at("top5")) {
        std::vector<std::pair<int32_t, double>> t;
        for (const auto& e : s) t.emplace_back(e.at(0).get<int32_t>(), e.at(1).get<double>());
        x.top5.push_back(t);
      }
      cases.push_back(x);
    }
    ok = model.Load(ModelPath(), &error);
  }
};

Shared& Get() {
  static Shared s;
  return s;
}

struct Outcome {
  size_t compared = 0;      // steps whose tokens were compared
  int parted_at = -1;       // the near-tie step where the sequences parted, or -1
  double max_logit_diff = 0;
  double max_gap_diff = 0;  // |vlak's gap - llama.cpp's| between llama.cpp's best two tokens
};

// Runs one case for n tokens and checks it; the generated tokens go to *out.
Outcome RunCase(const Case& c, size_t n, std::vector<int32_t>* out) {
  Shared& s = Get();
  Outcome r;
  EXPECT_EQ(s.model.tokenizer().Encode(c.prompt), c.prompt_ids) << c.prompt;
  std::string err;
  std::vector<std::vector<float>> top;  // vlak's logits at llama.cpp's top-5 ids, per step
  const bool ok = s.model.Generate(c.prompt_ids, n, out, &err, nullptr, false,
                                   [&](size_t step, std::span<const float> logits) {
                                     std::vector<float> v;
                                     for (const auto& [id, l] : c.top5[step]) v.push_back(logits[static_cast<size_t>(id)]);
                                     top.push_back(v);
                                   });
  EXPECT_TRUE(ok) << err;
  if (!ok) return r;
  for (size_t step = 0; step < n; ++step) {
    const auto& ref = c.top5[step];
    for (size_t j = 0; j < ref.size(); ++j) {
      r.max_logit_diff = std::max(r.max_logit_diff, std::fabs(top[step][j] - ref[j].second));
    }
    r.max_gap_diff = std::max(r.max_gap_diff, std::fabs((top[step][0] - top[step][1]) - (ref[0].second - ref[1].second)));
    ++r.compared;
    if ((*out)[step] != c.tokens[step]) {
      const double gap = ref[0].second - ref[1].second;
      EXPECT_LT(gap, kNearTie) << "step " << step << ": vlak " << (*out)[step] << ", llama.cpp " << c.tokens[step]
                               << " with a gap of " << gap << " between its best two logits; prompt " << c.prompt;
      r.parted_at = static_cast<int>(step);
      break;
    }
  }
  return r;
}

#if defined(__riscv)
constexpr size_t kTokens = 8, kCases = 1;
// Under qemu a token with exact weights takes about 30 s (the rows kernel, about 0.9 instructions
// per weight), with int8 activations a few (the grouped layout, 0.14 at VLEN 256): there the
// comparison with llama.cpp runs with int8 activations, and exact weights only in
// ExactWeightsMatchFloat64.
#define NATIVE_ONLY() GTEST_SKIP() << "natively only (about 30 s a token under qemu)"
#else
constexpr size_t kTokens = 64, kCases = 1000;
#define NATIVE_ONLY() (void)0
#endif

// llama.cpp's greedy tokens on every prompt (under qemu: the first, 8 tokens, int8 activations),
// on the library's default target, with its logits within kLogitBound.
TEST(Llama, SmolLM2MatchesLlamaCpp) {
  Shared& s = Get();
  ASSERT_TRUE(s.ok) << s.error;
  ASSERT_GE(s.cases.size(), 5u);
#if defined(__riscv)
  s.model.set_matmul_mode(Llama::MatmulMode::kQuantized);
#endif
  double worst = 0, worst_gap = 0;
  size_t steps = 0, parted = 0;
  for (size_t i = 0; i < std::min(kCases, s.cases.size()); ++i) {
    std::vector<int32_t> out;
    const Outcome r = RunCase(s.cases[i], kTokens, &out);
    worst = std::max(worst, r.max_logit_diff);
    worst_gap = std::max(worst_gap, r.max_gap_diff);
    steps += r.compared;
    if (r.parted_at >= 0) {
      ++parted;
      std::printf("[ smollm2  ] prompt %zu parted from llama.cpp at the near-tie step %d (gap %.4f)\n", i, r.parted_at,
                  s.cases[i].top5[static_cast<size_t>(r.parted_at)][0].second -
                      s.cases[i].top5[static_cast<size_t>(r.parted_at)][1].second);
    }
  }
  s.model.set_matmul_mode(Llama::MatmulMode::kExact);
  EXPECT_LE(worst, kLogitBound);
  std::printf("[ smollm2  ] %s: %zu steps compared, %zu prompts parted at near-ties, max |logit - llama.cpp's| %.4f, "
              "max |gap - llama.cpp's| %.4f\n",
              vlak_target_name(vlak_active_target()), steps, parted, worst, worst_gap);
}

// The other matmul modes under the same rule, on the first three prompts (under qemu: the first,
// 8 tokens).
void RunMode(Llama::MatmulMode mode) {
  Shared& s = Get();
  ASSERT_TRUE(s.ok) << s.error;
  s.model.set_matmul_mode(mode);
  double worst = 0;
  for (size_t i = 0; i < std::min<size_t>(kCases, 3); ++i) {
    std::vector<int32_t> out;
    const Outcome r = RunCase(s.cases[i], kTokens, &out);
    worst = std::max(worst, r.max_logit_diff);
    if (r.parted_at >= 0) {
      std::printf("[ smollm2  ] %s: prompt %zu parted at the near-tie step %d\n", Llama::ModeName(mode), i, r.parted_at);
    }
  }
  s.model.set_matmul_mode(Llama::MatmulMode::kExact);
  EXPECT_LE(worst, kLogitBound);
  std::printf("[ smollm2  ] %s: max |logit - llama.cpp's| %.4f\n", Llama::ModeName(mode), worst);
}

TEST(Llama, AutoModeFollowsLlamaCpp) {
  NATIVE_ONLY();
  RunMode(Llama::MatmulMode::kAuto);
}
TEST(Llama, QuantizedActivationsFollowLlamaCpp) {
  NATIVE_ONLY();
  RunMode(Llama::MatmulMode::kQuantized);
}

// Every target this CPU runs gives the same tokens on the first prompt (8 tokens; the bits of the
// logits may differ where vlak.h says so, within kLogitBound of llama.cpp's).
TEST(Llama, EveryTargetGivesTheSameTokens) {
  NATIVE_ONLY();
  Shared& s = Get();
  ASSERT_TRUE(s.ok) << s.error;
  std::vector<int32_t> first;
  vlak_test::ForEachTarget([&](vlak_target target) {  // rv64gcv leaves the scalar target to rv64gc
    std::vector<int32_t> out;
    const Outcome r = RunCase(s.cases[0], 8, &out);
    EXPECT_LE(r.max_logit_diff, kLogitBound) << vlak_target_name(target);
    if (first.empty()) first = out;
    EXPECT_EQ(out, first) << vlak_target_name(target);
    std::printf("[ smollm2  ] %s: max |logit - llama.cpp's| %.4f\n", vlak_target_name(target), r.max_logit_diff);
  });
}

// With exact weights, prefill in one batch and token by token give the same next token, and
// logits within 1e-3 (the matmuls sum in another order for m >= 16, attention over other blocks;
// measured 1e-4). With int8 activations they may differ by about 1 (docs/models.md).
TEST(Llama, BatchAndStepwiseAgree) {
  NATIVE_ONLY();
  Shared& s = Get();
  ASSERT_TRUE(s.ok) << s.error;
  s.model.set_matmul_mode(Llama::MatmulMode::kExact);
#if defined(__riscv)
  const Case& c = s.cases[0];  // 4 tokens under qemu
#else
  const Case& c = s.cases[1];  // 16: the panel path
#endif
  std::vector<float> batch, step;
  std::string err;
  s.model.Reset();
  ASSERT_TRUE(s.model.Forward(c.prompt_ids, &batch, &err)) << err;
  s.model.Reset();
  for (int32_t id : c.prompt_ids) ASSERT_TRUE(s.model.Forward(std::span<const int32_t>(&id, 1), &step, &err)) << err;
  EXPECT_EQ(s.model.position(), c.prompt_ids.size());
  double d = 0;
  for (size_t i = 0; i < batch.size(); ++i) d = std::max(d, static_cast<double>(std::fabs(batch[i] - step[i])));
  s.model.set_matmul_mode(Llama::MatmulMode::kExact);
  EXPECT_LE(d, 1e-3);
  EXPECT_EQ(Llama::Argmax(batch), Llama::Argmax(step));
}

// A float64 forward pass of the same dequantized weights (vlak_dequantize_f32's floats, every
// sum, norm, rotation and softmax in double), for the last token's logits of a prompt.
std::vector<double> Float64Logits(const vlak::models::Gguf& f, const vlak::models::LlamaConfig& c,
                                  const std::vector<int32_t>& ids) {
  const size_t m = ids.size(), d = c.dim, hd = c.head_dim, kvd = c.kv_heads * hd, ff = c.ffn;
  auto matrix = [&](const std::string& name, size_t rows, size_t cols) {
    const vlak::models::GgufTensor* t = f.FindTensor(name);
    std::vector<float> w(rows * cols);
    const auto type = static_cast<vlak_qtype>(t->type);
    EXPECT_EQ(vlak_dequantize_f32(type, rows, cols, t->data, vlak_qtype_row_bytes(type, cols), w.data(), cols), VLAK_OK);
    return w;
  };
  auto norm = [&](const std::vector<double>& x, const std::string& name) {
    const float* g = reinterpret_cast<const float*>(f.FindTensor(name)->data);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < m; ++i) {
      double ss = 0;
      for (size_t j = 0; j < d; ++j) ss += x[i * d + j] * x[i * d + j];
      const double r = 1 / std::sqrt(ss / static_cast<double>(d) + c.eps);
      for (size_t j = 0; j < d; ++j) y[i * d + j] = x[i * d + j] * r * g[j];
    }
    return y;
  };
  auto linear = [&](const std::vector<double>& a, size_t k, const std::vector<float>& w, size_t n) {
    std::vector<double> out(m * n);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        double acc = 0;
        for (size_t p = 0; p < k; ++p) acc += a[i * k + p] * w[j * k + p];
        out[i * n + j] = acc;
      }
    }
    return out;
  };
  auto rope = [&](std::vector<double>* x, size_t heads) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t h = 0; h < heads; ++h) {
        for (size_t p = 0; p < hd / 2; ++p) {
          const double th = static_cast<double>(i) * std::pow(c.rope_base, -2.0 * static_cast<double>(p) / static_cast<double>(hd));
          double* e = x->data() + (i * heads + h) * hd + 2 * p;
          const double a = e[0], b = e[1];
          e[0] = a * std::cos(th) - b * std::sin(th);
          e[1] = a * std::sin(th) + b * std::cos(th);
        }
      }
    }
  };
  const std::vector<float> embd = matrix("token_embd.weight", c.vocab, d);
  std::vector<double> x(m * d);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < d; ++j) x[i * d + j] = embd[static_cast<size_t>(ids[i]) * d + j];
  }
  for (size_t l = 0; l < c.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    std::vector<double> h = norm(x, b + "attn_norm.weight");
    std::vector<double> q = linear(h, d, matrix(b + "attn_q.weight", d, d), d);
    std::vector<double> k = linear(h, d, matrix(b + "attn_k.weight", kvd, d), kvd);
    const std::vector<double> v = linear(h, d, matrix(b + "attn_v.weight", kvd, d), kvd);
    rope(&q, c.heads);
    rope(&k, c.kv_heads);
    std::vector<double> att(m * d, 0.0);
    for (size_t i = 0; i < m; ++i) {
      for (size_t hh = 0; hh < c.heads; ++hh) {
        const size_t g = hh / (c.heads / c.kv_heads);
        std::vector<double> s(i + 1);
        double mx = -1e300, sum = 0;
        for (size_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (size_t p = 0; p < hd; ++p) dot += q[(i * c.heads + hh) * hd + p] * k[(j * c.kv_heads + g) * hd + p];
          s[j] = dot / std::sqrt(static_cast<double>(hd));
          mx = std::max(mx, s[j]);
        }
        for (size_t j = 0; j <= i; ++j) sum += s[j] = std::exp(s[j] - mx);
        for (size_t j = 0; j <= i; ++j) {
          for (size_t p = 0; p < hd; ++p) att[(i * c.heads + hh) * hd + p] += s[j] / sum * v[(j * c.kv_heads + g) * hd + p];
        }
      }
    }
    const std::vector<double> o = linear(att, d, matrix(b + "attn_output.weight", d, d), d);
    for (size_t i = 0; i < x.size(); ++i) x[i] += o[i];
    h = norm(x, b + "ffn_norm.weight");
    std::vector<double> gate = linear(h, d, matrix(b + "ffn_gate.weight", ff, d), ff);
    const std::vector<double> up = linear(h, d, matrix(b + "ffn_up.weight", ff, d), ff);
    for (size_t i = 0; i < gate.size(); ++i) gate[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
    const std::vector<double> down = linear(gate, ff, matrix(b + "ffn_down.weight", d, ff), d);
    for (size_t i = 0; i < x.size(); ++i) x[i] += down[i];
  }
  const std::vector<double> h = norm(x, "output_norm.weight");
  std::vector<double> logits(c.vocab);
  for (size_t j = 0; j < c.vocab; ++j) {
    double acc = 0;
    for (size_t p = 0; p < d; ++p) acc += h[(m - 1) * d + p] * embd[j * d + p];
    logits[j] = acc;
  }
  return logits;
}

// vlak's logits with exact weights against the float64 pass, on the first prompt (4 tokens; under
// qemu its first token). The float pass rounds every sum, norm and rotation once per operation,
// 30 layers deep; measured max |difference| over the 49,152 logits: 2.5e-5 scalar, 2.2e-5 AVX2,
// 2.6e-5 AVX-512. The bound,
// 5e-4 (logits of size up to 35), is twenty times that, room for other targets' sum orders; int8
// activations are off by about 1.
TEST(Llama, ExactWeightsMatchFloat64) {
  Shared& s = Get();
  ASSERT_TRUE(s.ok) << s.error;
  vlak::models::Gguf f;
  std::string err;
  ASSERT_TRUE(f.Open(ModelPath(), &err)) << err;
#if defined(__riscv)
  const std::vector<int32_t> ids(s.cases[0].prompt_ids.begin(), s.cases[0].prompt_ids.begin() + 1);
#else
  const std::vector<int32_t>& ids = s.cases[0].prompt_ids;
#endif
  const std::vector<double> ref = Float64Logits(f, s.model.config(), ids);
  std::vector<float> logits;
  s.model.set_matmul_mode(Llama::MatmulMode::kExact);
  s.model.Reset();
  ASSERT_TRUE(s.model.Forward(ids, &logits, &err)) << err;
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(logits[i] - ref[i]));
  EXPECT_LE(worst, kFloat64Bound);
  std::printf("[ smollm2  ] %s: max |logit - float64| %.3g over %zu logits\n", vlak_target_name(vlak_active_target()),
              worst, ref.size());
}

TEST(Llama, RefusesWhatItCannotRun) {
  Llama m;
  std::string err;
  EXPECT_FALSE(m.Load("/nonexistent/model.gguf", &err));
  EXPECT_NE(err.find("/nonexistent/model.gguf"), std::string::npos) << err;

  const std::string path = testing::TempDir() + "/vlak_llama_not_llama.gguf";
  auto write = [&](const vlak::models::GgufWriter& w) {
    const std::vector<uint8_t> bytes = w.Bytes();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                 static_cast<std::streamsize>(bytes.size()));
  };
  vlak::models::GgufWriter gpt2;
  gpt2.Str("general.architecture", "gpt2");
  write(gpt2);
  EXPECT_FALSE(m.Load(path, &err));
  EXPECT_NE(err.find("not \"llama\""), std::string::npos) << err;

  vlak::models::GgufWriter partial;
  partial.Str("general.architecture", "llama");
  partial.U32("llama.block_count", 2);
  write(partial);
  EXPECT_FALSE(m.Load(path, &err));
  EXPECT_NE(err.find("llama.embedding_length"), std::string::npos) << err;
  std::vector<float> logits;
  const int32_t id = 0;
  EXPECT_FALSE(m.Forward(std::span<const int32_t>(&id, 1), &logits, &err));  // holds nothing
  std::remove(path.c_str());
}

}  // namespace
