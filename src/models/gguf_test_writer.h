// A GGUF writer for the tests: metadata of every type, tensors laid out as ggml lays them out
// (each at the running offset rounded up to the alignment, the data section aligned), with
// overrides that produce the malformed files the reader must refuse. F32 data is 0, 1, 2, ...;
// other types are filled with the byte pattern i & 0xff.
#ifndef VLAK_MODELS_GGUF_TEST_WRITER_H_
#define VLAK_MODELS_GGUF_TEST_WRITER_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "models/gguf.h"

namespace vlak::models {

class GgufWriter {
 public:
  uint32_t version = 3;
  uint64_t alignment = 32;                      // the layout; set general.alignment to match
  std::optional<uint64_t> tensor_count_override, kv_count_override;
  std::optional<uint64_t> data_bytes_override;  // cut (or extend) the data section

  void Str(const std::string& key, const std::string& v) {
    Key(key, GgufType::kString);
    PutStr(&kv_, v);
    ++n_kv_;
  }
  void U32(const std::string& key, uint32_t v) { Scalar(key, GgufType::kU32, v); }
  void F32(const std::string& key, float v) { Scalar(key, GgufType::kF32, v); }
  template <typename T>
  void Scalar(const std::string& key, GgufType type, T v) {
    Key(key, type);
    Put(&kv_, v);
    ++n_kv_;
  }
  void StrArray(const std::string& key, std::initializer_list<std::string> v) { StrArray(key, std::vector<std::string>(v)); }
  void StrArray(const std::string& key, const std::vector<std::string>& v) {
    Key(key, GgufType::kArray);
    Put(&kv_, static_cast<uint32_t>(GgufType::kString));
    Put(&kv_, static_cast<uint64_t>(v.size()));
    for (const std::string& s : v) PutStr(&kv_, s);
    ++n_kv_;
  }
  void I32Array(const std::string& key, const std::vector<int32_t>& v) {
    RawArray(key, GgufType::kI32, v.size(), std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                                                 reinterpret_cast<const uint8_t*>(v.data() + v.size())));
  }
  void F32Array(const std::string& key, const std::vector<float>& v) {
    RawArray(key, GgufType::kF32, v.size(), std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                                                 reinterpret_cast<const uint8_t*>(v.data() + v.size())));
  }
  // A value of any type id with the given bytes after the type.
  void Raw(const std::string& key, uint32_t type, const std::vector<uint8_t>& bytes) {
    PutStr(&kv_, key);
    Put(&kv_, type);
    kv_.insert(kv_.end(), bytes.begin(), bytes.end());
    ++n_kv_;
  }
  void RawArray(const std::string& key, GgufType elem, uint64_t count, const std::vector<uint8_t>& bytes) {
    Key(key, GgufType::kArray);
    Put(&kv_, static_cast<uint32_t>(elem));
    Put(&kv_, count);
    kv_.insert(kv_.end(), bytes.begin(), bytes.end());
    ++n_kv_;
  }
  // A tensor of dimensions `ne` (innermost first), at the next aligned offset unless `offset` says.
  void Tensor(const std::string& name, GgmlType type, std::vector<uint64_t> ne, std::optional<uint64_t> offset = {}) {
    uint32_t block = 1, bytes = 0;
    GgmlTypeSize(static_cast<uint32_t>(type), &block, &bytes);
    uint64_t n = 1;
    bool huge = false;
    for (uint64_t d : ne) huge |= __builtin_mul_overflow(n, d, &n);
    const uint64_t size = block ? n / block * bytes : 0;
    huge |= n > (uint64_t{1} << 28);
    const uint64_t at = (data_size_ + alignment - 1) / alignment * alignment;
    PutStr(&ti_, name);
    Put(&ti_, static_cast<uint32_t>(ne.size()));
    for (uint64_t d : ne) Put(&ti_, d);
    Put(&ti_, static_cast<uint32_t>(type));
    Put(&ti_, offset.value_or(at));
    if (!huge) {  // no data for the shapes that overflow
      data_.resize(at, 0);
      for (uint64_t i = 0; i < size; ++i) data_.push_back(static_cast<uint8_t>(i));
      if (type == GgmlType::kF32)
        for (uint64_t i = 0; i < n; ++i) {
          const float f = static_cast<float>(i);
          std::memcpy(&data_[at + 4 * i], &f, 4);
        }
      data_size_ = at + size;
    }
    ++n_tensors_;
  }

  std::vector<uint8_t> Bytes() const {
    std::vector<uint8_t> f = {'G', 'G', 'U', 'F'};
    Put(&f, version);
    Put(&f, tensor_count_override.value_or(n_tensors_));
    Put(&f, kv_count_override.value_or(n_kv_));
    f.insert(f.end(), kv_.begin(), kv_.end());
    f.insert(f.end(), ti_.begin(), ti_.end());
    if (n_tensors_ == 0) return f;
    f.resize((f.size() + alignment - 1) / alignment * alignment, 0);
    std::vector<uint8_t> d = data_;
    d.resize(data_bytes_override.value_or(data_size_), 0);
    f.insert(f.end(), d.begin(), d.end());
    return f;
  }

 private:
  template <typename T>
  static void Put(std::vector<uint8_t>* out, T v) {
    const size_t at = out->size();
    out->resize(at + sizeof(T));
    std::memcpy(out->data() + at, &v, sizeof(T));
  }
  static void PutStr(std::vector<uint8_t>* out, const std::string& s) {
    Put(out, static_cast<uint64_t>(s.size()));
    out->insert(out->end(), s.begin(), s.end());
  }
  void Key(const std::string& key, GgufType type) {
    PutStr(&kv_, key);
    Put(&kv_, static_cast<uint32_t>(type));
  }
  std::vector<uint8_t> kv_, ti_, data_;
  uint64_t n_kv_ = 0, n_tensors_ = 0, data_size_ = 0;
};

}  // namespace vlak::models

#endif  // VLAK_MODELS_GGUF_TEST_WRITER_H_
