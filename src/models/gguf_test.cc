// The GGUF reader on small files written here (valid ones, and each malformation with its
// message), and on SmolLM2-135M-Instruct's file as scripts/models installs it.
#include "models/gguf.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "models/gguf_test_writer.h"
#include "models/model_dir.h"

namespace vlak::models {
namespace {

std::string ParseError(const std::vector<uint8_t>& f) {
  Gguf g;
  std::string err;
  EXPECT_FALSE(g.Parse(f.data(), f.size(), &err, "t.gguf"));
  EXPECT_TRUE(g.tensors().empty());
  EXPECT_TRUE(g.metadata().empty());
  EXPECT_EQ(err.rfind("t.gguf: ", 0), 0u) << err;
  return err;
}

// Every value type, a string array, and three tensors of three types.
GgufWriter ValidWriter(uint32_t alignment = 0) {
  GgufWriter w;
  if (alignment) {
    w.U32("general.alignment", alignment);
    w.alignment = alignment;
  }
  w.Str("general.architecture", "llama");
  w.U32("llama.block_count", 30);
  w.F32("llama.rope.freq_base", 100000.0f);
  w.Scalar("u8", GgufType::kU8, uint8_t{200});
  w.Scalar("i8", GgufType::kI8, int8_t{-5});
  w.Scalar("u16", GgufType::kU16, uint16_t{60000});
  w.Scalar("i16", GgufType::kI16, int16_t{-30000});
  w.Scalar("i32", GgufType::kI32, int32_t{-7});
  w.Scalar("bool", GgufType::kBool, uint8_t{1});
  w.Scalar("u64", GgufType::kU64, uint64_t{1} << 40);
  w.Scalar("i64", GgufType::kI64, int64_t{-1} << 40);
  w.Scalar("f64", GgufType::kF64, 0.25);
  w.StrArray("tokenizer.ggml.tokens", {"a", "", "<|im_start|>", "\xc4\xa0t"});
  w.I32Array("tokenizer.ggml.token_type", {1, 1, 3, 1});
  w.F32Array("scores", {0.5f, -1.0f});
  w.Tensor("w", GgmlType::kF32, {3, 2});
  w.Tensor("q", GgmlType::kQ4_1, {64, 3});
  w.Tensor("e", GgmlType::kQ8_0, {32});
  return w;
}

TEST(Gguf, ParsesEveryValueTypeAndTensor) {
  const std::vector<uint8_t> f = ValidWriter().Bytes();
  Gguf g;
  std::string err;
  ASSERT_TRUE(g.Parse(f.data(), f.size(), &err, "t.gguf")) << err;
  EXPECT_EQ(g.version(), 3u);
  EXPECT_EQ(g.alignment(), 32u);
  EXPECT_EQ(g.data_offset() % 32, 0u);
  EXPECT_EQ(g.metadata().size(), 15u);

  std::string_view s;
  ASSERT_TRUE(g.GetString("general.architecture", &s, &err)) << err;
  EXPECT_EQ(s, "llama");
  uint32_t u = 0;
  ASSERT_TRUE(g.GetU32("llama.block_count", &u, &err));
  EXPECT_EQ(u, 30u);
  ASSERT_TRUE(g.GetU32("u8", &u, &err));
  EXPECT_EQ(u, 200u);
  ASSERT_TRUE(g.GetU32("u16", &u, &err));
  EXPECT_EQ(u, 60000u);
  int32_t i = 0;
  ASSERT_TRUE(g.GetI32("i8", &i, &err));
  EXPECT_EQ(i, -5);
  ASSERT_TRUE(g.GetI32("i16", &i, &err));
  EXPECT_EQ(i, -30000);
  ASSERT_TRUE(g.GetI32("i32", &i, &err));
  EXPECT_EQ(i, -7);
  uint64_t u64 = 0;
  ASSERT_TRUE(g.GetU64("u64", &u64, &err));
  EXPECT_EQ(u64, uint64_t{1} << 40);
  EXPECT_EQ(g.Find("i64")->i, int64_t{-1} << 40);
  float x = 0;
  ASSERT_TRUE(g.GetF32("llama.rope.freq_base", &x, &err));
  EXPECT_EQ(x, 100000.0f);
  ASSERT_TRUE(g.GetF32("f64", &x, &err));
  EXPECT_EQ(x, 0.25f);
  bool b = false;
  ASSERT_TRUE(g.GetBool("bool", &b, &err));
  EXPECT_TRUE(b);
  std::vector<std::string_view> tokens;
  ASSERT_TRUE(g.GetStringArray("tokenizer.ggml.tokens", &tokens, &err));
  EXPECT_EQ(tokens, (std::vector<std::string_view>{"a", "", "<|im_start|>", "\xc4\xa0t"}));
  std::vector<int32_t> types;
  ASSERT_TRUE(g.GetI32Array("tokenizer.ggml.token_type", &types, &err));
  EXPECT_EQ(types, (std::vector<int32_t>{1, 1, 3, 1}));
  std::vector<float> scores;
  ASSERT_TRUE(g.GetF32Array("scores", &scores, &err));
  EXPECT_EQ(scores, (std::vector<float>{0.5f, -1.0f}));

  // Type and range mismatches, and absent keys, name the key.
  EXPECT_FALSE(g.GetU32("i32", &u, &err));
  EXPECT_EQ(err, "t.gguf: metadata key \"i32\" is i32, expected a u32");
  EXPECT_FALSE(g.GetI32("u64", &i, &err));
  EXPECT_EQ(err, "t.gguf: metadata key \"u64\" is u64, expected an i32");
  EXPECT_FALSE(g.GetString("llama.block_count", &s, &err));
  EXPECT_EQ(err, "t.gguf: metadata key \"llama.block_count\" is u32, expected string");
  EXPECT_FALSE(g.GetStringArray("tokenizer.ggml.token_type", &tokens, &err));
  EXPECT_EQ(err, "t.gguf: metadata key \"tokenizer.ggml.token_type\" is array of i32, expected array of string");
  EXPECT_FALSE(g.GetF32("nope", &x, &err));
  EXPECT_EQ(err, "t.gguf: no metadata key \"nope\"");

  ASSERT_EQ(g.tensors().size(), 3u);
  const GgufTensor* w = g.Tensor("w", GgmlType::kF32, {3, 2}, &err);
  ASSERT_NE(w, nullptr) << err;
  EXPECT_EQ(w->elements, 6u);
  EXPECT_EQ(w->bytes, 24u);
  EXPECT_EQ(w->offset, 0u);
  EXPECT_EQ(w->data, f.data() + g.data_offset());
  float w0[6];
  std::memcpy(w0, w->data, 24);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(w0[k], static_cast<float>(k));  // the writer's fill
  const GgufTensor* q = g.Tensor("q", GgmlType::kQ4_1, {64, 3}, &err);
  ASSERT_NE(q, nullptr) << err;
  EXPECT_EQ(q->bytes, 6u * 20);
  EXPECT_EQ(q->offset, 32u);  // 24 bytes padded to 32
  const GgufTensor* e = g.Tensor("e", GgmlType::kQ8_0, {32}, &err);
  ASSERT_NE(e, nullptr) << err;
  EXPECT_EQ(e->bytes, 34u);
  EXPECT_EQ(e->offset, 160u);  // 32 + 120 padded to 32
  EXPECT_EQ(e->data + e->bytes, f.data() + f.size());

  const float* wf = g.F32("w", {3, 2}, &err);
  ASSERT_NE(wf, nullptr) << err;
  EXPECT_EQ(wf[5], 5.0f);
  EXPECT_EQ(g.F32("q", {64, 3}, &err), nullptr);
  EXPECT_EQ(err, "t.gguf: tensor \"q\" is Q4_1, expected F32");
  {
    std::vector<uint8_t> shifted(f.size() + 1);  // the same file at an odd address
    std::memcpy(shifted.data() + 1, f.data(), f.size());
    Gguf odd;
    ASSERT_TRUE(odd.Parse(shifted.data() + 1, f.size(), &err, "t.gguf")) << err;
    EXPECT_EQ(odd.F32("w", {3, 2}, &err), nullptr);
    EXPECT_EQ(err, "t.gguf: tensor \"w\": data not 4-byte aligned in memory");
  }
  EXPECT_EQ(g.Tensor("w", GgmlType::kF16, {3, 2}, &err), nullptr);
  EXPECT_EQ(err, "t.gguf: tensor \"w\" is F32, expected F16");
  EXPECT_EQ(g.Tensor("w", GgmlType::kF32, {2, 3}, &err), nullptr);
  EXPECT_EQ(err, "t.gguf: tensor \"w\" has shape [3, 2], expected [2, 3]");
  EXPECT_EQ(g.Tensor("x", GgmlType::kF32, {1}, &err), nullptr);
  EXPECT_EQ(err, "t.gguf: tensor \"x\" is missing");

  // Moving keeps the views valid.
  Gguf moved = std::move(g);
  ASSERT_NE(moved.FindTensor("q"), nullptr);
  EXPECT_EQ(moved.FindTensor("q")->data, q->data);
  EXPECT_TRUE(g.tensors().empty());
}

TEST(Gguf, VersionTwoAndOtherAlignments) {
  GgufWriter w = ValidWriter();
  w.version = 2;
  std::vector<uint8_t> f = w.Bytes();
  Gguf g;
  std::string err;
  ASSERT_TRUE(g.Parse(f.data(), f.size(), &err)) << err;
  EXPECT_EQ(g.version(), 2u);
  for (uint32_t a : {1u, 8u, 64u, 4096u}) {
    f = ValidWriter(a).Bytes();
    ASSERT_TRUE(g.Parse(f.data(), f.size(), &err)) << a << ": " << err;
    EXPECT_EQ(g.alignment(), a);
    EXPECT_EQ(g.data_offset() % a, 0u);
    for (const GgufTensor& t : g.tensors()) EXPECT_EQ(t.offset % a, 0u) << t.name;
  }
}

TEST(Gguf, EmptyFiles) {
  GgufWriter w;
  std::vector<uint8_t> f = w.Bytes();
  Gguf g;
  std::string err;
  ASSERT_TRUE(g.Parse(f.data(), f.size(), &err)) << err;
  EXPECT_EQ(f.size(), 24u);
  w.U32("a", 1);
  w.Tensor("z", GgmlType::kF32, {0, 5});  // no elements
  f = w.Bytes();
  ASSERT_TRUE(g.Parse(f.data(), f.size(), &err)) << err;
  EXPECT_EQ(g.tensors()[0].bytes, 0u);
}

TEST(Gguf, EveryTruncationFails) {
  const std::vector<uint8_t> f = ValidWriter().Bytes();
  for (size_t n = 0; n < f.size(); ++n) {
    const std::vector<uint8_t> p(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(n));
    const std::string err = ParseError(p);
    EXPECT_TRUE(err.find("truncated") != std::string::npos || err.find("longer than") != std::string::npos ||
                err.find("cannot fit") != std::string::npos)
        << n << ": " << err;
  }
}

TEST(Gguf, Malformed) {
  std::vector<uint8_t> f = ValidWriter().Bytes();
  // The header.
  std::vector<uint8_t> bad = f;
  bad[0] = 'g';
  EXPECT_EQ(ParseError(bad), "t.gguf: bad magic \"gGUF\", expected \"GGUF\"");
  for (uint32_t v : {0u, 1u, 4u, 0x03000000u}) {
    GgufWriter w = ValidWriter();
    w.version = v;
    const std::string err = ParseError(w.Bytes());
    EXPECT_NE(err.find(v == 0x03000000u ? "byte-swapped" : "version"), std::string::npos) << err;
  }
  {
    GgufWriter w;
    w.tensor_count_override = uint64_t{1} << 62;
    EXPECT_EQ(ParseError(w.Bytes()), "t.gguf: tensor count 4611686018427387904 cannot fit in the 0 bytes left");
    GgufWriter w2;
    w2.kv_count_override = ~uint64_t{0};
    EXPECT_NE(ParseError(w2.Bytes()).find("metadata count 18446744073709551615 cannot fit"), std::string::npos);
  }
  // Metadata.
  auto kv_error = [](auto&& add) {
    GgufWriter w;
    add(w);
    return ParseError(w.Bytes());
  };
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.Raw("k", 13, {}); }), "t.gguf: key \"k\": unknown value type 13");
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.RawArray("k", GgufType::kArray, 1, {}); }),
            "t.gguf: key \"k\": arrays of arrays are not supported");
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.RawArray("k", static_cast<GgufType>(99), 1, {}); }),
            "t.gguf: key \"k\": array of unknown value type 99");
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.U32("", 1); }), "t.gguf: metadata key 0 is empty");
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.U32("a", 1); w.U32("a", 2); }), "t.gguf: duplicate key \"a\"");
  EXPECT_NE(kv_error([](GgufWriter& w) { w.RawArray("k", GgufType::kU32, uint64_t{1} << 61, {}); })
                .find("key \"k\": truncated: array of 2305843009213693952 u32"),
            std::string::npos);
  EXPECT_NE(kv_error([](GgufWriter& w) { w.RawArray("k", GgufType::kString, ~uint64_t{0}, {}); })
                .find("key \"k\": array of 18446744073709551615 strings cannot fit"),
            std::string::npos);
  {
    // A string whose length is past the file, and one of 2^64-1 bytes.
    GgufWriter w;
    w.Str("s", "abc");
    std::vector<uint8_t> b = w.Bytes();
    const size_t len_at = b.size() - 3 - 8;
    b[len_at] = 4;
    EXPECT_NE(ParseError(b).find("key \"s\": string of 4 bytes at byte 37 is longer than the 3 bytes left"), std::string::npos)
        << ParseError(b);
    std::memset(&b[len_at], 0xff, 8);
    EXPECT_NE(ParseError(b).find("string of 18446744073709551615 bytes"), std::string::npos);
  }
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.Str("general.alignment", "32"); }),
            "t.gguf: general.alignment must be u32, is string");
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.U32("general.alignment", 0); }),
            "t.gguf: general.alignment 0 is not a power of 2");
  EXPECT_EQ(kv_error([](GgufWriter& w) { w.U32("general.alignment", 48); }),
            "t.gguf: general.alignment 48 is not a power of 2");
  // Tensor infos.
  auto t_error = [](auto&& add) {
    GgufWriter w;
    w.Tensor("a", GgmlType::kF32, {4});
    add(w);
    return ParseError(w.Bytes());
  };
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("a", GgmlType::kF32, {4}); }), "t.gguf: duplicate tensor \"a\"");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor(std::string(64, 'n'), GgmlType::kF32, {4}); }),
            "t.gguf: tensor 1: name of 64 bytes (at most 63)");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kF32, {1, 1, 1, 1, 1}); }),
            "t.gguf: tensor \"b\": n_dims 5 (at most 4)");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", static_cast<GgmlType>(4), {32}); }),
            "t.gguf: tensor \"b\": unknown ggml type 4");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", static_cast<GgmlType>(43), {128}); }),
            "t.gguf: tensor \"b\": unknown ggml type 43");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", static_cast<GgmlType>(1000), {32}); }),
            "t.gguf: tensor \"b\": unknown ggml type 1000");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kQ4_1, {48, 2}); }),
            "t.gguf: tensor \"b\": rows of 48 elements are not a multiple of Q4_1's block of 32");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kF32, {uint64_t{1} << 63}); }),
            "t.gguf: tensor \"b\": dimension 0 is negative as ggml's int64");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kF32, {uint64_t{1} << 32, uint64_t{1} << 32}); }),
            "t.gguf: tensor \"b\": shape [4294967296, 4294967296] has more elements than an int64 holds");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kF32, {uint64_t{1} << 31, uint64_t{1} << 31}); }),
            "t.gguf: tensor \"b\": shape [2147483648, 2147483648] x F32 overflows a byte count");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kF32, {4}, /*offset=*/64); }),
            "t.gguf: tensor \"b\": offset 64, expected 32");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kF32, {4}, /*offset=*/16); }),
            "t.gguf: tensor \"b\": offset 16, expected 32 (and not a multiple of the alignment 32)");
  EXPECT_EQ(t_error([](GgufWriter& w) { w.Tensor("b", GgmlType::kF32, {4}, /*offset=*/~uint64_t{0}); }),
            "t.gguf: tensor \"b\": offset 18446744073709551615, expected 32 (and not a multiple of the alignment 32)");
  {
    GgufWriter w;
    w.Tensor("a", GgmlType::kF32, {4});
    w.data_bytes_override = 15;
    EXPECT_EQ(ParseError(w.Bytes()),
              "t.gguf: tensor \"a\": truncated: 16 bytes at data offset 0 run past the end of the file (data section of 15 bytes)");
  }
}

