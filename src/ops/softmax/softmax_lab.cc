// softmax f32, rows x cols, row-wise: the lab's view of it.
//   bytes: 8 per element (read x, write y), the bytes a softmax must move, whatever
//          the algorithm really re-reads (the three-pass kernel reads y back: that is its cost).
//   input: uniform [-10, 10]; reference: SoftmaxReferenceF64 per row.
//   bound: vlak.h's accurate-mode bound, rel <= B + 6e-8 |x - max(x)| where ref >= 1e-30 (else
//          abs <= 1e-30), with B = max(1e-6, 2 eps) for an implementation whose exp is good to
//          eps relative (y = e_i / sum e_j carries the error of the numerator and of the sum).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "lab/baselines.h"
#include "lab/exp_bounds.h"
#include "lab/ops.h"
#include "ops/softmax/softmax.h"
#include "vlak/vlak.h"

#include "hackathon_softmax.h"
#if defined(VLAK_LAB_HAVE_XNNPACK)
#include <pthreadpool.h>
#include <xnnpack.h>
#endif

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(softmax_f32, void(const float* x, float* y, size_t rows, size_t cols))

namespace vlak::lab {
namespace {

size_t Rows(const Problem& p) { return p.shape.dims[0]; }
size_t Cols(const Problem& p) { return p.shape.dims[1]; }

// Runs fn(x_row_block, y_row_block, rows_in_block) over the rows on `threads` threads.
template <class Fn>
bool ForRowBlocks(const Problem& p, Outputs& out, int threads, Fn fn) {
  const size_t cols = Cols(p);
  const float* x = p.In(0).F32();
  float* y = out[0].F32();
  return ParallelOk(threads, Rows(p), [&](size_t r0, size_t r1) { return fn(x + r0 * cols, y + r0 * cols, r1 - r0); });
}

// vlak's public kernel on one target (-1: the one the library picks), one algorithm and flags.
ImplDef SoftmaxImpl(const std::string& name, int target, SoftmaxAlgo algo, unsigned flags, double eps,
                    const std::string& what) {
  return VlakImpl(name, target, what, eps, nullptr, [algo, flags](const Problem& p, Outputs& out) {
    const size_t cols = Cols(p);
    return SoftmaxF32(Rows(p), cols, p.In(0).F32(), cols, out[0].F32(), cols, flags, algo) == VLAK_OK;
  });
}

// The three-pass kernel with a chosen exp variant and LMUL (what `vlak hackathon` tabulates).
ImplDef VariantImpl(vlak_exp_variant v, int pow2) {
  ImplDef d;
  d.name = std::string("vlak-") + vlak_exp_variant_name(v) + "-m" + std::to_string(1 << pow2);
  d.kind = "vlak";
  d.description = std::string("three-pass, exp ") + vlak_exp_variant_name(v) + ", LMUL " + std::to_string(1 << pow2) +
                  ", rows split by the lab";
  d.lmul = 1 << pow2;
  d.bound = ExpVariantBound(v);
  d.prepare = [v, pow2](const Problem& p, Outputs& out, int threads, std::string*) {
    Prepared pr;
    const auto t = static_cast<vlak_target>(DefaultVlakTarget());
    pr.target = vlak_target_name(t);
    pr.select = [t] { vlak_set_target(t); };
    pr.run = [&p, &out, v, pow2, threads] {
      const size_t cols = Cols(p);
      return ForRowBlocks(p, out, threads, [&](const float* x, float* yy, size_t rows) {
        for (size_t r = 0; r < rows; ++r) {
          if (!SoftmaxVariantRow(v, pow2, x + r * cols, yy + r * cols, cols)) return false;
        }
        return true;
      });
    };
    return pr;
  };
  return d;
}

// A per-row-block C function (the naive loop, the compilers' C, the RISC-V hackathon's code).
ImplDef RowFnImpl(const std::string& name, const std::string& kind, const std::string& what,
                  std::function<std::string()> missing,
                  std::function<bool(const float*, float*, size_t rows, size_t cols)> fn) {
  return PlainImpl(name, kind, what, std::move(missing), [fn](const Problem& p, Outputs& out, int threads) {
    return ForRowBlocks(p, out, threads, [&](const float* x, float* y, size_t rows) { return fn(x, y, rows, Cols(p)); });
  });
}

// The loop everyone writes first: libm expf, three passes, compiled with the project's flags.
bool NaiveRows(const float* x, float* y, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r, x += cols, y += cols) {
    float m = x[0];
    for (size_t i = 1; i < cols; ++i) m = std::max(m, x[i]);
    float s = 0;
    for (size_t i = 0; i < cols; ++i) s += (y[i] = std::exp(x[i] - m));
    for (size_t i = 0; i < cols; ++i) y[i] /= s;
  }
  return true;
}

ImplDef XnnpackImpl() {
  return XnnpackRow("XNNPACK xnn_create_softmax_nc_f32 (its own ISA choice), pthreadpool threads",
                    VLAK_LAB_XNNPACK_PREPARE([](const Problem& p, Outputs& out, int threads, std::string* err) {
                      const size_t cols = Cols(p);
                      pthreadpool_t pool = XnnPool(threads);
                      return XnnpackPrepare(
                          "softmax_nc_f32", pool, err,
                          [&](xnn_operator_t* op) { return xnn_create_softmax_nc_f32(cols, cols, cols, 0, op); },
                          [&](xnn_operator_t op) {
                            return xnn_setup_softmax_nc_f32(op, Rows(p), p.In(0).F32(), out[0].F32(), pool);
                          });
                    }));
}

ImplDef OnednnImpl() {
  ImplDef d = LibraryImpl("onednn", "oneDNN softmax_forward (its own ISA choice), OpenMP threads", OnednnMissing);
  d.prepare = [](const Problem& p, Outputs& out, int threads, std::string* err) {
    return OnednnPrepared(OnednnOp::kSoftmaxLastAxis, {static_cast<long>(Rows(p)), static_cast<long>(Cols(p))},
                          p.In(0).F32(), out[0].F32(), threads, err);
  };
  return d;
}

Accuracy SoftmaxAccuracy(const Problem& p, const Outputs& out, double eps) {
  const float* y = out[0].F32();
  Accuracy a = ElementwiseAccuracy(p.ref[0], y, 1e-30);
  if (std::isnan(eps)) return a;
  const double base = std::max(1e-6, 2 * eps);
  const size_t rows = Rows(p), cols = Cols(p);
  bool ok = a.nonfinite == 0;
  for (size_t r = 0; r < rows && ok; ++r) {
    const float* x = p.In(0).F32() + r * cols;
    const double* ref = p.ref[0].data() + r * cols;
    const float* yr = y + r * cols;
    const float m = *std::max_element(x, x + cols);
    for (size_t i = 0; i < cols; ++i) {
      const double d = std::fabs(static_cast<double>(yr[i]) - ref[i]);
      const bool fine = ref[i] >= 1e-30 ? d <= (base + 6e-8 * std::fabs(static_cast<double>(x[i]) - m)) * ref[i]
                                        : d <= 1e-30;
      if (!fine) {
        ok = false;
        break;
      }
    }
  }
  a.bound_ok = ok ? 1 : 0;
  return a;
}

}  // namespace

