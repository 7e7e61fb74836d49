// Operators and their implementations, as the lab's runner sees them.
//
// An operator knows its shapes, the bytes a run really moves, how to make an input and its
// float64 reference, and how to judge an output; it lists its implementations (vlak on each
// target, compiler-built C, libraries). The runner knows none of this: a new operator is a new
// op_<name>.cc that registers an OpDef (Operators() in ops.cc) plus lines in the suite files.
#pragma once

#include <cstddef>
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

// One case's input and float64 reference, shared by every implementation of the case.
struct Problem {
  Shape shape;
  std::vector<float> x;
  std::vector<double> ref;
};

// A prepared implementation: select() is called before each timed batch, outside the timing
// (it forces the vlak target / thread count this implementation runs with); run() computes y
// from the problem's x once and returns false on failure.
struct Prepared {
  std::function<void()> select = [] {};
  std::function<bool()> run;
  std::string target;  // the vlak target it runs on, "" for non-vlak code
};

struct Accuracy {
  double max_rel = 0;     // over elements whose reference is large enough to be relative to
  double max_abs = 0;
  double snr_db = 0;      // 10 log10(sum ref^2 / sum (y - ref)^2); +inf for an exact result
  size_t nonfinite = 0;   // NaN/inf outputs where the reference is finite
  int bound_ok = -1;      // 1 within the bound, 0 not, -1 no bound for this implementation
};

struct ImplDef {
  std::string name;
  std::string kind;         // "vlak", "compiler", "library", "libm", "seed"
  std::string description;  // one line for --list and the report
  int lmul = 0;             // LMUL the code is written for (vlak variant rows); 0 = its own choice
  // Empty when it can run here; otherwise why not, e.g. "not built (libxnnpack-dev)".
  std::function<std::string()> unavailable = [] { return std::string(); };
  // Sets up a run over problem.x -> y on `threads` threads. On failure: run is empty, *err says why.
  std::function<Prepared(const Problem&, float* y, int threads, std::string* err)> prepare;
  // Accuracy bound parameter (operator-specific; NaN: not checked) and its text for the table.
  double bound = __builtin_nan("");
};

struct OpDef {
  std::string name;
  std::string shape_syntax;   // "ROWSxCOLS"
  std::string size_label;     // the sweep axis of the report: "cols", "n"
  std::string bytes_formula;  // "8 bytes/element: read x, write y"
  std::function<bool(const std::vector<size_t>& dims, std::string* err)> check_shape;
  std::function<double(const Shape&)> bytes_per_run;
  std::function<void(Problem*)> make_problem;  // fills x and ref from shape
  std::function<Accuracy(const Problem&, const float* y, double bound)> accuracy;
  std::function<std::string(double bound)> bound_text;
  std::vector<std::string> baselines;  // default --baseline order: the first one available wins
  std::vector<ImplDef> impls;

  const ImplDef* Find(const std::string& impl) const;
  std::string ImplNames() const;  // "a b c" for error messages
};

const std::vector<OpDef>& Operators();
const OpDef* FindOp(const std::string& name);
std::string OpNames();

// Registered by op_<name>.cc.
OpDef MakeSoftmaxOp();
OpDef MakeExpOp();

// Shared helpers for operator files.
int CpuCount();
// Calls fn(begin, end) on `threads` OpenMP threads over [0, count), in equal contiguous blocks.
void ParallelBlocks(int threads, size_t count, const std::function<void(size_t, size_t)>& fn);
// The vlak target the library picks by itself (VLAK_TARGET or the best), as before any forcing.
int DefaultVlakTarget();
// Accuracy over an elementwise output: rel where |ref| >= rel_floor, abs everywhere, SNR.
Accuracy ElementwiseAccuracy(const std::vector<double>& ref, const float* y, double rel_floor);

}  // namespace vlak::lab
