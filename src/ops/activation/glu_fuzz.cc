// Differential fuzz target of vlak_glu_f32 (see fuzz_util.h): the same bits on every target (vlak.h),
// each y within 3 ULPs of act64(gate) * up (plus |up| 2^-149 where act(gate) is below FLT_MIN),
// nothing written on error or between strided rows; y on gate or on up (in place), or with a stride
// that differs from theirs (an error).
#include <cfloat>
#include <cmath>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "ops/activation/activation.h"

using namespace vlak_fuzz;

namespace {

bool WithinGluBound(float y, double act, double up) {
  const double ref = act * up;
  // act(gate) below FLT_MIN may round to 0 in float: times an infinite up that is NaN (IEEE 0 * inf),
  // as vlak.h says.
  if (std::isnan(y) && std::isinf(up) && std::fabs(act) < FLT_MIN) return true;
  if (std::isnan(ref)) return std::isnan(y);
  if (std::isinf(y) && !std::isinf(ref)) {
    return (y > 0) == (ref > 0) && std::fabs(ref) * (1 + 0x1p-22) >= 0x1.ffffffp127;  // rounds to inf
  }
  if (vlak::ActivationUlps(y, ref) <= 3.0) return true;
  const double slack = std::fabs(act) < FLT_MIN ? std::fabs(up) * 0x1p-149 : 0.0;
  return std::fabs(static_cast<double>(y) - ref) <= slack + 0x1p-149;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const size_t rows = in.Size(6);
  const size_t cols = in.Size(2100);
  const size_t gs = Stride(in, rows, cols);
  const size_t us = Stride(in, rows, cols);
  const uint8_t place = in.Byte();
  const int where = place < 48 ? 1 : place < 96 ? 2 : place < 104 ? 3 : 0;  // y on gate, on up, on gate badly, own
  const size_t ys = where == 1 || where == 3 ? gs : where == 2 ? us : Stride(in, rows, cols);
  const size_t y_stride = where == 3 ? ys + 1 : ys;
  const uint8_t ob = in.Byte();
  const int op = ob < 240 ? ob % 6 : (ob == 255 ? -1 : ob);
  const uint8_t nulls = in.Byte();
  const bool g_null = nulls == 1, u_null = nulls == 2, y_null = nulls == 3;

  const bool empty = rows == 0 || cols == 0;
  const bool expect_error =
      vlak::ActivationName(op) == nullptr ||
      (!empty && (g_null || u_null || y_null || gs < cols || us < cols || y_stride < cols ||
                  ExtentOverflows(rows, cols, gs) || ExtentOverflows(rows, cols, us) ||
                  ExtentOverflows(rows, cols, y_stride) || where == 3));
  const size_t ge = gs >= cols ? Extent(rows, cols, gs) : 0;
  const size_t ue = us >= cols ? Extent(rows, cols, us) : 0;
  const size_t ye = y_stride >= cols ? Extent(rows, cols, y_stride) : 0;
  if (ge > kMaxElems || ue > kMaxElems || ye > kMaxElems) return 0;

  Buffer g(ge), u(ue);
  FillFloats(in, g.data(), g.size());
  FillFloats(in, u.data(), u.size());
  const std::vector<float> g0 = g.Copy(), u0 = u.Copy();
  Describe("vlak_glu_f32(rows %zu, cols %zu, gate_stride %zu, up_stride %zu, y_stride %zu, op %d) y %s threads %d",
           rows, cols, gs, us, y_stride, op, where == 0 ? "own" : where == 2 ? "on up" : "on gate",
           vlak_get_num_threads());
  std::vector<float> first;
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    std::copy(g0.begin(), g0.end(), g.data());
    std::copy(u0.begin(), u0.end(), u.data());
    Buffer own;
    if (where == 0) {
      own = Buffer(ye);
      own.Fill(kSentinel);
    }
    Buffer& yb = where == 0 ? own : where == 2 ? u : g;
    const std::vector<float> before = yb.Copy();
    const vlak_status st = vlak_glu_f32(rows, cols, g_null ? nullptr : g.data(), gs, u_null ? nullptr : u.data(), us,
                                        y_null ? nullptr : yb.data(), y_stride, static_cast<vlak_activation>(op));
    if (!HasResults(st, expect_error, empty, t, yb, before)) continue;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) {
        const float gv = g0[r * gs + c], uv = u0[r * us + c];
        const double act = vlak::ActivationReferenceF64(static_cast<vlak_activation>(op), gv);
        const float y = yb[r * y_stride + c];
        if (!WithinGluBound(y, act, uv)) {
          std::fprintf(stderr, "  gate %.9g (0x%08x), up %.9g\n", gv, Bits(gv), uv);
          Fail("y outside vlak.h's bound", t, r * cols + c, y, act * uv);
        }
      }
      if (where == 0) CheckGap(yb, before, r, rows, cols, y_stride, t);
    }
    CheckSameAsFirst(first, yb, t, "results differ between targets");
  }
  return 0;
}
