// Operators and their implementations, as the lab's runner sees them.
//
// An operator knows its shapes, the bytes a run really moves, how to make an input and its
// float64 reference, and how to judge an output; it lists its implementations (vlak on each
// target, compiler-built C, libraries). The runner knows none of this: a new operator is a new
// <name>_lab.cc in its folder (found by the build, see Operators()) plus lines in the suite files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace vlak::lab {

struct Shape {
  std::vector<size_t> dims;  // as written: "256x2048" -> {256, 2048}
  std::string Text() const;
  size_t Elements() const;
};

// "256x2048" -> {256, 2048}; every dim a positive integer (k/M suffixes allowed: 16K, 1M).
bool ParseDims(const std::string& text, std::vector<size_t>* dims, std::string* err);

// Element types of the lab's tensors.
enum class DType { kF32, kF64, kI32, kI8, kU8 };
size_t DTypeSize(DType t);
const char* DTypeName(DType t);  // "f32", ...
template <class T> constexpr DType DTypeOf();
template <> constexpr DType DTypeOf<float>() { return DType::kF32; }
template <> constexpr DType DTypeOf<double>() { return DType::kF64; }
template <> constexpr DType DTypeOf<int32_t>() { return DType::kI32; }
template <> constexpr DType DTypeOf<int8_t>() { return DType::kI8; }
template <> constexpr DType DTypeOf<uint8_t>() { return DType::kU8; }

struct TensorSpec {
  std::string name;  // "x", "gamma", "dx", "A"
  DType dtype = DType::kF32;
  std::vector<size_t> dims;
  size_t Elements() const;
  size_t Bytes() const { return Elements() * DTypeSize(dtype); }
  std::string Text() const;  // "gamma f32 8192"
};

// A dense tensor the lab owns, zero-filled, its data 64-byte aligned (a library that wants aligned
// rows gets them, and every implementation sees the same alignment). Move-only.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TensorSpec spec);
  const TensorSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  DType dtype() const { return spec_.dtype; }
  const std::vector<size_t>& dims() const { return spec_.dims; }
  size_t Elements() const { return spec_.Elements(); }
  size_t Bytes() const { return spec_.Bytes(); }
  void* Raw() { return data_.get(); }
  const void* Raw() const { return data_.get(); }
  // Typed views; asking for the wrong element type is a programming error (aborts with a message).
  template <class T> T* Data() { return static_cast<T*>(Check(DTypeOf<T>())); }
  template <class T> const T* Data() const { return static_cast<const T*>(const_cast<Tensor*>(this)->Check(DTypeOf<T>())); }
  float* F32() { return Data<float>(); }
  const float* F32() const { return Data<float>(); }
  // Fills with a value no implementation produces by accident (NaN for floats, 0xA5 bytes else).
  void Poison();

 private:
  void* Check(DType want);
  struct Free { void operator()(void* p) const; };
  TensorSpec spec_;
  std::unique_ptr<void, Free> data_;
};

using Outputs = std::vector<Tensor>;

// One case's inputs, output shapes and float64 references, shared by every implementation (and
// thread count) of the case. An operator owns any number of inputs (softmax: x; layernorm: x,
// gamma, beta; matmul: A, B) and of outputs (layernorm backward: dx, dgamma, dbeta).
struct Problem {
  Shape shape;
  std::vector<Tensor> inputs;
  std::vector<TensorSpec> outputs;
  // Per output: its float64 reference, and (optional, may be empty) the per-element error scale
  // its bound is stated in: an implementation with bound B passes when |y - ref| <= B * scale.
  std::vector<std::vector<double>> ref;
  std::vector<std::vector<float>> scale;

  const Tensor& In(size_t i) const { return inputs.at(i); }
  Tensor& AddInput(const std::string& name, std::vector<size_t> dims, DType t = DType::kF32);
  // Declares an output and returns its reference (sized to it) for the operator to fill; the
  // reference returned is valid until the next AddOutput.
  std::vector<double>& AddOutput(const std::string& name, std::vector<size_t> dims, DType t = DType::kF32);
  // An f32 output whose bound is stated per element: its reference and its scale (both sized to
  // it) for the operator to fill; valid until the next AddOutput.
  struct ScaledRef {
    double* ref;
    float* scale;
  };
  ScaledRef AddScaledOutput(const std::string& name, std::vector<size_t> dims);
  Outputs MakeOutputs() const;
  size_t InputBytes() const;
  size_t OutputBytes() const;
};

// A prepared implementation: select() is called before each timed batch, outside the timing
// (it forces the vlak target / thread count this implementation runs with); run() computes the
// outputs from the problem's inputs once and returns false on failure.
struct Prepared {
  std::function<void()> select = [] {};
  std::function<bool()> run;
  // Called when the implementation's turn ends: a runtime whose idle workers keep polling puts
  // them to sleep, so the next implementation's threads get the cores (ggml's pool polls for
  // seconds under a hypervisor that traps PAUSE). The next run wakes them.
  std::function<void()> leave = [] {};
  std::string target;  // the vlak target it runs on, "" for non-vlak code
};

