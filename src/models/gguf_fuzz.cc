// Fuzz target of the GGUF reader: the input is a whole file. Parsing either fails with a message
// naming the source, holding nothing, or yields metadata and tensors that the getters read back in
// full and tensors laid out as the format requires, each inside the input: ASan flags any pointer
// past it.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/reader_fuzz_util.h"
#include "models/gguf.h"

using vlak_fuzz::Finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vlak::models;
  std::vector<uint8_t> file;
  Gguf g;
  auto holds_nothing = [](const Gguf& r) { return r.tensors().empty() && r.metadata().empty(); };
  if (!vlak_fuzz::ParseInput(data, size, &file, &g, holds_nothing)) return 0;
  std::string err;  // the getters' messages, unread
  const uint8_t* begin = file.data();
  const uint8_t* end = begin + size;
  uint32_t sum = 0;
  auto in_file = [&](std::string_view s) { return s.empty() || (reinterpret_cast<const uint8_t*>(s.data()) >= begin &&
                                                                 reinterpret_cast<const uint8_t*>(s.data()) + s.size() <= end); };
  for (const auto& [key, v] : g.metadata()) {
    if (!in_file(key) || g.Find(key) != &v) Finding("a key not in the file or not found", key);
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    float f;
    bool b;
    std::string_view s;
    std::vector<std::string_view> strs;
    std::vector<int32_t> ints;
    std::vector<float> floats;
    sum += g.GetU32(key, &u32, &err) + g.GetI32(key, &i32, &err) + g.GetU64(key, &u64, &err) + g.GetF32(key, &f, &err) +
           g.GetBool(key, &b, &err);
    if (g.GetString(key, &s, &err)) {
      if (!in_file(s)) Finding("a string outside the file", key);
      for (char c : s) sum += static_cast<uint8_t>(c);
    }
    if (g.GetStringArray(key, &strs, &err))
      for (std::string_view e : strs) {
        if (!in_file(e)) Finding("an array's string outside the file", key);
        for (char c : e) sum += static_cast<uint8_t>(c);
      }
    if (g.GetI32Array(key, &ints, &err))
      for (int32_t x : ints) sum += static_cast<uint32_t>(x);
    if (g.GetF32Array(key, &floats, &err))
      for (float x : floats) sum += static_cast<uint32_t>(x == x);
  }
  uint64_t expected = 0;
  for (const GgufTensor& t : g.tensors()) {
    uint32_t block = 0, bytes = 0;
    if (!GgmlTypeSize(t.type, &block, &bytes)) Finding("a tensor of an unknown type", t.name);
    if (t.n_dims > 4 || t.ne[0] % block) Finding("a shape the format refuses", t.name);
    if (t.bytes != t.elements / block * bytes) Finding("bytes differ from shape x type", t.name);
    if (t.offset != expected || t.offset % g.alignment()) Finding("a tensor off its place", t.name);
    if (t.data != begin + g.data_offset() + t.offset || t.data + t.bytes > end) Finding("data outside the file", t.name);
    for (uint64_t i = 0; i < t.bytes; ++i) sum += t.data[i];
    if (g.FindTensor(t.name) != &t) Finding("a parsed tensor not found by name", t.name);
    if (!g.Tensor(t.name, static_cast<GgmlType>(t.type), std::span<const uint64_t>(t.ne.data(), t.n_dims), &err))
      Finding("the tensor accessor refuses its own type and shape", t.name);
    if (t.type == static_cast<uint32_t>(GgmlType::kF32)) {
      const float* f = g.F32(t.name, std::span<const uint64_t>(t.ne.data(), t.n_dims), &err);
      const bool aligned = reinterpret_cast<uintptr_t>(t.data) % 4 == 0;
      if ((f != nullptr) != aligned) Finding("the F32 accessor refuses an aligned tensor or takes an unaligned one", t.name);
      for (uint64_t i = 0; f && i < t.elements; ++i) sum += static_cast<uint32_t>(f[i] == f[i]);
    }
    expected = (t.offset + t.bytes + g.alignment() - 1) / g.alignment() * g.alignment();
  }
  vlak_fuzz::KeepSum(sum);
  return 0;
}
