#include "lab/ops.h"

#include <cmath>
#if defined(__linux__)
#include <sched.h>
#endif
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <random>
#include <atomic>
#include <algorithm>
#include <limits>

#include "lab/gomp.h"
#include "vlak/vlak.h"

namespace vlak::lab {

std::string Shape::Text() const {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

size_t Shape::Elements() const {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return n;
}

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF64: return 8;
    case DType::kI32: return 4;
    case DType::kI8: return 1;
    case DType::kU8: return 1;
  }
  return 1;
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kF64: return "f64";
    case DType::kI32: return "i32";
    case DType::kI8: return "i8";
    case DType::kU8: return "u8";
  }
  return "?";
}

size_t TensorSpec::Elements() const {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return n;
}

std::string TensorSpec::Text() const {
  std::string s = name + " " + DTypeName(dtype) + " ";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

// Every tensor's data starts kPageOffset bytes into a 4 KiB page. Where one buffer lies against
// another modulo 4 KiB moves a memory-bound kernel by 10-20 % on x86 (a load waits on an older
// store whose address matches in its low 12 bits: docs/lab.md, "Buffers"), and a heap's offsets
// change with what was allocated before, case to case and run to run. A fixed layout makes a case
// read the same in every run. 64 is where glibc's aligned_alloc(64, n) puts a buffer it maps whole,
// so a user's two large tensors usually meet the same layout.
constexpr size_t kPage = 4096, kPageOffset = 64;

void Tensor::Free::operator()(void* p) const { std::free(static_cast<char*>(p) - kPageOffset); }

Tensor::Tensor(TensorSpec spec) : spec_(std::move(spec)) {
  // aligned_alloc wants a multiple of the alignment; the offset's bytes come first.
  const size_t bytes = (spec_.Bytes() + kPageOffset + kPage - 1) / kPage * kPage;
  void* p = std::aligned_alloc(kPage, bytes);
  if (p == nullptr) {
    std::fprintf(stderr, "vlak lab: out of memory for %s (%zu bytes)\n", spec_.Text().c_str(), bytes);
    std::abort();
  }
  std::memset(p, 0, bytes);
  data_.reset(static_cast<char*>(p) + kPageOffset);
}

void* Tensor::Check(DType want) {
  if (want != spec_.dtype) {
    std::fprintf(stderr, "vlak lab: tensor %s read as %s\n", spec_.Text().c_str(), DTypeName(want));
    std::abort();
  }
  return data_.get();
}

void Tensor::Poison() {
  if (!data_) return;
  if (spec_.dtype == DType::kF32) {
    std::fill(F32(), F32() + Elements(), std::numeric_limits<float>::quiet_NaN());
  } else if (spec_.dtype == DType::kF64) {
    std::fill(Data<double>(), Data<double>() + Elements(), std::numeric_limits<double>::quiet_NaN());
  } else {
    std::memset(data_.get(), 0xA5, Bytes());
  }
}

Tensor& Problem::AddInput(const std::string& name, std::vector<size_t> dims, DType t) {
  inputs.emplace_back(TensorSpec{name, t, std::move(dims)});
  return inputs.back();
}

std::vector<double>& Problem::AddOutput(const std::string& name, std::vector<size_t> dims, DType t) {
  outputs.push_back(TensorSpec{name, t, std::move(dims)});
  ref.emplace_back(outputs.back().Elements());
  scale.emplace_back();
  return ref.back();
}

Problem::ScaledRef Problem::AddScaledOutput(const std::string& name, std::vector<size_t> dims) {
  std::vector<double>& r = AddOutput(name, std::move(dims));
  scale.back().resize(r.size());
  return {r.data(), scale.back().data()};
}

Outputs Problem::MakeOutputs() const {
  Outputs out;
  for (const auto& s : outputs) out.emplace_back(s);
  return out;
}

size_t Problem::InputBytes() const {
  size_t n = 0;
  for (const auto& t : inputs) n += t.Bytes();
  return n;
}

size_t Problem::OutputBytes() const {
  size_t n = 0;
  for (const auto& s : outputs) n += s.Bytes();
  return n;
}

bool ParseDims(const std::string& text, std::vector<size_t>* dims, std::string* err) {
  dims->clear();
  size_t p = 0;
  while (p <= text.size()) {
    const size_t x = text.find('x', p);
    const std::string part = text.substr(p, x == std::string::npos ? std::string::npos : x - p);
    char* end = nullptr;
    const unsigned long long v = part.empty() ? 0 : std::strtoull(part.c_str(), &end, 10);
    unsigned long long mult = 1;
    if (end && *end == 'K' && end[1] == '\0') mult = 1024, ++end;
    else if (end && *end == 'M' && end[1] == '\0') mult = 1024 * 1024, ++end;
    if (part.empty() || end == nullptr || *end != '\0' || v == 0 || part[0] == '-' || part[0] == '+') {
      *err = "bad shape '" + text + "' (dims are positive integers joined by x, e.g. 256x2048 or 1M)";
      return false;
    }
    dims->push_back(static_cast<size_t>(v * mult));
    if (x == std::string::npos) break;
    p = x + 1;
  }
  return true;
}

const ImplDef* OpDef::Find(const std::string& impl) const {
  for (const auto& i : impls) if (i.name == impl) return &i;
  return nullptr;
}

std::string OpDef::ImplNames() const {
  std::string s;
  for (const auto& i : impls) s += (s.empty() ? "" : " ") + i.name;
  return s;
}

#define VLAK_LAB_OPS(name) std::vector<OpDef> LabOps_##name();
#include "lab_registry.inc"
#undef VLAK_LAB_OPS

const std::vector<OpDef>& Operators() {
  static const std::vector<OpDef> ops = [] {
    std::vector<OpDef> v;
#define VLAK_LAB_OPS(name) \
  for (OpDef& o : LabOps_##name()) v.push_back(std::move(o));
#include "lab_registry.inc"
#undef VLAK_LAB_OPS
    std::sort(v.begin(), v.end(), [](const OpDef& a, const OpDef& b) { return a.name < b.name; });
    return v;
  }();
  return ops;
}

const OpDef* FindOp(const std::string& name) {
  for (const auto& op : Operators()) if (op.name == name) return &op;
  return nullptr;
}

std::string OpNames() {
  std::string s;
  for (const auto& op : Operators()) s += (s.empty() ? "" : " ") + op.name;
  return s;
}

ImplDef LibraryImpl(std::string name, std::string description, std::function<std::string()> unavailable) {
  ImplDef d;
  d.name = std::move(name);
  d.kind = "library";
  d.description = std::move(description);
  d.unavailable = std::move(unavailable);
  return d;
}

OpDef NewOp(std::string name, std::string shape_syntax, std::string size_label, std::string bytes_formula) {
  OpDef op;
  op.name = std::move(name);
  op.shape_syntax = std::move(shape_syntax);
  op.size_label = std::move(size_label);
  op.bytes_formula = std::move(bytes_formula);
  return op;
}

OpDef ReadWriteF32Op(std::string name, std::string shape_syntax, std::string size_label, size_t rank,
                     std::string message) {
  OpDef op = NewOp(std::move(name), std::move(shape_syntax), std::move(size_label), "8 bytes/element (read x, write y)");
  op.check_shape = ShapeRule({rank}, std::move(message));
  op.bytes_per_run = BytesPerElement(8.0);
  return op;
}

std::function<bool(const std::vector<size_t>& dims, std::string* err)> ShapeRule(
    std::vector<size_t> ranks, std::string message, std::function<bool(const std::vector<size_t>& dims)> also) {
  return [ranks = std::move(ranks), message = std::move(message), also = std::move(also)](
             const std::vector<size_t>& dims, std::string* err) {
    if (std::find(ranks.begin(), ranks.end(), dims.size()) != ranks.end() && (!also || also(dims))) return true;
    *err = message;
    return false;
  };
}

std::function<double(const Shape&)> BytesPerElement(double bytes) {
  return [bytes](const Shape& s) { return bytes * static_cast<double>(s.Elements()); };
}

std::function<std::string(double bound)> BoundFormat(std::string format) {
  return [format = std::move(format)](double b) {
    char buf[96];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    std::snprintf(buf, sizeof buf, format.c_str(), b, b);  // an argument the format does not use is ignored
#pragma GCC diagnostic pop
    return std::string(buf);
  };
}

void OpDef::AddImpls(std::vector<ImplDef> more) {
  for (ImplDef& d : more) impls.push_back(std::move(d));
}

int CpuCount() {
#if defined(__linux__)
  // The CPUs this process may run on (taskset, a container's cpuset), as vlak's default counts
  // them; hardware_concurrency() counts every online CPU of the machine.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void ParallelBlocks(int threads, size_t count, const std::function<void(size_t, size_t)>& fn) {
  if (threads <= 1 || count <= 1) {
    fn(0, count);
    return;
  }
  const size_t t = static_cast<size_t>(threads) < count ? static_cast<size_t>(threads) : count;
  RunOnThreads(static_cast<int>(t), [&](int i) {
    const size_t b = static_cast<size_t>(i);
    fn(count * b / t, count * (b + 1) / t);
  });
}

int DefaultVlakTarget() {
  // Read once, before the runner forces anything: what a user of the library gets.
  static const int t = static_cast<int>(vlak_active_target());
  return t;
}

namespace {

// Error statistics of outputs against their float64 reference, element by element: max abs, max
// rel where |ref| >= a floor, the outputs that are not finite, and the sums behind the SNR.
struct ErrorStats {
  Accuracy a;
  double sig = 0, noise = 0;

  // Adds output v against reference r; returns |v - r|, or NaN where v is not finite (which makes
  // max rel, max abs and the noise infinite).
  double Add(double r, double v, double rel_floor) {
    if (!std::isfinite(v)) {
      ++a.nonfinite;
      a.max_rel = a.max_abs = INFINITY;
      noise = INFINITY;
      return NAN;
    }
    const double d = std::fabs(v - r);
    a.max_abs = std::fmax(a.max_abs, d);
    if (std::fabs(r) >= rel_floor) a.max_rel = std::fmax(a.max_rel, d / std::fabs(r));
    sig += r * r;
    noise += d * d;
    return d;
  }

  // The accuracy, with its SNR (infinite for an exact result).
  Accuracy Done() {
    a.snr_db = noise == 0 ? INFINITY : 10.0 * std::log10(sig / noise);
    return a;
  }
};

}  // namespace

Accuracy ElementwiseAccuracy(const std::vector<double>& ref, const float* y, double rel_floor) {
  ErrorStats e;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isfinite(ref[i])) e.Add(ref[i], y[i], rel_floor);  // special values are the tests' business, not the lab's
  }
  return e.Done();
}

