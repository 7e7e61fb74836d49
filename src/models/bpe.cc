#include "models/bpe.h"

#include <algorithm>
#include <array>
#include <queue>
#include <utility>

#include "models/utf8.h"

namespace vlak::models {
namespace {

struct CpRange {
  uint32_t first, last, cls;
};
constexpr CpRange kClasses[] = {
#include "models/bpe_tables.inc"
};
constexpr uint32_t kLetter = 1, kNumber = 2;

uint32_t ClassOf(uint32_t cp) {
  const CpRange* end = kClasses + std::size(kClasses);
  const CpRange* it = std::upper_bound(kClasses, end, cp, [](uint32_t c, const CpRange& r) { return c < r.first; });
  if (it == kClasses) return 0;
  --it;
  return cp <= it->last ? it->cls : 0;
}

// The White_Space property.
bool IsSpace(uint32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D);
  switch (cp) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000: return true;
    default: return cp >= 0x2000 && cp <= 0x200A;
  }
}

// UTF-8 to code points as llama.cpp reads it: a lead byte and the continuation bytes its high bits
// announce (overlong forms and surrogates pass), each byte that starts no such sequence U+FFFD.
std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  size_t i = 0;
  const size_t n = s.size();
  auto cont = [&](size_t k) { return k < n && (static_cast<uint8_t>(s[k]) & 0xC0) == 0x80; };
  while (i < n) {
    const uint8_t b = static_cast<uint8_t>(s[i]);
    uint32_t cp = 0xFFFD;
    size_t len = 1;
    if (b < 0x80) {
      cp = b;
    } else if ((b & 0xE0) == 0xC0 && cont(i + 1)) {
      cp = (b & 0x1Fu) << 6 | (static_cast<uint8_t>(s[i + 1]) & 0x3Fu);
      len = 2;
    } else if ((b & 0xF0) == 0xE0 && cont(i + 1) && cont(i + 2)) {
      cp = (b & 0x0Fu) << 12 | (static_cast<uint8_t>(s[i + 1]) & 0x3Fu) << 6 | (static_cast<uint8_t>(s[i + 2]) & 0x3Fu);
      len = 3;
    } else if ((b & 0xF8) == 0xF0 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
      cp = (b & 0x07u) << 18 | (static_cast<uint8_t>(s[i + 1]) & 0x3Fu) << 12 |
           (static_cast<uint8_t>(s[i + 2]) & 0x3Fu) << 6 | (static_cast<uint8_t>(s[i + 3]) & 0x3Fu);
      len = 4;
      if (cp > 0x10FFFF) cp = 0xFFFD;  // past Unicode: no UTF-8 for it (llama.cpp throws)
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

// GPT-2's byte-to-character map: the printable Latin-1 bytes stand for themselves, the other 68
// take U+0100 onwards in byte order, so that every byte is a visible character.
struct ByteMap {
  std::array<std::string, 256> to_text;
  std::unordered_map<uint32_t, uint8_t> to_byte;
  ByteMap() {
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t cp = printable ? b : next++;
      AppendUtf8(cp, &to_text[b]);
      to_byte[cp] = static_cast<uint8_t>(b);
    }
  }
};
const ByteMap& Bytes() {
  static const ByteMap m;
  return m;
}

// GPT-2's split pattern over cps[begin, end): appends the pieces' [begin, end) to *out.
void SplitGpt2(const std::vector<uint32_t>& cps, size_t begin, size_t end, std::vector<std::pair<size_t, size_t>>* out) {
  auto cls = [&](size_t p) { return p < end ? ClassOf(cps[p]) : 0u; };
  auto space = [&](size_t p) { return p < end && IsSpace(cps[p]); };
  // [^\s\p{L}\p{N}]: inside the range, neither space, letter nor number.
  auto other = [&](size_t p) { return p < end && !IsSpace(cps[p]) && ClassOf(cps[p]) == 0; };
  size_t pos = begin;
  while (pos < end) {
    const size_t start = pos;
    const uint32_t c = cps[pos];
    if (c == '\'' && pos + 1 < end) {
      const uint32_t n1 = cps[pos + 1];
      if (n1 == 's' || n1 == 't' || n1 == 'm' || n1 == 'd') {
        out->emplace_back(start, pos + 2);
        pos += 2;
        continue;
      }
      if (pos + 2 < end) {
        const uint32_t n2 = cps[pos + 2];
        if ((n1 == 'r' && n2 == 'e') || (n1 == 'v' && n2 == 'e') || (n1 == 'l' && n2 == 'l')) {
          out->emplace_back(start, pos + 3);
          pos += 3;
          continue;
        }
      }
    }
    const size_t q = c == ' ' ? pos + 1 : pos;  // the optional leading space
    if (cls(q) == kLetter || cls(q) == kNumber) {
      const uint32_t k = cls(q);
      pos = q;
      while (cls(pos) == k) ++pos;
      out->emplace_back(start, pos);
      continue;
    }
    if (other(q)) {
      pos = q;
      while (other(pos)) ++pos;
      out->emplace_back(start, pos);
      continue;
    }
    size_t ws = 0;
    while (space(pos + ws)) ++ws;
    if (ws > 1 && pos + ws < end) {  // \s+(?!\S): leave the last space to the word after
      pos += ws - 1;
    } else if (ws > 0) {  // \s+
      pos += ws;
    } else {
      ++pos;
    }
    out->emplace_back(start, pos);
  }
}

}  // namespace

