// activations f32: the lab's view of them, one operator per function, "activation-<fn>" over N
// elements and "glu-<fn>" over ROWSxCOLS (gate, up -> y); <fn> is the function's name with
// hyphens (activation-gelu-tanh). One operator per function rather than one
// operator with a function per implementation: each row then compares the same function across
// implementations (its speedup column is like for like), and a suite lists the functions it wants.
//   inputs: x (gate) uniform [-10, 10] (XNNPACK's tanh and gelu test range), up uniform [-2, 2].
//   bytes:  8 per element (read x, write y); glu 12 (read gate and up, write y).
//   bound:  vlak.h's, in ULPs of the float nearest the float64 reference (2; glu 3), through the
//           per-element scale: the ULP times 2^23 (2^-126 below FLT_MIN), so that the bound
//           parameter reads as a relative error (2 ULP is 2^-22) and the lab's loose check of the
//           libraries (1e-4) is one too; other implementations are measured, not judged.
//   peers:  c-gcc / c-clang run activation_ref.c, the formulas in float64 rounded once (within the
//           same bound: the lab holds compiler rows to vlak's; in float they miss it by far, see
//           there); XNNPACK's f32 sigmoid where the library is built.
//   threads: vlak splits a call itself; the C peers split the array into equal blocks over OpenMP
//           threads, XNNPACK over its pthreadpool.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/activation/activation.h"
#include "vlak/vlak.h"

// The plain C peers beside this file (*_ref.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(activation_f32, void(const float* x, float* y, size_t n, int op))
VLAK_LAB_CREF(glu_f32, void(const float* gate, const float* up, float* y, size_t n, int op))

namespace vlak::lab {
namespace {

// 2^23 times the ULP of the float nearest r (2^-149 below FLT_MIN): |y - r| / this is vlak.h's
// measure in units of 2^-23.
constexpr double kUlpUnit = 0x1p-23;
float UlpScale(double r) {
  const float nearest = static_cast<float>(r);
  if (std::fabs(r) < FLT_MIN || nearest == 0.0f) return 0x1p-126f;
  if (std::isinf(nearest)) return INFINITY;
  int e;
  std::frexp(std::fabs(static_cast<double>(nearest)), &e);
  return static_cast<float>(std::ldexp(1.0, e - 1));
}

std::string UlpBoundText(double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "ulp<=%g", b / kUlpUnit);
  return buf;
}

// XNNPACK's f32 sigmoid (its own ISA choice), the only activation of these in Debian's XNNPACK
// (libxnnpack-dev 0.0~git20220216: xnn_create_sigmoid_nc_f32; no f32 tanh, gelu, silu, softplus).
ImplDef XnnpackSigmoid() {
  ImplDef d;
  d.name = "xnnpack";
  d.kind = "library";
  d.description = "XNNPACK xnn_create_sigmoid_nc_f32 (its own ISA choice), pthreadpool threads";
  d.unavailable = XnnpackMissing;
  d.prepare = [](const Problem& p, Outputs& out, int threads, std::string* err) {
    Prepared pr;
#if defined(VLAK_LAB_HAVE_XNNPACK)
    const size_t n = p.In(0).Elements();
    pthreadpool_t pool = XnnPool(threads);
    pr = XnnpackPrepare(
        "sigmoid_nc_f32", pool, err, [&](xnn_operator_t* op) { return xnn_create_sigmoid_nc_f32(1, 1, 1, 0, op); },
        [&](xnn_operator_t op) { return xnn_setup_sigmoid_nc_f32(op, n, p.In(0).F32(), out[0].F32(), pool); });
#else
    (void)p, (void)out, (void)threads, (void)err;
#endif
    return pr;
  };
  return d;
}

// The lab's operator names are lowercase words joined by hyphens: gelu_tanh is "gelu-tanh" there.
std::string LabName(vlak_activation fn) {
  std::string name = ActivationName(fn);
  for (char& c : name) c = c == '_' ? '-' : c;
  return name;
}

OpDef ActivationOp(vlak_activation fn) {
  const std::string fname = ActivationName(fn);
  OpDef op;
  op.name = "activation-" + LabName(fn);
  op.shape_syntax = "N (elements, e.g. 4096, 16M)";
  op.size_label = "n";
  op.bytes_formula = "8 bytes/element (read x, write y)";
  op.check_shape = [name = op.name](const std::vector<size_t>& dims, std::string* err) {
    if (dims.size() == 1) return true;
    *err = name + " shapes are one number of elements (e.g. 4096)";
    return false;
  };
  op.bytes_per_run = [](const Shape& s) { return 8.0 * static_cast<double>(s.Elements()); };
  op.make_problem = [fn](Problem* p) {
    const size_t n = p->shape.Elements();
    float* x = p->AddInput("x", {n}).F32();
    FillUniform(x, n, -10.0f, 10.0f, 1);
    std::vector<double>& ref = p->AddOutput("y", {n});
    std::vector<float>& scale = p->scale[0];
    scale.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ref[i] = ActivationReferenceF64(fn, x[i]);
      scale[i] = UlpScale(ref[i]);
    }
  };
  op.accuracy = [](const Problem& p, const Outputs& out, double bound) { return OutputsAccuracy(p, out, bound); };
  op.bound_text = UlpBoundText;
  op.baselines = fn == VLAK_ACT_SIGMOID ? std::vector<std::string>{"xnnpack", "c-clang", "c-gcc"}
                                        : std::vector<std::string>{"c-clang", "c-gcc"};
  op.test_dims = {{67}};
  for (auto& d : VlakTargetImpls("vlak_activation_f32 " + fname, 2 * kUlpUnit, [] { return std::string(); },
                                 [fn](const Problem& p, Outputs& out) {
                                   return vlak_activation_f32(p.In(0).Elements(), p.In(0).F32(), out[0].F32(), fn) ==
                                          VLAK_OK;
                                 })) {
    op.impls.push_back(std::move(d));
  }
  for (const char* cc : {"gcc", "clang"}) {
    op.impls.push_back(CrefImpl(cc, "src/ops/activation/activation_ref.c", Cref_activation_f32(cc),
                                [fn](auto* k, const Problem& p, Outputs& out, int threads) {
                                  const float* x = p.In(0).F32();
                                  float* y = out[0].F32();
                                  return ParallelOk(threads, p.In(0).Elements(), [&](size_t b, size_t e) {
                                    k(x + b, y + b, e - b, static_cast<int>(fn));
                                    return true;
                                  });
                                }));
  }
  if (fn == VLAK_ACT_SIGMOID) op.impls.push_back(XnnpackSigmoid());
  return op;
}

