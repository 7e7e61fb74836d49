// Fuzz target of the byte-level BPE tokenizer, on SmolLM2-135M-Instruct's vocabulary and merges
// (the file scripts/models installs): the first byte's low bit says whether special tokens are
// parsed, the rest is the text (any bytes). Every id is in the vocabulary, encoding is
// deterministic, and for valid UTF-8 of bytes the vocabulary holds (SmolLM2 lacks six control
// bytes and the lead bytes of planes 4 to 16) decoding gives the text back, byte for byte (with the
// special tokens written out when they were parsed).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/bpe.h"
#include "models/model_dir.h"

namespace {

[[noreturn]] void Finding(const char* what, const std::string& text) {
  std::fprintf(stderr, "vlak fuzz finding: %s\n  text (%zu bytes):", what, text.size());
  for (unsigned char c : text) std::fprintf(stderr, " %02x", c);
  std::fprintf(stderr, "\n");
  std::abort();
}

struct Model {
  vlak::models::Gguf gguf;
  vlak::models::Bpe bpe;
  Model() {
    const std::string path = vlak::models::DefaultModelDir("SmolLM2-135M-Instruct.Q4_1.gguf");
    std::string err;
    if (!gguf.Open(path, &err) || !bpe.Load(gguf, &err)) Finding(("no tokenizer: " + err + " (run scripts/models install smollm2)").c_str(), "");
  }
};

// Well-formed UTF-8: shortest forms, no surrogates, at most U+10FFFF.
bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
    for (size_t k = 1; k < n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = cp << 6 | (d & 0x3Fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const Model m;
  const bool special = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::vector<int32_t> ids = m.bpe.Encode(text, special);
  for (int32_t id : ids)
    if (id < 0 || static_cast<size_t>(id) >= m.bpe.vocab_size()) Finding("id out of range", text);
  if (m.bpe.Encode(text, special) != ids) Finding("not deterministic", text);
  bool bytes_held = true;
  for (char c : text) bytes_held &= m.bpe.ByteInVocab(static_cast<uint8_t>(c));
  if (bytes_held && ValidUtf8(text) && m.bpe.Decode(ids, special) != text) Finding("decode(encode(text)) != text", text);
  return 0;
}
