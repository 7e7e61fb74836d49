// The safetensors reader on small hand-made files: valid ones, and each malformation with its message.
#include "models/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "models/model_dir.h"

namespace vlak::models {
namespace {

std::vector<uint8_t> File(const std::string& header, size_t data_bytes, uint8_t fill = 0) {
  std::vector<uint8_t> f(8 + header.size() + data_bytes, fill);
  const uint64_t n = header.size();
  std::memcpy(f.data(), &n, 8);
  std::memcpy(f.data() + 8, header.data(), header.size());
  return f;
}

std::string ParseError(const std::vector<uint8_t>& f) {
  SafeTensors st;
  std::string err;
  EXPECT_FALSE(st.Parse(f.data(), f.size(), &err, "t.safetensors"));
  EXPECT_TRUE(st.tensors().empty());
  return err;
}

// Two f32 tensors and a scalar, written as the reference implementation writes them.
std::vector<uint8_t> Valid() {
  const std::string h =
      R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
      R"("b":{"dtype":"F32","shape":[3],"data_offsets":[24,36]},"s":{"dtype":"I64","shape":[],"data_offsets":[36,44]}})";
  std::vector<uint8_t> f = File(h, 44);
  float* w = reinterpret_cast<float*>(f.data() + 8 + h.size());
  for (int i = 0; i < 9; ++i) {
    const float v = 0.5f * static_cast<float>(i) - 1.0f;
    std::memcpy(f.data() + 8 + h.size() + 4 * i, &v, 4);
  }
  (void)w;
  return f;
}

TEST(SafeTensors, ParsesTensorsAndMetadata) {
  const std::vector<uint8_t> f = Valid();
  SafeTensors st;
  std::string err;
  ASSERT_TRUE(st.Parse(f.data(), f.size(), &err)) << err;
  ASSERT_EQ(st.tensors().size(), 3u);
  EXPECT_EQ(st.metadata().at("format"), "pt");
  const TensorInfo* s = st.Find("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->dtype, DType::kI64);
  EXPECT_TRUE(s->shape.empty());
  EXPECT_EQ(s->elements, 1u);
  EXPECT_EQ(st.Find("nope"), nullptr);
  const float* w = st.F32("w", {2, 3}, &err);
  ASSERT_NE(w, nullptr) << err;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(w[i], 0.5f * i - 1.0f);
  const float* b = st.F32("b", {3}, &err);
  ASSERT_NE(b, nullptr) << err;
  EXPECT_EQ(b[2], 3.0f);
  // Sorted by offset.
  EXPECT_EQ(st.tensors()[0].name, "w");
  EXPECT_EQ(st.tensors()[2].name, "s");
}

TEST(SafeTensors, F32AccessorRejectsMismatches) {
  const std::vector<uint8_t> f = Valid();
  SafeTensors st;
  std::string err;
  ASSERT_TRUE(st.Parse(f.data(), f.size(), &err, "m.safetensors")) << err;
  EXPECT_EQ(st.F32("w", {3, 2}, &err), nullptr);
  EXPECT_EQ(err, "m.safetensors: tensor \"w\" has shape [2, 3], not [3, 2]");
  EXPECT_EQ(st.F32("w", {6}, &err), nullptr);
  EXPECT_EQ(st.F32("s", {}, &err), nullptr);
  EXPECT_EQ(err, "m.safetensors: tensor \"s\" is I64, not F32");
  EXPECT_EQ(st.F32("x", {1}, &err), nullptr);
  EXPECT_EQ(err, "m.safetensors: tensor \"x\" is missing");
}

TEST(SafeTensors, UnalignedF32IsCopied) {
  // A header of odd length puts the data at an odd offset.
  const std::string h = R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}} )";
  std::vector<uint8_t> f = File(h, 12);
  const float v[3] = {1.5f, -2.0f, 3.25f};
  std::memcpy(f.data() + 8 + h.size(), v, 12);
  SafeTensors st;
  std::string err;
  ASSERT_TRUE(st.Parse(f.data(), f.size(), &err)) << err;
  const float* a = st.F32("a", {3}, &err);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 4, 0u);
  EXPECT_EQ(a[0], 1.5f);
  EXPECT_EQ(a[2], 3.25f);
  SafeTensors moved = std::move(st);
  EXPECT_EQ(moved.F32("a", {3}, &err), a);
}

TEST(SafeTensors, EmptyAndZeroSizedTensors) {
  const std::vector<uint8_t> e = File("{}", 0);
  SafeTensors st;
  std::string err;
  ASSERT_TRUE(st.Parse(e.data(), e.size(), &err)) << err;
  EXPECT_TRUE(st.tensors().empty());
  const std::vector<uint8_t> z = File(R"({"z":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]}})", 0);
  ASSERT_TRUE(st.Parse(z.data(), z.size(), &err)) << err;
  EXPECT_NE(st.F32("z", {0, 4}, &err), nullptr);
}

TEST(SafeTensors, TruncatedAndBadHeaders) {
  EXPECT_EQ(ParseError(std::vector<uint8_t>{1, 2, 3}),
            "t.safetensors: truncated: 3 bytes, shorter than the 8-byte header length that starts a safetensors file");
  std::vector<uint8_t> f = Valid();
  f.resize(20);
  EXPECT_NE(ParseError(f).find("runs past the end of the file (12 bytes follow it)"), std::string::npos);
  std::vector<uint8_t> huge(16, 0);
  huge[7] = 0xFF;  // a header length near 2^64
  EXPECT_NE(ParseError(huge).find("runs past the end of the file"), std::string::npos);
  EXPECT_NE(ParseError(File("{\"a\":", 0)).find("header is not valid JSON"), std::string::npos);
  EXPECT_NE(ParseError(File("[1,2]", 0)).find("not an object"), std::string::npos);
  EXPECT_NE(ParseError(File("{", 0)).find("cannot hold a JSON object"), std::string::npos);
  EXPECT_NE(ParseError(File(R"({"__metadata__":{"a":1}})", 0)).find("__metadata__[\"a\"] is not a string"),
            std::string::npos);
  EXPECT_NE(ParseError(File(R"({"__metadata__":[]})", 0)).find("__metadata__ is not an object"), std::string::npos);
}