Accuracy Int8Accuracy(const Problem& p, const Outputs& out, double bound) {
  const std::vector<double>& ref = p.ref[0];
  const int8_t* y = out[0].Data<int8_t>();
  ErrorStats e;
  for (size_t i = 0; i < ref.size(); ++i) e.Add(ref[i], y[i], INFINITY);  // max rel: from max abs, below
  Accuracy a = e.Done();
  a.max_rel = a.max_abs / 128.0;
  if (!std::isnan(bound)) a.bound_ok = a.max_abs <= bound ? 1 : 0;
  return a;
}

Accuracy OutputsAccuracy(const Problem& p, const Outputs& out, double bound, double rel_floor_frac) {
  ErrorStats e;
  bool scaled = false, ok = true;
  double max_scaled = 0;
  for (size_t o = 0; o < p.outputs.size() && o < out.size(); ++o) {
    if (out[o].dtype() != DType::kF32) continue;
    const std::vector<double>& ref = p.ref[o];
    const float* y = out[o].F32();
    double peak = 0;
    for (double r : ref) if (std::isfinite(r)) peak = std::fmax(peak, std::fabs(r));
    const double floor = std::fmax(rel_floor_frac * peak, 1e-300);
    const std::vector<float>& sc = p.scale[o];
    if (!sc.empty()) scaled = true;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (!std::isfinite(ref[i])) continue;  // special values are the tests' business
      const double d = e.Add(ref[i], y[i], floor);
      if (std::isnan(d)) {  // an output that is not finite
        ok = false;
        max_scaled = INFINITY;
        continue;
      }
      if (!sc.empty()) {
        const double s = sc[i];
        // A zero scale allows no error at all (e.g. a rope output whose inputs are all zero).
        const double q = s > 0 ? d / s : (d == 0 ? 0.0 : INFINITY);
        max_scaled = std::fmax(max_scaled, q);
        if (!std::isnan(bound) && !(d <= bound * s)) ok = false;
      }
    }
  }
  Accuracy a = e.Done();
  if (scaled) a.max_scaled = max_scaled;
  if (!std::isnan(bound)) a.bound_ok = ok && a.nonfinite == 0 ? 1 : 0;
  return a;
}