bool Bpe::Load(const Gguf& g, std::string* error) {
  *this = Bpe();
  std::string_view model, pre;
  if (!g.GetString("tokenizer.ggml.model", &model, error)) return false;
  if (model != "gpt2") {
    if (error) *error = "tokenizer.ggml.model is \"" + std::string(model) + "\": only \"gpt2\" (byte-level BPE) is handled";
    return false;
  }
  if (!g.GetString("tokenizer.ggml.pre", &pre, error)) return false;
  static constexpr std::string_view kDigitSplit[] = {"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva"};
  if (std::find(std::begin(kDigitSplit), std::end(kDigitSplit), pre) != std::end(kDigitSplit)) {
    split_digits_ = true;
  } else if (pre != "gpt2") {
    if (error) *error = "tokenizer.ggml.pre \"" + std::string(pre) + "\" is not handled (smollm, gpt2 and the same splits are)";
    return false;
  }
  pre_ = std::string(pre);
  std::vector<std::string_view> tokens, merges;
  if (!g.GetStringArray("tokenizer.ggml.tokens", &tokens, error)) return false;
  if (!g.GetStringArray("tokenizer.ggml.merges", &merges, error)) return false;
  if (tokens.empty() || tokens.size() > static_cast<size_t>(INT32_MAX)) {
    if (error) *error = "tokenizer.ggml.tokens holds " + std::to_string(tokens.size()) + " tokens";
    return false;
  }
  if (g.Find("tokenizer.ggml.token_type")) {
    if (!g.GetI32Array("tokenizer.ggml.token_type", &types_, error)) return false;
    if (types_.size() != tokens.size()) {
      if (error) *error = "tokenizer.ggml.token_type holds " + std::to_string(types_.size()) + " types for " +
                          std::to_string(tokens.size()) + " tokens";
      return false;
    }
  } else {
    types_.assign(tokens.size(), kNormal);
  }
  tokens_.assign(tokens.begin(), tokens.end());
  token_id_.reserve(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) token_id_.emplace(tokens_[i], static_cast<int32_t>(i));  // the first wins
  merge_rank_.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const size_t sp = merges[i].find(' ', 1);
    if (sp == std::string_view::npos || sp + 1 >= merges[i].size()) {
      if (error) *error = "tokenizer.ggml.merges[" + std::to_string(i) + "] is not two tokens separated by a space";
      return false;
    }
    merge_rank_.emplace(std::string(merges[i]), static_cast<int32_t>(i));
  }
  for (size_t i = 0; i < tokens_.size(); ++i)
    if ((types_[i] == kControl || types_[i] == kUserDefined || types_[i] == kUnknown) && !tokens_[i].empty())
      specials_.push_back(static_cast<int32_t>(i));
  std::sort(specials_.begin(), specials_.end(), [&](int32_t a, int32_t b) {
    const size_t la = tokens_[static_cast<size_t>(a)].size(), lb = tokens_[static_cast<size_t>(b)].size();
    return la != lb ? la > lb : a < b;
  });
  for (auto [key, dst] : {std::pair{"tokenizer.ggml.bos_token_id", &bos_}, std::pair{"tokenizer.ggml.eos_token_id", &eos_}}) {
    if (!g.Find(key)) continue;
    uint32_t id = 0;
    if (!g.GetU32(key, &id, error)) return false;
    if (id >= tokens_.size()) {
      if (error) *error = std::string(key) + " " + std::to_string(id) + " is past the vocabulary of " + std::to_string(tokens_.size());
      return false;
    }
    *dst = static_cast<int32_t>(id);
  }
  std::string_view tmpl;
  if (g.Find("tokenizer.chat_template") && g.GetString("tokenizer.chat_template", &tmpl, nullptr)) {
    chatml_ = tmpl.find("<|im_start|>") != std::string_view::npos;
    // The default system message: the literal the template emits when the first message is not a system one.
    const size_t cond = tmpl.find("messages[0]['role'] != 'system'");
    const std::string_view open = "<|im_start|>system\n";
    const size_t at = cond == std::string_view::npos ? cond : tmpl.find(open, cond);
    const size_t close = at == std::string_view::npos ? at : tmpl.find("<|im_end|>", at);
    if (close != std::string_view::npos) default_system_ = std::string(tmpl.substr(at + open.size(), close - at - open.size()));
  }
  return true;
}

