// The BERT sentence encoder of minilm.h on vlak's public API.
#include "models/minilm.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "vlak/vlak.h"

namespace vlak::models {
namespace {

bool Fail(std::string* error, const std::string& message) {
  if (error != nullptr) *error = message;
  return false;
}

using Clock = std::chrono::steady_clock;

// Adds the time since *t0 to the profile's part and restarts *t0.
void Lap(MiniLMProfile* p, int part, Clock::time_point* t0) {
  if (p == nullptr) return;
  const Clock::time_point t = Clock::now();
  p->ns[part] += std::chrono::duration<double, std::nano>(t - *t0).count();
  *t0 = t;
}

bool Ok(vlak_status s, const char* what, std::string* error) {
  if (s == VLAK_OK) return true;
  return Fail(error, std::string(what) + " failed: " + vlak_status_string(s));
}

}  // namespace

const char* MiniLMProfile::Name(int part) {
  static const char* const kNames[kParts] = {"embedding", "matmul", "attention", "add+layernorm", "pooling",
                                             "tokenizer"};
  return part >= 0 && part < kParts ? kNames[part] : "";
}

double MiniLMProfile::Total() const {
  double t = 0;
  for (double v : ns) t += v;
  return t;
}

MiniLM::MiniLM() = default;
MiniLM::~MiniLM() = default;
MiniLM::MiniLM(MiniLM&&) noexcept = default;
MiniLM& MiniLM::operator=(MiniLM&&) noexcept = default;

bool MiniLM::Load(const std::string& dir, std::string* error) {
  *this = MiniLM();
  MiniLM m;
  if (!ReadBertConfig(dir + "/config.json", &m.config_, error) || !m.file_.Open(dir + "/model.safetensors", error) ||
      !LoadBertWeights(m.file_, m.config_, &m.w_, error) || !m.tokenizer_.LoadDir(dir, error)) {
    return false;
  }
  if (!m.Pack(error)) return false;
  if (m.tokenizer_.vocab_size() != m.config_.vocab_size) {
    return Fail(error, dir + "/vocab.txt: " + std::to_string(m.tokenizer_.vocab_size()) +
                           " tokens, config.json's vocab_size " + std::to_string(m.config_.vocab_size));
  }
  *this = std::move(m);
  return true;
}

bool MiniLM::Pack(std::string* error) {
  const size_t H = config_.hidden, I = config_.intermediate;
  // One arena for every layer's four matrices, sized first (huge pages: weight_arena.h).
  const size_t sizes[4] = {vlak_matmul_packed_size_f32(H, 3 * H), vlak_matmul_packed_size_f32(H, H),
                           vlak_matmul_packed_size_f32(H, I), vlak_matmul_packed_size_f32(I, H)};
  size_t total = 0;
  for (size_t l = 0; l < w_.layers.size(); ++l) {
    for (size_t b : sizes) {
      const size_t piece = WeightArena::PieceBytes(b);
      if (b == 0 || piece > SIZE_MAX - total) return Fail(error, "packing weights: the sizes overflow");
      total += piece;
    }
  }
  packed_.assign(w_.layers.size(), Packed{});
  if (!arena_.Reserve(total)) return Fail(error, "packing weights: out of memory");
  auto pack = [&](const float* w, size_t out, size_t in, size_t bytes, const void** dst) {
    void* p = arena_.Take(bytes);
    *dst = p;
    return Ok(vlak_matmul_pack_b_f32(in, out, w, in, VLAK_MATMUL_TRANS_B, p, bytes), "packing weights", error);
  };
  for (size_t l = 0; l < w_.layers.size(); ++l) {
    const BertLayerWeights& L = w_.layers[l];
    Packed& P = packed_[l];
    if (!pack(L.qkv_w.data(), 3 * H, H, sizes[0], &P.qkv) || !pack(L.attn_out_w, H, H, sizes[1], &P.out) ||
        !pack(L.ffn_in_w, I, H, sizes[2], &P.ffn_in) || !pack(L.ffn_out_w, H, I, sizes[3], &P.ffn_out)) {
      return false;
    }
  }
  packed_target_ = vlak_active_target();
  return true;
}

bool MiniLM::Encode(std::span<const std::string> texts, std::vector<float>* out, std::string* error,
                    MiniLMProfile* profile) {
  if (w_.layers.empty()) return Fail(error, "MiniLM: no model loaded");
  Clock::time_point t0 = Clock::now();
  const size_t limit = std::min(tokenizer_.max_length(), config_.max_positions);
  std::vector<std::vector<int32_t>> ids(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) ids[i] = tokenizer_.Encode(texts[i], limit);
  Lap(profile, MiniLMProfile::kTokenize, &t0);
  return EncodeIds(ids, out, error, profile);
}

bool MiniLM::EncodeIds(std::span<const std::vector<int32_t>> ids, std::vector<float>* out, std::string* error,
                       MiniLMProfile* profile) {
  if (w_.layers.empty()) return Fail(error, "MiniLM: no model loaded");
  const BertConfig& c = config_;
  const float eps = static_cast<float>(c.layer_norm_eps);
  const size_t B = ids.size(), H = c.hidden, I = c.intermediate, NH = c.heads, D = H / NH;
  size_t S = 0;
  std::vector<size_t> lengths(B);
  for (size_t b = 0; b < B; ++b) {
    if (ids[b].empty() || ids[b].size() > c.max_positions) {
      return Fail(error, "MiniLM: sentence " + std::to_string(b) + " has " + std::to_string(ids[b].size()) +
                             " tokens (1 to " + std::to_string(c.max_positions) + ")");
    }
    for (int32_t id : ids[b]) {
      if (id < 0 || static_cast<size_t>(id) >= c.vocab_size) {
        return Fail(error, "MiniLM: token id " + std::to_string(id) + " outside the vocabulary");
      }
    }
    lengths[b] = ids[b].size();
    if (lengths[b] > S) S = lengths[b];
  }
  out->assign(B * H, 0.0f);
  if (B == 0) return true;
  if (packed_target_ != vlak_active_target() && !Pack(error)) return false;
  const size_t T = B * S;
  h_.resize(T * H);
  qkv_.resize(T * 3 * H);
  ctx_.resize(T * H);
  tmp_.resize(T * H);
  ffn_.resize(T * I);
  Clock::time_point t0 = Clock::now();

  // Embeddings: (word + type 0) in float, then LayerNorm(that + position) fused. Padding rows
  // take [PAD]'s embedding; attention never reads them as keys and pooling skips them.
  for (size_t b = 0; b < B; ++b) {
    for (size_t s = 0; s < S; ++s) {
      const int32_t id = s < lengths[b] ? ids[b][s] : 0;
      const float* we = w_.word + static_cast<size_t>(id) * H;
      float* row = tmp_.data() + (b * S + s) * H;
      for (size_t j = 0; j < H; ++j) row[j] = we[j] + w_.token_type[j];
    }
    if (!Ok(vlak_add_layernorm_f32(S, H, tmp_.data() + b * S * H, H, w_.position, H, w_.emb_ln_g, w_.emb_ln_b, eps,
                                   h_.data() + b * S * H, H, nullptr, 0),
            "embedding layernorm", error)) {
      return false;
    }
  }
  Lap(profile, MiniLMProfile::kEmbed, &t0);

  vlak_attention_params ap{};
  ap.batch = B;
  ap.q_heads = ap.kv_heads = NH;
  ap.q_len = ap.kv_len = S;
  ap.head_dim = ap.value_dim = D;
  const size_t qkv_strides[3] = {S * 3 * H, D, 3 * H}, o_strides[3] = {S * H, D, H};
  for (int i = 0; i < 3; ++i) {
    ap.q_strides[i] = ap.k_strides[i] = ap.v_strides[i] = qkv_strides[i];
    ap.o_strides[i] = o_strides[i];
  }
  ap.kv_lens = lengths.data();
  // h = layernorm(tmp + h) with gamma g and beta b: a layer's residual step.
  auto add_layernorm = [&](const float* g, const float* b, const char* what) {
    return Ok(vlak_add_layernorm_f32(T, H, tmp_.data(), H, h_.data(), H, g, b, eps, h_.data(), H, nullptr, 0), what,
              error);
  };
  for (size_t l = 0; l < w_.layers.size(); ++l) {
    const BertLayerWeights& L = w_.layers[l];
    const Packed& P = packed_[l];
    const vlak_matmul_epilogue eqkv{L.qkv_b.data(), 0, VLAK_ACT_GELU};
    if (!Ok(vlak_matmul_packed_f32(T, 3 * H, H, h_.data(), H, P.qkv, qkv_.data(), 3 * H, 0, &eqkv),
            "QKV projection", error)) {
      return false;
    }
    Lap(profile, MiniLMProfile::kMatmul, &t0);
    if (!Ok(vlak_attention_f32(&ap, qkv_.data(), qkv_.data() + H, qkv_.data() + 2 * H, ctx_.data()), "attention",
            error)) {
      return false;
    }
    Lap(profile, MiniLMProfile::kAttention, &t0);
    const vlak_matmul_epilogue eo{L.attn_out_b, 0, VLAK_ACT_GELU};
    if (!Ok(vlak_matmul_packed_f32(T, H, H, ctx_.data(), H, P.out, tmp_.data(), H, 0, &eo), "attention output",
            error)) {
      return false;
    }
    Lap(profile, MiniLMProfile::kMatmul, &t0);
    if (!add_layernorm(L.attn_ln_g, L.attn_ln_b, "attention layernorm")) return false;
    Lap(profile, MiniLMProfile::kAddNorm, &t0);
    const vlak_matmul_epilogue e1{L.ffn_in_b, VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_GELU};
    const vlak_matmul_epilogue e2{L.ffn_out_b, 0, VLAK_ACT_GELU};
    if (!Ok(vlak_matmul_packed_f32(T, I, H, h_.data(), H, P.ffn_in, ffn_.data(), I, 0, &e1), "FFN up", error) ||
        !Ok(vlak_matmul_packed_f32(T, H, I, ffn_.data(), I, P.ffn_out, tmp_.data(), H, 0, &e2), "FFN down", error)) {
      return false;
    }
    Lap(profile, MiniLMProfile::kMatmul, &t0);
    if (!add_layernorm(L.ffn_ln_g, L.ffn_ln_b, "FFN layernorm")) return false;
    Lap(profile, MiniLMProfile::kAddNorm, &t0);
  }

  // Mean over the sentence's tokens, then v / max(|v|, 1e-12) (sentence-transformers' Pooling and
  // Normalize), in double.
  std::vector<double> v(H);
  for (size_t b = 0; b < B; ++b) {
    std::fill(v.begin(), v.end(), 0.0);
    for (size_t s = 0; s < lengths[b]; ++s) {
      const float* row = h_.data() + (b * S + s) * H;
      for (size_t j = 0; j < H; ++j) v[j] += row[j];
    }
    double norm = 0;
    for (size_t j = 0; j < H; ++j) {
      v[j] /= static_cast<double>(lengths[b]);
      norm += v[j] * v[j];
    }
    norm = std::sqrt(norm);
    if (norm < 1e-12) norm = 1e-12;
    for (size_t j = 0; j < H; ++j) (*out)[b * H + j] = static_cast<float>(v[j] / norm);
  }
  Lap(profile, MiniLMProfile::kPool, &t0);
  return true;
}

}  // namespace vlak::models
