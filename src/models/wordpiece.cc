#include "models/wordpiece.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/utf8.h"

namespace vlak::models {
namespace {

#include "models/wordpiece_tables.inc"

enum Action : uint32_t { kKeep = 0, kDrop = 1, kIsolate = 2, kMap = 3 };
enum Kind : uint32_t { kNone = 0, kSpace = 1, kPunct = 2 };
constexpr char32_t kReplacement = 0xFFFD;
constexpr char32_t kHangulFirst = 0xAC00, kHangulLast = 0xD7A3;

uint32_t ClassOf(char32_t c) {
  const auto* end = std::end(kCharRanges);
  const auto* it = std::upper_bound(std::begin(kCharRanges), end, static_cast<uint32_t>(c),
                                    [](uint32_t v, const uint32_t (&r)[2]) { return v < r[0]; });
  return it == std::begin(kCharRanges) ? kDrop : (it - 1)[0][1];
}

// The next code point of UTF-8 text; a byte that does not start a valid sequence (overlong,
// surrogate, beyond U+10FFFF, cut short) reads as U+FFFD and advances one byte.
char32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c0 = b(*i);
  if (c0 < 0x80) {
    ++*i;
    return c0;
  }
  size_t n;
  char32_t cp, min;
  if ((c0 & 0xE0) == 0xC0) {
    n = 2, cp = c0 & 0x1F, min = 0x80;
  } else if ((c0 & 0xF0) == 0xE0) {
    n = 3, cp = c0 & 0x0F, min = 0x800;
  } else if ((c0 & 0xF8) == 0xF0) {
    n = 4, cp = c0 & 0x07, min = 0x10000;
  } else {
    ++*i;
    return kReplacement;
  }
  if (*i + n > s.size()) {
    ++*i;
    return kReplacement;
  }
  for (size_t k = 1; k < n; ++k) {
    if ((b(*i + k) & 0xC0) != 0x80) {
      ++*i;
      return kReplacement;
    }
    cp = cp << 6 | (b(*i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*i;
    return kReplacement;
  }
  *i += n;
  return cp;
}

// Splits normalised code points into words (step 2).
class WordSplitter {
 public:
  explicit WordSplitter(std::vector<std::string>* words) : words_(words) {}
  void Add(char32_t c, uint32_t kind) {
    if (kind == kSpace) {
      End();
    } else if (kind == kPunct) {
      End();
      AppendUtf8(c, &word_);
      End();
    } else {
      AppendUtf8(c, &word_);
    }
  }
  void End() {
    if (!word_.empty()) words_->push_back(std::move(word_));
    word_.clear();
  }

 private:
  std::vector<std::string>* words_;
  std::string word_;
};

bool Fail(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

bool ReadFile(const std::string& path, std::string* text, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Fail(error, path + ": cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  *text = ss.str();
  return true;
}

}  // namespace

bool WordPiece::LoadVocabText(std::string_view text, std::string* error, const std::string& what) {
  tokens_.clear();
  ids_.clear();
  pad_ = unk_ = cls_ = sep_ = -1;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(at, nl - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    tokens_.emplace_back(line);
    at = nl + 1;
  }
  if (tokens_.size() > static_cast<size_t>(INT32_MAX)) return Fail(error, what + ": too many tokens");
  // Indexed only now, with tokens_ at its final size; a repeated token keeps its last id.
  for (size_t i = 0; i < tokens_.size(); ++i) ids_[tokens_[i]] = static_cast<int32_t>(i);
  pad_ = Id("[PAD]");
  unk_ = Id("[UNK]");
  cls_ = Id("[CLS]");
  sep_ = Id("[SEP]");
  for (const auto& [name, id] : {std::pair{"[PAD]", pad_}, {"[UNK]", unk_}, {"[CLS]", cls_}, {"[SEP]", sep_}}) {
    if (id < 0) {
      tokens_.clear();
      ids_.clear();
      return Fail(error, what + ": no " + name + " token (not a BERT vocabulary?)");
    }
  }
  return true;
}

bool WordPiece::LoadVocab(const std::string& path, std::string* error) {
  std::string text;
  if (!ReadFile(path, &text, error)) return false;
  return LoadVocabText(text, error, path);
}

bool WordPiece::LoadDir(const std::string& dir, std::string* error) {
  if (!LoadVocab(dir + "/vocab.txt", error)) return false;
  std::string text;
  const std::string tc = dir + "/tokenizer_config.json";
  if (ReadFile(tc, &text, nullptr)) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Fail(error, tc + ": not a JSON object");
    const auto lc = j.find("do_lower_case");
    if (lc != j.end() && !(lc->is_boolean() && lc->get<bool>())) {
      return Fail(error, tc + ": do_lower_case is not true; only uncased BERT vocabularies are supported");
    }
  }
  max_length_ = 512;
  const std::string sc = dir + "/sentence_bert_config.json";
  if (ReadFile(sc, &text, nullptr)) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Fail(error, sc + ": not a JSON object");
    const auto m = j.find("max_seq_length");
    if (m != j.end()) {
      if (!m->is_number_unsigned() || m->get<uint64_t>() < 2 || m->get<uint64_t>() > 1u << 20) {
        return Fail(error, sc + ": max_seq_length is not an integer in [2, 2^20]");
      }
      max_length_ = static_cast<size_t>(m->get<uint64_t>());
    }
  }
  return true;
}

std::vector<std::string> WordPiece::Words(std::string_view text) const {
  std::vector<std::string> words;
  WordSplitter split(&words);
  for (size_t i = 0; i < text.size();) {
    const char32_t c = NextCodePoint(text, &i);
    if (c >= kHangulFirst && c <= kHangulLast) {  // the Unicode algorithm's jamo
      const char32_t s = c - kHangulFirst;
      split.Add(0x1100 + s / 588, ClassOf(0x1100 + s / 588) >> 2);
      split.Add(0x1161 + s % 588 / 28, ClassOf(0x1161 + s % 588 / 28) >> 2);
      if (s % 28) split.Add(0x11A7 + s % 28, ClassOf(0x11A7 + s % 28) >> 2);
      continue;
    }
    const uint32_t cls = ClassOf(c);
    switch (cls & 3) {
      case kKeep:
        split.Add(c, cls >> 2);
        break;
      case kDrop:
        break;
      case kIsolate:
        split.End();
        split.Add(c, kPunct);
        break;
      case kMap: {
        const auto* k = std::lower_bound(std::begin(kMapKeys), std::end(kMapKeys), static_cast<uint32_t>(c));
        const size_t m = static_cast<size_t>(k - std::begin(kMapKeys));
        for (size_t j = kMapStart[m]; j < kMapStart[m + 1]; ++j) split.Add(kMapChars[j], ClassOf(kMapChars[j]) >> 2);
        break;
      }
    }
  }
  split.End();
  return words;
}

void WordPiece::WordIds(std::string_view word, std::vector<int32_t>* out, size_t limit) const {
  // Code point boundaries of the word.
  std::vector<size_t> at;
  for (size_t i = 0; i < word.size();) {
    at.push_back(i);
    NextCodePoint(word, &i);
  }
  const size_t n = at.size();
  at.push_back(word.size());
  if (n > kMaxCharsPerWord) {
    if (out->size() < limit) out->push_back(unk_);
    return;
  }
  std::vector<int32_t> pieces;
  std::string key;
  for (size_t start = 0; start < n;) {
    int32_t found = -1;
    size_t end = n;
    for (; end > start; --end) {
      key.assign(start ? "##" : "");
      key.append(word.substr(at[start], at[end] - at[start]));
      const auto it = ids_.find(key);
      if (it != ids_.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {
      pieces.assign(1, unk_);
      break;
    }
    pieces.push_back(found);
    start = end;
  }
  for (int32_t id : pieces) {
    if (out->size() >= limit) break;
    out->push_back(id);
  }
}

std::vector<int32_t> WordPiece::Tokenize(std::string_view text, size_t limit) const {
  std::vector<int32_t> ids;
  if (tokens_.empty()) return ids;
  // Special tokens written in the text are matched first, on the raw text (leftmost), as Hugging
  // Face's added tokens are; the text between them is tokenized as usual.
  while (!text.empty() && ids.size() < limit) {
    size_t at = text.size(), len = 0;
    int32_t special = -1;
    for (const char* name : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
      const int32_t id = Id(name);
      const size_t p = id < 0 ? std::string_view::npos : text.find(name);
      if (p < at) at = p, len = std::char_traits<char>::length(name), special = id;
    }
    for (const std::string& w : Words(text.substr(0, at))) {
      if (ids.size() >= limit) break;
      WordIds(w, &ids, limit);
    }
    if (special >= 0 && ids.size() < limit) ids.push_back(special);
    text.remove_prefix(std::min(text.size(), at + len));
  }
  return ids;
}

std::vector<int32_t> WordPiece::Encode(std::string_view text, size_t max_length) const {
  if (tokens_.empty()) return {};
  if (max_length == 0) max_length = max_length_;
  max_length = std::max<size_t>(max_length, 2);
  std::vector<int32_t> ids{cls_};
  const std::vector<int32_t> body = Tokenize(text, max_length - 2);
  ids.insert(ids.end(), body.begin(), body.end());
  ids.push_back(sep_);
  return ids;
}

TokenBatch WordPiece::EncodeBatch(std::span<const std::string> texts, size_t max_length) const {
  TokenBatch b;
  std::vector<std::vector<int32_t>> rows;
  rows.reserve(texts.size());
  for (const std::string& t : texts) {
    rows.push_back(Encode(t, max_length));
    b.seq_len = std::max(b.seq_len, rows.back().size());
    b.lengths.push_back(rows.back().size());
  }
  b.batch = texts.size();
  b.ids.assign(b.batch * b.seq_len, pad_);
  b.mask.assign(b.batch * b.seq_len, 0);
  for (size_t r = 0; r < b.batch; ++r) {
    std::copy(rows[r].begin(), rows[r].end(), b.ids.begin() + r * b.seq_len);
    std::fill_n(b.mask.begin() + r * b.seq_len, rows[r].size(), 1);
  }
  return b;
}

std::string_view WordPiece::token(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < tokens_.size() ? std::string_view(tokens_[id]) : std::string_view();
}

int32_t WordPiece::Id(std::string_view token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

}  // namespace vlak::models
