// SFPI kernels (src/sfpi/kernels, Tenstorrent SFPU semantics bit-exact on the CPU): the lab's view.
//   sfpi-exp (exp-accurate), sfpi-exp-bf16, sfpi-exp-approx, sfpi-exp-fast, sfpi-recip, sfpi-tanh,
//   sfpi-sigmoid, sfpi-gelu-approx, sfpi-gelu-accurate, sfpi-log, sfpi-sqrt.
//   shape:  TILES (32 x 32 fp32 tiles, e.g. 64); inputs uniform on the kernel's usual range.
//   bytes:  8 per element (read x, write y; the kernel runs in place on a copy of x).
//   impls:  vlak (the library's target), vlak@<target>. vlak@scalar is the per-lane scalar
//           execution of the same kernel (the SFPI emulators' model: each vector operation a loop
//           over 32 lanes; its sources are built without auto-vectorisation): the baseline.
//   no bound: the output is checked bit-exact by the tests; here its float64 error is reported.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "lab/ops.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace vlak::lab {

OpDef MakeSfpiOp(const std::string& op_name, const std::string& kernel, float lo, float hi, double (*ref)(double)) {
  OpDef op;
  op.name = op_name;
  op.shape_syntax = "TILES (32x32 fp32 tiles, e.g. 64)";
  op.size_label = "tiles";
  op.bytes_formula = "8 bytes/element (read x, write y)";
  op.check_shape = [](const std::vector<size_t>& dims, std::string* err) {
    if (dims.size() == 1) return true;
    *err = "sfpi shapes are one number of 32x32 tiles (e.g. 64)";
    return false;
  };
  op.bytes_per_run = [](const Shape& s) { return 8.0 * 1024.0 * static_cast<double>(s.Elements()); };
  op.make_problem = [lo, hi, ref](Problem* p) {
    const size_t n = p->shape.Elements() * 1024;
    float* x = p->AddInput("x", {n}).F32();
    std::vector<double>& r = p->AddOutput("y", {n});
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(lo, hi);
    for (size_t i = 0; i < n; ++i) {
      x[i] = u(rng);
      r[i] = ref(static_cast<double>(x[i]));
    }
  };
  op.accuracy = [](const Problem& p, const Outputs& out, double) { return ElementwiseAccuracy(p.ref[0], out[0].F32(), FLT_MIN); };
  op.bound_text = [](double) { return std::string("-"); };
  op.baselines = {"vlak@scalar"};
  for (auto& d : VlakTargetImpls("vlak::sfpi::RunKernel " + kernel, __builtin_nan(""), [] { return std::string(); },
                                 [kernel](const Problem& p, Outputs& out) {
                                   const size_t n = p.In(0).Elements();
                                   std::memcpy(out[0].F32(), p.In(0).F32(), n * sizeof(float));
                                   return ::vlak::sfpi::RunKernel(kernel.c_str(), out[0].F32(), n / 1024, 1) == 0;
                                 })) {
    op.impls.push_back(std::move(d));
  }
  return op;
}

namespace {
double Exp(double x) { return std::exp(x); }
double Recip(double x) { return 1.0 / x; }
double Tanh(double x) { return std::tanh(x); }
double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Gelu(double x) { return 0.5 * x * std::erfc(-x * 0.70710678118654752440); }
double Log(double x) { return std::log(x); }
double Sqrt(double x) { return std::sqrt(x); }
}  // namespace

std::vector<OpDef> LabOps_sfpi() {
  return {MakeSfpiOp("sfpi-exp", "exp-accurate", -10.0f, 10.0f, Exp), MakeSfpiOp("sfpi-exp-bf16", "exp-bf16", -10.0f, 10.0f, Exp),
          MakeSfpiOp("sfpi-exp-approx", "exp-approx", -10.0f, 10.0f, Exp),
          MakeSfpiOp("sfpi-exp-fast", "exp-fast", -10.0f, 0.7f, Exp), MakeSfpiOp("sfpi-recip", "recip", 0.1f, 10.0f, Recip),
          MakeSfpiOp("sfpi-tanh", "tanh", -3.0f, 3.0f, Tanh), MakeSfpiOp("sfpi-sigmoid", "sigmoid", -6.0f, 6.0f, Sigmoid),
          MakeSfpiOp("sfpi-gelu-approx", "gelu-approx", -4.0f, 4.0f, Gelu),
          MakeSfpiOp("sfpi-gelu-accurate", "gelu-accurate", -4.0f, 4.0f, Gelu), MakeSfpiOp("sfpi-log", "log", 0.01f, 100.0f, Log),
          MakeSfpiOp("sfpi-sqrt", "sqrt", 0.01f, 100.0f, Sqrt)};
}

}  // namespace vlak::lab
