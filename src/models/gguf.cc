#include "models/gguf.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

static_assert(std::endian::native == std::endian::little, "GGUF data is little-endian");

namespace vlak::models {
namespace {

struct TypeEntry {
  uint32_t id;
  const char* name;
  uint32_t block, bytes;
};
// Block sizes and bytes per block, as ggml's type traits (QK_K = 256 for the k-quants).
constexpr TypeEntry kTypes[] = {
    {0, "F32", 1, 4},          {1, "F16", 1, 2},           {2, "Q4_0", 32, 18},       {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},       {7, "Q5_1", 32, 24},        {8, "Q8_0", 32, 34},       {9, "Q8_1", 32, 36},
    {10, "Q2_K", 256, 84},     {11, "Q3_K", 256, 110},     {12, "Q4_K", 256, 144},    {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},    {15, "Q8_K", 256, 292},     {16, "IQ2_XXS", 256, 66},  {17, "IQ2_XS", 256, 74},
    {18, "IQ3_XXS", 256, 98},  {19, "IQ1_S", 256, 50},     {20, "IQ4_NL", 32, 18},    {21, "IQ3_S", 256, 110},
    {22, "IQ2_S", 256, 82},    {23, "IQ4_XS", 256, 136},   {24, "I8", 1, 1},          {25, "I16", 1, 2},
    {26, "I32", 1, 4},         {27, "I64", 1, 8},          {28, "F64", 1, 8},         {29, "IQ1_M", 256, 56},
    {30, "BF16", 1, 2},        {34, "TQ1_0", 256, 54},     {35, "TQ2_0", 256, 66},    {39, "MXFP4", 32, 17},
    {40, "NVFP4", 64, 36},     {41, "Q1_0", 128, 18},      {42, "Q2_0", 64, 18},
};

const TypeEntry* FindType(uint32_t id) {
  for (const TypeEntry& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

// Bytes of a scalar value type; 0 for string and array.
size_t ScalarSize(GgufType t) {
  switch (t) {
    case GgufType::kU8: case GgufType::kI8: case GgufType::kBool: return 1;
    case GgufType::kU16: case GgufType::kI16: return 2;
    case GgufType::kU32: case GgufType::kI32: case GgufType::kF32: return 4;
    case GgufType::kU64: case GgufType::kI64: case GgufType::kF64: return 8;
    default: return 0;
  }
}

bool KnownValueType(uint32_t t) { return t <= static_cast<uint32_t>(GgufType::kF64); }

bool IsInteger(GgufType t) {
  switch (t) {
    case GgufType::kU8: case GgufType::kI8: case GgufType::kU16: case GgufType::kI16: case GgufType::kU32:
    case GgufType::kI32: case GgufType::kU64: case GgufType::kI64: return true;
    default: return false;
  }
}
bool IsSigned(GgufType t) {
  return t == GgufType::kI8 || t == GgufType::kI16 || t == GgufType::kI32 || t == GgufType::kI64;
}

// A scalar of type t at p (t is a scalar type): into v's u / i / f.
void DecodeScalar(GgufType t, const uint8_t* p, GgufValue* v) {
  switch (t) {
    case GgufType::kU8: case GgufType::kBool: v->u = p[0]; break;
    case GgufType::kI8: v->i = static_cast<int8_t>(p[0]); break;
    case GgufType::kU16: { uint16_t x; std::memcpy(&x, p, 2); v->u = x; break; }
    case GgufType::kI16: { int16_t x; std::memcpy(&x, p, 2); v->i = x; break; }
    case GgufType::kU32: { uint32_t x; std::memcpy(&x, p, 4); v->u = x; break; }
    case GgufType::kI32: { int32_t x; std::memcpy(&x, p, 4); v->i = x; break; }
    case GgufType::kU64: { uint64_t x; std::memcpy(&x, p, 8); v->u = x; break; }
    case GgufType::kI64: { int64_t x; std::memcpy(&x, p, 8); v->i = x; break; }
    case GgufType::kF32: { float x; std::memcpy(&x, p, 4); v->f = x; break; }
    case GgufType::kF64: { double x; std::memcpy(&x, p, 8); v->f = x; break; }
    default: break;
  }
}

// A bounds-checked cursor over the file.
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  size_t pos() const { return pos_; }
  size_t left() const { return n_ - pos_; }
  const uint8_t* at() const { return p_ + pos_; }
  bool Skip(size_t k) {
    if (k > left()) return false;
    pos_ += k;
    return true;
  }
  template <typename T>
  bool Read(T* out) {
    if (sizeof(T) > left()) return false;
    std::memcpy(out, p_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  // A u64 length and that many bytes. *why says which part is missing.
  bool String(std::string_view* out, std::string* why) {
    uint64_t len = 0;
    if (!Read(&len)) {
      *why = "truncated: the string's 8-byte length is cut off at byte " + std::to_string(pos_);
      return false;
    }
    if (len > left()) {
      *why = "string of " + std::to_string(len) + " bytes at byte " + std::to_string(pos_ - 8) +
             " is longer than the " + std::to_string(left()) + " bytes left in the file";
      return false;
    }
    *out = std::string_view(reinterpret_cast<const char*>(p_ + pos_), static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
    return true;
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 80)) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  if (s.size() > 80) out += "...";
  return out + "\"";
}

}  // namespace

bool GgmlTypeSize(uint32_t id, uint32_t* block, uint32_t* bytes) {
  const TypeEntry* t = FindType(id);
  if (!t) return false;
  *block = t->block;
  *bytes = t->bytes;
  return true;
}

std::string GgmlTypeName(uint32_t id) {
  const TypeEntry* t = FindType(id);
  return t ? std::string(t->name) : "type " + std::to_string(id);
}

const char* GgufTypeName(GgufType t) {
  static const char* const kNames[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32",
                                       "bool", "string", "array", "u64", "i64", "f64"};
  const uint32_t i = static_cast<uint32_t>(t);
  return i < 13 ? kNames[i] : "unknown";
}

std::string NeString(std::span<const uint64_t> ne) {
  std::string s = "[";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "]";
}

Gguf::Gguf() = default;
Gguf::~Gguf() { Reset(); }
Gguf::Gguf(Gguf&& other) noexcept { *this = std::move(other); }
Gguf& Gguf::operator=(Gguf&& other) noexcept {
  if (this != &other) {
    Reset();
    what_ = std::move(other.what_);
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    version_ = other.version_;
    alignment_ = other.alignment_;
    data_offset_ = other.data_offset_;
    kv_ = std::move(other.kv_);
    kv_index_ = std::move(other.kv_index_);
    tensors_ = std::move(other.tensors_);
    tensor_index_ = std::move(other.tensor_index_);
    other.Reset();
  }
  return *this;
}

void Gguf::Reset() {
  if (map_) munmap(map_, map_size_);
  map_ = nullptr;
  map_size_ = 0;
  version_ = 0;
  alignment_ = 32;
  data_offset_ = 0;
  kv_.clear();
  kv_index_.clear();
  tensors_.clear();
  tensor_index_.clear();
}

bool Gguf::Fail(std::string* error, const std::string& msg) {
  kv_.clear();
  kv_index_.clear();
  tensors_.clear();
  tensor_index_.clear();
  if (error) *error = what_ + ": " + msg;
  return false;
}

bool Gguf::Open(const std::string& path, std::string* error) {
  Reset();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string why = S_ISDIR(st.st_mode) ? "a directory" : std::strerror(errno);
    ::close(fd);
    if (error) *error = path + ": not a regular file (" + why + ")";
    return false;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size < 4) {
    ::close(fd);
    what_ = path;
    return Fail(error, "truncated: " + std::to_string(size) + " bytes, shorter than the magic \"GGUF\"");
  }
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    if (error) *error = path + ": cannot map: " + std::strerror(map_errno);
    return false;
  }
  if (!Parse(static_cast<const uint8_t*>(p), size, error, path)) {
    munmap(p, size);
    return false;
  }
  map_ = p;
  map_size_ = size;
  return true;
}

bool Gguf::Parse(const uint8_t* bytes, size_t size, std::string* error, const std::string& what) {
  Reset();
  what_ = what;
  Reader r(bytes, size);
  std::string why;

  // Header.
  char magic[4];
  if (!r.Read(&magic)) return Fail(error, "truncated: " + std::to_string(size) + " bytes, shorter than the magic \"GGUF\"");
  if (std::memcmp(magic, "GGUF", 4) != 0)
    return Fail(error, "bad magic " + Quote(std::string_view(magic, 4)) + ", expected \"GGUF\"");
  uint32_t version = 0;
  if (!r.Read(&version)) return Fail(error, "truncated: the header's version is cut off");
  if (version == 1) return Fail(error, "GGUF version 1 is not supported (only 2 and 3)");
  if ((version & 0xFFFF) == 0 && version != 0)
    return Fail(error, "version " + std::to_string(version) + " looks byte-swapped: a big-endian file? (only little-endian 2 and 3)");
  if (version != 2 && version != 3) return Fail(error, "unsupported GGUF version " + std::to_string(version) + " (only 2 and 3)");
  version_ = version;
  uint64_t n_tensors = 0, n_kv = 0;
  if (!r.Read(&n_tensors)) return Fail(error, "truncated: the header's tensor count is cut off");
  if (!r.Read(&n_kv)) return Fail(error, "truncated: the header's metadata count is cut off");
  // Each metadata entry takes at least 13 bytes (key length, 1 byte of key, type), each tensor
  // info at least 24 (name length, n_dims, type, offset): larger counts cannot fit.
  if (n_kv > r.left() / 13)
    return Fail(error, "metadata count " + std::to_string(n_kv) + " cannot fit in the " + std::to_string(r.left()) + " bytes left");
  if (n_tensors > r.left() / 24)
    return Fail(error, "tensor count " + std::to_string(n_tensors) + " cannot fit in the " + std::to_string(r.left()) + " bytes left");

  // Metadata.
  // Counts come from the file: reserve no more than a small file could need, grow beyond that.
  kv_.reserve(static_cast<size_t>(std::min<uint64_t>(n_kv, 4096)));
  for (uint64_t k = 0; k < n_kv; ++k) {
    std::string_view key;
    if (!r.String(&key, &why)) return Fail(error, "metadata key " + std::to_string(k) + ": " + why);
    if (key.empty()) return Fail(error, "metadata key " + std::to_string(k) + " is empty");
    const std::string where = "key " + Quote(key) + ": ";
    if (kv_index_.count(key)) return Fail(error, "duplicate " + where.substr(0, where.size() - 2));
    uint32_t type_id = 0;
    if (!r.Read(&type_id)) return Fail(error, where + "truncated: the value type is cut off");
    if (!KnownValueType(type_id)) return Fail(error, where + "unknown value type " + std::to_string(type_id));
    GgufValue v;
    v.type = static_cast<GgufType>(type_id);
    if (v.type == GgufType::kString) {
      if (!r.String(&v.str, &why)) return Fail(error, where + why);
    } else if (v.type == GgufType::kArray) {
      uint32_t elem_id = 0;
      if (!r.Read(&elem_id)) return Fail(error, where + "truncated: the array's element type is cut off");
      if (!KnownValueType(elem_id)) return Fail(error, where + "array of unknown value type " + std::to_string(elem_id));
      v.elem = static_cast<GgufType>(elem_id);
      if (v.elem == GgufType::kArray) return Fail(error, where + "arrays of arrays are not supported");
      if (!r.Read(&v.count)) return Fail(error, where + "truncated: the array's length is cut off");
      if (v.elem == GgufType::kString) {
        if (v.count > r.left() / 8)
          return Fail(error, where + "array of " + std::to_string(v.count) + " strings cannot fit in the " +
                                 std::to_string(r.left()) + " bytes left");
        v.strings.reserve(static_cast<size_t>(std::min<uint64_t>(v.count, 65536)));
        for (uint64_t j = 0; j < v.count; ++j) {
          std::string_view e;
          if (!r.String(&e, &why)) return Fail(error, where + "element " + std::to_string(j) + ": " + why);
          v.strings.push_back(e);
        }
      } else {
        const size_t es = ScalarSize(v.elem);
        if (v.count > r.left() / es)
          return Fail(error, where + "truncated: array of " + std::to_string(v.count) + " " + GgufTypeName(v.elem) +
                                 " needs more than the " + std::to_string(r.left()) + " bytes left");
        v.raw = r.at();
        r.Skip(static_cast<size_t>(v.count) * es);
      }
    } else {
      const size_t es = ScalarSize(v.type);
      if (es > r.left()) return Fail(error, where + "truncated: the " + GgufTypeName(v.type) + " value is cut off");
      DecodeScalar(v.type, r.at(), &v);
      r.Skip(es);
    }
    kv_index_.emplace(key, kv_.size());
    kv_.emplace_back(key, std::move(v));
  }

  // general.alignment: a u32 power of two.
  alignment_ = 32;
  if (const GgufValue* a = Find("general.alignment")) {
    if (a->type != GgufType::kU32)
      return Fail(error, std::string("general.alignment must be u32, is ") + GgufTypeName(a->type));
    if (a->u == 0 || (a->u & (a->u - 1)) != 0)
      return Fail(error, "general.alignment " + std::to_string(a->u) + " is not a power of 2");
    alignment_ = a->u;
  }

  // Tensor infos.
  tensors_.reserve(static_cast<size_t>(std::min<uint64_t>(n_tensors, 4096)));
  for (uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensor t;
    if (!r.String(&t.name, &why)) return Fail(error, "tensor " + std::to_string(k) + ": name: " + why);
    const std::string where = "tensor " + Quote(t.name) + ": ";
    if (t.name.size() >= 64)
      return Fail(error, "tensor " + std::to_string(k) + ": name of " + std::to_string(t.name.size()) + " bytes (at most 63)");
    if (tensor_index_.count(t.name)) return Fail(error, "duplicate " + where.substr(0, where.size() - 2));
    if (!r.Read(&t.n_dims)) return Fail(error, where + "truncated: n_dims is cut off");
    if (t.n_dims > 4) return Fail(error, where + "n_dims " + std::to_string(t.n_dims) + " (at most 4)");
    uint64_t elements = 1;
    bool overflow = false;
    for (uint32_t d = 0; d < t.n_dims; ++d) {
      if (!r.Read(&t.ne[d])) return Fail(error, where + "truncated: dimension " + std::to_string(d) + " is cut off");
      if (t.ne[d] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Fail(error, where + "dimension " + std::to_string(d) + " is negative as ggml's int64");
      overflow |= __builtin_mul_overflow(elements, t.ne[d], &elements);
    }
    const std::span<const uint64_t> ne(t.ne.data(), t.n_dims);
    if (overflow || elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Fail(error, where + "shape " + NeString(ne) + " has more elements than an int64 holds");
    t.elements = elements;
    if (!r.Read(&t.type)) return Fail(error, where + "truncated: the type is cut off");
    const TypeEntry* te = FindType(t.type);
    if (!te) return Fail(error, where + "unknown ggml type " + std::to_string(t.type));
    if (t.ne[0] % te->block != 0)
      return Fail(error, where + "rows of " + std::to_string(t.ne[0]) + " elements are not a multiple of " + te->name +
                             "'s block of " + std::to_string(te->block));
    if (__builtin_mul_overflow(elements / te->block, static_cast<uint64_t>(te->bytes), &t.bytes) ||
        t.bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Fail(error, where + "shape " + NeString(ne) + " x " + te->name + " overflows a byte count");
    if (!r.Read(&t.offset)) return Fail(error, where + "truncated: the offset is cut off");
    tensor_index_.emplace(t.name, tensors_.size());
    tensors_.push_back(t);
  }

  // The data section: at the next multiple of the alignment. Each tensor starts where the one
  // before ends, rounded up to the alignment, as ggml writes (and requires) them.
  uint64_t data_off = r.pos();
  if (data_off % alignment_) data_off += alignment_ - data_off % alignment_;
  if (!tensors_.empty() && data_off > size)
    return Fail(error, "truncated: the data section starts at byte " + std::to_string(data_off) + ", past the file's " +
                           std::to_string(size));
  data_offset_ = data_off;
  const uint64_t data_size = data_off <= size ? size - data_off : 0;
  uint64_t expected = 0;
  for (GgufTensor& t : tensors_) {
    const std::string where = "tensor " + Quote(t.name) + ": ";
    if (t.offset != expected) {
      std::string msg = where + "offset " + std::to_string(t.offset) + ", expected " + std::to_string(expected);
      if (t.offset % alignment_) msg += " (and not a multiple of the alignment " + std::to_string(alignment_) + ")";
      return Fail(error, msg);
    }
    if (t.offset > data_size || t.bytes > data_size - t.offset)
      return Fail(error, where + "truncated: " + std::to_string(t.bytes) + " bytes at data offset " + std::to_string(t.offset) +
                             " run past the end of the file (data section of " + std::to_string(data_size) + " bytes)");
    t.data = bytes + data_off + t.offset;
    uint64_t end = t.offset + t.bytes;
    if (end % alignment_) {
      const uint64_t pad = alignment_ - end % alignment_;
      if (end > std::numeric_limits<uint64_t>::max() - pad)
        return Fail(error, where + "the padded end overflows");
      end += pad;
    }
    expected = end;
  }
  return true;
}

const GgufValue* Gguf::Find(std::string_view key) const {
  auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kv_[it->second].second;
}

const GgufTensor* Gguf::FindTensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

namespace {

bool Missing(const std::string& what, std::string_view key, std::string* error) {
  if (error) *error = what + ": no metadata key " + Quote(key);
  return false;
}
bool WrongType(const std::string& what, std::string_view key, const GgufValue& v, const char* want, std::string* error) {
  if (error) {
    std::string got = GgufTypeName(v.type);
    if (v.type == GgufType::kArray) got += std::string(" of ") + GgufTypeName(v.elem);
    *error = what + ": metadata key " + Quote(key) + " is " + got + ", expected " + want;
  }
  return false;
}

// An integer value within [lo, hi], as int64 or uint64 bounds.
bool IntIn(const GgufValue& v, int64_t lo, uint64_t hi, int64_t* si, uint64_t* ui) {
  if (IsSigned(v.type) || v.type == GgufType::kBool) {
    const int64_t x = IsSigned(v.type) ? v.i : static_cast<int64_t>(v.u);
    if (x < lo || (x >= 0 && static_cast<uint64_t>(x) > hi)) return false;
    *si = x;
    *ui = static_cast<uint64_t>(x);
    return true;
  }
  if (v.u > hi) return false;
  *ui = v.u;
  *si = static_cast<int64_t>(v.u);
  return true;
}

// The integer getters: v of any integer type whose value T holds, into *out; else false with
// *error naming the key (`want` names T).
template <class T>
bool GetInt(const GgufValue* v, const std::string& what, std::string_view key, const char* want, T* out,
            std::string* error) {
  if (!v) return Missing(what, key, error);
  int64_t si;
  uint64_t ui;
  if (!IsInteger(v->type) || !IntIn(*v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), &si, &ui)) {
    return WrongType(what, key, *v, want, error);
  }
  *out = std::is_signed_v<T> ? static_cast<T>(si) : static_cast<T>(ui);
  return true;
}

}  // namespace

bool Gguf::GetU32(std::string_view key, uint32_t* out, std::string* error) const {
  return GetInt(Find(key), what_, key, "a u32", out, error);
}

bool Gguf::GetI32(std::string_view key, int32_t* out, std::string* error) const {
  return GetInt(Find(key), what_, key, "an i32", out, error);
}

bool Gguf::GetU64(std::string_view key, uint64_t* out, std::string* error) const {
  return GetInt(Find(key), what_, key, "a u64", out, error);
}

bool Gguf::GetF32(std::string_view key, float* out, std::string* error) const {
  const GgufValue* v = Find(key);
  if (!v) return Missing(what_, key, error);
  if (v->type != GgufType::kF32 && v->type != GgufType::kF64) return WrongType(what_, key, *v, "f32", error);
  *out = static_cast<float>(v->f);
  return true;
}

bool Gguf::GetBool(std::string_view key, bool* out, std::string* error) const {
  const GgufValue* v = Find(key);
  if (!v) return Missing(what_, key, error);
  if (v->type != GgufType::kBool) return WrongType(what_, key, *v, "bool", error);
  *out = v->u != 0;
  return true;
}

bool Gguf::GetString(std::string_view key, std::string_view* out, std::string* error) const {
  const GgufValue* v = Find(key);
  if (!v) return Missing(what_, key, error);
  if (v->type != GgufType::kString) return WrongType(what_, key, *v, "string", error);
  *out = v->str;
  return true;
}

bool Gguf::GetStringArray(std::string_view key, std::vector<std::string_view>* out, std::string* error) const {
  const GgufValue* v = Find(key);
  if (!v) return Missing(what_, key, error);
  if (v->type != GgufType::kArray || v->elem != GgufType::kString) return WrongType(what_, key, *v, "array of string", error);
  *out = v->strings;
  return true;
}

bool Gguf::GetI32Array(std::string_view key, std::vector<int32_t>* out, std::string* error) const {
  const GgufValue* v = Find(key);
  if (!v) return Missing(what_, key, error);
  if (v->type != GgufType::kArray || (v->elem != GgufType::kI32 && v->elem != GgufType::kU32))
    return WrongType(what_, key, *v, "array of i32", error);
  out->resize(static_cast<size_t>(v->count));
  if (v->count) std::memcpy(out->data(), v->raw, static_cast<size_t>(v->count) * 4);
  if (v->elem == GgufType::kU32)
    for (size_t i = 0; i < out->size(); ++i)
      if ((*out)[i] < 0) {
        out->clear();
        if (error) *error = what_ + ": metadata key " + Quote(key) + ": element " + std::to_string(i) + " is past INT32_MAX";
        return false;
      }
  return true;
}

bool Gguf::GetF32Array(std::string_view key, std::vector<float>* out, std::string* error) const {
  const GgufValue* v = Find(key);
  if (!v) return Missing(what_, key, error);
  if (v->type != GgufType::kArray || v->elem != GgufType::kF32) return WrongType(what_, key, *v, "array of f32", error);
  out->resize(static_cast<size_t>(v->count));
  if (v->count) std::memcpy(out->data(), v->raw, static_cast<size_t>(v->count) * 4);
  return true;
}

const GgufTensor* Gguf::Tensor(std::string_view name, GgmlType type, std::span<const uint64_t> ne, std::string* error) const {
  const GgufTensor* t = FindTensor(name);
  const std::string where = what_ + ": tensor " + Quote(name);
  if (!t) {
    if (error) *error = where + " is missing";
    return nullptr;
  }
  if (t->type != static_cast<uint32_t>(type)) {
    if (error) *error = where + " is " + GgmlTypeName(t->type) + ", expected " + GgmlTypeName(static_cast<uint32_t>(type));
    return nullptr;
  }
  const std::span<const uint64_t> have(t->ne.data(), t->n_dims);
  if (ne.size() != have.size() || !std::equal(ne.begin(), ne.end(), have.begin())) {
    if (error) *error = where + " has shape " + NeString(have) + ", expected " + NeString(ne);
    return nullptr;
  }
  return t;
}

const float* Gguf::F32(std::string_view name, std::span<const uint64_t> ne, std::string* error) const {
  const GgufTensor* t = Tensor(name, GgmlType::kF32, ne, error);
  if (!t) return nullptr;
  if (reinterpret_cast<uintptr_t>(t->data) % alignof(float) != 0) {
    if (error) *error = what_ + ": tensor " + Quote(name) + ": data not 4-byte aligned in memory";
    return nullptr;
  }
  return reinterpret_cast<const float*>(t->data);
}

}  // namespace vlak::models
