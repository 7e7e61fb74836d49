// Differential fuzz target of vlak_rmsnorm_f32 (see fuzz_util.h), checked against the float64
// reference within vlak.h's bound on every target.
#include <algorithm>

#include "fuzz/norm_fuzz_util.h"
#include "ops/rmsnorm/rmsnorm.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const RowsXY s = ReadRowsXY(in);
  const auto& [rows, cols, x_stride, y_stride, in_place] = s;
  const float eps = DecodeEps(in);
  const bool has_gamma = in.Bool();
  const auto& [x_null, y_null, empty, expect_error, xe, ye] = NormCall(in, s, eps);
  if (xe > kMaxElems || ye > kMaxElems) return 0;

  Buffer x(xe), gamma(has_gamma ? cols : 0);
  FillFloats(in, x.data(), x.size());
  FillFloats(in, gamma.data(), gamma.size());
  const std::vector<float> x0 = x.Copy();
  Describe("vlak_rmsnorm_f32(rows %zu, cols %zu, x_stride %zu, y_stride %zu, eps %g, gamma %d)%s", rows, cols,
           x_stride, y_stride, eps, has_gamma, in_place ? " in place" : "");
  std::vector<double> ref(cols);
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    TargetOutput out(in_place, x, x0, ye);
    const vlak_status st = vlak_rmsnorm_f32(rows, cols, x_null ? nullptr : (in_place ? out.y.data() : x.data()), x_stride,
                                            gamma.data(), eps, y_null ? nullptr : out.y.data(), y_stride);
    if (!HasResults(st, expect_error, empty, t, out.y, out.before)) continue;
    for (size_t r = 0; r < rows; ++r) {
      const float* xr = x0.data() + r * x_stride;
      vlak::RmsNormReferenceF64(xr, cols, gamma.data(), eps, ref.data());
      double ms = 0;
      for (size_t i = 0; i < cols; ++i) ms += static_cast<double>(xr[i]) * xr[i] / static_cast<double>(cols);
      const double rrms = 1.0 / std::sqrt(ms + eps);
      if (!(ms + eps >= std::numeric_limits<float>::min())) continue;  // vlak.h's domain, as layernorm's
      for (size_t i = 0; i < cols; ++i) {
        const double g = has_gamma ? gamma[i] : 1.0;
        const double bound = 1e-5 * std::fabs(g) * (1 + std::fabs(xr[i] * rrms));
        // An infinite gamma times an x / rms that underflows to 0 in float is NaN (IEEE 0 * inf).
        if (std::isinf(g) && std::fabs(xr[i] * rrms) < std::numeric_limits<float>::min() && std::isnan(out.y[r * y_stride + i])) {
          continue;
        }
        Check(Within(out.y[r * y_stride + i], ref[i], bound), "y outside vlak.h's bound", t, r * cols + i,
              out.y[r * y_stride + i], ref[i]);
      }
      CheckGap(out.y, out.before, r, rows, cols, y_stride, t);
    }
  }
  return 0;
}
