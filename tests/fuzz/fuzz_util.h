// Shared machinery of the differential fuzz targets (tests/fuzz/*_fuzz.cc).
//
// Each target decodes sizes, strides, flags and data from libFuzzer's bytes, runs one C entry point
// on every target this machine has (scalar, avx2, avx512; the fuzz preset is x86-only), and checks
// what vlak.h promises:
//   (a) the same status on every target, and the status the documented argument rules give;
//   (b) outputs bit-identical where vlak.h says so, else within the documented bound of the float64
//       reference, with NaN where the reference is NaN;
//   (c) nothing written on error, nothing written in the gaps between strided rows (sentinels), and
//       nothing read or written outside the buffers (each buffer is its own exact-size heap block,
//       so AddressSanitizer sees one element past its end).
// A failed check prints what differs and aborts: libFuzzer saves the input as a crash.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "vlak/vlak.h"

namespace vlak_fuzz {

// Reads little pieces of the fuzz input; past its end every read is 0 (libFuzzer then shrinks).
class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint64_t Bits(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(Byte()) << (8 * i);
    return v;
  }
  uint8_t Byte() { return n_ > 0 ? (--n_, *p_++) : 0; }
  bool Bool() { return Byte() & 1; }
  // A size in [0, max]: small sizes and sizes near max both reachable in few bytes.
  size_t Size(size_t max) { return static_cast<size_t>(Bits(2) % (max + 1)); }
  size_t remaining() const { return n_; }

 private:
  const uint8_t* p_;
  size_t n_;
};

// The special floats the seed corpora and the decoders draw from.
inline float SpecialFloat(uint8_t k) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  static const uint32_t kBits[] = {
      0x7fc00000u,  // quiet NaN
      0xffc00001u,  // negative quiet NaN with a payload
      0x7f800001u,  // signalling NaN (as stored)
      0x7fbfffffu,  // signalling NaN, largest payload
  };
  switch (k % 20) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return kInf;
    case 3: return -kInf;
    case 4: case 5: case 6: case 7: {
      float f;
      std::memcpy(&f, &kBits[k % 20 - 4], 4);
      return f;
    }
    case 8: return std::numeric_limits<float>::denorm_min();
    case 9: return -std::numeric_limits<float>::denorm_min();
    case 10: return 1.1754942e-38f;  // largest denormal
    case 11: return std::numeric_limits<float>::min();
    case 12: return std::numeric_limits<float>::max();
    case 13: return -std::numeric_limits<float>::max();
    case 14: return 1.0f;
    case 15: return -1.0f;
    case 16: return 88.72284f;   // exp overflows just above
    case 17: return -103.97208f; // exp underflows to 0 just below
    case 18: return 1e30f;
    default: return -1e-30f;
  }
}

// splitmix64: fills long buffers from a seed the input gives (a short input still reaches long
// rows; libFuzzer mutates the seed and the distribution bytes).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  uint64_t s_;
};

// Fills n floats: a distribution chosen by the input (uniform at one of several scales, with an
// optional common offset, or raw bit patterns), then up to 15 special values at chosen positions.
inline void FillFloats(Input& in, float* v, size_t n) {
  static const float kScales[] = {1.0f, 1e-3f, 30.0f, 1e4f, 1e-38f, 1e18f, 1e30f, 3e38f};
  const uint8_t mode = in.Byte();
  Rng rng(in.Bits(4) + 1);
  const float scale = kScales[mode & 7];
  const float offset = (mode & 0x30) == 0x10 ? 1e4f : (mode & 0x30) == 0x20 ? -300.0f : 0.0f;
  const bool raw = (mode & 0xC0) == 0xC0;
  for (size_t i = 0; i < n; ++i) {
    if (raw) {
      const uint32_t bits = static_cast<uint32_t>(rng.Next());
      std::memcpy(&v[i], &bits, 4);
    } else {
      v[i] = static_cast<float>((rng.Unit() * 2.0 - 1.0) * scale) + offset;
    }
  }
  const int specials = in.Byte() & 15;
  for (int s = 0; s < specials && n > 0; ++s) {
    const size_t at = static_cast<size_t>(in.Bits(2)) % n;
    v[at] = SpecialFloat(in.Byte());
  }
}

