// GGUF reader: the model file format of ggml and llama.cpp (versions 2 and 3), memory-mapped.
//
// Layout, all little-endian: "GGUF", u32 version, u64 tensor count, u64 metadata count; the
// metadata, each a string key, a u32 value type and the value (scalars of 1 to 8 bytes, strings as
// u64 length + bytes, arrays as u32 element type + u64 count + elements); the tensor infos, each a
// name, u32 n_dims (<= 4), n_dims u64 dimensions (innermost first, ggml's ne[0]), a u32 ggml
// type and a u64 offset into the data section; padding to `general.alignment` (default 32); the
// data section. As ggml's reader, every tensor must start where the one before ends, rounded up
// to the alignment. Every malformed file is refused with a message naming the source and the
// key or tensor at fault: a bad magic, a version other than 2 or 3 (1, or a byte-swapped one,
// named as such), truncation anywhere, a string longer than what is left, a count or shape whose
// product or byte size overflows, an unknown value or tensor type, arrays of arrays, a duplicate
// key or tensor name, an empty key, a tensor name of 64 bytes or more, a row length that is not a
// multiple of its type's block, a misplaced offset, data past the end of the file, and an
// alignment that is not a power of two or not a u32.
//
// Strings and arrays are read in place (string_view into the file); the data pointer of a tensor
// is at a multiple of the alignment from the file's start, so aligned where the file is mapped.
// Const methods are safe to call from several threads. Little-endian hosts only, as the format.
#ifndef VLAK_MODELS_GGUF_H_
#define VLAK_MODELS_GGUF_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vlak::models {

// ggml's tensor types, with the ids of the file format.
enum class GgmlType : uint32_t {
  kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ4_1 = 3, kQ5_0 = 6, kQ5_1 = 7, kQ8_0 = 8, kQ8_1 = 9,
  kQ2_K = 10, kQ3_K = 11, kQ4_K = 12, kQ5_K = 13, kQ6_K = 14, kQ8_K = 15,
  kIQ2_XXS = 16, kIQ2_XS = 17, kIQ3_XXS = 18, kIQ1_S = 19, kIQ4_NL = 20, kIQ3_S = 21, kIQ2_S = 22,
  kIQ4_XS = 23, kI8 = 24, kI16 = 25, kI32 = 26, kI64 = 27, kF64 = 28, kIQ1_M = 29, kBF16 = 30,
  kTQ1_0 = 34, kTQ2_0 = 35, kMXFP4 = 39, kNVFP4 = 40, kQ1_0 = 41, kQ2_0 = 42,
};
// Elements per block and bytes per block of a type id; false for an id the reader does not know
// (ggml's removed ids 4, 5, 31-33, 36-38 among them, and any past 42).
bool GgmlTypeSize(uint32_t id, uint32_t* block, uint32_t* bytes);
std::string GgmlTypeName(uint32_t id);  // "Q4_1", or "type 77"

// The metadata value types of the format.
enum class GgufType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kString = 8,
  kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};
const char* GgufTypeName(GgufType t);  // "u32", "string", "array", ...

struct GgufValue {
  GgufType type = GgufType::kU8;
  // Scalars: the value, widened (integers and bool in u or i by signedness, floats in f).
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  std::string_view str;  // kString
  // kArray: the element type and count; numbers in place (elem_size bytes each, maybe unaligned),
  // strings as views.
  GgufType elem = GgufType::kU8;
  uint64_t count = 0;
  const uint8_t* raw = nullptr;
  std::vector<std::string_view> strings;
};

struct GgufTensor {
  std::string_view name;
  uint32_t type = 0;                 // a GgmlType id
  uint32_t n_dims = 0;
  std::array<uint64_t, 4> ne{1, 1, 1, 1};  // ggml order: ne[0] is the row (innermost)
  uint64_t elements = 0;
  uint64_t offset = 0;               // into the data section
  uint64_t bytes = 0;
  const uint8_t* data = nullptr;
};

class Gguf {
 public:
  Gguf();
  ~Gguf();
  Gguf(Gguf&& other) noexcept;
  Gguf& operator=(Gguf&& other) noexcept;
  Gguf(const Gguf&) = delete;
  Gguf& operator=(const Gguf&) = delete;

  // Maps the file read-only and parses it. On failure returns false, sets *error, holds nothing.
  bool Open(const std::string& path, std::string* error);
  // Parses bytes the caller keeps alive while this object is used (tests, the fuzz target).
  // `what` names the source in messages.
  bool Parse(const uint8_t* bytes, size_t size, std::string* error, const std::string& what = "gguf data");

  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // of the data section, in the file
  const std::vector<std::pair<std::string_view, GgufValue>>& metadata() const { return kv_; }  // file order
  const std::vector<GgufTensor>& tensors() const { return tensors_; }  // file order

  const GgufValue* Find(std::string_view key) const;        // nullptr when absent
  const GgufTensor* FindTensor(std::string_view name) const;

  // Typed getters: false with *error naming the key when absent or of another type. Integer
  // getters take any integer type whose value fits; F32/F64 take f32 or f64.
  bool GetU32(std::string_view key, uint32_t* out, std::string* error) const;
  bool GetI32(std::string_view key, int32_t* out, std::string* error) const;
  bool GetU64(std::string_view key, uint64_t* out, std::string* error) const;
  bool GetF32(std::string_view key, float* out, std::string* error) const;
  bool GetBool(std::string_view key, bool* out, std::string* error) const;
  bool GetString(std::string_view key, std::string_view* out, std::string* error) const;
  bool GetStringArray(std::string_view key, std::vector<std::string_view>* out, std::string* error) const;
  bool GetI32Array(std::string_view key, std::vector<int32_t>* out, std::string* error) const;  // i32, or u32 < 2^31
  bool GetF32Array(std::string_view key, std::vector<float>* out, std::string* error) const;

  // The tensor `name`, which must have type `type` and dimensions `ne` (innermost first). On any
  // mismatch returns nullptr and sets *error.
  const GgufTensor* Tensor(std::string_view name, GgmlType type, std::span<const uint64_t> ne, std::string* error) const;
  const GgufTensor* Tensor(std::string_view name, GgmlType type, std::initializer_list<uint64_t> ne, std::string* error) const {
    return Tensor(name, type, std::span<const uint64_t>(ne.begin(), ne.size()), error);
  }
  // The F32 tensor `name` of dimensions `ne`, as floats in place: checked as Tensor() does, and
  // refused if its data is not 4-byte aligned (a file parsed from an unaligned buffer; Open's
  // mapping is always aligned).
  const float* F32(std::string_view name, std::span<const uint64_t> ne, std::string* error) const;
  const float* F32(std::string_view name, std::initializer_list<uint64_t> ne, std::string* error) const {
    return F32(name, std::span<const uint64_t>(ne.begin(), ne.size()), error);
  }

 private:
  void Reset();
  bool Fail(std::string* error, const std::string& msg);
  std::string what_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string_view, GgufValue>> kv_;
  std::map<std::string_view, size_t, std::less<>> kv_index_;
  std::vector<GgufTensor> tensors_;
  std::map<std::string_view, size_t, std::less<>> tensor_index_;
};

std::string NeString(std::span<const uint64_t> ne);  // "[576, 49152]"

}  // namespace vlak::models

#endif  // VLAK_MODELS_GGUF_H_
