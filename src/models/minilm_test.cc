// The MiniLM forward pass (minilm.h) against the stored references of tests/models/minilm/: a
// float64 NumPy forward pass of the same weights (the bound below) and PyTorch's float32 model
// (cosine >= 0.999999, max |difference| <= 1e-5), on every target this CPU (or qemu) runs; and
// its errors for a folder that is not such a model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/minilm.h"
#include "models/minilm_reference.h"
#include "models/model_dir.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.h"

namespace {

namespace fs = std::filesystem;

// vlak against the float64 forward pass: max |difference| per element of the unit-length
// embedding. The operators' bounds compose to far more than this in the worst case (six layers of
// matmuls of 384 and 1536 terms); measured on the 63 sentences: scalar 4.6e-7, AVX2 2.9e-7,
// AVX-512 3.7e-7 (docs/models.md has RVV's). 2e-6 leaves room for other inputs without hiding a
// real error (a wrong operator order moves embeddings by 1e-3 and more).
constexpr double kF64Bound = 2e-6;
// The bar set for vlak against PyTorch 2.x.
constexpr double kTorchMaxAbs = 1e-5, kTorchMinCos = 0.999999;

struct Refs {
  vlak_test::MiniLMReference ref;
  vlak::models::MiniLM model;
  std::string error;
  bool ok = false;
};

Refs& Shared() {
  static Refs r = [] {
    Refs x;
    std::string dir = vlak::models::DefaultModelDir("all-MiniLM-L6-v2");
    if (!vlak::models::ModelDirPresent(dir, "minilm", &x.error)) return x;
    if (!x.ref.Load(std::string(VLAK_SOURCE_DIR) + "/tests/models/minilm", &x.error)) return x;
    x.ok = x.model.Load(dir, &x.error);
    return x;
  }();
  return r;
}

// Sentences [first, last) encoded as one padded batch, against both references.
void CheckRange(size_t first, size_t last, double* worst_f64, double* worst_torch, double* min_cos) {
  Refs& r = Shared();
  const size_t d = r.ref.kDim;
  std::vector<std::string> texts(r.ref.sentences.begin() + first, r.ref.sentences.begin() + last);
  std::vector<float> emb;
  std::string err;
  ASSERT_TRUE(r.model.Encode(texts, &emb, &err)) << err;
  ASSERT_EQ(emb.size(), texts.size() * d);
  for (size_t s = first; s < last; ++s) {
    const float* e = emb.data() + (s - first) * d;
    double dot = 0, n1 = 0, n2 = 0, df = 0, dt = 0;
    for (size_t i = 0; i < d; ++i) {
      const double t = r.ref.torch[s * d + i];
      df = std::max(df, std::fabs(e[i] - r.ref.f64[s * d + i]));
      dt = std::max(dt, std::fabs(e[i] - t));
      dot += e[i] * t, n1 += static_cast<double>(e[i]) * e[i], n2 += t * t;
    }
    const double cos = dot / std::sqrt(n1 * n2);
    EXPECT_LE(df, kF64Bound) << "sentence " << s << ": " << r.ref.sentences[s];
    EXPECT_LE(dt, kTorchMaxAbs) << "sentence " << s;
    EXPECT_GE(cos, kTorchMinCos) << "sentence " << s;
    *worst_f64 = std::max(*worst_f64, df);
    *worst_torch = std::max(*worst_torch, dt);
    *min_cos = std::min(*min_cos, cos);
  }
}

// Every sentence of the test set, in padded batches of 16 as the PyTorch reference ran, on the
// library's default target; the first batch of 16 on the others. Under qemu: two padded batches
// of 3 short sentences at every VLEN.
TEST(MiniLM, MatchesFloat64AndPyTorch) {
  Refs& r = Shared();
  ASSERT_TRUE(r.ok) << r.error;
  const vlak_target best = vlak_active_target();
  vlak_test::ForEachTarget([&](vlak_target t) {
    double wf = 0, wt = 0, mc = 1;
#if defined(__riscv)
    (void)best;
    CheckRange(0, 3, &wf, &wt, &mc);
    CheckRange(3, 6, &wf, &wt, &mc);
#else
    const size_t n = t == best ? r.ref.sentences.size() : 16;
    for (size_t s = 0; s < n; s += 16) CheckRange(s, std::min(s + 16, n), &wf, &wt, &mc);
#endif
    std::printf("[ minilm   ] %s: max |vlak - float64| %.3g, max |vlak - PyTorch| %.3g, min cosine %.9f\n",
                vlak_target_name(t), wf, wt, mc);
  });
}

// A sentence alone and in a padded batch: the same bits (each matmul row is its own chains;
// attention skips the padded keys, kv_lens; pooling reads the sentence's rows only), on 1 and
// 2 threads. Under qemu, where an encode takes seconds, each sentence is encoded alone on 1
// thread only, and compared with the batch on both: 5 encodes instead of 8.
TEST(MiniLM, PaddingAndThreadsDoNotChangeTheBits) {
  Refs& r = Shared();
  ASSERT_TRUE(r.ok) << r.error;
  const std::vector<std::string> batch = {r.ref.sentences[0], r.ref.sentences[2], r.ref.sentences[1]};
  std::vector<float> together;
  std::vector<std::vector<float>> alone(batch.size());
  std::string err;
  for (int threads : {1, 2}) {
    vlak_set_num_threads(threads);
    ASSERT_TRUE(r.model.Encode(batch, &together, &err)) << err;
    for (size_t s = 0; s < batch.size(); ++s) {
      if (threads == 1 || !vlak_test::kEmulated) {
        ASSERT_TRUE(r.model.Encode(std::span<const std::string>(&batch[s], 1), &alone[s], &err)) << err;
      }
      for (size_t i = 0; i < alone[s].size(); ++i) {
        ASSERT_EQ(alone[s][i], together[s * alone[s].size() + i])
            << "sentence " << s << " element " << i << " threads " << threads;
      }
    }
  }
  vlak_set_num_threads(0);
}

TEST(MiniLM, EmptyBatchAndBadIds) {
  Refs& r = Shared();
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<float> out(5, 1.0f);
  std::string err;
  ASSERT_TRUE(r.model.Encode({}, &out, &err)) << err;
  EXPECT_TRUE(out.empty());
  const std::vector<std::vector<int32_t>> bad = {{101, 30522, 102}};
  EXPECT_FALSE(r.model.EncodeIds(bad, &out, &err));
  EXPECT_NE(err.find("outside the vocabulary"), std::string::npos) << err;
  const std::vector<std::vector<int32_t>> too_long = {std::vector<int32_t>(513, 1000)};
  EXPECT_FALSE(r.model.EncodeIds(too_long, &out, &err));
  EXPECT_NE(err.find("513 tokens"), std::string::npos) << err;
}

// A folder with the real files but one changed: each gives a message naming the problem.
class MiniLMErrors : public testing::Test {
 protected:
  void SetUp() override {
    src_ = vlak::models::DefaultModelDir("all-MiniLM-L6-v2");
    std::string err;
    ASSERT_TRUE(vlak::models::ModelDirPresent(src_, "minilm", &err)) << err;
    dir_ = fs::temp_directory_path() / ("vlak_minilm_errors_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* f : {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json",
                          "sentence_bert_config.json"}) {
      fs::create_symlink(fs::path(src_) / f, dir_ / f);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Replace(const char* name, const std::string& bytes) {
    fs::remove(dir_ / name);
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  std::string Read(const char* name) {
    std::ifstream f(fs::path(src_) / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  std::string LoadError() {
    vlak::models::MiniLM m;
    std::string err;
    EXPECT_FALSE(m.Load(dir_.string(), &err));
    std::vector<float> out;
    EXPECT_FALSE(m.Encode({}, &out, &err));  // nothing loaded
    vlak::models::MiniLM m2;
    EXPECT_FALSE(m2.Load(dir_.string(), &err));
    return err;
  }
  std::string src_;
  fs::path dir_;
};

TEST_F(MiniLMErrors, MissingFolderOrFile) {
  vlak::models::MiniLM m;
  std::string err;
  EXPECT_FALSE(m.Load((dir_ / "nowhere").string(), &err));
  EXPECT_NE(err.find("config.json: cannot open"), std::string::npos) << err;
  fs::remove(dir_ / "model.safetensors");
  EXPECT_NE(LoadError().find("model.safetensors"), std::string::npos);
}

TEST_F(MiniLMErrors, ConfigNotThisArchitecture) {
  std::string cfg = Read("config.json");
  std::string gpt = cfg;
  gpt.replace(gpt.find("\"bert\""), 6, "\"gpt2\"");
  Replace("config.json", gpt);
  EXPECT_NE(LoadError().find("\"model_type\" is \"gpt2\"; vlak's BERT needs \"bert\""), std::string::npos);
  std::string relu = cfg;
  relu.replace(relu.find("\"gelu\""), 6, "\"relu\"");
  Replace("config.json", relu);
  EXPECT_NE(LoadError().find("hidden_act"), std::string::npos);
  Replace("config.json", "{\"model_type\": \"bert\"");
  EXPECT_NE(LoadError().find("not a JSON object"), std::string::npos);
}

// A config whose sizes differ from the weights: the tensor's shape is named.
TEST_F(MiniLMErrors, TensorOfTheWrongShape) {
  std::string cfg = Read("config.json");
  cfg.replace(cfg.find("\"intermediate_size\": 1536"), 25, "\"intermediate_size\": 1024");
  Replace("config.json", cfg);
  const std::string err = LoadError();
  EXPECT_NE(err.find("intermediate.dense.weight"), std::string::npos) << err;
}

TEST_F(MiniLMErrors, TruncatedWeights) {
  const std::string all = Read("model.safetensors");
  Replace("model.safetensors", all.substr(0, all.size() / 2));
  const std::string err = LoadError();
  EXPECT_NE(err.find("model.safetensors"), std::string::npos) << err;
}

}  // namespace
