// Differential fuzz target of vlak_softmax_f32 (see fuzz_util.h for what every target checks).
// Results may differ between targets (sums follow the vector length): each is checked against the
// float64 reference within vlak.h's bound for its exp mode.
#include <algorithm>

#include "fuzz/fuzz_util.h"
#include "ops/softmax/softmax.h"

using namespace vlak_fuzz;

namespace {

// vlak.h's bound for y against float64 softmax: relative `rel + 6e-8 * |x - max|` where the
// reference is >= 1e-30 (absolute 1e-30 below); log-softmax absolute `log_abs * max(1, |ref|)`.
struct Bound {
  double rel, log_abs;
};
Bound BoundOf(unsigned flags) {
  switch (flags & VLAK_SOFTMAX_EXP_MASK) {
    case VLAK_SOFTMAX_EXP_FAST: return {2e-5, 2e-5};
    case VLAK_SOFTMAX_EXP_PRECISE: return {1e-6, 1e-5};
    default: return {1e-6, 1e-5};
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const RowsXY s = ReadRowsXY(in);
  const auto& [rows, cols, x_stride, y_stride, in_place] = s;
  const uint8_t fb = in.Byte();
  unsigned flags = fb & 0x33;
  if (fb == 0xff) flags |= 0x100u << (in.Byte() & 15);  // an unknown bit
  const uint8_t nulls = in.Byte();

  const unsigned known = VLAK_SOFTMAX_LOG | VLAK_SOFTMAX_SAFE | VLAK_SOFTMAX_EXP_MASK;
  const bool bad_flags = (flags & ~known) != 0 || (flags & VLAK_SOFTMAX_EXP_MASK) == VLAK_SOFTMAX_EXP_MASK;
  const bool empty = rows == 0 || cols == 0;
  const bool x_null = nulls == 1, y_null = nulls == 2;
  const bool expect_error = bad_flags || (!empty && (x_null || y_null || s.StrideError()));
  // Buffers only for extents the harness can hold; others must be refused before any access.
  const size_t xe = s.XElems(), ye = s.YElems();
  if (xe > kMaxElems || ye > kMaxElems) return 0;

  Buffer x(xe);
  FillFloats(in, x.data(), x.size());
  Describe("vlak_softmax_f32(rows %zu, cols %zu, x_stride %zu, y_stride %zu, flags 0x%x)%s threads %d", rows, cols,
           x_stride, y_stride, flags, in_place ? " in place" : "", vlak_get_num_threads());
  const std::vector<float> x0 = x.Copy();
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    TargetOutput out(in_place, x, x0, ye);
    const float* xp = x_null ? nullptr : (in_place ? out.y.data() : x.data());
    float* yp = y_null ? nullptr : out.y.data();
    const vlak_status st = vlak_softmax_f32(rows, cols, xp, x_stride, yp, y_stride, flags);
    if (!HasResults(st, expect_error, empty, t, out.y, out.before, "written on error or on empty input")) continue;
    const Bound b = BoundOf(flags);
    std::vector<double> ref(cols);
    for (size_t r = 0; r < rows; ++r) {
      const float* xr = x0.data() + r * x_stride;
      vlak::SoftmaxReferenceF64(xr, cols, ref.data(), flags);
      float m = -std::numeric_limits<float>::infinity();
      for (size_t i = 0; i < cols; ++i) m = std::max(m, xr[i]);
      for (size_t i = 0; i < cols; ++i) {
        const float y = out.y[r * y_stride + i];
        const double d = std::isfinite(m) ? std::fabs(static_cast<double>(xr[i]) - m) : 0.0;
        double bound;
        if (flags & VLAK_SOFTMAX_LOG) {
          bound = b.log_abs * std::max(1.0, std::fabs(ref[i])) + 6e-8 * d;
        } else {
          bound = ref[i] >= 1e-30 ? (b.rel + 6e-8 * d) * ref[i] : 1e-30;
        }
        Check(Within(y, ref[i], bound), "softmax outside vlak.h's bound of the float64 reference", t,
              r * cols + i, y, ref[i]);
      }
      CheckGap(out.y, out.before, r, rows, cols, y_stride, t);
    }
  }
  return 0;
}