// The per-target sweep: scalar, avx2, avx512 (those this CPU runs), the default restored after.
inline std::vector<vlak_target> Targets() {
  std::vector<vlak_target> ts;
  for (int i = VLAK_TARGET_SCALAR; i <= VLAK_TARGET_RVV; ++i) {
    if (vlak_target_supported(static_cast<vlak_target>(i))) ts.push_back(static_cast<vlak_target>(i));
  }
  return ts;
}

// The decoded call, printed with a finding (each target sets it once it has decoded its input).
inline char g_call[256];
template <typename... Args>
void Describe(const char* fmt, Args... args) {
  std::snprintf(g_call, sizeof g_call, fmt, args...);
}

[[noreturn]] inline void Fail(const char* what, vlak_target t, size_t i, double got, double want) {
  std::fprintf(stderr, "vlak fuzz finding: %s\n  call: %s\n  target %s, element %zu: got %.9g, expected %.9g\n",
               what, g_call, vlak_target_name(t), i, got, want);
  std::abort();
}

inline void Check(bool ok, const char* what, vlak_target t, size_t i = 0, double got = 0, double want = 0) {
  if (!ok) Fail(what, t, i, got, want);
}

inline uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Same bits, any NaN equal to any NaN (vlak.h promises bit equality "NaN payloads aside").
inline bool SameValue(float a, float b) { return (std::isnan(a) && std::isnan(b)) || Bits(a) == Bits(b); }

// Result within bound of the reference: NaN exactly where the reference is NaN, the same infinity
// where it is infinite, else |y - ref| <= bound + tiny. An infinite y of the right sign is also right
// where |ref| + bound reaches float's overflow threshold (2^128 (1 - 2^-25): round to nearest
// gives inf from there). `tiny` is the absolute floor of float arithmetic vlak.h states: an
// operation whose result is subnormal is exact only to 2^-150, so a bound relative to magnitudes
// gets 2^-149 per operation on the path (callers pass the count; one by default).
inline bool Within(float y, double ref, double bound, double ops = 1) {
  constexpr double kOverflow = 0x1.ffffffp127;
  if (std::isnan(ref)) return std::isnan(y);
  if (std::isinf(y) && !std::isinf(ref)) return (y > 0) == (ref > 0) && std::fabs(ref) + bound >= kOverflow;
  if (std::isinf(ref)) return y == ref;
  return std::fabs(static_cast<double>(y) - ref) <= bound + ops * 0x1.0p-149;
}

// 1 + the largest index a rows x cols strided buffer touches, or 0 if the byte size of that extent
// overflows size_t (the harness never allocates those; the entry point must refuse them).
inline size_t Extent(size_t rows, size_t cols, size_t stride) {
  if (rows == 0 || cols == 0) return 0;
  const unsigned __int128 e = static_cast<unsigned __int128>(rows - 1) * stride + cols;
  if (e * sizeof(float) > SIZE_MAX) return 0;
  return static_cast<size_t>(e);
}
inline bool ExtentOverflows(size_t rows, size_t cols, size_t stride) {
  return rows != 0 && cols != 0 && Extent(rows, cols, stride) == 0;
}

// A row stride for `cols` columns: mostly dense or with a small gap, sometimes less than cols
// (invalid), sometimes so large that rows x stride overflows (invalid) — the harness allocates
// only extents below kMaxElems.
inline size_t Stride(Input& in, size_t rows, size_t cols) {
  const uint8_t k = in.Byte();
  if (k < 200) return cols + (k & 7) * (k >> 3 & 1);
  if (k < 220 && cols > 0) return cols - 1 - (k & 3) % cols;
  if (rows > 1) return SIZE_MAX / sizeof(float) / (rows - 1) + 1 + (k & 15);
  return SIZE_MAX - (k & 15);  // one row: any stride is valid, the row is all that is touched
}