void Bpe::EncodeWord(const std::string& word, std::vector<int32_t>* out) const {
  // Symbols: the word's UTF-8 characters, linked; merged pairs become the left symbol.
  struct Sym {
    int prev, next;
    size_t start, len;
  };
  std::vector<Sym> syms;
  for (size_t i = 0; i < word.size();) {
    const uint8_t b = static_cast<uint8_t>(word[i]);
    const size_t len = std::min(word.size() - i, size_t{b < 0x80 ? 1u : b < 0xE0 ? 2u : b < 0xF0 ? 3u : 4u});
    const int k = static_cast<int>(syms.size());
    syms.push_back({k - 1, i + len < word.size() ? k + 1 : -1, i, len});
    i += len;
  }
  struct Pair {
    int32_t rank;
    int left, right;
    size_t len;
    bool operator<(const Pair& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }  // min-heap
  };
  std::priority_queue<Pair> queue;
  std::string key;
  auto push = [&](int l, int r) {
    if (l < 0 || r < 0) return;
    key.assign(word, syms[static_cast<size_t>(l)].start, syms[static_cast<size_t>(l)].len);
    key += ' ';
    key.append(word, syms[static_cast<size_t>(r)].start, syms[static_cast<size_t>(r)].len);
    auto it = merge_rank_.find(key);
    if (it != merge_rank_.end()) queue.push({it->second, l, r, syms[static_cast<size_t>(l)].len + syms[static_cast<size_t>(r)].len});
  };
  for (size_t i = 1; i < syms.size(); ++i) push(static_cast<int>(i) - 1, static_cast<int>(i));
  while (!queue.empty()) {
    const Pair p = queue.top();
    queue.pop();
    Sym& l = syms[static_cast<size_t>(p.left)];
    Sym& r = syms[static_cast<size_t>(p.right)];
    if (l.len == 0 || r.len == 0 || l.next != p.right || l.len + r.len != p.len) continue;  // stale
    l.len += r.len;
    r.len = 0;
    l.next = r.next;
    if (r.next >= 0) syms[static_cast<size_t>(r.next)].prev = p.left;
    push(l.prev, p.left);
    push(p.left, l.next);
  }
  for (const Sym& s : syms) {
    if (s.len == 0) continue;
    auto it = token_id_.find(word.substr(s.start, s.len));
    if (it != token_id_.end()) {
      out->push_back(it->second);
      continue;
    }
    for (size_t i = 0; i < s.len; ++i) {  // not in the vocabulary: its bytes that are (as llama.cpp)
      auto b = token_id_.find(std::string(1, word[s.start + i]));
      if (b != token_id_.end()) out->push_back(b->second);
    }
  }
}

