// Differential fuzz target of vlak_layernorm_f32 (see fuzz_util.h). Targets sum in different orders,
// so each is checked against the float64 reference within vlak.h's bounds.
#include <algorithm>

#include "fuzz/norm_fuzz_util.h"
#include "ops/layernorm/layernorm.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const RowsXY s = ReadRowsXY(in);
  const auto& [rows, cols, x_stride, y_stride, in_place] = s;
  const float eps = DecodeEps(in);
  const uint8_t opt = in.Byte();  // which optional pointers are given
  const bool has_gamma = opt & 1, has_beta = opt & 2, has_mean = opt & 4, has_rstd = opt & 8;
  const auto& [x_null, y_null, empty, expect_error, xe, ye] = NormCall(in, s, eps);
  if (xe > kMaxElems || ye > kMaxElems) return 0;

  Buffer x(xe), gamma(has_gamma ? cols : 0), beta(has_beta ? cols : 0);
  FillFloats(in, x.data(), x.size());
  FillFloats(in, gamma.data(), gamma.size());
  FillFloats(in, beta.data(), beta.size());
  const std::vector<float> x0 = x.Copy();
  Describe("vlak_layernorm_f32(rows %zu, cols %zu, x_stride %zu, y_stride %zu, eps %g, gamma %d beta %d mean %d rstd %d)%s",
           rows, cols, x_stride, y_stride, eps, has_gamma, has_beta, has_mean, has_rstd, in_place ? " in place" : "");
  std::vector<double> ref(cols);
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    TargetOutput out(in_place, x, x0, ye);
    Buffer mean(has_mean ? rows : 0), rstd(has_rstd ? rows : 0);
    mean.Fill(kSentinel);
    rstd.Fill(kSentinel);
    const vlak_status st = vlak_layernorm_f32(rows, cols, x_null ? nullptr : (in_place ? out.y.data() : x.data()), x_stride,
                                              gamma.data(), beta.data(), eps, y_null ? nullptr : out.y.data(), y_stride,
                                              mean.data(), rstd.data());
    if (!HasResults(st, expect_error, empty, t, out.y, out.before)) {
      CheckSentinels(mean, t, "mean written on error");
      CheckSentinels(rstd, t, "rstd written on error");
      continue;
    }
    for (size_t r = 0; r < rows; ++r) {
      const float* xr = x0.data() + r * x_stride;
      double m64, r64;
      vlak::LayerNormReferenceF64(xr, cols, gamma.data(), beta.data(), eps, ref.data(), &m64, &r64);
      // vlak.h: mean within 1e-6 of |mean| + standard deviation, rstd within 1e-6 relative.
      double var64 = 0;
      for (size_t i = 0; i < cols; ++i) var64 += (xr[i] - m64) * (xr[i] - m64) / static_cast<double>(cols);
      if (has_mean) Check(Within(mean[r], m64, 1e-6 * (std::fabs(m64) + std::sqrt(var64))), "mean", t, r, mean[r], m64);
      // vlak.h's domain: var + eps >= FLT_MIN (below, the squares underflow in float).
      const bool var_normal = var64 + eps >= std::numeric_limits<float>::min();
      if (has_rstd && var_normal) Check(Within(rstd[r], r64, 1e-6 * r64), "rstd", t, r, rstd[r], r64);
      if (!var_normal) continue;
      for (size_t i = 0; i < cols; ++i) {
        const double g = has_gamma ? gamma[i] : 1.0, b = has_beta ? beta[i] : 0.0;
        // vlak.h's domain: x - mean finite in float (a row spanning +-FLT_MAX has no float x - mean).
        if (!(std::fabs(xr[i] - m64) < std::numeric_limits<float>::max())) continue;
        const double xhat = (xr[i] - m64) * r64;
        const double bound = 1e-5 * (std::fabs(g) * (1 + std::fabs(xhat)) + std::fabs(b));
        // An infinite gamma times an xhat that underflows to 0 in float is NaN (IEEE 0 * inf).
        if (std::isinf(g) && std::fabs(xhat) < std::numeric_limits<float>::min() && std::isnan(out.y[r * y_stride + i])) {
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
