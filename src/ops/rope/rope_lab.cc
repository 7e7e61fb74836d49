// rope f32 (rotary position embedding, Terapines AI-Benchmark's RoPE): the lab's view of it.
//   shapes: POSITIONSxROWSxDIM, or AI-Benchmark's SEQxBATCHxHEADSxDIM (512x16x8x1024: positions =
//           seq 512, rows per position = batch x heads = 128, head_dim = 1024). x and y are
//           [positions][rows][dim], dense; DIM even.
//   inputs: x uniform [-2, 2]; cos and sin [positions][dim/2] for base 10000, each angle and its
//           cos/sin in float64 rounded once (vlak_rope_tables_f32's definition, computed here so
//           the inputs do not depend on the library under test). Pairing: halves (i, i + dim/2).
//   bytes:  read x, write y: 8 per element; + the tables, 4 per position per dim (cos and sin).
//   bound:  vlak.h's, |y - y64| <= 2^-23 (|x_a cos| + |x_b sin|) per output; RopeReferenceF64.
//   threads: the C reference splits positions in one block per thread.
#include <cmath>
#include <cstdio>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/rope/rope.h"
#include "vlak/vlak.h"

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(rope_f32, void(const float* x, const float* cos_t, const float* sin_t, float* y, size_t positions, size_t rows, size_t dim))

namespace vlak::lab {
namespace {

enum { kX, kCos, kSin };

// positions, rows per position, head_dim from either shape form.
struct Geometry {
  size_t positions, rows, dim;
};
Geometry Geo(const Shape& s) {
  if (s.dims.size() == 4) return {s.dims[0], s.dims[1] * s.dims[2], s.dims[3]};
  return {s.dims[0], s.dims[1], s.dims[2]};
}

void MakeProblem(Problem* p) {
  const Geometry g = Geo(p->shape);
  const size_t h = g.dim / 2, n = g.positions * g.rows * g.dim;
  float* x = p->AddInput("x", {g.positions, g.rows, g.dim}).F32();
  float* cs = p->AddInput("cos", {g.positions, h}).F32();
  float* sn = p->AddInput("sin", {g.positions, h}).F32();
  FillUniform(x, n, -2.0f, 2.0f, 1);
  for (size_t pos = 0; pos < g.positions; ++pos) {
    for (size_t i = 0; i < h; ++i) {
      const double angle = static_cast<double>(pos) * std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(g.dim));
      cs[pos * h + i] = static_cast<float>(std::cos(angle));
      sn[pos * h + i] = static_cast<float>(std::sin(angle));
    }
  }
  std::vector<double>& ref = p->AddOutput("y", {g.positions, g.rows, g.dim});
  std::vector<float>& scale = p->scale[0];
  scale.resize(n);
  for (size_t pos = 0; pos < g.positions; ++pos) {
    const float* c = cs + pos * h;
    const float* s = sn + pos * h;
    for (size_t r = 0; r < g.rows; ++r) {
      const size_t o = (pos * g.rows + r) * g.dim;
      RopeReferenceF64(x + o, c, s, g.dim, VLAK_ROPE_HALVES, ref.data() + o);
      for (size_t i = 0; i < h; ++i) {
        const double a = x[o + i], b = x[o + i + h];
        scale[o + i] = static_cast<float>(std::fabs(a * c[i]) + std::fabs(b * s[i]));
        scale[o + i + h] = static_cast<float>(std::fabs(a * s[i]) + std::fabs(b * c[i]));
      }
    }
  }
}

}  // namespace

std::vector<OpDef> LabOps_rope() {
  OpDef op = NewOp("rope", "POSITIONSxROWSxDIM or SEQxBATCHxHEADSxDIM (e.g. 512x16x8x1024)", "dim",
                   "8 bytes/element (read x, write y) + 4/position/dim (cos, sin tables)");
  op.check_shape = ShapeRule({3, 4},
                             "rope shapes are POSITIONSxROWSxDIM or SEQxBATCHxHEADSxDIM with DIM even "
                             "(e.g. 512x16x8x1024)",
                             [](const std::vector<size_t>& dims) { return dims.back() % 2 == 0; });
  op.bytes_per_run = [](const Shape& s) {
    const Geometry g = Geo(s);
    return 8.0 * static_cast<double>(s.Elements()) + 4.0 * static_cast<double>(g.positions * g.dim);
  };
  op.make_problem = MakeProblem;
  op.bound_text = [](double b) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "abs<=2^%.0f(|xa c|+|xb s|)", std::log2(b));
    return std::string(buf);
  };
  op.baselines = {"c-gcc", "c-clang"};
  op.test_dims = {{3, 2, 16}, {3, 2, 2, 16}};

  op.AddImpls(VlakTargetImpls("vlak_rope_f32 (halves)", std::ldexp(1.0, -23),
                              Available,
                              [](const Problem& p, Outputs& out) {
                                const Geometry g = Geo(p.shape);
                                return vlak_rope_f32(g.positions, g.rows, g.dim, p.In(kX).F32(), p.In(kCos).F32(),
                                                     p.In(kSin).F32(), g.dim / 2, out[0].F32(),
                                                     VLAK_ROPE_HALVES) == VLAK_OK;
                              }));
  AddCrefImpls(&op, "src/ops/rope/rope_peer.c", Cref_rope_f32, [](auto* k, const Problem& p, Outputs& out, int threads) {
    const Geometry g = Geo(p.shape);
    const size_t h = g.dim / 2, per_pos = g.rows * g.dim;
    return ParallelOk(threads, g.positions, [&](size_t p0, size_t p1) {
      k(p.In(kX).F32() + p0 * per_pos, p.In(kCos).F32() + p0 * h, p.In(kSin).F32() + p0 * h,
                 out[0].F32() + p0 * per_pos, p1 - p0, g.rows, g.dim);
      return true;
    });
  });
  return {op};
}

}  // namespace vlak::lab
