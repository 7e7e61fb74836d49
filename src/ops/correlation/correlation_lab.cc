// correlation i8 (Terapines AI-Benchmark's optical-flow correlation): the lab's view of it, two operators:
//   correlation:         vlak_correlation_i8's default arithmetic (int32 sums, saturation);
//   correlation-wrap16:  VLAK_CORRELATION_WRAP16, AI-Benchmark's own (int16 sums, truncation).
//   shapes: DISPLACEMENTSxCHANNELSxHEIGHTxWIDTH (AI-Benchmark: 5x58x112x88).
//   inputs: a, b uniform int8; shift 10 (the sums of 58 products spread over about +-2^16, so the
//           outputs use the int8 range without saturating everywhere).
//   bytes:  read a and b once, write out: 2 x CHANNELS + DISPLACEMENTS bytes per pixel. The
//           kernels are compute-bound (each input byte feeds DISPLACEMENTS multiply-accumulates);
//           the MAC count is CHANNELS x HEIGHT x sum_d (WIDTH - d): MAC/s = that / time.
//   bound:  bit-exact (0) for every implementation.
#include <cmath>
#include <cstdio>
#include <vector>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/correlation/correlation.h"
#include "vlak/vlak.h"

// The plain C peers beside this file (correlation_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(correlation_i8, void(const int8_t* a, const int8_t* b, int8_t* out, size_t q0, size_t q1, size_t channels,
                                   size_t height, size_t width, unsigned shift))
VLAK_LAB_CREF(correlation_wrap16_i8, void(const int8_t* a, const int8_t* b, int8_t* out, size_t q0, size_t q1,
                                          size_t channels, size_t height, size_t width, unsigned shift))