std::string TargetMissing(int target) {
  const auto t = static_cast<vlak_target>(target);
  if (!vlak_target_compiled(t)) return std::string("not compiled in (") + vlak_target_name(t) + ")";
  if (!vlak_target_supported(t)) return std::string("CPU lacks ") + vlak_target_name(t);
  return "";
}

bool ParallelOk(int threads, size_t count, const std::function<bool(size_t, size_t)>& fn) {
  std::atomic<bool> ok{true};
  ParallelBlocks(threads, count, [&](size_t b, size_t e) {
    if (e > b && !fn(b, e)) ok = false;
  });
  return ok;
}

ImplDef VlakImpl(const std::string& name, int target, const std::string& what, double bound,
               std::function<std::string()> missing, VlakRun run) {
  ImplDef d;
  d.name = name;
  d.kind = "vlak";
  d.description = what;
  d.bound = bound;
  d.unavailable = [target, missing] {
    const std::string m = missing ? missing() : std::string();
    if (!m.empty() || target < 0) return m;
    return TargetMissing(target);
  };
  d.prepare = [target, run](const Problem& p, Outputs& out, int threads, std::string*) {
    Prepared pr;
    const auto t = static_cast<vlak_target>(target < 0 ? DefaultVlakTarget() : target);
    pr.target = vlak_target_name(t);
    pr.select = [t, threads] {
      vlak_set_target(t);
      vlak_set_num_threads(threads);
    };
    pr.run = [&p, &out, run] { return run(p, out); };
    return pr;
  };
  return d;
}

