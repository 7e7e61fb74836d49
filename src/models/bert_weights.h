// A BERT encoder's config.json and weights, checked: what a forward pass reads before it runs.
//
// ReadBertConfig accepts only the architecture vlak's BERT forward pass computes (all-MiniLM-L6-v2
// is one): model_type "bert", absolute positions, hidden_act "gelu" (erf), hidden divisible by the
// heads, every size positive and bounded. Anything else is refused with a message naming the key.
// LoadBertWeights finds every tensor of that config in a safetensors file (Hugging Face's names,
// with or without the "bert." prefix), each F32 of the exact shape, and concatenates each layer's
// query, key and value projections into one [3 * hidden][hidden] weight and [3 * hidden] bias (one
// matmul instead of three). The pointers live as long as the SafeTensors and the BertWeights.
#ifndef VLAK_MODELS_BERT_WEIGHTS_H_
#define VLAK_MODELS_BERT_WEIGHTS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "models/safetensors.h"

namespace vlak::models {

struct BertConfig {
  size_t vocab_size = 0;
  size_t hidden = 0;          // hidden_size
  size_t layers = 0;          // num_hidden_layers
  size_t heads = 0;           // num_attention_heads
  size_t head_dim = 0;        // hidden / heads
  size_t intermediate = 0;    // intermediate_size
  size_t max_positions = 0;   // max_position_embeddings
  size_t type_vocab_size = 0;
  double layer_norm_eps = 0;
};

// Linear layers are stored as PyTorch's nn.Linear: weight [out][in] (VLAK_MATMUL_TRANS_B), bias [out].
struct BertLayerWeights {
  const float* q_w = nullptr;
  const float* q_b = nullptr;
  const float* k_w = nullptr;
  const float* k_b = nullptr;
  const float* v_w = nullptr;
  const float* v_b = nullptr;
  std::vector<float> qkv_w;  // [3 * hidden][hidden]: the rows of q_w, then k_w, then v_w
  std::vector<float> qkv_b;  // [3 * hidden]
  const float* attn_out_w = nullptr;  // [hidden][hidden]
  const float* attn_out_b = nullptr;
  const float* attn_ln_g = nullptr;   // the LayerNorm after attention + residual
  const float* attn_ln_b = nullptr;
  const float* ffn_in_w = nullptr;    // [intermediate][hidden]
  const float* ffn_in_b = nullptr;
  const float* ffn_out_w = nullptr;   // [hidden][intermediate]
  const float* ffn_out_b = nullptr;
  const float* ffn_ln_g = nullptr;    // the LayerNorm after the FFN + residual
  const float* ffn_ln_b = nullptr;
};

struct BertWeights {
  const float* word = nullptr;        // [vocab_size][hidden]
  const float* position = nullptr;    // [max_positions][hidden]
  const float* token_type = nullptr;  // [type_vocab_size][hidden]
  const float* emb_ln_g = nullptr;
  const float* emb_ln_b = nullptr;
  std::vector<BertLayerWeights> layers;
};

bool ReadBertConfig(const std::string& path, BertConfig* config, std::string* error);
bool ParseBertConfig(const std::string& json_text, BertConfig* config, std::string* error,
                     const std::string& what = "config.json");
bool LoadBertWeights(const SafeTensors& st, const BertConfig& config, BertWeights* weights, std::string* error);

}  // namespace vlak::models

#endif  // VLAK_MODELS_BERT_WEIGHTS_H_