namespace vlak::lab {
namespace {

enum { kA, kB };
constexpr unsigned kShift = 10;

struct Geometry {
  size_t displacements, channels, height, width;
};
Geometry Geo(const Shape& s) { return {s.dims[0], s.dims[1], s.dims[2], s.dims[3]}; }

void MakeProblem(Problem* p, unsigned flags) {
  const Geometry g = Geo(p->shape);
  const size_t in = g.channels * g.height * g.width, outs = g.displacements * g.height * g.width;
  int8_t* a = p->AddInput("a", {g.channels, g.height, g.width}, DType::kI8).Data<int8_t>();
  int8_t* b = p->AddInput("b", {g.channels, g.height, g.width}, DType::kI8).Data<int8_t>();
  uint32_t state = 777;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<int8_t>(state >> 24);
  };
  for (size_t i = 0; i < in; ++i) a[i] = next();
  for (size_t i = 0; i < in; ++i) b[i] = next();
  std::vector<int8_t> out(outs);
  CorrelationReferenceI8(g.displacements, g.channels, g.height, g.width, a, b, kShift, out.data(), flags);
  std::vector<double>& ref = p->AddOutput("out", {g.displacements, g.height, g.width}, DType::kI8);
  for (size_t i = 0; i < outs; ++i) ref[i] = out[i];
}

OpDef MakeOp(bool wrap16) {
  OpDef op;
  const unsigned flags = wrap16 ? VLAK_CORRELATION_WRAP16 : 0u;
  op.name = wrap16 ? "correlation-wrap16" : "correlation";
  op.shape_syntax = "DISPLACEMENTSxCHANNELSxHEIGHTxWIDTH (AI-Benchmark: 5x58x112x88)";
  op.size_label = "width";
  op.bytes_formula = "2 x CHANNELS + DISPLACEMENTS bytes/pixel (read a, b once; write out)";
  op.check_shape = ShapeRule({4}, "correlation shapes are DISPLACEMENTSxCHANNELSxHEIGHTxWIDTH (e.g. 5x58x112x88)");
  op.bytes_per_run = [](const Shape& s) {
    const Geometry g = Geo(s);
    return static_cast<double>(g.height * g.width) * static_cast<double>(2 * g.channels + g.displacements);
  };
  // int8 multiply-accumulates against the int8 MAC peak of the row's target (roofline.h); the
  // GFLOP/s column then reads G MAC/s.
  op.roofline = "int8-mac";
  op.flops_per_run = [](const Shape& s) {
    const Geometry g = Geo(s);
    double macs = 0;
    for (size_t d = 0; d < g.displacements && d < g.width; ++d) macs += static_cast<double>(g.width - d);
    return macs * static_cast<double>(g.channels) * static_cast<double>(g.height);
  };
  op.make_problem = [flags](Problem* p) { MakeProblem(p, flags); };
  op.accuracy = Int8Accuracy;
  op.bound_text = [](double) { return std::string("exact"); };
  op.baselines = {"c-gcc", "c-clang"};

  op.AddImpls(VlakTargetImpls(wrap16 ? "vlak_correlation_i8 (WRAP16)" : "vlak_correlation_i8", 0.0,
                              Available,
                              [flags](const Problem& p, Outputs& out) {
                                const Geometry g = Geo(p.shape);
                                return vlak_correlation_i8(g.displacements, g.channels, g.height, g.width,
                                                           p.In(kA).Data<int8_t>(), p.In(kB).Data<int8_t>(), kShift,
                                                           out[0].Data<int8_t>(), flags) == VLAK_OK;
                              }));
  // Each x86 target's generic kernel beside its specialisation (the vlak@avx2 row runs vpmaddwd,
  // the vlak@avx512 row VNNI where the CPU has it): the specialisation turned off for the call.
  struct Generic {
    const char* name;
    vlak_target target;
    const char* what;
    bool (*enabled)();
    bool (*set)(bool);
  };
  const Generic generics[] = {
      {"vlak@avx2-generic", VLAK_TARGET_AVX2, "avx2's generic kernel (vpmaddwd specialisation off)",
       CorrelationAvx2MaddEnabled, SetCorrelationAvx2Madd},
      {"vlak@avx512-generic", VLAK_TARGET_AVX512, "avx512's generic kernel (AVX512_VNNI specialisation off)",
       CorrelationVnniEnabled, SetCorrelationVnni},
  };
  for (const Generic& gen : generics) {
    if (!vlak_target_compiled(gen.target)) continue;
    op.impls.push_back(VlakImpl(
        gen.name, gen.target,
        std::string(wrap16 ? "vlak_correlation_i8 (WRAP16)" : "vlak_correlation_i8") + " forced to " + gen.what, 0.0,
        [gen] {
          return gen.enabled() ? std::string()
                               : std::string("the specialisation is off here (CPU or VLAK_AVX2_MADD / VLAK_AVX512_VNNI=0): ") +
                                     gen.name + "'s target runs the generic kernel";
        },
        [flags, gen](const Problem& p, Outputs& out) {
          const Geometry g = Geo(p.shape);
          const bool was = gen.set(false);
          const bool ok = vlak_correlation_i8(g.displacements, g.channels, g.height, g.width, p.In(kA).Data<int8_t>(),
                                              p.In(kB).Data<int8_t>(), kShift, out[0].Data<int8_t>(), flags) == VLAK_OK;
          gen.set(was);
          return ok;
        }));
  }
  for (const char* cc : {"gcc", "clang"}) {
    ImplDef d = CrefImpl(cc, "src/ops/correlation/correlation_peer.c",
                         wrap16 ? Cref_correlation_wrap16_i8(cc) : Cref_correlation_i8(cc),
                         [](auto* fn, const Problem& p, Outputs& out, int threads) {
                           const Geometry g = Geo(p.shape);
                           return ParallelOk(threads, g.displacements * g.height, [&](size_t q0, size_t q1) {
                             fn(p.In(kA).Data<int8_t>(), p.In(kB).Data<int8_t>(), out[0].Data<int8_t>(), q0, q1,
                                g.channels, g.height, g.width, kShift);
                             return true;
                           });
                         });
    d.bound = 0.0;
    op.impls.push_back(std::move(d));
  }
  return op;
}

}  // namespace

std::vector<OpDef> LabOps_correlation() { return {MakeOp(false), MakeOp(true)}; }

}  // namespace vlak::lab