std::vector<ImplDef> VlakTargetImpls(const std::string& what, double bound, std::function<std::string()> missing,
                                     VlakRun run) {
  std::vector<ImplDef> v;
  v.push_back(VlakImpl("vlak", -1, what + " on the target the library picks", bound, missing, run));
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    const auto target = static_cast<vlak_target>(t);
    if (!vlak_target_compiled(target)) continue;
    v.push_back(VlakImpl(std::string("vlak@") + vlak_target_name(target), t,
                       what + " forced to " + vlak_target_name(target), bound, missing, run));
  }
  return v;
}

void SetRowsColsShape(OpDef* op) {
  op->shape_syntax = "ROWSxCOLS (e.g. 1151x8192)";
  op->size_label = "cols";
  op->check_shape = [name = op->name](const std::vector<size_t>& dims, std::string* err) {
    if (dims.size() == 2) return true;
    *err = name + " shapes are ROWSxCOLS (e.g. 1151x8192)";
    return false;
  };
}

OpDef RowsColsOp(std::string name, std::string bytes_formula, double per_element, double per_col, double per_row) {
  OpDef op;
  op.name = std::move(name);
  SetRowsColsShape(&op);
  op.bytes_formula = std::move(bytes_formula);
  op.bytes_per_run = [per_element, per_col, per_row](const Shape& s) {
    return per_element * static_cast<double>(s.Elements()) + per_col * static_cast<double>(s.dims[1]) +
           per_row * static_cast<double>(s.dims[0]);
  };
  return op;
}

NormInputs AddNormInputs(Problem* p) {
  const size_t rows = RowsOf(*p), cols = ColsOf(*p);
  float* x = p->AddInput("x", {rows, cols}).F32();
  float* gamma = p->AddInput("gamma", {cols}).F32();
  FillUniform(x, rows * cols, -2.0f, 2.0f, 1);
  FillUniform(gamma, cols, 0.5f, 1.5f, 3);
  return {x, gamma};
}

std::vector<ImplDef> RowsVlakImpls(const std::string& what, double bound, RowsVlakCall call) {
  return VlakTargetImpls(what, bound, Available,
                         [call](const Problem& p, Outputs& out) { return call(p, out, RowsOf(p), ColsOf(p)); });
}

bool RowBlocks(int threads, const Problem& p, const std::function<void(size_t r0, size_t r1)>& fn) {
  return ParallelOk(threads, RowsOf(p), [&](size_t r0, size_t r1) {
    fn(r0, r1);
    return true;
  });
}

void FillUniform(float* p, size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (size_t i = 0; i < n; ++i) p[i] = u(rng);
}

ImplDef PlainImpl(const std::string& name, const std::string& kind, const std::string& what,
                  std::function<std::string()> missing, PlainRun run) {
  ImplDef d;
  d.name = name;
  d.kind = kind;
  d.description = what;
  if (missing) d.unavailable = std::move(missing);
  d.prepare = [run](const Problem& p, Outputs& out, int threads, std::string*) {
    Prepared pr;
    pr.run = [&p, &out, threads, run] { return run(p, out, threads); };
    return pr;
  };
  return d;
}

}  // namespace vlak::lab
