// The byte-level BPE tokenizer: ids equal to llama.cpp's on SmolLM2's test set
// (tests/models/smollm2/tokens.json, scripts/smollm2-reference.py), round trips, the chat
// template, and a vocabulary written here.
#include "models/bpe.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/gguf_test_writer.h"
#include "models/model_dir.h"

namespace vlak::models {
namespace {

std::string SmolLM2Path() { return DefaultModelDir("SmolLM2-135M-Instruct.Q4_1.gguf"); }

// The file and its tokenizer, loaded once.
struct SmolLM2 {
  Gguf gguf;
  Bpe bpe;
  std::string error;
  SmolLM2() {
    struct stat st {};
    if (stat(SmolLM2Path().c_str(), &st) != 0) {
      error = "no model at " + SmolLM2Path() + ": run scripts/models install smollm2";
      return;
    }
    if (gguf.Open(SmolLM2Path(), &error)) bpe.Load(gguf, &error);
  }
};
const SmolLM2& Model() {
  static const SmolLM2 m;
  return m;
}

std::string Show(const std::vector<int32_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + "]";
}

TEST(BpeSmolLM2, Loads) {
  const SmolLM2& m = Model();
  ASSERT_TRUE(m.error.empty()) << m.error;
  EXPECT_EQ(m.bpe.vocab_size(), 49152u);
  EXPECT_EQ(m.bpe.pre(), "smollm");
  EXPECT_EQ(m.bpe.bos(), 1);
  EXPECT_EQ(m.bpe.eos(), 2);
  EXPECT_EQ(m.bpe.TokenText(1), "<|im_start|>");
  EXPECT_EQ(m.bpe.default_system_message(), "You are a helpful AI assistant named SmolLM, trained by Hugging Face");
}

// Every case of the stored set: the ids of llama.cpp's tokenizer, and the text back from them.
TEST(BpeSmolLM2, IdsEqualLlamaCpp) {
  const SmolLM2& m = Model();
  ASSERT_TRUE(m.error.empty()) << m.error;
  std::ifstream f(std::string(VLAK_SOURCE_DIR) + "/tests/models/smollm2/tokens.json");
  ASSERT_TRUE(f) << "tests/models/smollm2/tokens.json is missing";
  const nlohmann::json doc = nlohmann::json::parse(f);
  const auto& cases = doc.at("cases");
  ASSERT_GE(cases.size(), 200u);
  int mismatches = 0;
  for (const auto& c : cases) {
    const std::string text = c.at("text").get<std::string>();
    const bool special = c.at("parse_special").get<bool>();
    const std::vector<int32_t> want = c.at("ids").get<std::vector<int32_t>>();
    const std::vector<int32_t> got = m.bpe.Encode(text, special);
    if (got != want) {
      ++mismatches;
      ADD_FAILURE() << "text " << nlohmann::json(text).dump() << (special ? "" : " (specials as text)") << "\n  vlak:      "
                    << Show(got) << "\n  llama.cpp: " << Show(want);
    }
    bool bytes_held = true;  // a byte without a token is dropped, as llama.cpp drops it
    for (char ch : text) bytes_held &= m.bpe.ByteInVocab(static_cast<uint8_t>(ch));
    if (bytes_held) EXPECT_EQ(m.bpe.Decode(got, /*special=*/special), text);
  }
  EXPECT_EQ(mismatches, 0) << "of " << cases.size() << " cases";
}

TEST(BpeSmolLM2, ChatTemplate) {
  const SmolLM2& m = Model();
  ASSERT_TRUE(m.error.empty()) << m.error;
  const std::vector<ChatMessage> user = {{"user", "What is 2+2?"}};
  const std::string p = m.bpe.ChatPrompt(user);
  EXPECT_EQ(p,
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
            "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(m.bpe.ChatPrompt(user, true, /*default_system=*/false),
            "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n");
  const std::vector<ChatMessage> sys = {{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "Bye"}};
  EXPECT_EQ(m.bpe.ChatPrompt(sys, false),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n"
            "<|im_start|>user\nBye<|im_end|>\n");
  const std::vector<int32_t> ids = m.bpe.Encode(p);
  // That prompt is a stored case: llama.cpp's ids for it.
  std::ifstream f(std::string(VLAK_SOURCE_DIR) + "/tests/models/smollm2/tokens.json");
  const nlohmann::json doc = nlohmann::json::parse(f);
  bool found = false;
  for (const auto& c : doc.at("cases"))
    if (c.at("text") == p && c.at("parse_special") == true) {
      found = true;
      EXPECT_EQ(ids, c.at("ids").get<std::vector<int32_t>>());
    }
  EXPECT_TRUE(found);
  ASSERT_GE(ids.size(), 4u);
  EXPECT_EQ(ids[0], 1);  // <|im_start|>
  EXPECT_EQ(m.bpe.Decode(ids, true), p);
  EXPECT_EQ(m.bpe.Decode(ids, false).find("<|im_start|>"), std::string::npos);
}

TEST(BpeSmolLM2, InvalidUtf8ReadsAsReplacementCharacters) {
  const SmolLM2& m = Model();
  ASSERT_TRUE(m.error.empty()) << m.error;
  EXPECT_EQ(m.bpe.Encode("a\xff" "b"), m.bpe.Encode("a\xef\xbf\xbd" "b"));
  EXPECT_EQ(m.bpe.Encode("\xe4\xbd"), m.bpe.Encode("\xef\xbf\xbd\xef\xbf\xbd"));
  EXPECT_TRUE(m.bpe.Encode("").empty());
  EXPECT_FALSE(m.bpe.ByteInVocab(0x14));
  EXPECT_TRUE(m.bpe.ByteInVocab(0x00));
  EXPECT_EQ(m.bpe.Decode(m.bpe.Encode("a\x14z")), "az");
}

// A vocabulary of bytes and a few merges, written here: the merge order and the digit split.
TEST(Bpe, MergesByRank) {
  GgufWriter w;
  std::vector<std::string> tokens = {"<s>"};
  for (int b = 0; b < 256; ++b) {  // GPT-2's characters for the bytes
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    static int next = 256;
    const int cp = printable ? b : next++;
    std::string s;
    if (cp < 0x80) s += static_cast<char>(cp);
    else { s += static_cast<char>(0xC0 | cp >> 6); s += static_cast<char>(0x80 | (cp & 0x3F)); }
    tokens.push_back(s);
  }
  for (const char* t : {"ab", "bc", "abc", "\xc4\xa0" "a", "12"}) tokens.push_back(t);
  std::vector<int32_t> types(tokens.size(), Bpe::kNormal);
  types[0] = Bpe::kControl;
  w.Str("tokenizer.ggml.model", "gpt2");
  w.Str("tokenizer.ggml.pre", "smollm");
  w.StrArray("tokenizer.ggml.tokens", tokens);
  w.I32Array("tokenizer.ggml.token_type", types);
  w.StrArray("tokenizer.ggml.merges", {"b c", "a b", "ab c", "\xc4\xa0 a", "1 2"});
  const std::vector<uint8_t> f = w.Bytes();
  Gguf g;
  std::string err;
  ASSERT_TRUE(g.Parse(f.data(), f.size(), &err)) << err;
  Bpe bpe;
  ASSERT_TRUE(bpe.Load(g, &err)) << err;
  auto id = [&](const std::string& t) {
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i] == t) return static_cast<int32_t>(i);
    return -1;
  };
  // "b c" has the lower rank: a + bc, and "ab c" never applies.
  EXPECT_EQ(bpe.Encode("abc"), (std::vector<int32_t>{id("a"), id("bc")}));
  EXPECT_EQ(bpe.Encode("ab"), (std::vector<int32_t>{id("ab")}));
  EXPECT_EQ(bpe.Encode(" a"), (std::vector<int32_t>{id("\xc4\xa0" "a")}));
  // smollm splits every digit: "12" is never merged.
  EXPECT_EQ(bpe.Encode("12"), (std::vector<int32_t>{id("1"), id("2")}));
  EXPECT_EQ(bpe.Encode("x<s>y"), (std::vector<int32_t>{id("x"), 0, id("y")}));
  EXPECT_EQ(bpe.Encode("<s>", false), (std::vector<int32_t>{id("<"), id("s"), id(">")}));
  EXPECT_EQ(bpe.Decode(bpe.Encode("x<s>y"), false), "xy");

  GgufWriter bad;
  bad.Str("tokenizer.ggml.model", "llama");
  const std::vector<uint8_t> fb = bad.Bytes();
  ASSERT_TRUE(g.Parse(fb.data(), fb.size(), &err));
  EXPECT_FALSE(bpe.Load(g, &err));
  EXPECT_EQ(err, "tokenizer.ggml.model is \"llama\": only \"gpt2\" (byte-level BPE) is handled");
}

}  // namespace
}  // namespace vlak::models
