// A BERT encoder for sentence embeddings (all-MiniLM-L6-v2 and other sentence-transformers BERT
// models with mean pooling), running only on vlak's public C API.
//
// Model: a folder as Hugging Face ships it: config.json and model.safetensors (f32), checked by
// bert_weights.h, vocab.txt and the tokenizer's configs (wordpiece.h).
// Forward pass for a batch of sentences padded to the longest (B x S tokens, T = B S rows):
//   h = LayerNorm((word[id] + type[0]) + pos[s])              plain add, vlak_add_layernorm_f32
//   per layer:
//     qkv = h Wqkv^T + bqkv                                   vlak_matmul_packed_f32 (Q, K, V in
//                                                             one; every W packed once)
//     ctx = softmax(q k^T / sqrt(d)) v per head, padded keys   vlak_attention_f32 (kv_lens)
//     h = LayerNorm(ctx Wo^T + bo + h)                        matmul + bias, vlak_add_layernorm_f32
//     f = GELU(h W1^T + b1)                                   matmul, bias + GELU epilogue
//     h = LayerNorm(f W2^T + b2 + h)                          matmul + bias, vlak_add_layernorm_f32
//   embedding = normalise(mean of h over the sentence's tokens)  in double (glue)
// Accuracy: the composition of the operators' bounds; measured against a float64 forward pass
// of the same weights and against PyTorch in docs/models.md and src/models/minilm_test.cc.
// Threads: vlak_set_num_threads, as for every operator. An object serves one call at a time (its
// scratch buffers); the weights are shared read-only and may be used by several objects.
#ifndef VLAK_MODELS_MINILM_H_
#define VLAK_MODELS_MINILM_H_

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/bert_weights.h"
#include "models/safetensors.h"
#include "models/weight_arena.h"
#include "models/wordpiece.h"

namespace vlak::models {

// Time spent per operator over Encode calls (nanoseconds), for a profile a user can read.
struct MiniLMProfile {
  enum Part { kEmbed, kMatmul, kAttention, kAddNorm, kPool, kTokenize, kParts };
  static const char* Name(int part);  // "embedding", "matmul", ...
  double ns[kParts] = {};
  double Total() const;
};

class MiniLM {
 public:
  MiniLM();
  ~MiniLM();
  MiniLM(MiniLM&&) noexcept;
  MiniLM& operator=(MiniLM&&) noexcept;

  // Reads the folder: config, weights (every tensor's shape and dtype checked), tokenizer. False
  // with *error naming the file and what is wrong; the object then holds nothing.
  bool Load(const std::string& dir, std::string* error);

  // L2-normalised sentence embeddings, texts.size() x dim() floats into *out.
  bool Encode(std::span<const std::string> texts, std::vector<float>* out, std::string* error,
              MiniLMProfile* profile = nullptr);
  // The same from token ids (each [CLS] ... [SEP], at most positions() long).
  bool EncodeIds(std::span<const std::vector<int32_t>> ids, std::vector<float>* out, std::string* error,
                 MiniLMProfile* profile = nullptr);

  size_t dim() const { return config_.hidden; }
  const BertConfig& config() const { return config_; }
  const WordPiece& tokenizer() const { return tokenizer_; }

 private:
  BertConfig config_;
  SafeTensors file_;
  BertWeights w_;
  // Each Linear weight packed once (vlak_matmul_pack_b_f32, from its [out][in] layout) for the
  // target that packed it; packed again when the active target changes (vlak_set_target).
  struct Packed {
    const void *qkv = nullptr, *out = nullptr, *ffn_in = nullptr, *ffn_out = nullptr;  // in arena_
  };
  WeightArena arena_;
  std::vector<Packed> packed_;
  int packed_target_ = -1;
  bool Pack(std::string* error);
  WordPiece tokenizer_;
  std::vector<float> h_, qkv_, ctx_, tmp_, ffn_;  // scratch, grown to the largest batch seen
};

}  // namespace vlak::models

#endif  // VLAK_MODELS_MINILM_H_