// SmolLM2-135M-Instruct's file, as scripts/models installs it: what the file says.
TEST(Gguf, SmolLM2File) {
  const std::string path = DefaultModelDir("SmolLM2-135M-Instruct.Q4_1.gguf");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0) << "no model at " << path << ": run scripts/models install smollm2";
  Gguf g;
  std::string err;
  ASSERT_TRUE(g.Open(path, &err)) << err;
  EXPECT_EQ(g.version(), 3u);
  EXPECT_EQ(g.alignment(), 32u);
  EXPECT_EQ(g.metadata().size(), 33u);
  std::string_view s;
  ASSERT_TRUE(g.GetString("general.architecture", &s, &err)) << err;
  EXPECT_EQ(s, "llama");
  const std::map<std::string, uint32_t> u32s = {
      {"llama.block_count", 30},      {"llama.context_length", 8192},     {"llama.embedding_length", 576},
      {"llama.feed_forward_length", 1536}, {"llama.attention.head_count", 9}, {"llama.attention.head_count_kv", 3},
      {"llama.vocab_size", 49152},    {"llama.rope.dimension_count", 64}, {"tokenizer.ggml.bos_token_id", 1},
      {"tokenizer.ggml.eos_token_id", 2}, {"general.file_type", 3}};
  for (const auto& [key, want] : u32s) {
    uint32_t v = 0;
    ASSERT_TRUE(g.GetU32(key, &v, &err)) << err;
    EXPECT_EQ(v, want) << key;
  }
  float f = 0;
  ASSERT_TRUE(g.GetF32("llama.rope.freq_base", &f, &err));
  EXPECT_EQ(f, 100000.0f);
  ASSERT_TRUE(g.GetF32("llama.attention.layer_norm_rms_epsilon", &f, &err));
  EXPECT_EQ(f, 1e-5f);
  ASSERT_TRUE(g.GetString("tokenizer.ggml.model", &s, &err));
  EXPECT_EQ(s, "gpt2");
  ASSERT_TRUE(g.GetString("tokenizer.ggml.pre", &s, &err));
  EXPECT_EQ(s, "smollm");
  std::vector<std::string_view> tokens, merges;
  ASSERT_TRUE(g.GetStringArray("tokenizer.ggml.tokens", &tokens, &err));
  EXPECT_EQ(tokens.size(), 49152u);
  EXPECT_EQ(tokens[1], "<|im_start|>");
  ASSERT_TRUE(g.GetStringArray("tokenizer.ggml.merges", &merges, &err));
  EXPECT_EQ(merges.size(), 48900u);
  EXPECT_EQ(merges[0], "\xc4\xa0 t");

  ASSERT_EQ(g.tensors().size(), 272u);
  std::map<std::string, int> by_type;
  for (const GgufTensor& t : g.tensors()) ++by_type[GgmlTypeName(t.type)];
  EXPECT_EQ(by_type, (std::map<std::string, int>{{"F32", 61}, {"Q4_1", 210}, {"Q8_0", 1}}));
  ASSERT_NE(g.Tensor("token_embd.weight", GgmlType::kQ8_0, {576, 49152}, &err), nullptr) << err;
  ASSERT_NE(g.Tensor("blk.0.attn_q.weight", GgmlType::kQ4_1, {576, 576}, &err), nullptr) << err;
  ASSERT_NE(g.Tensor("blk.29.attn_k.weight", GgmlType::kQ4_1, {576, 192}, &err), nullptr) << err;
  ASSERT_NE(g.Tensor("blk.0.ffn_down.weight", GgmlType::kQ4_1, {1536, 576}, &err), nullptr) << err;
  ASSERT_NE(g.Tensor("blk.0.attn_norm.weight", GgmlType::kF32, {576}, &err), nullptr) << err;
  const float* norm = g.F32("output_norm.weight", {576}, &err);
  ASSERT_NE(norm, nullptr) << err;
  // As gguf-py (llama.cpp's Python reader) reads them.
  EXPECT_EQ(norm[0], 1.7578125f);
  EXPECT_EQ(norm[3], 1.6015625f);
  double sum = 0;
  for (int i = 0; i < 576; ++i) sum += norm[i];
  EXPECT_EQ(sum, 1038.33203125);
  EXPECT_EQ(g.FindTensor("output.weight"), nullptr);  // tied to token_embd
  const GgufTensor& last = g.tensors().back();
  EXPECT_EQ(g.data_offset() + last.offset + last.bytes, static_cast<uint64_t>(st.st_size));
  for (const GgufTensor& t : g.tensors()) EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % 32, 0u) << t.name;
}

}  // namespace
}  // namespace vlak::models
