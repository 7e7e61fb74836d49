// A Llama-architecture decoder (SmolLM2-135M-Instruct and its kin) from a GGUF file, greedy
// decoding, running only on vlak's public C API.
//
// Model: one GGUF file of architecture "llama" whose matrices are q8_0, q4_0 or q4_1 and whose
// norms are f32 (llama.cpp's tensor names); every tensor's type and shape is checked against the
// metadata, the output head is `output.weight` or, when absent, the tied `token_embd.weight`.
// Forward pass for m new tokens at positions p .. p + m - 1 (m = the prompt in prefill, 1 in decode):
//   x = token_embd[id]                                          vlak_dequantize_f32 of the row
//   per layer:
//     h = RMSNorm(x (+ the last layer's FFN out), attn_norm)    vlak_add_rmsnorm_f32, x updated
//     q, k, v = h Wq^T, h Wk^T, h Wv^T (k, v into the cache)    vlak_matmul_q_f32
//     q, k = RoPE(q, k), adjacent pairs (ggml's NORM mode)      vlak_rope_f32 (INTERLEAVED)
//     o = softmax(q k^T / 8) v, GQA, bottom-right causal       vlak_attention_f32 over the cache
//     h = RMSNorm(x + o Wo^T, ffn_norm), x updated              vlak_matmul_q_f32, vlak_add_rmsnorm_f32
//     f = (SiLU(h Wg^T) * (h Wu^T)) Wd^T                        vlak_matmul_q_f32, vlak_glu_f32
//   logits = RMSNorm(x + f, output_norm) Wout^T, last row only  vlak_add_rmsnorm_f32, vlak_matmul_q_f32
//   next token = argmax (the smallest id among equal logits)
// Matmul modes: exact weights by default (float products of the dequantized weights: the same
// tokens on every target, batch and token-by-token passes agree to float rounding); ggml's int8
// activations (VLAK_MATMUL_Q_QUANTIZE_A); or auto, each where it is faster: int8 activations below
// 16 rows (decode: W read once, VNNI dot products), exact weights from 16 rows (prefill). The int8
// steps are coarse where activations have outliers, so with them a float-order difference
// upstream (another target, another batch size) can move a logit by about 1 (docs/models.md). The KV
// cache is f32, grown as the sequence grows up to the model's context length. Threads: vlak_set_num_threads. One object serves one call at
// a time (the cache and scratch); the file is mapped read-only.
#ifndef VLAK_MODELS_LLAMA_H_
#define VLAK_MODELS_LLAMA_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "models/bpe.h"
#include "models/gguf.h"
#include "models/weight_arena.h"

namespace vlak::models {

struct LlamaConfig {
  size_t layers = 0, dim = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0, context = 0;
  float eps = 0;
  double rope_base = 0;
};

struct LlamaStats {
  size_t prompt_tokens = 0, generated = 0;
  double prefill_s = 0, decode_s = 0;  // prefill: the prompt's batch; decode: the steps after it
};

class Llama {
 public:
  // Maps the file and checks the metadata and every tensor; false with *error naming the file and
  // the key or tensor at fault (the object then holds nothing).
  bool Load(const std::string& path, std::string* error);

  // Forgets the sequence (the KV cache keeps its memory).
  void Reset() { pos_ = 0; }
  // Runs the tokens at the next positions (one batch) and writes the logits of the last one
  // (vocab floats). False with *error for an empty or out-of-range id list or a full context.
  bool Forward(std::span<const int32_t> ids, std::vector<float>* logits, std::string* error);
  // From a fresh sequence: the prompt's ids as one batch, then n greedy tokens, one at a time
  // (end-of-text tokens included: it stops only after n, or at stop_at_eos's first end token).
  // on_step, when set, sees each step's logits before its token is chosen.
  bool Generate(std::span<const int32_t> prompt, size_t n, std::vector<int32_t>* out, std::string* error,
                LlamaStats* stats = nullptr, bool stop_at_eos = false,
                const std::function<void(size_t step, std::span<const float> logits)>& on_step = {});

  // The prompt text of a user message in the model's chat template (with its default system message
  // when default_system), ready for tokenizer().Encode.
  std::string ChatPrompt(const std::string& user, bool default_system = false) const;

  enum class MatmulMode { kExact, kQuantized, kAuto };
  void set_matmul_mode(MatmulMode mode) { mode_ = mode; }
  MatmulMode matmul_mode() const { return mode_; }
  static const char* ModeName(MatmulMode mode);  // "auto", "exact", "quantized"
  const LlamaConfig& config() const { return cfg_; }
  const Bpe& tokenizer() const { return bpe_; }
  size_t position() const { return pos_; }
  static int32_t Argmax(std::span<const float> logits);

 private:
  struct Matrix {
    int type = 0;  // vlak_qtype
    const void* data = nullptr;
    size_t rows = 0, cols = 0, row_bytes = 0;
    // For int8-activation products: the weights repacked by vlak_matmul_q_pack, in arena_, for
    // the target arena_target_ (PackInt8).
    mutable const void* packed = nullptr;
    // Non-empty: this matrix is these matrices' rows one after the other (data is null), for int8
    // products only, where it is packed from them.
    std::vector<const Matrix*> parts;
  };
  struct Layer {
    const float* attn_norm = nullptr;
    const float* ffn_norm = nullptr;
    Matrix q, k, v, o, gate, up, down;
    // q|k|v and gate|up as one matrix each for the int8 products (one quantization of the
    // activations, one call threaded over all the rows); rows == 0 where the parts' types differ.
    Matrix qkv, gate_up;
    std::vector<float> kcache, vcache;  // [position][kv_heads * head_dim]
  };
  bool Matmul(const Matrix& w, size_t m, const float* a, size_t lda, float* c, size_t ldc, std::string* error) const;
  // Every matrix an int8 product reads (the fused ones where they exist), in the order a forward
  // pass reads them.
  std::vector<const Matrix*> Int8Matrices() const;
  // Packs all of them for the active target into one arena (huge pages: weight_arena.h), on the
  // first int8 product and again when the active target changes.
  bool PackInt8(std::string* error) const;
  bool EnsureCapacity(size_t positions, std::string* error);
  bool GateUp(const Layer& L, size_t m, std::string* error);

  Gguf file_;
  Bpe bpe_;
  LlamaConfig cfg_;
  Matrix embd_, out_;
  const float* out_norm_ = nullptr;
  std::vector<Layer> layers_;
  std::vector<float> cos_, sin_;  // RoPE tables, [position][head_dim / 2]
  size_t capacity_ = 0, pos_ = 0;
  MatmulMode mode_ = MatmulMode::kExact;
  mutable WeightArena arena_;
  mutable int arena_target_ = -1;
  std::vector<float> x_, h_, q_, att_, delta_, gate_, up_, fused_;  // scratch, grown to the largest batch
};

}  // namespace vlak::models

#endif  // VLAK_MODELS_LLAMA_H_
