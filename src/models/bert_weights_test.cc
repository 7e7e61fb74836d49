// BERT config and weights: all-MiniLM-L6-v2's, and a tiny synthetic BERT with each kind of defect.
#include "models/bert_weights.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/model_dir.h"

namespace vlak::models {
namespace {

const char* kTinyConfig = R"({"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute",
  "vocab_size": 10, "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2,
  "intermediate_size": 8, "max_position_embeddings": 16, "type_vocab_size": 2, "layer_norm_eps": 1e-12})";

// The tensors of a BERT with the tiny config, by name and shape.
std::map<std::string, std::vector<size_t>> TinyShapes(const std::string& prefix = "") {
  std::map<std::string, std::vector<size_t>> s = {
      {"embeddings.word_embeddings.weight", {10, 4}},       {"embeddings.position_embeddings.weight", {16, 4}},
      {"embeddings.token_type_embeddings.weight", {2, 4}},  {"embeddings.LayerNorm.weight", {4}},
      {"embeddings.LayerNorm.bias", {4}}};
  const std::string p = "encoder.layer.0.";
  for (const char* n : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
    s[p + n + ".weight"] = {4, 4};
    s[p + n + ".bias"] = {4};
  }
  s[p + "intermediate.dense.weight"] = {8, 4};
  s[p + "intermediate.dense.bias"] = {8};
  s[p + "output.dense.weight"] = {4, 8};
  s[p + "output.dense.bias"] = {4};
  for (const char* n : {"attention.output.LayerNorm", "output.LayerNorm"}) {
    s[p + n + ".weight"] = {4};
    s[p + n + ".bias"] = {4};
  }
  if (prefix.empty()) return s;
  std::map<std::string, std::vector<size_t>> r;
  for (auto& [k, v] : s) r[prefix + k] = v;
  return r;
}

// A safetensors file of those tensors, F32 (or `dtype` for the one named `odd`), element i of
// each tensor holding 1000 * (its index in name order) + i.
std::vector<uint8_t> TinyFile(const std::map<std::string, std::vector<size_t>>& shapes, const std::string& odd = "",
                              const char* dtype = "F16") {
  nlohmann::json h = nlohmann::json::object();
  std::vector<uint8_t> data;
  size_t index = 0;
  for (const auto& [name, shape] : shapes) {
    size_t n = 1;
    for (size_t d : shape) n *= d;
    const bool is_odd = name == odd;
    const size_t bytes = n * (is_odd ? 2 : 4);
    h[name] = {{"dtype", is_odd ? dtype : "F32"}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + bytes}}};
    for (size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(1000 * index + i);
      const uint8_t* b = reinterpret_cast<const uint8_t*>(&v);
      data.insert(data.end(), b, b + (is_odd ? 2 : 4));
    }
    ++index;
  }
  const std::string hs = h.dump();
  std::vector<uint8_t> f(8);
  const uint64_t len = hs.size();
  std::memcpy(f.data(), &len, 8);
  f.insert(f.end(), hs.begin(), hs.end());
  f.insert(f.end(), data.begin(), data.end());
  return f;
}

TEST(BertWeights, ConfigAcceptsBertOnly) {
  BertConfig c;
  std::string err;
  ASSERT_TRUE(ParseBertConfig(kTinyConfig, &c, &err)) << err;
  EXPECT_EQ(c.hidden, 4u);
  EXPECT_EQ(c.head_dim, 2u);
  EXPECT_EQ(c.layer_norm_eps, 1e-12);
  auto with = [](const std::string& key, const std::string& value) {
    nlohmann::json j = nlohmann::json::parse(kTinyConfig);
    if (value.empty()) {
      j.erase(key);
    } else {
      j[key] = nlohmann::json::parse(value);
    }
    return j.dump();
  };
  EXPECT_FALSE(ParseBertConfig("{", &c, &err, "c.json"));
  EXPECT_EQ(err, "c.json: not a JSON object");
  EXPECT_FALSE(ParseBertConfig(with("model_type", "\"roberta\""), &c, &err, "c.json"));
  EXPECT_EQ(err, "c.json: \"model_type\" is \"roberta\"; vlak's BERT needs \"bert\"");
  EXPECT_FALSE(ParseBertConfig(with("model_type", ""), &c, &err, "c.json"));
  EXPECT_EQ(err, "c.json: no \"model_type\" (not a BERT config?)");
  EXPECT_FALSE(ParseBertConfig(with("hidden_act", "\"relu\""), &c, &err));
  EXPECT_NE(err.find("\"hidden_act\" is \"relu\""), std::string::npos);
  EXPECT_FALSE(ParseBertConfig(with("position_embedding_type", "\"relative_key\""), &c, &err));
  EXPECT_TRUE(ParseBertConfig(with("position_embedding_type", ""), &c, &err)) << err;  // absolute by default
  EXPECT_FALSE(ParseBertConfig(with("hidden_size", "5"), &c, &err, "c.json"));
  EXPECT_EQ(err, "c.json: hidden_size 5 is not a multiple of num_attention_heads 2");
  EXPECT_FALSE(ParseBertConfig(with("num_hidden_layers", "0"), &c, &err, "c.json"));
  EXPECT_EQ(err, "c.json: \"num_hidden_layers\" is 0, not an integer in [1, 2^24]");
  EXPECT_FALSE(ParseBertConfig(with("vocab_size", "-3"), &c, &err));
  EXPECT_FALSE(ParseBertConfig(with("intermediate_size", "1.5"), &c, &err));
  EXPECT_FALSE(ParseBertConfig(with("max_position_embeddings", ""), &c, &err, "c.json"));
  EXPECT_EQ(err, "c.json: no \"max_position_embeddings\"");
  EXPECT_FALSE(ParseBertConfig(with("layer_norm_eps", "0"), &c, &err));
  EXPECT_FALSE(ParseBertConfig(with("layer_norm_eps", "\"small\""), &c, &err));
  EXPECT_FALSE(ReadBertConfig("/nonexistent/config.json", &c, &err));
  EXPECT_EQ(err, "/nonexistent/config.json: cannot open");
}

