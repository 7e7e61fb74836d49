// Fuzz target of the WordPiece tokenizer: the first byte picks max_length, the rest is the text
// (any bytes, valid UTF-8 or not). On a small vocabulary: every id is in range, [CLS] first and
// [SEP] last, at most max_length tokens, every word non-empty valid UTF-8 without whitespace, and
// tokenizing the same text twice gives the same ids.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/wordpiece.h"

namespace {

[[noreturn]] void Finding(const char* what) {
  std::fprintf(stderr, "vlak fuzz finding: %s\n", what);
  std::abort();
}

const vlak::models::WordPiece& Vocabulary() {
  static const vlak::models::WordPiece wp = [] {
    vlak::models::WordPiece w;
    std::string err;
    if (!w.LoadVocabText("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\nb\n##a\n##b\nab\n,\n.\n\xC3\xA9\n##\xE4\xB8\xAD\n"
                         "\xE4\xB8\xAD\n\xE1\x84\x92\n",
                         &err)) {
      Finding(err.c_str());
    }
    return w;
  }();
  return wp;
}

bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& wp = Vocabulary();
  const size_t max_length = data[0] % 40;  // 0: the default, 512
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::vector<int32_t> ids = wp.Encode(text, max_length);
  const size_t limit = max_length == 0 ? wp.max_length() : std::max<size_t>(max_length, 2);
  if (ids.size() < 2 || ids.size() > limit) Finding("token count outside [2, max_length]");
  if (ids.front() != wp.cls_id() || ids.back() != wp.sep_id()) Finding("not [CLS] ... [SEP]");
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= wp.vocab_size()) Finding("id out of range");
  }
  if (wp.Encode(text, max_length) != ids) Finding("not deterministic");
  for (const std::string& w : wp.Words(text)) {
    if (w.empty()) Finding("empty word");
    if (!ValidUtf8(w)) Finding("word is not valid UTF-8");
    if (w.find_first_of(" \t\n\r") != std::string::npos) Finding("whitespace inside a word");
  }
  const std::vector<std::string> texts = {text, "ab", ""};
  const auto b = wp.EncodeBatch(texts, max_length);
  if (b.lengths[0] != ids.size() || b.seq_len < ids.size() || b.ids.size() != 3 * b.seq_len) Finding("batch shape");
  return 0;
}
