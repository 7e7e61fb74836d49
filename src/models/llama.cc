#include "models/llama.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "vlak/vlak.h"

namespace vlak::models {
namespace {

bool Status(vlak_status s, const char* what, std::string* error) {
  if (s == VLAK_OK) return true;
  *error = std::string(what) + ": " + vlak_status_string(s);
  return false;
}

bool Fail(std::string* error, const char* msg) {
  *error = msg;
  return false;
}

bool IsQType(uint32_t t) {
  return t == static_cast<uint32_t>(GgmlType::kQ4_0) || t == static_cast<uint32_t>(GgmlType::kQ4_1) ||
         t == static_cast<uint32_t>(GgmlType::kQ8_0);
}

// kAuto: int8 activations below 16 rows, where vlak_matmul_q_f32 reads W once per call with
// integer dot products; exact weights from 16 rows, where it multiplies dequantized panels.
bool QuantizeA(Llama::MatmulMode mode, size_t m) {
  return mode == Llama::MatmulMode::kQuantized || (mode == Llama::MatmulMode::kAuto && m < 16);
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool Llama::Load(const std::string& path, std::string* error) {
  *this = Llama();
  std::string err;
  auto fail = [&](const std::string& msg) {
    *error = path + ": " + msg;
    *this = Llama();
    return false;
  };
  if (!file_.Open(path, &err)) {
    *error = err;
    return false;
  }
  std::string_view arch;
  if (!file_.GetString("general.architecture", &arch, &err)) return fail(err);
  if (arch != "llama") return fail("general.architecture is \"" + std::string(arch) + "\", not \"llama\"");
  uint32_t u = 0;
  auto get = [&](const char* key, size_t* out) {
    if (!file_.GetU32(key, &u, &err)) return false;
    *out = u;
    return true;
  };
  if (!get("llama.block_count", &cfg_.layers) || !get("llama.embedding_length", &cfg_.dim) ||
      !get("llama.attention.head_count", &cfg_.heads) || !get("llama.attention.head_count_kv", &cfg_.kv_heads) ||
      !get("llama.feed_forward_length", &cfg_.ffn) || !get("llama.context_length", &cfg_.context)) {
    return fail(err);
  }
  if (!file_.GetF32("llama.attention.layer_norm_rms_epsilon", &cfg_.eps, &err)) return fail(err);
  float base = 10000.0f;
  if (file_.Find("llama.rope.freq_base") && !file_.GetF32("llama.rope.freq_base", &base, &err)) return fail(err);
  cfg_.rope_base = base;
  if (cfg_.layers == 0 || cfg_.dim == 0 || cfg_.heads == 0 || cfg_.kv_heads == 0 || cfg_.ffn == 0 ||
      cfg_.context == 0 || cfg_.dim % cfg_.heads != 0 || cfg_.heads % cfg_.kv_heads != 0) {
    return fail("inconsistent sizes: dim " + std::to_string(cfg_.dim) + ", heads " + std::to_string(cfg_.heads) +
                ", kv heads " + std::to_string(cfg_.kv_heads));
  }
  cfg_.head_dim = cfg_.dim / cfg_.heads;
  if (cfg_.head_dim % 2 != 0) return fail("odd head size " + std::to_string(cfg_.head_dim));
  if (const GgufValue* v = file_.Find("llama.rope.dimension_count")) {
    if (v->type != GgufType::kU32 || v->u != cfg_.head_dim) {
      return fail("llama.rope.dimension_count must be the head size " + std::to_string(cfg_.head_dim) +
                  " (partial rotation is not supported)");
    }
  }
  if (const GgufValue* v = file_.Find("llama.rope.scaling.type"); v && v->str != "none") {
    return fail("RoPE scaling \"" + std::string(v->str) + "\" is not supported");
  }
  if (file_.FindTensor("rope_freqs.weight")) return fail("rope_freqs.weight (RoPE frequency factors) is not supported");
  if (cfg_.context > (size_t{1} << 24)) return fail("context length " + std::to_string(cfg_.context) + " too large");
  if (!bpe_.Load(file_, &err)) return fail(err);
  cfg_.vocab = bpe_.vocab_size();
  if (const GgufValue* v = file_.Find("llama.vocab_size"); v && v->u != cfg_.vocab) {
    return fail("llama.vocab_size " + std::to_string(v->u) + " differs from the tokenizer's " +
                std::to_string(cfg_.vocab) + " tokens");
  }

  const size_t d = cfg_.dim, kv = cfg_.kv_heads * cfg_.head_dim;
  auto matrix = [&](const std::string& name, size_t in, size_t out, Matrix* m) {
    const GgufTensor* t = file_.FindTensor(name);
    if (!t) {
      err = "no tensor \"" + name + "\"";
      return false;
    }
    if (!IsQType(t->type)) {
      err = "tensor \"" + name + "\" is " + GgmlTypeName(t->type) + "; this model runs Q8_0, Q4_0 or Q4_1";
      return false;
    }
    if (!file_.Tensor(name, static_cast<GgmlType>(t->type), {in, out}, &err)) return false;
    m->type = static_cast<int>(t->type);
    m->data = t->data;
    m->rows = out;
    m->cols = in;
    m->row_bytes = vlak_qtype_row_bytes(static_cast<vlak_qtype>(t->type), in);
    if (m->row_bytes == 0 || m->row_bytes * out != t->bytes) {
      err = "tensor \"" + name + "\" holds " + std::to_string(t->bytes) + " bytes, not " + std::to_string(out) +
            " rows of " + std::to_string(m->row_bytes);
      return false;
    }
    return true;
  };
  auto norm = [&](const std::string& name, const float** p) {
    *p = file_.F32(name, {d}, &err);
    return *p != nullptr;
  };
  if (!matrix("token_embd.weight", d, cfg_.vocab, &embd_)) return fail(err);
  if (file_.FindTensor("output.weight")) {
    if (!matrix("output.weight", d, cfg_.vocab, &out_)) return fail(err);
  } else {
    out_ = embd_;  // tied
  }
  if (!norm("output_norm.weight", &out_norm_)) return fail(err);
  layers_.resize(cfg_.layers);
  for (size_t l = 0; l < cfg_.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    Layer& L = layers_[l];
    if (!norm(b + "attn_norm.weight", &L.attn_norm) || !norm(b + "ffn_norm.weight", &L.ffn_norm) ||
        !matrix(b + "attn_q.weight", d, d, &L.q) || !matrix(b + "attn_k.weight", d, kv, &L.k) ||
        !matrix(b + "attn_v.weight", d, kv, &L.v) || !matrix(b + "attn_output.weight", d, d, &L.o) ||
        !matrix(b + "ffn_gate.weight", d, cfg_.ffn, &L.gate) || !matrix(b + "ffn_up.weight", d, cfg_.ffn, &L.up) ||
        !matrix(b + "ffn_down.weight", cfg_.ffn, d, &L.down)) {
      return fail(err);
    }
    auto fuse = [](std::initializer_list<const Matrix*> parts, Matrix* into) {
      const Matrix& first = **parts.begin();
      for (const Matrix* p : parts) {
        if (p->type != first.type || p->cols != first.cols) return;
      }
      into->type = first.type, into->cols = first.cols, into->row_bytes = first.row_bytes;
      into->rows = 0;
      for (const Matrix* p : parts) into->rows += p->rows;
      into->parts.assign(parts.begin(), parts.end());
    };
    fuse({&L.q, &L.k, &L.v}, &L.qkv);
    fuse({&L.gate, &L.up}, &L.gate_up);
  }
  // Every tensor of the file is one the forward pass reads: anything else is a variant it does not
  // compute (biases, extra norms).
  const size_t expected = 2 + (out_.data != embd_.data ? 1 : 0) + 9 * cfg_.layers;
  if (file_.tensors().size() != expected) {
    for (const GgufTensor& t : file_.tensors()) {
      const std::string n(t.name);
      bool known = n == "token_embd.weight" || n == "output.weight" || n == "output_norm.weight";
      if (!known && n.rfind("blk.", 0) == 0) {
        for (const char* s : {"attn_norm", "ffn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate",
                              "ffn_up", "ffn_down"}) {
          known = known || n.find(std::string(".") + s + ".weight") != std::string::npos;
        }
      }
      if (!known) return fail("tensor \"" + n + "\" is not part of the Llama forward pass this runs");
    }
    return fail("unexpected tensor count " + std::to_string(file_.tensors().size()));
  }
  return true;
}

bool Llama::EnsureCapacity(size_t positions, std::string* error) {
  if (positions <= capacity_) return true;
  if (positions > cfg_.context) {
    *error = "the sequence (" + std::to_string(positions) + " tokens) exceeds the context length " +
             std::to_string(cfg_.context);
    return false;
  }
  size_t cap = std::max<size_t>(256, capacity_);
  while (cap < positions) cap *= 2;
  cap = std::min(cap, cfg_.context);
  const size_t half = cfg_.head_dim / 2, kv = cfg_.kv_heads * cfg_.head_dim;
  cos_.resize(cap * half);
  sin_.resize(cap * half);
  if (!Status(vlak_rope_tables_f32(cap, cfg_.head_dim, cfg_.rope_base, cos_.data(), sin_.data(), half),
              "rope tables", error)) {
    return false;
  }
  for (Layer& L : layers_) {
    L.kcache.resize(cap * kv);
    L.vcache.resize(cap * kv);
  }
  capacity_ = cap;
  return true;
}

std::vector<const Llama::Matrix*> Llama::Int8Matrices() const {
  std::vector<const Matrix*> list;
  for (const Layer& L : layers_) {
    if (L.qkv.rows != 0) {
      list.push_back(&L.qkv);
    } else {
      list.insert(list.end(), {&L.q, &L.k, &L.v});
    }
    list.push_back(&L.o);
    if (L.gate_up.rows != 0) {
      list.push_back(&L.gate_up);
    } else {
      list.insert(list.end(), {&L.gate, &L.up});
    }
    list.push_back(&L.down);
  }
  list.push_back(&out_);
  return list;
}

bool Llama::PackInt8(std::string* error) const {
  const std::vector<const Matrix*> list = Int8Matrices();
  std::vector<size_t> sizes(list.size());
  size_t total = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    sizes[i] = vlak_matmul_q_packed_size(static_cast<vlak_qtype>(list[i]->type), list[i]->rows, list[i]->cols);
    const size_t piece = WeightArena::PieceBytes(sizes[i]);
    if (sizes[i] == 0 || piece > SIZE_MAX - total) return Fail(error, "packing weights: the sizes overflow");
    total += piece;
  }
  arena_target_ = -1;
  for (const Matrix* w : list) w->packed = nullptr;
  if (!arena_.Reserve(total)) return Fail(error, "packing weights: out of memory");
  std::vector<uint8_t> joined;  // a fused matrix: its parts' rows one after the other
  for (size_t i = 0; i < list.size(); ++i) {
    const Matrix* w = list[i];
    const auto type = static_cast<vlak_qtype>(w->type);
    const void* rows = w->data;
    if (!w->parts.empty()) {
      joined.clear();
      for (const Matrix* p : w->parts) {
        const auto* b = static_cast<const uint8_t*>(p->data);
        joined.insert(joined.end(), b, b + p->rows * p->row_bytes);
      }
      rows = joined.data();
    }
    void* dst = arena_.Take(sizes[i]);
    if (!Status(vlak_matmul_q_pack(type, w->rows, w->cols, rows, w->row_bytes, dst, sizes[i]), "pack", error)) {
      return false;
    }
    w->packed = dst;
  }
  arena_target_ = static_cast<int>(vlak_active_target());
  return true;
}

bool Llama::Matmul(const Matrix& w, size_t m, const float* a, size_t lda, float* c, size_t ldc,
                   std::string* error) const {
  const auto type = static_cast<vlak_qtype>(w.type);
  const unsigned flags = QuantizeA(mode_, m) ? VLAK_MATMUL_Q_QUANTIZE_A : 0u;
  if (flags != 0) {
    // int8 activations: the weights repacked for the active target (its grouped layout on
    // AVX-512 VNNI, AVX2 and RVV, 3-4x faster at SmolLM2's shapes than the GGUF rows:
    // docs/ops/quant.md).
    if (arena_target_ != static_cast<int>(vlak_active_target()) && !PackInt8(error)) return false;
    if (w.packed == nullptr) return Fail(error, "matmul: a matrix that PackInt8 does not list");
    return Status(vlak_matmul_q_packed_f32(m, w.rows, w.cols, a, lda, w.packed, c, ldc, flags, nullptr), "matmul",
                  error);
  }
  return Status(vlak_matmul_q_f32(m, w.rows, w.cols, a, lda, type, w.data, w.row_bytes, c, ldc, flags, nullptr),
                "matmul", error);
}

// gate_ = silu(h W_gate^T) * (h W_up^T): with int8 activations one product of gate|up (rows of
// 2 ffn) and the GLU on its halves, else two products.
bool Llama::GateUp(const Layer& L, size_t m, std::string* error) {
  const size_t d = cfg_.dim, ff = cfg_.ffn;
  if (QuantizeA(mode_, m) && L.gate_up.rows != 0) {
    fused_.resize(std::max(fused_.size(), m * 2 * ff));
    return Matmul(L.gate_up, m, h_.data(), d, fused_.data(), 2 * ff, error) &&
           Status(vlak_glu_f32(m, ff, fused_.data(), 2 * ff, fused_.data() + ff, 2 * ff, gate_.data(), ff, VLAK_ACT_SILU),
                  "swiglu", error);
  }
  return Matmul(L.gate, m, h_.data(), d, gate_.data(), ff, error) && Matmul(L.up, m, h_.data(), d, up_.data(), ff, error) &&
         Status(vlak_glu_f32(m, ff, gate_.data(), ff, up_.data(), ff, gate_.data(), ff, VLAK_ACT_SILU), "swiglu", error);
}

bool Llama::Forward(std::span<const int32_t> ids, std::vector<float>* logits, std::string* error) {
  const size_t m = ids.size();
  if (layers_.empty()) {
    *error = "no model loaded";
    return false;
  }
  if (m == 0) {
    *error = "no tokens";
    return false;
  }
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= cfg_.vocab) {
      *error = "token id " + std::to_string(id) + " out of range";
      return false;
    }
  }
  if (!EnsureCapacity(pos_ + m, error)) return false;
  const size_t d = cfg_.dim, hd = cfg_.head_dim, kv = cfg_.kv_heads * hd, ff = cfg_.ffn;
  x_.resize(m * d), h_.resize(m * d), q_.resize(m * d), att_.resize(m * d), delta_.resize(m * d);
  gate_.resize(m * ff), up_.resize(m * ff);

