// The WordPiece tokenizer: its steps on a small vocabulary, then Hugging Face's ids for every
// sentence and hard case of tests/models/minilm/tokens.json on all-MiniLM-L6-v2's vocab.txt.
#include "models/wordpiece.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "models/model_dir.h"

namespace vlak::models {
namespace {

using Words = std::vector<std::string>;

WordPiece Small() {
  WordPiece wp;
  std::string err;
  EXPECT_TRUE(wp.LoadVocabText("[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nrun\n##ning\n,\n!\nhello\na\n##a\n", &err))
      << err;
  return wp;
}

TEST(WordPiece, VocabularyErrors) {
  WordPiece wp;
  std::string err;
  EXPECT_FALSE(wp.LoadVocabText("[PAD]\n[UNK]\n[CLS]\nhello\n", &err, "v.txt"));
  EXPECT_EQ(err, "v.txt: no [SEP] token (not a BERT vocabulary?)");
  EXPECT_FALSE(wp.LoadVocab("/nonexistent/vocab.txt", &err));
  EXPECT_EQ(err, "/nonexistent/vocab.txt: cannot open");
  EXPECT_FALSE(wp.LoadDir("/nonexistent", &err));
  EXPECT_TRUE(wp.Encode("hello").empty());  // nothing loaded: no ids
  WordPiece crlf;
  ASSERT_TRUE(crlf.LoadVocabText("[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\nx\r\n", &err)) << err;
  EXPECT_EQ(crlf.Id("x"), 4);
  EXPECT_EQ(crlf.vocab_size(), 5u);
}

TEST(WordPiece, GreedyLongestMatchFirst) {
  const WordPiece wp = Small();
  EXPECT_EQ(wp.Tokenize("unaffable"), (std::vector<int32_t>{4, 5, 6}));
  EXPECT_EQ(wp.Tokenize("running, hello!"), (std::vector<int32_t>{7, 8, 9, 11, 10}));
  EXPECT_EQ(wp.Tokenize("unknownword"), (std::vector<int32_t>{1}));  // an unmatched rest: the whole word
  EXPECT_EQ(wp.Tokenize("aaa"), (std::vector<int32_t>{12, 13, 13}));
  // Words of up to 100 code points are split, longer ones are [UNK].
  EXPECT_EQ(wp.Tokenize(std::string(100, 'a')).size(), 100u);
  EXPECT_EQ(wp.Tokenize(std::string(101, 'a')), (std::vector<int32_t>{1}));
  EXPECT_EQ(wp.Encode("hello"), (std::vector<int32_t>{2, 11, 3}));
  EXPECT_EQ(wp.Encode(""), (std::vector<int32_t>{2, 3}));
  // Special tokens in the text are kept whole, matched before normalisation.
  EXPECT_EQ(wp.Encode("hello[SEP]run [sep]"), (std::vector<int32_t>{2, 11, 3, 7, 1, 1, 1, 3}));
  EXPECT_EQ(wp.token(11), "hello");
  EXPECT_EQ(wp.token(99), "");
}

TEST(WordPiece, TruncationCountsSpecialTokens) {
  const WordPiece wp = Small();
  EXPECT_EQ(wp.max_length(), 512u);
  EXPECT_EQ(wp.Encode("unaffable running", 4), (std::vector<int32_t>{2, 4, 5, 3}));  // inside a word
  EXPECT_EQ(wp.Encode("hello hello", 2), (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(wp.Encode("hello", 1), (std::vector<int32_t>{2, 3}));  // at least [CLS] [SEP]
  EXPECT_EQ(wp.Encode(std::string(600, 'a')).size(), 3u);         // one [UNK] word
}

TEST(WordPiece, BatchPadsToTheLongest) {
  const WordPiece wp = Small();
  const std::vector<std::string> texts = {"hello", "unaffable running", ""};
  const TokenBatch b = wp.EncodeBatch(texts);
  EXPECT_EQ(b.batch, 3u);
  EXPECT_EQ(b.seq_len, 7u);
  EXPECT_EQ(b.lengths, (std::vector<size_t>{3, 7, 2}));
  EXPECT_EQ(b.ids, (std::vector<int32_t>{2, 11, 3, 0, 0, 0, 0, 2, 4, 5, 6, 7, 8, 3, 2, 3, 0, 0, 0, 0, 0}));
  EXPECT_EQ(b.mask, (std::vector<int32_t>{1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0}));
  const TokenBatch e = wp.EncodeBatch({});
  EXPECT_EQ(e.batch, 0u);
  EXPECT_EQ(e.seq_len, 0u);
}

TEST(WordPiece, NormalisesAndSplits) {
  const WordPiece wp = Small();
  EXPECT_EQ(wp.Words("Hello, World!"), (Words{"hello", ",", "world", "!"}));
  EXPECT_EQ(wp.Words("  tabs\tand\nnewlines\r\n "), (Words{"tabs", "and", "newlines"}));
  EXPECT_EQ(wp.Words("Crème BRÛLÉE naïve"), (Words{"creme", "brulee", "naive"}));
  EXPECT_EQ(wp.Words("e\xCC\x81"), (Words{"e"}));                      // e + U+0301: the mark dropped
  EXPECT_EQ(wp.Words("a$b+c<d>e^f`g|h~i"), (Words{"a", "$", "b", "+", "c", "<", "d", ">", "e", "^", "f", "`", "g", "|", "h", "~", "i"}));
  EXPECT_EQ(wp.Words("x\xE2\x80\x94y\xE3\x80\x82z"), (Words{"x", "\xE2\x80\x94", "y", "\xE3\x80\x82", "z"}));  // — and 。
  EXPECT_EQ(wp.Words("\xE5\x8C\x97\xE4\xBA\xAC"), (Words{"\xE5\x8C\x97", "\xE4\xBA\xAC"}));  // 北京: a word each
  EXPECT_EQ(wp.Words("zero\xE2\x80\x8Bwidth soft\xC2\xADhyphen"), (Words{"zerowidth", "softhyphen"}));  // Cf dropped
  EXPECT_EQ(wp.Words("a\x01" "b\x7F" "c\xC2\x85" "d"), (Words{"abcd"}));  // controls dropped, U+0085 too
  EXPECT_EQ(wp.Words("a\xC2\xA0" "b\xE3\x80\x80" "c"), (Words{"a", "b", "c"}));  // NBSP, ideographic space
  EXPECT_EQ(wp.Words("\xC4\xB0stanbul \xCE\xA3\xCE\x91\xCE\xA3"), (Words{"istanbul", "\xCF\x83\xCE\xB1\xCF\x83"}));  // İ, ΣΑΣ
  EXPECT_EQ(wp.Words("\xED\x95\x9C"), (Words{"\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB"}));  // 한: its three jamo
  // Invalid UTF-8 reads as U+FFFD, which is dropped: a lone continuation byte, a cut sequence, an
  // overlong form, a surrogate.
  EXPECT_EQ(wp.Words("a\x80" "b\xE2\x82" "c\xC0\xAF" "d\xED\xA0\x80" "e"), (Words{"abcde"}));
}

std::string SourceFile(const std::string& rel) {
  std::ifstream f(std::string(VLAK_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Hugging Face's ids (scripts/minilm-reference.py) for every sentence and hard case.
TEST(WordPiece, MatchesHuggingFaceOnMiniLM) {
  const std::string dir = DefaultModelDir("all-MiniLM-L6-v2");
  std::string err;
  ASSERT_TRUE(ModelDirPresent(dir, "minilm", &err)) << err;
  WordPiece wp;
  ASSERT_TRUE(wp.LoadDir(dir, &err)) << err;
  EXPECT_EQ(wp.vocab_size(), 30522u);
  EXPECT_EQ(wp.max_length(), 256u);
  EXPECT_EQ(wp.cls_id(), 101);
  EXPECT_EQ(wp.sep_id(), 102);
  EXPECT_EQ(wp.unk_id(), 100);
  EXPECT_EQ(wp.pad_id(), 0);
  const auto ref = nlohmann::json::parse(SourceFile("tests/models/minilm/tokens.json"), nullptr, false);
  ASSERT_TRUE(ref.is_object()) << "tests/models/minilm/tokens.json";
  EXPECT_EQ(ref["max_length"].get<size_t>(), wp.max_length());
  size_t checked = 0;
  for (const char* set : {"sentences", "tokenizer_cases"}) {
    for (const auto& c : ref[set]) {
      const std::string text = c["text"].get<std::string>();
      const std::vector<int32_t> want = c["ids"].get<std::vector<int32_t>>();
      const std::vector<int32_t> got = wp.Encode(text);
      if (got != want) {
        std::string g, w;
        for (int32_t id : got) g += std::string(wp.token(id)) + " ";
        for (int32_t id : want) w += std::string(wp.token(id)) + " ";
        ADD_FAILURE() << set << ": \"" << text << "\"\n  vlak:         " << g << "\n  Hugging Face: " << w;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 250u);
  // The sentences as one padded batch.
  std::vector<std::string> texts;
  for (const auto& c : ref["sentences"]) texts.push_back(c["text"].get<std::string>());
  const TokenBatch b = wp.EncodeBatch(texts);
  EXPECT_EQ(b.batch, texts.size());
  EXPECT_EQ(b.seq_len, 128u);
  for (size_t r = 0; r < b.batch; ++r) {
    const auto& want = ref["sentences"][r]["ids"];
    ASSERT_EQ(b.lengths[r], want.size());
    for (size_t j = 0; j < b.seq_len; ++j) {
      EXPECT_EQ(b.ids[r * b.seq_len + j], j < want.size() ? want[j].get<int32_t>() : 0);
      EXPECT_EQ(b.mask[r * b.seq_len + j], j < want.size() ? 1 : 0);
    }
  }
}

}  // namespace
}  // namespace vlak::models