void Bpe::EncodeText(std::string_view text, std::vector<int32_t>* out) const {
  const std::vector<uint32_t> cps = CodePoints(text);
  std::vector<std::pair<size_t, size_t>> pieces;
  if (split_digits_) {
    size_t start = 0;
    for (size_t i = 0; i < cps.size(); ++i) {
      if (ClassOf(cps[i]) != kNumber) continue;
      if (i > start) SplitGpt2(cps, start, i, &pieces);
      SplitGpt2(cps, i, i + 1, &pieces);
      start = i + 1;
    }
    if (start < cps.size()) SplitGpt2(cps, start, cps.size(), &pieces);
  } else {
    SplitGpt2(cps, 0, cps.size(), &pieces);
  }
  const ByteMap& bm = Bytes();
  std::string utf8, word;
  for (auto [b, e] : pieces) {
    utf8.clear();
    for (size_t i = b; i < e; ++i) AppendUtf8(cps[i], &utf8);
    word.clear();
    for (char c : utf8) word += bm.to_text[static_cast<uint8_t>(c)];
    EncodeWord(word, out);
  }
}

std::vector<int32_t> Bpe::Encode(std::string_view text, bool parse_special) const {
  // Fragments: raw text (id -1, [begin, end)) or a special token (its id).
  struct Frag {
    int32_t id;
    size_t begin, end;
  };
  std::vector<Frag> frags;
  if (!text.empty()) frags.push_back({-1, 0, text.size()});
  for (int32_t sid : specials_) {
    if (!parse_special && (types_[static_cast<size_t>(sid)] == kControl || types_[static_cast<size_t>(sid)] == kUnknown)) continue;
    const std::string& st = tokens_[static_cast<size_t>(sid)];
    std::vector<Frag> next;
    next.reserve(frags.size());
    for (const Frag& f : frags) {
      if (f.id >= 0) {
        next.push_back(f);
        continue;
      }
      size_t at = f.begin;
      while (true) {
        const size_t m = text.substr(0, f.end).find(st, at);
        if (m == std::string_view::npos) break;
        if (m > at) next.push_back({-1, at, m});
        next.push_back({sid, m, m + st.size()});
        at = m + st.size();
      }
      if (at < f.end) next.push_back({-1, at, f.end});
    }
    frags.swap(next);
  }
  std::vector<int32_t> out;
  for (const Frag& f : frags) {
    if (f.id >= 0) {
      out.push_back(f.id);
    } else {
      EncodeText(text.substr(f.begin, f.end - f.begin), &out);
    }
  }
  return out;
}

bool Bpe::ByteInVocab(uint8_t b) const { return token_id_.count(Bytes().to_text[b]) != 0; }

std::string Bpe::Decode(std::span<const int32_t> ids, bool special) const {
  const ByteMap& bm = Bytes();
  std::string out;
  for (int32_t id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= tokens_.size()) continue;
    const std::string& t = tokens_[static_cast<size_t>(id)];
    const int32_t type = types_[static_cast<size_t>(id)];
    if (type == kControl || type == kUnknown) {
      if (special) out += t;
      continue;
    }
    if (type == kUserDefined) {
      out += t;
      continue;
    }
    for (uint32_t cp : CodePoints(t)) {
      auto it = bm.to_byte.find(cp);
      if (it != bm.to_byte.end()) {
        out.push_back(static_cast<char>(it->second));
      } else {
        AppendUtf8(cp, &out);  // not a byte's character: kept as it is
      }
    }
  }
  return out;
}

std::string Bpe::ChatPrompt(std::span<const ChatMessage> messages, bool add_generation_prompt, bool default_system) const {
  std::string p;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i == 0 && default_system && messages[0].role != "system" && !default_system_.empty())
      p += "<|im_start|>system\n" + default_system_ + "<|im_end|>\n";
    p += "<|im_start|>" + messages[i].role + "\n" + messages[i].content + "<|im_end|>\n";
  }
  if (add_generation_prompt) p += "<|im_start|>assistant\n";
  return p;
}

}  // namespace vlak::models