TEST(BertWeights, TinyBertLoadsAndFusesQkv) {
  BertConfig c;
  std::string err;
  ASSERT_TRUE(ParseBertConfig(kTinyConfig, &c, &err)) << err;
  for (const std::string prefix : {"", "bert."}) {
    const std::vector<uint8_t> f = TinyFile(TinyShapes(prefix));
    SafeTensors st;
    ASSERT_TRUE(st.Parse(f.data(), f.size(), &err)) << err;
    BertWeights w;
    ASSERT_TRUE(LoadBertWeights(st, c, &w, &err)) << err;
    ASSERT_EQ(w.layers.size(), 1u);
    const BertLayerWeights& l = w.layers[0];
    for (size_t i = 0; i < 16; ++i) {
      EXPECT_EQ(l.qkv_w[i], l.q_w[i]);
      EXPECT_EQ(l.qkv_w[16 + i], l.k_w[i]);
      EXPECT_EQ(l.qkv_w[32 + i], l.v_w[i]);
    }
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(l.qkv_b[8 + i], l.v_b[i]);
    EXPECT_EQ(w.word[39], st.F32(prefix + "embeddings.word_embeddings.weight", {10, 4}, &err)[39]);
    EXPECT_NE(l.q_w[0], l.k_w[0]);
  }
}

TEST(BertWeights, EachDefectNamed) {
  BertConfig c;
  std::string err;
  ASSERT_TRUE(ParseBertConfig(kTinyConfig, &c, &err)) << err;
  auto load_error = [&](const std::vector<uint8_t>& f, const BertConfig& cfg) {
    SafeTensors st;
    std::string e;
    EXPECT_TRUE(st.Parse(f.data(), f.size(), &e, "tiny.safetensors")) << e;
    BertWeights w;
    EXPECT_FALSE(LoadBertWeights(st, cfg, &w, &e));
    return e;
  };
  auto shapes = TinyShapes();
  shapes["encoder.layer.0.output.dense.weight"] = {8, 4};
  EXPECT_EQ(load_error(TinyFile(shapes), c),
            "tiny.safetensors: tensor \"encoder.layer.0.output.dense.weight\" has shape [8, 4], not [4, 8]");
  shapes = TinyShapes();
  shapes.erase("encoder.layer.0.attention.self.key.bias");
  EXPECT_EQ(load_error(TinyFile(shapes), c), "tiny.safetensors: tensor \"encoder.layer.0.attention.self.key.bias\" is missing");
  EXPECT_EQ(load_error(TinyFile(TinyShapes(), "embeddings.LayerNorm.bias"), c),
            "tiny.safetensors: tensor \"embeddings.LayerNorm.bias\" is F16, not F32");
  BertConfig two = c;
  two.layers = 2;
  EXPECT_EQ(load_error(TinyFile(TinyShapes()), two),
            "tiny.safetensors: tensor \"encoder.layer.1.attention.self.query.weight\" is missing");
  BertConfig wide = c;
  wide.vocab_size = 11;
  EXPECT_EQ(load_error(TinyFile(TinyShapes()), wide),
            "tiny.safetensors: tensor \"embeddings.word_embeddings.weight\" has shape [10, 4], not [11, 4]");
}

TEST(BertWeights, MiniLM) {
  const std::string dir = DefaultModelDir("all-MiniLM-L6-v2");
  std::string err;
  ASSERT_TRUE(ModelDirPresent(dir, "minilm", &err)) << err;
  BertConfig c;
  ASSERT_TRUE(ReadBertConfig(dir + "/config.json", &c, &err)) << err;
  EXPECT_EQ(c.vocab_size, 30522u);
  EXPECT_EQ(c.hidden, 384u);
  EXPECT_EQ(c.layers, 6u);
  EXPECT_EQ(c.heads, 12u);
  EXPECT_EQ(c.head_dim, 32u);
  EXPECT_EQ(c.intermediate, 1536u);
  EXPECT_EQ(c.max_positions, 512u);
  EXPECT_EQ(c.type_vocab_size, 2u);
  EXPECT_EQ(c.layer_norm_eps, 1e-12);
  SafeTensors st;
  ASSERT_TRUE(st.Open(dir + "/model.safetensors", &err)) << err;
  BertWeights w;
  ASSERT_TRUE(LoadBertWeights(st, c, &w, &err)) << err;
  ASSERT_EQ(w.layers.size(), 6u);
  EXPECT_EQ(w.layers[5].qkv_w.size(), 3u * 384 * 384);
  EXPECT_EQ(w.layers[5].qkv_w[2 * 384 * 384 + 7], w.layers[5].v_w[7]);
}

}  // namespace
}  // namespace vlak::models