  for (size_t i = 0; i < m; ++i) {
    const auto* row = static_cast<const uint8_t*>(embd_.data) + static_cast<size_t>(ids[i]) * embd_.row_bytes;
    if (!Status(vlak_dequantize_f32(static_cast<vlak_qtype>(embd_.type), 1, d, row, embd_.row_bytes, x_.data() + i * d, d),
                "embedding", error)) {
      return false;
    }
  }
  const size_t half = hd / 2;
  for (size_t l = 0; l < cfg_.layers; ++l) {
    Layer& L = layers_[l];
    // h = RMSNorm(x + the previous layer's FFN output); x takes the sum.
    vlak_status s = l == 0 ? vlak_rmsnorm_f32(m, d, x_.data(), d, L.attn_norm, cfg_.eps, h_.data(), d)
                           : vlak_add_rmsnorm_f32(m, d, x_.data(), d, delta_.data(), d, L.attn_norm, cfg_.eps, h_.data(),
                                                  d, x_.data(), d);
    if (!Status(s, "attention norm", error)) return false;
    float* kc = L.kcache.data() + pos_ * kv;
    float* vc = L.vcache.data() + pos_ * kv;
    // With int8 activations q|k|v is one product (rows of d + 2 kv), then split; else three.
    const bool fused = QuantizeA(mode_, m) && L.qkv.rows != 0;
    if (fused) {
      const size_t w = d + 2 * kv;
      fused_.resize(std::max(fused_.size(), m * w));
      if (!Matmul(L.qkv, m, h_.data(), d, fused_.data(), w, error)) return false;
      for (size_t i = 0; i < m; ++i) {
        std::memcpy(q_.data() + i * d, fused_.data() + i * w, d * sizeof(float));
        std::memcpy(kc + i * kv, fused_.data() + i * w + d, kv * sizeof(float));
        std::memcpy(vc + i * kv, fused_.data() + i * w + d + kv, kv * sizeof(float));
      }
    } else if (!Matmul(L.q, m, h_.data(), d, q_.data(), d, error) || !Matmul(L.k, m, h_.data(), d, kc, kv, error) ||
               !Matmul(L.v, m, h_.data(), d, vc, kv, error)) {
      return false;
    }
    const float* cs = cos_.data() + pos_ * half;
    const float* sn = sin_.data() + pos_ * half;
    if (!Status(vlak_rope_f32(m, cfg_.heads, hd, q_.data(), cs, sn, half, q_.data(), VLAK_ROPE_INTERLEAVED), "rope q",
                error) ||
        !Status(vlak_rope_f32(m, cfg_.kv_heads, hd, kc, cs, sn, half, kc, VLAK_ROPE_INTERLEAVED), "rope k", error)) {
      return false;
    }
    vlak_attention_params p{};
    p.batch = 1, p.q_heads = cfg_.heads, p.kv_heads = cfg_.kv_heads;
    p.q_len = m, p.kv_len = pos_ + m, p.head_dim = hd, p.value_dim = hd;
    p.q_strides[0] = m * d, p.q_strides[1] = hd, p.q_strides[2] = d;
    p.k_strides[0] = (pos_ + m) * kv, p.k_strides[1] = hd, p.k_strides[2] = kv;
    std::memcpy(p.v_strides, p.k_strides, sizeof p.k_strides);
    std::memcpy(p.o_strides, p.q_strides, sizeof p.q_strides);
    p.flags = VLAK_ATTENTION_CAUSAL;
    if (!Status(vlak_attention_f32(&p, q_.data(), L.kcache.data(), L.vcache.data(), att_.data()), "attention", error) ||
        !Matmul(L.o, m, att_.data(), d, delta_.data(), d, error) ||
        !Status(vlak_add_rmsnorm_f32(m, d, x_.data(), d, delta_.data(), d, L.ffn_norm, cfg_.eps, h_.data(), d,
                                     x_.data(), d),
                "ffn norm", error) ||
        !GateUp(L, m, error) || !Matmul(L.down, m, gate_.data(), ff, delta_.data(), d, error)) {
      return false;
    }
  }
  // The last row only: its final norm and the output head.
  const size_t last = (m - 1) * d;
  if (!Status(vlak_add_rmsnorm_f32(1, d, x_.data() + last, d, delta_.data() + last, d, out_norm_, cfg_.eps,
                                   h_.data(), d, nullptr, d),
              "output norm", error)) {
    return false;
  }
  logits->resize(cfg_.vocab);
  if (!Matmul(out_, 1, h_.data(), d, logits->data(), cfg_.vocab, error)) return false;
  pos_ += m;
  return true;
}

