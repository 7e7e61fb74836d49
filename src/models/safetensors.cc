#include "models/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace vlak::models {
namespace {

using nlohmann::json;

// The reference implementation's limit on the JSON header.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DTypeEntry {
  DType type;
  const char* name;
  size_t size;
};
constexpr DTypeEntry kDTypes[] = {
    {DType::kBool, "BOOL", 1},      {DType::kU8, "U8", 1},     {DType::kI8, "I8", 1},
    {DType::kF8E4M3, "F8_E4M3", 1}, {DType::kF8E5M2, "F8_E5M2", 1}, {DType::kI16, "I16", 2},
    {DType::kU16, "U16", 2},        {DType::kF16, "F16", 2},   {DType::kBF16, "BF16", 2},
    {DType::kI32, "I32", 4},        {DType::kU32, "U32", 4},   {DType::kF32, "F32", 4},
    {DType::kI64, "I64", 8},        {DType::kU64, "U64", 8},   {DType::kF64, "F64", 8},
};

bool Fail(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

// A JSON number that is a non-negative integer representable in size_t.
bool AsSize(const json& v, size_t* out) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > std::numeric_limits<size_t>::max()) return false;
    *out = static_cast<size_t>(u);
    return true;
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < 0) return false;
    *out = static_cast<size_t>(i);
    return true;
  }
  return false;
}

}  // namespace

const char* DTypeName(DType t) {
  for (const auto& e : kDTypes) {
    if (e.type == t) return e.name;
  }
  return "?";
}

size_t DTypeSize(DType t) {
  for (const auto& e : kDTypes) {
    if (e.type == t) return e.size;
  }
  return 0;
}