// A row operator's x and y over rows x cols floats, read in this order: the shape (up to max_rows
// x max_cols), x's stride, then y in place (a byte below 64) or with a stride of its own.
struct RowsXY {
  size_t rows, cols, x_stride, y_stride;
  bool in_place;
  // A stride below cols or an extent past the address space: the call must refuse it.
  bool StrideError() const {
    return x_stride < cols || y_stride < cols || ExtentOverflows(rows, cols, x_stride) ||
           ExtentOverflows(rows, cols, y_stride);
  }
  // The buffers' extents in floats (0 where the stride is short of cols).
  size_t XElems() const { return x_stride >= cols ? Extent(rows, cols, x_stride) : 0; }
  size_t YElems() const { return y_stride >= cols ? Extent(rows, cols, y_stride) : 0; }
};
inline RowsXY ReadRowsXY(Input& in, size_t max_rows = 6, size_t max_cols = 2100) {
  RowsXY s{};
  s.rows = in.Size(max_rows);
  s.cols = in.Size(max_cols);
  s.x_stride = Stride(in, s.rows, s.cols);
  s.in_place = in.Byte() < 64;
  s.y_stride = s.in_place ? s.x_stride : Stride(in, s.rows, s.cols);
  return s;
}

inline constexpr size_t kMaxElems = size_t{1} << 20;
inline constexpr float kSentinel = -12345.678f;

// An exact-size float buffer (ASan red zone right after it), or none (nullptr) when n == 0 or the
// input asks for a NULL pointer.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t n) : n_(n), p_(n > 0 ? new float[n] : nullptr) {}
  float* data() { return p_.get(); }
  const float* data() const { return p_.get(); }
  size_t size() const { return n_; }
  float& operator[](size_t i) { return p_[i]; }
  float operator[](size_t i) const { return p_[i]; }
  void Fill(float v) { for (size_t i = 0; i < n_; ++i) p_[i] = v; }
  std::vector<float> Copy() const { return std::vector<float>(p_.get(), p_.get() + n_); }

 private:
  size_t n_ = 0;
  std::unique_ptr<float[]> p_;
};

// Restores the default target and thread count when a target returns.
struct TargetSweep {
  vlak_target saved = vlak_active_target();
  ~TargetSweep() { vlak_set_target(saved); }
};

// Every harness call runs single-threaded first (libFuzzer's own process is single-threaded);
// some inputs ask for 2 threads to cover the split (results must not depend on it where promised).
inline void SetThreads(Input& in) { vlak_set_num_threads(in.Bool() ? 2 : 1); }

// An operator target's input: read from its first byte, which sets the thread count (SetThreads);
// the default target is restored when it goes (TargetSweep).
class OpInput : public Input {
 public:
  OpInput(const uint8_t* data, size_t size) : Input(data, size) { SetThreads(*this); }

 private:
  TargetSweep sweep_;
};

// The body of a target of an int8 and a uint8 form (one corpus for both): the input's first byte
// picks the form, run(in, int8_t{}) or run(in, uint8_t{}); the default target restored after.
template <class Run>
int RunByteForms(const uint8_t* data, size_t size, Run run) {
  Input in(data, size);
  TargetSweep sweep;
  return in.Byte() & 1 ? run(in, uint8_t{}) : run(in, int8_t{});
}

// (a): the call's status is an error exactly when vlak.h's rules say so.
inline void CheckStatus(vlak_status st, bool expect_error, vlak_target t) {
  Check((st != VLAK_OK) == expect_error, "status differs from vlak.h's rules", t, 0, st, expect_error);
}

// (c): out (a Buffer or a vector of floats) still holds `before`, bit for bit.
template <class Out, class Before>
void CheckUnchanged(const Out& out, const Before& before, vlak_target t, const char* what = "written on error") {
  for (size_t i = 0; i < out.size(); ++i) Check(Bits(out[i]) == Bits(before[i]), what, t, i, out[i], before[i]);
}

// (c): an optional output filled with kSentinel still holds it.
template <class Out>
void CheckSentinels(const Out& out, vlak_target t, const char* what) {
  for (size_t i = 0; i < out.size(); ++i) Check(Bits(out[i]) == Bits(kSentinel), what, t, i, out[i], kSentinel);
}

