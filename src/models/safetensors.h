// safetensors reader: the format of Hugging Face's safetensors library, memory-mapped.
//
// A file is an 8-byte little-endian header length N, N bytes of JSON, then the data section. The
// JSON is an object: per tensor name {"dtype", "shape", "data_offsets": [begin, end]} with offsets
// into the data section, and an optional "__metadata__" object of string values. Every check of
// the reference implementation is made, each failure a message naming the file and the tensor:
//  - the file holds the 8 bytes, N fits in what follows (and is at most 100 MB), the JSON parses
//    and is an object of that form;
//  - a known dtype; shape entries and offsets non-negative integers; shape x dtype size computed
//    without overflow and equal to end - begin;
//  - the tensors tile the data section: sorted by offset, each starts where the one before ends,
//    the first at 0, the last at the section's end (no overlap, no hole, no trailing bytes).
// Tensor data is read in place (little-endian hosts only, as the format); an f32 tensor at an offset
// that is not 4-byte aligned is copied once, when parsed. Const methods are safe to call from
// several threads. Not checked: duplicate names in
// the JSON (the last one wins).
#ifndef VLAK_MODELS_SAFETENSORS_H_
#define VLAK_MODELS_SAFETENSORS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vlak::models {

// The format's dtypes. Only kF32 has an accessor; the others are parsed and sized.
enum class DType { kBool, kU8, kI8, kF8E4M3, kF8E5M2, kI16, kU16, kF16, kBF16, kI32, kU32, kF32, kI64, kU64, kF64 };
const char* DTypeName(DType t);  // as in the file: "F32", "BF16", ...
size_t DTypeSize(DType t);       // bytes per element

struct TensorInfo {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<size_t> shape;
  size_t elements = 0;           // the product of shape (1 for a scalar, shape [])
  size_t begin = 0, end = 0;     // data_offsets: bytes of the data section
  const uint8_t* data = nullptr;  // begin's byte in the file
  const float* f32 = nullptr;     // kF32: the data, or a 4-byte aligned copy of it
};

class SafeTensors {
 public:
  SafeTensors();
  ~SafeTensors();
  SafeTensors(SafeTensors&& other) noexcept;
  SafeTensors& operator=(SafeTensors&& other) noexcept;
  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;

  // Maps the file read-only and parses it. On failure returns false, sets *error, holds nothing.
  bool Open(const std::string& path, std::string* error);
  // Parses bytes the caller keeps alive while this object is used (tests, the fuzz target).
  // `what` names the source in messages.
  bool Parse(const uint8_t* bytes, size_t size, std::string* error, const std::string& what = "safetensors data");

  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // in data-offset order
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const TensorInfo* Find(std::string_view name) const;  // nullptr when absent

  // The f32 tensor `name`, which must have exactly `shape`. On any mismatch (absent, another
  // dtype, another shape) returns nullptr and sets *error. The pointer lives as long as this object.
  const float* F32(std::string_view name, std::span<const size_t> shape, std::string* error) const;
  const float* F32(std::string_view name, std::initializer_list<size_t> shape, std::string* error) const {
    return F32(name, std::span<const size_t>(shape.begin(), shape.size()), error);
  }

 private:
  void Reset();
  std::string what_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, size_t, std::less<>> index_;
  std::map<std::string, std::string> metadata_;
  std::deque<std::vector<float>> aligned_copies_;  // f32 tensors at unaligned offsets
};

std::string ShapeString(std::span<const size_t> shape);  // "[384, 1536]"

}  // namespace vlak::models

#endif  // VLAK_MODELS_SAFETENSORS_H_