struct Accuracy {
  double max_rel = 0;     // over elements whose reference is large enough to be relative to
  double max_abs = 0;
  double snr_db = 0;      // 10 log10(sum ref^2 / sum (y - ref)^2); +inf for an exact result
  size_t nonfinite = 0;   // NaN/inf outputs where the reference is finite
  int bound_ok = -1;      // 1 within the bound, 0 not, -1 no bound for this implementation
  // max |y - ref| / scale over outputs that state a scale (Problem::scale): bound_ok == 1 means
  // max_scaled <= the bound. NaN when the operator states none.
  double max_scaled = __builtin_nan("");
};

struct ImplDef {
  std::string name;
  std::string kind;         // "vlak", "compiler", "library", "libm", "seed"
  std::string description;  // one line for --list and the report
  int lmul = 0;             // LMUL the code is written for (vlak variant rows); 0 = its own choice
  // Empty when it can run here; otherwise why not, e.g. "not built (libxnnpack-dev)".
  std::function<std::string()> unavailable = [] { return std::string(); };
  // Sets up a run of the problem's inputs -> out on `threads` threads (out is allocated from
  // problem.outputs and outlives the Prepared). On failure: run is empty, *err says why.
  std::function<Prepared(const Problem&, Outputs& out, int threads, std::string* err)> prepare;
  // Accuracy bound parameter (operator-specific; NaN: not checked) and its text for the table.
  double bound = __builtin_nan("");
};

// Accuracy over all f32 outputs against Problem::ref: max rel where |ref| >= rel_floor_frac x the
// largest |ref| of that output (relative error of values near zero says nothing), max abs, one
// SNR over everything, and, with a bound (not NaN), bound_ok from Problem::scale.
Accuracy OutputsAccuracy(const Problem& p, const Outputs& out, double bound, double rel_floor_frac = 1e-3);

struct OpDef {
  std::string name;
  std::string shape_syntax;   // "ROWSxCOLS"
  std::string size_label;     // the sweep axis of the report: "cols", "n"
  std::string bytes_formula;  // "8 bytes/element: read x, write y"
  std::function<bool(const std::vector<size_t>& dims, std::string* err)> check_shape;
  std::function<double(const Shape&)> bytes_per_run;
  // Elements per run (the Melem/s and norm columns); empty: the product of the dims. Shapes whose
  // later dims are parameters (warp's REACH, resize's output size) say what they count.
  std::function<size_t(const Shape&)> elements;
  // Roofline: "memory" (bytes_per_run against the copy bandwidth of the same working set) or
  // "compute" (flops_per_run against the FMA peak) or "int8-mac" (flops_per_run counts int8
  // multiply-accumulates, against the int8 MAC peak); "" none.
  std::string roofline = "memory";
  std::function<double(const Shape&)> flops_per_run;  // empty: not flop-counted
  std::function<void(Problem*)> make_problem;  // inputs, outputs and references from shape
  // By default OutputsAccuracy with its relative floor.
  std::function<Accuracy(const Problem&, const Outputs& out, double bound)> accuracy =
      [](const Problem& p, const Outputs& out, double bound) { return OutputsAccuracy(p, out, bound); };
  std::function<std::string(double bound)> bound_text;
  std::vector<std::string> baselines;  // default --baseline order: the first one available wins
  // Tiny shapes the lab's unit tests check this operator on (float outputs): its accuracy function
  // catches a wrong element, and every implementation that runs here is within its bound.
  std::vector<std::vector<size_t>> test_dims;
  std::vector<ImplDef> impls;

  void AddImpls(std::vector<ImplDef> more);  // appended to impls, in order
  const ImplDef* Find(const std::string& impl) const;
  std::string ImplNames() const;  // "a b c" for error messages
};

// The fields every operator file sets first, in one call.
OpDef NewOp(std::string name, std::string shape_syntax, std::string size_label, std::string bytes_formula);
// A check_shape: dims whose count is one of `ranks` and that pass `also` (when given) are accepted;
// the others get *err = message.
std::function<bool(const std::vector<size_t>& dims, std::string* err)> ShapeRule(
    std::vector<size_t> ranks, std::string message, std::function<bool(const std::vector<size_t>& dims)> also = {});
// bytes_per_run of an elementwise operator: `bytes` per element of the shape.
std::function<double(const Shape&)> BytesPerElement(double bytes);
// An operator that reads x and writes y, one f32 each per element (exp, the activations, softmax):
// NewOp with "8 bytes/element (read x, write y)", shapes of `rank` dims (else *err = message), and
// BytesPerElement(8).
OpDef ReadWriteF32Op(std::string name, std::string shape_syntax, std::string size_label, size_t rank,
                     std::string message);
