#include "models/bert_weights.h"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace vlak::models {
namespace {

bool Fail(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

// Bounds that keep every product of sizes far from overflow (and refuse nonsense configs).
constexpr uint64_t kMaxSize = 1u << 24;

}  // namespace

bool ParseBertConfig(const std::string& json_text, BertConfig* c, std::string* error, const std::string& what) {
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Fail(error, what + ": not a JSON object");
  const auto str = [&](const char* key, const char* want, bool required) {
    const auto it = j.find(key);
    if (it == j.end()) return !required || Fail(error, what + ": no \"" + key + "\" (not a BERT config?)");
    if (!it->is_string() || it->get<std::string>() != want) {
      return Fail(error, what + ": \"" + key + "\" is " + it->dump() + "; vlak's BERT needs \"" + want + "\"");
    }
    return true;
  };
  if (!str("model_type", "bert", true) || !str("hidden_act", "gelu", true) ||
      !str("position_embedding_type", "absolute", false)) {
    return false;
  }
  const auto size = [&](const char* key, size_t* out) {
    const auto it = j.find(key);
    if (it == j.end()) return Fail(error, what + ": no \"" + key + "\"");
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0 || it->get<uint64_t>() > kMaxSize) {
      return Fail(error, what + ": \"" + key + "\" is " + it->dump() + ", not an integer in [1, 2^24]");
    }
    *out = static_cast<size_t>(it->get<uint64_t>());
    return true;
  };
  BertConfig k;
  if (!size("vocab_size", &k.vocab_size) || !size("hidden_size", &k.hidden) ||
      !size("num_hidden_layers", &k.layers) || !size("num_attention_heads", &k.heads) ||
      !size("intermediate_size", &k.intermediate) || !size("max_position_embeddings", &k.max_positions) ||
      !size("type_vocab_size", &k.type_vocab_size)) {
    return false;
  }
  if (k.layers > 1024 || k.hidden > 65536 || k.intermediate > 262144) {
    return Fail(error, what + ": sizes beyond any BERT (layers <= 1024, hidden <= 65536, intermediate <= 262144)");
  }
  if (k.hidden % k.heads != 0) {
    return Fail(error, what + ": hidden_size " + std::to_string(k.hidden) + " is not a multiple of num_attention_heads " +
                           std::to_string(k.heads));
  }
  k.head_dim = k.hidden / k.heads;
  const auto eps = j.find("layer_norm_eps");
  if (eps == j.end() || !eps->is_number() || !(eps->get<double>() > 0) || !(eps->get<double>() < 1)) {
    return Fail(error, what + ": layer_norm_eps missing or not in (0, 1)");
  }
  k.layer_norm_eps = eps->get<double>();
  *c = k;
  return true;
}

bool ReadBertConfig(const std::string& path, BertConfig* c, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Fail(error, path + ": cannot open");
  std::ostringstream s;
  s << f.rdbuf();
  return ParseBertConfig(s.str(), c, error, path);
}

bool LoadBertWeights(const SafeTensors& st, const BertConfig& c, BertWeights* out, std::string* error) {
  const std::string prefix = st.Find("embeddings.word_embeddings.weight") == nullptr &&
                                     st.Find("bert.embeddings.word_embeddings.weight") != nullptr
                                 ? "bert."
                                 : "";
  bool ok = true;
  const auto get = [&](const std::string& name, std::initializer_list<size_t> shape) -> const float* {
    if (!ok) return nullptr;
    const float* p = st.F32(prefix + name, shape, error);
    ok = p != nullptr;
    return p;
  };
  const size_t h = c.hidden, f = c.intermediate;
  // A Linear layer's weight [out][in] and bias [out]; a LayerNorm's weight and bias [h].
  const auto linear = [&](const std::string& name, size_t out_dim, size_t in_dim, const float** wp, const float** bp) {
    *wp = get(name + ".weight", {out_dim, in_dim});
    *bp = get(name + ".bias", {out_dim});
  };
  const auto norm = [&](const std::string& name, const float** gp, const float** bp) {
    *gp = get(name + ".weight", {h});
    *bp = get(name + ".bias", {h});
  };
  BertWeights w;
  w.word = get("embeddings.word_embeddings.weight", {c.vocab_size, h});
  w.position = get("embeddings.position_embeddings.weight", {c.max_positions, h});
  w.token_type = get("embeddings.token_type_embeddings.weight", {c.type_vocab_size, h});
  norm("embeddings.LayerNorm", &w.emb_ln_g, &w.emb_ln_b);
  for (size_t i = 0; i < c.layers && ok; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    BertLayerWeights l;
    linear(p + "attention.self.query", h, h, &l.q_w, &l.q_b);
    linear(p + "attention.self.key", h, h, &l.k_w, &l.k_b);
    linear(p + "attention.self.value", h, h, &l.v_w, &l.v_b);
    linear(p + "attention.output.dense", h, h, &l.attn_out_w, &l.attn_out_b);
    norm(p + "attention.output.LayerNorm", &l.attn_ln_g, &l.attn_ln_b);
    linear(p + "intermediate.dense", f, h, &l.ffn_in_w, &l.ffn_in_b);
    linear(p + "output.dense", h, f, &l.ffn_out_w, &l.ffn_out_b);
    norm(p + "output.LayerNorm", &l.ffn_ln_g, &l.ffn_ln_b);
    if (!ok) break;
    l.qkv_w.resize(3 * h * h);
    l.qkv_b.resize(3 * h);
    const float* parts[3][2] = {{l.q_w, l.q_b}, {l.k_w, l.k_b}, {l.v_w, l.v_b}};
    for (size_t j = 0; j < 3; ++j) {
      std::memcpy(l.qkv_w.data() + j * h * h, parts[j][0], h * h * sizeof(float));
      std::memcpy(l.qkv_b.data() + j * h, parts[j][1], h * sizeof(float));
    }
    w.layers.push_back(std::move(l));
  }
  if (!ok) return false;
  *out = std::move(w);
  return true;
}

}  // namespace vlak::models