std::vector<OpDef> LabOps_softmax() {
  OpDef op = ReadWriteF32Op("softmax", "ROWSxCOLS (e.g. 1x2048, 256x2048)", "cols", 2,
                            "softmax shapes are ROWSxCOLS (e.g. 1x2048)");
  op.make_problem = [](Problem* p) {
    const size_t rows = p->shape.dims[0], cols = p->shape.dims[1];
    float* x = p->AddInput("x", {rows, cols}).F32();
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-10.0f, 10.0f);
    for (size_t i = 0; i < rows * cols; ++i) x[i] = u(rng);
    std::vector<double>& ref = p->AddOutput("y", {rows, cols});
    for (size_t r = 0; r < rows; ++r) SoftmaxReferenceF64(x + r * cols, cols, ref.data() + r * cols, 0);
  };
  op.accuracy = SoftmaxAccuracy;
  op.bound_text = [](double eps) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "rel<=%.1e+6e-8|x-max|", std::max(1e-6, 2 * eps));
    return std::string(buf);
  };
  op.baselines = {"xnnpack", "onednn", "naive"};

  const double accurate = ExpVariantBound(VLAK_EXP_ACCURATE);
  op.impls.push_back(SoftmaxImpl("vlak", -1, SoftmaxAlgo::kAuto, 0, accurate,
                              "vlak_softmax_f32 on the target the library picks (accurate exp)"));
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    const auto target = static_cast<vlak_target>(t);
    if (!vlak_target_compiled(target)) continue;
    op.impls.push_back(SoftmaxImpl(std::string("vlak@") + vlak_target_name(target), t, SoftmaxAlgo::kAuto, 0, accurate,
                                std::string("vlak_softmax_f32 forced to ") + vlak_target_name(target)));
  }
  op.impls.push_back(SoftmaxImpl("vlak-3pass", -1, SoftmaxAlgo::kThreePass, 0, accurate, "three-pass kernel forced"));
  op.impls.push_back(SoftmaxImpl("vlak-2pass", -1, SoftmaxAlgo::kTwoPass, 0, accurate, "two-pass (Dukhan) kernel forced"));
  op.impls.push_back(SoftmaxImpl("vlak-fast", -1, SoftmaxAlgo::kAuto, VLAK_SOFTMAX_EXP_FAST,
                              ExpVariantBound(VLAK_EXP_BITTRICK_P5), "VLAK_SOFTMAX_EXP_FAST (bit-trick exp)"));
  op.impls.push_back(SoftmaxImpl("vlak-precise", -1, SoftmaxAlgo::kAuto, VLAK_SOFTMAX_EXP_PRECISE,
                              ExpVariantBound(VLAK_EXP_PRECISE), "VLAK_SOFTMAX_EXP_PRECISE (<= 1 ULP exp)"));
  for (int v = VLAK_EXP_SCHRAUDOLPH; v <= VLAK_EXP_PRECISE; ++v) {
    for (int k = 0; k <= 3; ++k) op.impls.push_back(VariantImpl(static_cast<vlak_exp_variant>(v), k));
  }
  op.impls.push_back(RowFnImpl("naive", "libm", "three loops with libm expf, the project's compiler and flags",
                               Available, NaiveRows));
  AddCrefImpls(&op, "src/ops/softmax/softmax_peer.c", Cref_softmax_f32, [](auto* k, const Problem& p, Outputs& out, int threads) {
    return ForRowBlocks(p, out, threads, [&](const float* x, float* y, size_t rows) {
      k(x, y, rows, Cols(p));
      return true;
    });
  });
  // Not a softmax: the memory bound. Its output is a copy (no accuracy bound applies); with
  // --baseline copy, "vs copy" r = copy time / this time, and a two-pass softmax, which moves 12
  // bytes per element to the copy's 8, runs at 1.5 r of its bound.
  op.impls.push_back(RowFnImpl("copy", "bound", "memcpy x -> y, 8 bytes/element: the memory bound (two-pass moves 12)",
                               Available,
                               [](const float* x, float* y, size_t rows, size_t cols) {
                                 std::memcpy(y, x, rows * cols * sizeof(float));
                                 return true;
                               }));
  op.impls.push_back(XnnpackImpl());
  op.impls.push_back(OnednnImpl());
  op.impls.push_back(TorchImpl(TorchOp::kSoftmax));
  op.impls.push_back(RowFnImpl("seed-scalar", "seed", "the RISC-V hackathon softmax's scalar C (libm expf), not vectorised",
                               Available,
                               [](const float* x, float* y, size_t rows, size_t cols) {
                                 for (size_t r = 0; r < rows; ++r) cli::HackathonScalarLibmSoftmax(x + r * cols, y + r * cols, cols);
                                 return true;
                               }));
  op.impls.push_back(RowFnImpl("seed-rvv", "seed", "the RISC-V hackathon softmax's RVV code (LMUL 8, bit-trick exp)",
                               [] {
                                 if (!vlak_target_compiled(VLAK_TARGET_RVV)) return std::string("RISC-V (rv64gcv build) only");
                                 return vlak_target_supported(VLAK_TARGET_RVV) ? std::string() : std::string("CPU lacks V");
                               },
                               [](const float* x, float* y, size_t rows, size_t cols) {
                                 for (size_t r = 0; r < rows; ++r) {
                                   if (!cli::HackathonRvvSoftmax(x + r * cols, y + r * cols, cols)) return false;
                                 }
                                 return true;
                               }));
  return {op};
}

}  // namespace vlak::lab