TEST(SafeTensors, BadTensorEntries) {
  auto err_of = [](const std::string& entry, size_t data) {
    return ParseError(File("{\"x\":" + entry + "}", data));
  };
  EXPECT_NE(err_of("1", 0).find("tensor \"x\": not an object"), std::string::npos);
  // Entries of tensor "x" over a data section of 4 bytes, and a part of the error each gives.
  const std::pair<const char*, const char*> kBad[] = {
      {R"({"dtype":"F32","shape":[1]})", "needs dtype, shape and data_offsets"},
      {R"({"dtype":"F31","shape":[1],"data_offsets":[0,4]})", "unknown dtype \"F31\""},
      {R"({"dtype":7,"shape":[1],"data_offsets":[0,4]})", "dtype is not a string"},
      {R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})", "not a non-negative integer"},
      {R"({"dtype":"F32","shape":[1.5],"data_offsets":[0,4]})", "not a non-negative integer"},
      {R"({"dtype":"F32","shape":1,"data_offsets":[0,4]})", "shape is not an array"},
      {R"({"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]})", "overflows"},
      {R"({"dtype":"F32","shape":[1],"data_offsets":[0]})", "not an array [begin, end]"},
      {R"({"dtype":"F32","shape":[1],"data_offsets":[4,0]})", "end before they begin"},
      {R"({"dtype":"F32","shape":[1],"data_offsets":[0,-4]})", "not non-negative integers"},
      {R"({"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]})", "run past"},
      // A zero dimension makes the product 0 even if the others overflow.
      {R"({"dtype":"F32","shape":[0,18446744073709551615,4],"data_offsets":[0,4]})", "needs 0"},
  };
  for (const auto& [entry, says] : kBad) EXPECT_NE(err_of(entry, 4).find(says), std::string::npos) << entry;
  EXPECT_EQ(err_of(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})", 4),
            "t.safetensors: tensor \"x\": data_offsets [0,8] run past the data section's 4 bytes (truncated file?)");
  EXPECT_EQ(err_of(R"({"dtype":"F32","shape":[2],"data_offsets":[0,4]})", 4),
            "t.safetensors: tensor \"x\": data_offsets [0,4] hold 4 bytes; shape [2] x F32 needs 8");
}

TEST(SafeTensors, TensorsMustTileTheData) {
  const std::string a = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  EXPECT_NE(ParseError(File("{" + a + R"(,"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12))
                .find("tensor \"b\" [4, 12) overlaps tensor \"a\", which ends at 8"),
            std::string::npos);
  EXPECT_NE(ParseError(File("{" + a + R"(,"b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})", 16))
                .find("bytes [8, 12) of the data section belong to no tensor"),
            std::string::npos);
  EXPECT_NE(ParseError(File("{" + a + "}", 12)).find("the tensors end at 8 (trailing bytes)"), std::string::npos);
  EXPECT_NE(ParseError(File(R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8))
                .find("bytes [0, 4) of the data section belong to no tensor"),
            std::string::npos);
}

TEST(SafeTensors, OpenErrors) {
  SafeTensors st;
  std::string err;
  EXPECT_FALSE(st.Open("/nonexistent/x.safetensors", &err));
  EXPECT_EQ(err, "/nonexistent/x.safetensors: cannot open: No such file or directory");
  EXPECT_FALSE(st.Open("/", &err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos);
  // A file cut short after its header: the first tensor runs past the end.
  char path[] = "/tmp/vlak_safetensors_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> f = Valid();
  f.resize(f.size() - 10);
  ASSERT_EQ(write(fd, f.data(), f.size()), static_cast<ssize_t>(f.size()));
  close(fd);
  EXPECT_FALSE(st.Open(path, &err));
  EXPECT_NE(err.find("run past the data section"), std::string::npos) << err;
  f = Valid();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(f.data()), f.size());
  ASSERT_TRUE(st.Open(path, &err)) << err;
  EXPECT_EQ(st.tensors().size(), 3u);
  std::remove(path);
}

// The real file: all-MiniLM-L6-v2's 103 f32 tensors and its I64 position ids (scripts/models install minilm).
TEST(SafeTensors, MiniLMFile) {
  const std::string dir = DefaultModelDir("all-MiniLM-L6-v2");
  std::string err;
  ASSERT_TRUE(ModelDirPresent(dir, "minilm", &err)) << err;
  SafeTensors st;
  ASSERT_TRUE(st.Open(dir + "/model.safetensors", &err)) << err;
  EXPECT_EQ(st.tensors().size(), 104u);
  size_t f32 = 0;
  for (const TensorInfo& t : st.tensors()) f32 += t.dtype == DType::kF32;
  EXPECT_EQ(f32, 103u);
  EXPECT_EQ(st.metadata().at("format"), "pt");
  EXPECT_EQ(st.Find("embeddings.position_ids")->dtype, DType::kI64);
  EXPECT_NE(st.F32("embeddings.word_embeddings.weight", {30522, 384}, &err), nullptr) << err;
  EXPECT_NE(st.F32("encoder.layer.5.output.LayerNorm.bias", {384}, &err), nullptr) << err;
}

}  // namespace
}  // namespace vlak::models