std::string ShapeString(std::span<const size_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

SafeTensors::SafeTensors() = default;
SafeTensors::~SafeTensors() { Reset(); }

SafeTensors::SafeTensors(SafeTensors&& other) noexcept { *this = std::move(other); }

SafeTensors& SafeTensors::operator=(SafeTensors&& other) noexcept {
  if (this != &other) {
    Reset();
    what_ = std::move(other.what_);
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    tensors_ = std::move(other.tensors_);
    index_ = std::move(other.index_);
    metadata_ = std::move(other.metadata_);
    aligned_copies_ = std::move(other.aligned_copies_);  // a deque's move keeps its elements in place
    other.Reset();
  }
  return *this;
}

void SafeTensors::Reset() {
  if (map_) munmap(map_, map_size_);
  map_ = nullptr;
  map_size_ = 0;
  tensors_.clear();
  index_.clear();
  metadata_.clear();
  aligned_copies_.clear();
}

bool SafeTensors::Open(const std::string& path, std::string* error) {
  Reset();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Fail(error, path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string why = S_ISDIR(st.st_mode) ? "a directory" : std::strerror(errno);
    ::close(fd);
    return Fail(error, path + ": not a regular file (" + why + ")");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size < 8) {
    ::close(fd);
    return Fail(error, path + ": truncated: " + std::to_string(size) +
                           " bytes, shorter than the 8-byte header length that starts a safetensors file");
  }
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Fail(error, path + ": cannot map: " + std::strerror(map_errno));
  std::string err;
  if (!Parse(static_cast<const uint8_t*>(p), size, &err, path)) {
    munmap(p, size);
    return Fail(error, err);
  }
  map_ = p;
  map_size_ = size;
  return true;
}

bool SafeTensors::Parse(const uint8_t* bytes, size_t size, std::string* error, const std::string& what) {
  Reset();
  what_ = what;
  auto fail = [&](const std::string& msg) {
    tensors_.clear();
    index_.clear();
    metadata_.clear();
    aligned_copies_.clear();
    return Fail(error, what + ": " + msg);
  };
  if (size < 8) {
    return fail("truncated: " + std::to_string(size) +
                " bytes, shorter than the 8-byte header length that starts a safetensors file");
  }
  uint64_t n = 0;
  std::memcpy(&n, bytes, 8);
  if (n > size - 8) {
    return fail("header length " + std::to_string(n) + " runs past the end of the file (" + std::to_string(size - 8) +
                " bytes follow it): truncated, or not a safetensors file");
  }
  if (n > kMaxHeaderBytes) return fail("header length " + std::to_string(n) + " is over the 100 MB limit");
  if (n < 2) return fail("header of " + std::to_string(n) + " bytes cannot hold a JSON object");
  const char* text = reinterpret_cast<const char*>(bytes + 8);
  json header;
  try {
    header = json::parse(text, text + n);
  } catch (const json::exception& e) {
    return fail(std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) return fail("header is JSON but not an object");

  const uint8_t* data = bytes + 8 + n;
  const size_t data_size = size - 8 - static_cast<size_t>(n);
  for (const auto& [name, v] : header.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) return fail("__metadata__ is not an object");
      for (const auto& [k, mv] : v.items()) {
        if (!mv.is_string()) return fail("__metadata__[\"" + k + "\"] is not a string");
        metadata_[k] = mv.get<std::string>();
      }
      continue;
    }
    const std::string t = "tensor \"" + name + "\": ";
    if (!v.is_object()) return fail(t + "not an object");
    const auto dt = v.find("dtype");
    const auto sh = v.find("shape");
    const auto off = v.find("data_offsets");
    if (dt == v.end() || sh == v.end() || off == v.end()) return fail(t + "needs dtype, shape and data_offsets");
    TensorInfo info;
    info.name = name;
    if (!dt->is_string()) return fail(t + "dtype is not a string");
    const std::string dname = dt->get<std::string>();
    const DTypeEntry* entry = nullptr;
    for (const auto& e : kDTypes) {
      if (dname == e.name) entry = &e;
    }
    if (!entry) return fail(t + "unknown dtype \"" + dname + "\"");
    info.dtype = entry->type;
    if (!sh->is_array()) return fail(t + "shape is not an array");
    size_t elements = 1;
    bool overflow = false;
    for (const auto& d : *sh) {
      size_t dim = 0;
      if (!AsSize(d, &dim)) return fail(t + "shape " + sh->dump() + " has an entry that is not a non-negative integer");
      info.shape.push_back(dim);
      if (!overflow && dim != 0 && elements > std::numeric_limits<size_t>::max() / dim) overflow = true;
      if (!overflow) elements *= dim;
    }
    // A zero anywhere makes the product 0 even after an overflow in the other dimensions.
    if (std::find(info.shape.begin(), info.shape.end(), size_t{0}) != info.shape.end()) {
      elements = 0;
      overflow = false;
    }
    if (overflow || elements > std::numeric_limits<size_t>::max() / entry->size) {
      return fail(t + "shape " + ShapeString(info.shape) + " x " + entry->name + " overflows the address space");
    }
    info.elements = elements;
    const size_t bytes_needed = elements * entry->size;
    if (!off->is_array() || off->size() != 2) return fail(t + "data_offsets is not an array [begin, end]");
    if (!AsSize((*off)[0], &info.begin) || !AsSize((*off)[1], &info.end)) {
      return fail(t + "data_offsets " + off->dump() + " are not non-negative integers");
    }
    if (info.begin > info.end) return fail(t + "data_offsets " + off->dump() + " end before they begin");
    if (info.end > data_size) {
      return fail(t + "data_offsets " + off->dump() + " run past the data section's " + std::to_string(data_size) +
                  " bytes (truncated file?)");
    }
    if (info.end - info.begin != bytes_needed) {
      return fail(t + "data_offsets " + off->dump() + " hold " + std::to_string(info.end - info.begin) +
                  " bytes; shape " + ShapeString(info.shape) + " x " + entry->name + " needs " +
                  std::to_string(bytes_needed));
    }
    info.data = data + info.begin;
    tensors_.push_back(std::move(info));
  }
  // The tensors tile the data section exactly.
  std::sort(tensors_.begin(), tensors_.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  size_t at = 0;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const TensorInfo& ti = tensors_[i];
    if (ti.begin < at) {
      return fail("tensor \"" + ti.name + "\" [" + std::to_string(ti.begin) + ", " + std::to_string(ti.end) +
                  ") overlaps tensor \"" + tensors_[i - 1].name + "\", which ends at " + std::to_string(at));
    }
    if (ti.begin > at) {
      return fail("bytes [" + std::to_string(at) + ", " + std::to_string(ti.begin) +
                  ") of the data section belong to no tensor (before \"" + ti.name + "\")");
    }
    at = ti.end;
  }
  if (at != data_size) {
    return fail("the data section has " + std::to_string(data_size) + " bytes, the tensors end at " +
                std::to_string(at) + " (trailing bytes)");
  }
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TensorInfo& ti = tensors_[i];
    index_.emplace(ti.name, i);
    if (ti.dtype != DType::kF32) continue;
    if (reinterpret_cast<uintptr_t>(ti.data) % alignof(float) == 0) {
      ti.f32 = reinterpret_cast<const float*>(ti.data);
    } else {
      std::vector<float>& copy = aligned_copies_.emplace_back(ti.elements);
      if (ti.elements) std::memcpy(copy.data(), ti.data, ti.elements * sizeof(float));
      ti.f32 = copy.data();
    }
  }
  return true;
}

const TensorInfo* SafeTensors::Find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const float* SafeTensors::F32(std::string_view name, std::span<const size_t> shape, std::string* error) const {
  const TensorInfo* t = Find(name);
  const std::string n = what_ + ": tensor \"" + std::string(name) + "\"";
  if (!t) {
    Fail(error, n + " is missing");
    return nullptr;
  }
  if (t->dtype != DType::kF32) {
    Fail(error, n + " is " + DTypeName(t->dtype) + ", not F32");
    return nullptr;
  }
  if (!std::equal(t->shape.begin(), t->shape.end(), shape.begin(), shape.end())) {
    Fail(error, n + " has shape " + ShapeString(t->shape) + ", not " + ShapeString(shape));
    return nullptr;
  }
  // A tensor of no elements has no bytes to point to; any non-null pointer serves.
  static const float kEmpty = 0.0f;
  return t->elements ? t->f32 : &kEmpty;
}

}  // namespace vlak::models