const char* Llama::ModeName(MatmulMode mode) {
  return mode == MatmulMode::kExact ? "exact weights" : mode == MatmulMode::kQuantized ? "quantized activations"
                                                                                       : "auto (quantized below 16 rows)";
}

int32_t Llama::Argmax(std::span<const float> logits) {
  int32_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > logits[static_cast<size_t>(best)]) best = static_cast<int32_t>(i);
  }
  return best;
}

bool Llama::Generate(std::span<const int32_t> prompt, size_t n, std::vector<int32_t>* out, std::string* error,
                     LlamaStats* stats, bool stop_at_eos,
                     const std::function<void(size_t, std::span<const float>)>& on_step) {
  out->clear();
  Reset();
  LlamaStats st;
  st.prompt_tokens = prompt.size();
  std::vector<float> logits;
  if (n == 0) return true;
  auto t0 = std::chrono::steady_clock::now();
  if (!Forward(prompt, &logits, error)) return false;
  st.prefill_s = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  for (size_t step = 0; step < n; ++step) {
    if (step > 0) {
      const int32_t last = out->back();
      if (!Forward(std::span<const int32_t>(&last, 1), &logits, error)) return false;
    }
    if (on_step) on_step(step, logits);
    const int32_t next = Argmax(logits);
    out->push_back(next);
    // A token of type CONTROL that llama.cpp treats as an end of generation.
    if (stop_at_eos && (next == bpe_.eos() || bpe_.TokenText(next) == "<|endoftext|>")) break;
  }
  st.decode_s = Seconds(t0);
  st.generated = out->size();
  if (stats) *stats = st;
  return true;
}

std::string Llama::ChatPrompt(const std::string& user, bool default_system) const {
  const ChatMessage msg{"user", user};
  return bpe_.ChatPrompt(std::span<const ChatMessage>(&msg, 1), true, default_system);
}

}  // namespace vlak::models