// A bound_text: `format` (printf) with the bound at each of its conversions (one or two).
std::function<std::string(double bound)> BoundFormat(std::string format);

const std::vector<OpDef>& Operators();
const OpDef* FindOp(const std::string& name);
std::string OpNames();

// Each <name>_lab.cc beside an operator defines std::vector<OpDef> LabOps_<name>(); lab.cmake finds
// the files and Operators() calls every one of them, the operators sorted by name.
// Shared helpers for operator files.
int CpuCount();
// Calls fn(begin, end) on `threads` threads (libgomp's: lab/gomp.h) over [0, count), in equal
// contiguous blocks.
void ParallelBlocks(int threads, size_t count, const std::function<void(size_t, size_t)>& fn);
// The vlak target the library picks by itself (VLAK_TARGET or the best), as before any forcing.
int DefaultVlakTarget();
// Accuracy over an elementwise output: rel where |ref| >= rel_floor, abs everywhere, SNR.
Accuracy ElementwiseAccuracy(const std::vector<double>& ref, const float* y, double rel_floor);

// Accuracy of the first output as int8 against Problem::ref[0]: max |y - ref| in LSB (max_rel is
// that over 128), SNR; with a bound (not NaN), bound_ok when max |y - ref| <= bound.
Accuracy Int8Accuracy(const Problem& p, const Outputs& out, double bound);

// ---- implementation helpers for op_<name>.cc -----------------------------------------------

// "" when vlak target t (a vlak_target value) runs here, else why not.
std::string TargetMissing(int target);
// An implementation's `missing` / `unavailable` where it always runs: "".
inline std::string Available() { return std::string(); }

// Runs fn(begin, end) over [0, count) on `threads` threads (ParallelBlocks); false if any failed.
bool ParallelOk(int threads, size_t count, const std::function<bool(size_t, size_t)>& fn);

// vlak's entry point on the target the library picks ("vlak") and forced to each compiled target
// ("vlak@scalar", ...). run is called with the target forced and vlak_set_num_threads(threads)
// done (vlak threads itself). missing: "" when the entry point exists in this build.
using VlakRun = std::function<bool(const Problem&, Outputs&)>;
// One of them: target -1 = the library's choice.
ImplDef VlakImpl(const std::string& name, int target, const std::string& what, double bound,
                 std::function<std::string()> missing, VlakRun run);
std::vector<ImplDef> VlakTargetImpls(const std::string& what, double bound, std::function<std::string()> missing,
                                     VlakRun run);

// Row-wise operators (the norms and their backward, int8 softmax): shape ROWSxCOLS, swept over cols.
void SetRowsColsShape(OpDef* op);
inline size_t RowsOf(const Problem& p) { return p.shape.dims[0]; }
inline size_t ColsOf(const Problem& p) { return p.shape.dims[1]; }
// A row-wise operator's first fields: its name, SetRowsColsShape, and the bytes a run moves:
// per_element of every element, per_col of each column (gamma, beta), per_row of each row (mean,
// rstd), as bytes_formula says.
OpDef RowsColsOp(std::string name, std::string bytes_formula, double per_element, double per_col = 0,
                 double per_row = 0);
// The inputs a normalisation over rows starts with (inputs 0 and 1): x, rows x cols uniform in
// [-2, 2), and gamma, cols uniform in [0.5, 1.5), from fixed seeds.
struct NormInputs {
  float* x;
  float* gamma;
};
NormInputs AddNormInputs(Problem* p);
// The normalisations' eps in the lab (AI-Benchmark's 1e-5).
inline constexpr float kNormEps = 1e-5f;
// A row-wise operator's vlak rows (VlakTargetImpls, available everywhere): call(p, out, rows, cols)
// makes the call and says whether it returned VLAK_OK.
using RowsVlakCall = std::function<bool(const Problem&, Outputs&, size_t rows, size_t cols)>;
std::vector<ImplDef> RowsVlakImpls(const std::string& what, double bound, RowsVlakCall call);
// A row-wise operator's plain C peer over blocks of rows: fn(r0, r1) on `threads` threads
// (ParallelOk); true.
bool RowBlocks(int threads, const Problem& p, const std::function<void(size_t r0, size_t r1)>& fn);

// Uniform floats in [lo, hi) from a fixed seed (inputs are the same in every run).
void FillUniform(float* p, size_t n, float lo, float hi, unsigned seed);

// Code that is neither vlak nor a library with its own set-up: run(problem, out, threads).
using PlainRun = std::function<bool(const Problem&, Outputs&, int threads)>;
ImplDef PlainImpl(const std::string& name, const std::string& kind, const std::string& what,
                  std::function<std::string()> missing, PlainRun run);

// A library's row (kind "library"): the fields every one sets first; the caller adds prepare.
ImplDef LibraryImpl(std::string name, std::string description, std::function<std::string()> unavailable);

}  // namespace vlak::lab
