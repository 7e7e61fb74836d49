// GPT-2-style byte-level BPE from a GGUF file's tokenizer metadata, with the ids of llama.cpp.
//
// Encode: special tokens (token type CONTROL or USER_DEFINED) typed in the text are matched whole
// first, longest first, as llama.cpp does (CONTROL ones only when parse_special). Each stretch of
// text between them is split by the pre-tokenizer of `tokenizer.ggml.pre`, every byte of each piece
// is mapped to GPT-2's printable code point for it, and the piece's characters are merged by
// `tokenizer.ggml.merges`, the lowest rank first (the leftmost among equals), into vocabulary
// entries. Pre-tokenizers: "smollm" (and the others llama.cpp gives the same split: "starcoder",
// "refact", "command-r", "codeshell", "exaone", "minerva") split every \p{N} code point apart, then
// apply GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+;
// "gpt2" applies that pattern alone. Letters and numbers are Unicode 15.1's L and N (bpe_tables.inc),
// white space the White_Space property. Invalid UTF-8 reads as U+FFFD, one per bad byte, as llama.cpp.
// Decode maps tokens back to bytes (control tokens only when asked). Cost: O(n log n) in the
// length of each piece. Const methods are safe to call from several threads.
#ifndef VLAK_MODELS_BPE_H_
#define VLAK_MODELS_BPE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/gguf.h"

namespace vlak::models {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

class Bpe {
 public:
  // Token types of the GGUF vocabulary (llama.cpp's llama_token_type).
  enum TokenType : int32_t { kUndefined = 0, kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

  // Reads tokenizer.ggml.{model ("gpt2"), pre, tokens, token_type, merges, bos/eos_token_id} and
  // tokenizer.chat_template. Refuses another model or pre-tokenizer, a merge that is not two
  // vocabulary entries, and ids out of range, each with a message. Copies what it keeps.
  bool Load(const Gguf& gguf, std::string* error);

  std::vector<int32_t> Encode(std::string_view text, bool parse_special = true) const;
  // Bytes of the tokens, concatenated; control and unknown tokens are empty unless `special`.
  // Ids out of range are skipped.
  std::string Decode(std::span<const int32_t> ids, bool special = false) const;
  std::string_view TokenText(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }

  // The prompt of the instruct model's chat template (ChatML): each message as
  // "<|im_start|>role\ncontent<|im_end|>\n", the template's default system message first when the
  // first message is not a system one (and `default_system`), then "<|im_start|>assistant\n" when
  // `add_generation_prompt`. llama.cpp's built-in "chatml" format (without --jinja) adds no default
  // system message: default_system = false gives that. Encode the result with parse_special.
  std::string ChatPrompt(std::span<const ChatMessage> messages, bool add_generation_prompt = true,
                         bool default_system = true) const;
  const std::string& default_system_message() const { return default_system_; }

  // Whether the vocabulary holds byte b's character. A byte without one is dropped by Encode, as
  // llama.cpp drops it (SmolLM2 lacks 0x04 0x06 0x13 0x14 0x16 0x1D, C0 C1 and F1..FF).
  bool ByteInVocab(uint8_t b) const;

  int32_t bos() const { return bos_; }
  int32_t eos() const { return eos_; }
  size_t vocab_size() const { return tokens_.size(); }
  const std::string& pre() const { return pre_; }

 private:
  void EncodeText(std::string_view text, std::vector<int32_t>* out) const;
  void EncodeWord(const std::string& word, std::vector<int32_t>* out) const;
  std::vector<std::string> tokens_;
  std::vector<int32_t> types_;
  std::unordered_map<std::string, int32_t> token_id_;
  std::unordered_map<std::string, int32_t> merge_rank_;  // "left right" -> rank
  std::vector<int32_t> specials_;                        // longest first
  std::string pre_;
  bool split_digits_ = false;
  int32_t bos_ = -1, eos_ = -1;
  std::string default_system_;
  bool chatml_ = false;
};

}  // namespace vlak::models

#endif  // VLAK_MODELS_BPE_H_
