// exp f32 over n elements: the lab's view of it.
//   bytes: 8 per element (read x, write y).
//   input: uniform [-87.3, 88.7] (the domain the variants' bounds are stated on: no overflow,
//          no denormal results); reference: exp in float64.
//   bound: each vlak variant's relative bound (exp_bounds.h) where the reference is a normal
//          float; libraries are measured, not judged.
//   threads: the lab splits the array into equal blocks, one per OpenMP thread, for every
//          implementation except oneDNN, which threads itself.
#include <cfloat>
#include <cmath>
#include <random>

#include "lab/baselines.h"
#include "lab/exp_bounds.h"
#include "lab/ops.h"
#include "vlak/vlak.h"

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(exp_f32, void(const float* x, float* y, size_t n))

namespace vlak::lab {
namespace {

using ArrayFn = std::function<bool(const float* x, float* y, size_t n)>;

// Splits the array into equal blocks, one per thread; fn(x, y, n) per block.
bool ForBlocks(const Problem& p, Outputs& out, int threads, const ArrayFn& fn) {
  const float* x = p.In(0).F32();
  float* y = out[0].F32();
  return ParallelOk(threads, p.In(0).Elements(), [&](size_t b, size_t e) { return fn(x + b, y + b, e - b); });
}

ImplDef ArrayImpl(const std::string& name, const std::string& kind, const std::string& what,
                  std::function<std::string()> missing, ArrayFn fn) {
  return PlainImpl(name, kind, what, std::move(missing),
                   [fn](const Problem& p, Outputs& out, int threads) { return ForBlocks(p, out, threads, fn); });
}

ImplDef VlakExpImpl(vlak_exp_variant v, int target) {
  const std::string vn = vlak_exp_variant_name(v);
  const std::string tn = target < 0 ? "" : vlak_target_name(static_cast<vlak_target>(target));
  const std::string name = "vlak-" + vn + (target < 0 ? "" : "@" + tn);
  // The lab splits the array over threads (vlak_exp_f32 is one call on one thread).
  ImplDef d = VlakImpl(name, target, "vlak_exp_f32 " + vn + (target < 0 ? " on the target the library picks" : " forced to " + tn),
                       ExpVariantBound(v), nullptr, [](const Problem&, Outputs&) { return false; });
  d.prepare = [prep = d.prepare, v](const Problem& p, Outputs& out, int threads, std::string* err) {
    Prepared pr = prep(p, out, 1, err);  // target forcing from VlakImpl; vlak itself on one thread
    pr.run = [&p, &out, threads, v] {
      return ForBlocks(p, out, threads, [v](const float* x, float* y, size_t n) { return vlak_exp_f32(n, x, y, v) == VLAK_OK; });
    };
    return pr;
  };
  return d;
}

ImplDef OnednnExpImpl() {
  ImplDef d = LibraryImpl("onednn",
                          "oneDNN eltwise_forward eltwise_exp (its own ISA choice), OpenMP threads", OnednnMissing);
  d.prepare = [](const Problem& p, Outputs& out, int threads, std::string* err) {
    return OnednnPrepared(OnednnOp::kExp, {static_cast<long>(p.In(0).Elements())}, p.In(0).F32(), out[0].F32(), threads, err);
  };
  return d;
}

ImplDef SleefImpl(const std::string& name, const std::string& isa) {
  return ArrayImpl(
      name, "library", "SLEEF expf u10 (" + (isa == "best" ? std::string("widest vector the CPU has") : isa) + ")",
      [isa] {
        const std::string m = SleefMissing();
        if (!m.empty()) return m;
#if !defined(__x86_64__)
        if (isa != "best" && isa != "scalar") return isa + " is x86 only";
#endif
        if (isa != "best" && !SleefIsaSupported(isa)) return "CPU lacks " + isa;
        return std::string();
      },
      [isa](const float* x, float* y, size_t n) {
        std::string use = isa;
        if (use == "best") use = SleefIsaSupported("avx512") ? "avx512" : SleefIsaSupported("avx2") ? "avx2" : "scalar";
        SleefExpF32(use, x, y, n);
        return true;
      });
}

}  // namespace

std::vector<OpDef> LabOps_exp() {
  OpDef op = ReadWriteF32Op("exp", "N (elements, e.g. 4096, 1M)", "n", 1,
                            "exp shapes are one number of elements (e.g. 65536)");
  op.make_problem = [](Problem* p) {
    const size_t n = p->shape.Elements();
    float* x = p->AddInput("x", {n}).F32();
    std::vector<double>& ref = p->AddOutput("y", {n});
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-87.3f, 88.7f);
    for (size_t i = 0; i < n; ++i) {
      x[i] = u(rng);
      ref[i] = std::exp(static_cast<double>(x[i]));
    }
  };
  op.accuracy = [](const Problem& p, const Outputs& out, double eps) {
    Accuracy a = ElementwiseAccuracy(p.ref[0], out[0].F32(), FLT_MIN);
    if (!std::isnan(eps)) a.bound_ok = a.nonfinite == 0 && a.max_rel <= eps ? 1 : 0;
    return a;
  };
  op.bound_text = [](double eps) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "rel<=%.2g", eps);
    return std::string(buf);
  };
  op.baselines = {"sleef", "onednn", "naive"};

  for (int v = VLAK_EXP_SCHRAUDOLPH; v <= VLAK_EXP_PRECISE; ++v) op.impls.push_back(VlakExpImpl(static_cast<vlak_exp_variant>(v), -1));
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    if (!vlak_target_compiled(static_cast<vlak_target>(t))) continue;
    for (int v = VLAK_EXP_SCHRAUDOLPH; v <= VLAK_EXP_PRECISE; ++v) op.impls.push_back(VlakExpImpl(static_cast<vlak_exp_variant>(v), t));
  }
  op.impls.push_back(ArrayImpl("naive", "libm", "a loop over libm expf, the project's compiler and flags",
                               Available, [](const float* x, float* y, size_t n) {
                                 for (size_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
                                 return true;
                               }));
  AddCrefImpls(&op, "src/ops/exp/exp_peer.c", Cref_exp_f32, [](auto* k, const Problem& p, Outputs& out, int threads) {
    return ForBlocks(p, out, threads, [&](const float* x, float* y, size_t n) {
      k(x, y, n);
      return true;
    });
  });
  op.impls.push_back(SleefImpl("sleef", "best"));
  op.impls.push_back(SleefImpl("sleef@avx2", "avx2"));  // listed everywhere so suites stay portable
  op.impls.push_back(OnednnExpImpl());
  op.impls.push_back(TorchImpl(TorchOp::kExp));
  return {op};
}

}  // namespace vlak::lab