// (a) and (c) after a call: CheckStatus; where the call failed or had nothing to do (empty), out
// unchanged. Returns whether there are results to check.
template <class Before>
bool HasResults(vlak_status st, bool expect_error, bool empty, vlak_target t, const Buffer& out, const Before& before,
                const char* what = "written on error") {
  CheckStatus(st, expect_error, t);
  if (st == VLAK_OK && !empty) return true;
  CheckUnchanged(out, before, t, what);
  return false;
}

// (c): the gap after row r (columns cols .. stride - 1) of a strided output of `rows` rows still
// holds `before`; the last row has none.
inline void CheckGap(const Buffer& out, const std::vector<float>& before, size_t r, size_t rows, size_t cols,
                     size_t stride, vlak_target t, const char* what = "gap between rows written") {
  for (size_t i = cols; r + 1 < rows && i < stride; ++i) {
    const size_t at = r * stride + i;
    Check(Bits(out[at]) == Bits(before[at]), what, t, at, out[at], before[at]);
  }
}

// (b) across targets: the first target's output is kept in `first` (empty until then); every later
// one must give the same values (SameValue: any NaN for a NaN).
inline void CheckSameAsFirst(std::vector<float>& first, const Buffer& out, vlak_target t,
                             const char* what = "targets differ (vlak.h: same bits)") {
  if (first.empty()) {
    first = out.Copy();
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) Check(SameValue(out[i], first[i]), what, t, i, out[i], first[i]);
}

// The output of one target's call: x itself, restored to x0, for an in-place call; else `own`,
// made n sentinels long.
inline Buffer& PrepareOutput(bool in_place, Buffer& x, const std::vector<float>& x0, Buffer& own, size_t n) {
  if (in_place) {
    std::copy(x0.begin(), x0.end(), x.data());
    return x;
  }
  own = Buffer(n);
  own.Fill(kSentinel);
  return own;
}

// One target's output (PrepareOutput: x itself for an in-place call, else its own n sentinels) and
// a copy of it as it was before the call, for (c)'s checks.
struct TargetOutput {
  TargetOutput(bool in_place, Buffer& x, const std::vector<float>& x0, size_t n)
      : y(PrepareOutput(in_place, x, x0, own, n)), before(y.Copy()) {}
  Buffer own;  // declared before y: PrepareOutput may return it
  Buffer& y;
  const std::vector<float> before;
};

// The rest of an elementwise call's input (y[i] = f(x[i]) over n floats: vlak_exp_f32,
// vlak_activation_f32), after the call's own parameters: in place (byte < 64), a NULL pointer
// (byte 1: x, 2: y), then x's data.
struct ElementwiseInput {
  ElementwiseInput(Input& in, size_t n) : n(n), in_place(in.Byte() < 64) {
    const uint8_t nulls = in.Byte();
    x_null = nulls == 1;
    y_null = nulls == 2;
    x = Buffer(n);
    FillFloats(in, x.data(), n);
    x0 = x.Copy();
  }
  size_t n;
  bool in_place, x_null = false, y_null = false;
  Buffer x;
  std::vector<float> x0;
};

// Runs call(x, y) (NULL where the input asks) on every target: an error status exactly when
// expect_error, and then nothing written; else check(t, i, y[i]) for every element, and the same
// result on every target, bit for bit or (nan_payloads_may_differ) any NaN for a NaN.
template <class Call, class CheckElement>
void CheckElementwise(ElementwiseInput& e, bool expect_error, bool nan_payloads_may_differ, Call call,
                      CheckElement check) {
  std::vector<float> first;
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    TargetOutput out(e.in_place, e.x, e.x0, e.n);
    Buffer& yb = out.y;
    const vlak_status st = call(e.x_null ? nullptr : (e.in_place ? yb.data() : e.x.data()), e.y_null ? nullptr : yb.data());
    if (!HasResults(st, expect_error, /*empty=*/false, t, yb, out.before)) continue;
    for (size_t i = 0; i < e.n; ++i) {
      check(t, i, yb[i]);
      if (first.empty()) continue;
      const bool same = nan_payloads_may_differ ? SameValue(yb[i], first[i]) : Bits(yb[i]) == Bits(first[i]);
      Check(same, "targets differ (vlak.h: same bits)", t, i, yb[i], first[i]);
    }
    if (first.empty()) first = yb.Copy();
  }
}

}  // namespace vlak_fuzz