OpDef GluOp(vlak_activation fn) {
  const std::string fname = ActivationName(fn);
  OpDef op;
  op.name = "glu-" + LabName(fn);
  SetRowsColsShape(&op);
  op.bytes_formula = "12 bytes/element (read gate and up, write y)";
  op.bytes_per_run = [](const Shape& s) { return 12.0 * static_cast<double>(s.Elements()); };
  op.make_problem = [fn](Problem* p) {
    const size_t rows = RowsOf(*p), cols = ColsOf(*p), n = rows * cols;
    float* g = p->AddInput("gate", {rows, cols}).F32();
    float* u = p->AddInput("up", {rows, cols}).F32();
    FillUniform(g, n, -10.0f, 10.0f, 1);
    FillUniform(u, n, -2.0f, 2.0f, 2);
    std::vector<double>& ref = p->AddOutput("y", {rows, cols});
    std::vector<float>& scale = p->scale[0];
    scale.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ref[i] = ActivationReferenceF64(fn, g[i]) * u[i];
      scale[i] = UlpScale(ref[i]);
    }
  };
  op.accuracy = [](const Problem& p, const Outputs& out, double bound) { return OutputsAccuracy(p, out, bound); };
  op.bound_text = UlpBoundText;
  op.baselines = {"c-clang", "c-gcc"};
  op.test_dims = {{3, 67}};
  for (auto& d : VlakTargetImpls("vlak_glu_f32 " + fname, 3 * kUlpUnit, [] { return std::string(); },
                                 [fn](const Problem& p, Outputs& out) {
                                   const size_t cols = ColsOf(p);
                                   return vlak_glu_f32(RowsOf(p), cols, p.In(0).F32(), cols, p.In(1).F32(), cols,
                                                       out[0].F32(), cols, fn) == VLAK_OK;
                                 })) {
    op.impls.push_back(std::move(d));
  }
  for (const char* cc : {"gcc", "clang"}) {
    op.impls.push_back(CrefImpl(cc, "src/ops/activation/activation_ref.c", Cref_glu_f32(cc),
                                [fn](auto* k, const Problem& p, Outputs& out, int threads) {
                                  const float* g = p.In(0).F32();
                                  const float* u = p.In(1).F32();
                                  float* y = out[0].F32();
                                  return ParallelOk(threads, p.In(0).Elements(), [&](size_t b, size_t e) {
                                    k(g + b, u + b, y + b, e - b, static_cast<int>(fn));
                                    return true;
                                  });
                                }));
  }
  return op;
}

}  // namespace

std::vector<OpDef> LabOps_activation() {
  std::vector<OpDef> ops;
  for (int k = 0; k < kNumActivations; ++k) ops.push_back(ActivationOp(static_cast<vlak_activation>(k)));
  for (int k = 0; k < kNumActivations; ++k) ops.push_back(GluOp(static_cast<vlak_activation>(k)));
  return ops;
}

}  // namespace vlak::lab
