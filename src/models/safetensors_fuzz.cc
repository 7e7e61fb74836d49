// Fuzz target of the safetensors reader: the input is a whole file. Parsing either fails with a
// message naming the source, or yields tensors that tile the data section, each of shape x dtype
// bytes, whose bytes (and the f32 view of every F32 tensor) are read in full: ASan flags any
// pointer past the input.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/reader_fuzz_util.h"
#include "models/safetensors.h"

using vlak_fuzz::Finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vlak::models;
  std::vector<uint8_t> file;
  SafeTensors st;
  if (!vlak_fuzz::ParseInput(data, size, &file, &st, [](const SafeTensors& r) { return r.tensors().empty(); })) return 0;
  std::string err;  // F32's messages, unread
  uint64_t n = 0;
  std::memcpy(&n, file.data(), 8);
  const size_t data_size = size - 8 - n;
  size_t at = 0;
  uint32_t sum = 0;
  for (const TensorInfo& t : st.tensors()) {
    if (t.begin != at || t.end < t.begin || t.end > data_size) Finding("tensors do not tile the data", t.name);
    if (t.end - t.begin != t.elements * DTypeSize(t.dtype)) Finding("size differs from shape x dtype", t.name);
    if (t.data != file.data() + 8 + n + t.begin) Finding("data pointer off its offsets", t.name);
    for (size_t i = t.begin; i < t.end; ++i) sum += t.data[i - t.begin];
    if (st.Find(t.name) == nullptr) Finding("a parsed tensor not found by name", t.name);
    if (t.dtype == DType::kF32) {
      const float* f = st.F32(t.name, t.shape, &err);
      if (!f) Finding("F32 accessor refuses its own shape", t.name);
      for (size_t i = 0; i < t.elements; ++i) {
        uint32_t b;
        std::memcpy(&b, f + i, 4);
        sum += b;
      }
    }
    at = t.end;
  }
  if (at != data_size) Finding("trailing bytes accepted", "");
  vlak_fuzz::KeepSum(sum);
  return 0;
}
