// BERT's uncased WordPiece tokenizer, giving the ids of Hugging Face's (BertNormalizer,
// BertPreTokenizer, WordPiece, [CLS] ... [SEP]) as all-MiniLM-L6-v2's tokenizer.json configures it.
//
// Algorithm, per code point of the UTF-8 text (wordpiece_tables.inc, measured from Hugging Face's
// `tokenizers` on every code point by scripts/wordpiece-tables.py):
//  1. normalise: drop controls, format and unassigned code points and U+FFFD; whitespace becomes a
//     space; CJK ideographs get a space either side; NFD, nonspacing marks dropped (accents
//     stripped), lower case; Hangul syllables decompose to jamo;
//  2. split on whitespace, and make each punctuation character (Unicode P*, and ASCII's $+<=>^`|~)
//     a word of its own;
//  3. each word greedily, longest vocabulary match first, the pieces after the first as "##...";
//     a word of more than 100 code points, or one with an unmatched rest, is one [UNK];
//  4. [CLS] first, [SEP] last, truncated to max_length tokens (256 for all-MiniLM-L6-v2:
//     sentence-transformers' max_seq_length, read from sentence_bert_config.json).
// Special tokens written in the text ([PAD] [UNK] [CLS] [SEP] [MASK]) are matched on the raw text
// before step 1 and kept whole, as Hugging Face's added tokens are. Not handled: canonical
// reordering of combining marks that survive stripping; cased vocabularies (do_lower_case false is
// refused); other added tokens of a tokenizer.json. Invalid UTF-8 bytes read as U+FFFD (dropped).
// Cost: O(text length + sum over words of length^2) lookups, the square bounded by 100 code points.
#ifndef VLAK_MODELS_WORDPIECE_H_
#define VLAK_MODELS_WORDPIECE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vlak::models {

// Sentences padded to the longest one, row-major batch x seq_len.
struct TokenBatch {
  size_t batch = 0;
  size_t seq_len = 0;            // the longest sentence's tokens, [CLS] and [SEP] included
  std::vector<int32_t> ids;      // [PAD] (0) after each sentence's [SEP]
  std::vector<int32_t> mask;     // 1 for a token, 0 for padding (Hugging Face's attention_mask)
  std::vector<size_t> lengths;   // tokens per sentence
};

class WordPiece {
 public:
  static constexpr size_t kMaxCharsPerWord = 100;  // Hugging Face's max_input_chars_per_word

  WordPiece() = default;
  WordPiece(WordPiece&&) = default;  // the index's views stay valid: a moved vector keeps its elements
  WordPiece& operator=(WordPiece&&) = default;
  WordPiece(const WordPiece&) = delete;
  WordPiece& operator=(const WordPiece&) = delete;

  // vocab.txt: one token per line, the line number its id. Needs [PAD], [UNK], [CLS] and [SEP].
  bool LoadVocab(const std::string& path, std::string* error);
  bool LoadVocabText(std::string_view text, std::string* error, const std::string& what = "vocabulary");
  // A model folder: vocab.txt; tokenizer_config.json's do_lower_case (must be true where present);
  // sentence_bert_config.json's max_seq_length as max_length() (512 without that file).
  bool LoadDir(const std::string& dir, std::string* error);

  // Steps 1 and 2: the normalised words, UTF-8.
  std::vector<std::string> Words(std::string_view text) const;
  // Steps 1 to 3: the WordPiece ids, without [CLS]/[SEP], at most `limit` of them.
  std::vector<int32_t> Tokenize(std::string_view text, size_t limit = SIZE_MAX) const;
  // [CLS] Tokenize(text) [SEP], at most max_length (>= 2) tokens; 0 means max_length().
  std::vector<int32_t> Encode(std::string_view text, size_t max_length = 0) const;
  // Encode for each text, padded with [PAD] to the longest.
  TokenBatch EncodeBatch(std::span<const std::string> texts, size_t max_length = 0) const;

  size_t vocab_size() const { return tokens_.size(); }
  size_t max_length() const { return max_length_; }
  std::string_view token(int32_t id) const;  // "" for an id out of range
  int32_t Id(std::string_view token) const;  // -1 when absent
  int32_t pad_id() const { return pad_; }
  int32_t unk_id() const { return unk_; }
  int32_t cls_id() const { return cls_; }
  int32_t sep_id() const { return sep_; }

 private:
  void WordIds(std::string_view word, std::vector<int32_t>* out, size_t limit) const;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string_view, int32_t> ids_;  // views into tokens_
  int32_t pad_ = -1, unk_ = -1, cls_ = -1, sep_ = -1;
  size_t max_length_ = 512;
};

}  // namespace vlak::models

#endif  // VLAK_MODELS_WORDPIECE_H_
