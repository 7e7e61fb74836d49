// Differential fuzz target of vlak_layernorm_backward_f32 (see fuzz_util.h): dx, dgamma and dbeta
// against the float64 reference within vlak.h's bounds on every target. mean and rstd come from the
// forward pass (scalar target) or, for some inputs, straight from the fuzz data.
#include <algorithm>

#include "fuzz/fuzz_util.h"
#include "ops/layernorm/layernorm.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const size_t rows = in.Size(6);
  const size_t cols = in.Size(1500);
  const size_t stride = Stride(in, rows, cols);
  const uint8_t opt = in.Byte();
  const bool has_gamma = opt & 1, has_dgamma = opt & 2, has_dbeta = opt & 4, stats_from_data = (opt & 0x70) == 0x70;
  const uint8_t alias = in.Byte() % 3;  // 0: own dx, 1: dx == dy, 2: dx == x
  const uint8_t nulls = in.Byte();

  const bool empty = rows == 0 || cols == 0;
  const bool expect_error =
      !empty && ((nulls >= 1 && nulls <= 5) || stride < cols || ExtentOverflows(rows, cols, stride));
  const size_t e = stride >= cols ? Extent(rows, cols, stride) : 0;
  if (e > kMaxElems) return 0;

  Buffer dy(e), x(e), gamma(has_gamma ? cols : 0), mean(rows), rstd(rows);
  FillFloats(in, dy.data(), e);
  FillFloats(in, x.data(), e);
  FillFloats(in, gamma.data(), gamma.size());
  if (stats_from_data) {
    FillFloats(in, mean.data(), rows);
    FillFloats(in, rstd.data(), rows);
  } else if (e > 0 && !expect_error) {
    vlak_set_target(VLAK_TARGET_SCALAR);
    Buffer y(e);
    if (vlak_layernorm_f32(rows, cols, x.data(), stride, nullptr, nullptr, 1e-5f, y.data(), stride, mean.data(),
                           rstd.data()) != VLAK_OK) {
      std::abort();
    }
  }
  const std::vector<float> dy0 = dy.Copy(), x0 = x.Copy();
  Describe("vlak_layernorm_backward_f32(rows %zu, cols %zu, stride %zu, gamma %d dgamma %d dbeta %d, alias %d, stats %s)",
           rows, cols, stride, has_gamma, has_dgamma, has_dbeta, alias, stats_from_data ? "fuzzed" : "forward");

  // References: dx rows and the column sums of dgamma/dbeta terms, and their absolute sums.
  std::vector<double> rdx(e), sg(cols), sb(cols), ag(cols), ab(cols), scale(rows);
  std::vector<bool> in_domain(rows, true);
  std::vector<double> amplify(rows, 1.0);  // max(1, |rstd|) * max(1, max |xhat|)^2
  bool all_in_domain = true;
  if (!expect_error && !empty) {
    std::vector<double> dxr(cols), tg(cols), tb(cols);
    for (size_t r = 0; r < rows; ++r) {
      const size_t o = r * stride;
      vlak::LayerNormBackwardReferenceF64(dy0.data() + o, x0.data() + o, cols, gamma.data(), mean[r], rstd[r], dxr.data(),
                                          tg.data(), tb.data());
      double mg = 0, mgx = 0, sum_g = 0, sum_gx = 0, max_xm = 0;
      for (size_t i = 0; i < cols; ++i) {
        const double gi = static_cast<double>(dy0[o + i]) * (has_gamma ? gamma[i] : 1.0);
        const double xm = x0[o + i] - double{mean[r]};
        mg += gi / cols;
        mgx += gi * (xm * rstd[r]) / cols;
        sum_g += std::fabs(gi);
        sum_gx += std::fabs(gi * xm * rstd[r]);
        max_xm = std::max(max_xm, std::fabs(xm));
      }
      // vlak.h's domain: x - mean, xhat, g = dy * gamma, the row sums of |g| and |g * xhat| and the
      // terms of dx finite in float (NaN/inf inputs are outside the check: they propagate).
      constexpr double kMax = std::numeric_limits<float>::max();
      in_domain[r] = !(max_xm >= kMax || sum_g >= kMax || sum_gx >= kMax ||
                       max_xm * std::fabs(double{rstd[r]}) >= kMax);
      all_in_domain = all_in_domain && in_domain[r];
      double s = 0;
      for (size_t i = 0; i < cols; ++i) {
        const double xhat = (x0[o + i] - double{mean[r]}) * rstd[r];
        const double gi = static_cast<double>(dy0[o + i]) * (has_gamma ? gamma[i] : 1.0);
        s = std::max(s, std::fabs(rstd[r]) * (std::fabs(gi) + std::fabs(mg) + std::fabs(xhat * mgx)));
        rdx[o + i] = dxr[i];
        sg[i] += tg[i];
        sb[i] += tb[i];
        ag[i] += std::fabs(tg[i]);
        ab[i] += std::fabs(tb[i]);
      }
      scale[r] = s;
      const double xh = std::max(1.0, max_xm * std::fabs(double{rstd[r]}));
      amplify[r] = std::max(1.0, std::fabs(double{rstd[r]})) * xh * xh;
      // and dx's terms themselves finite; and vlak.h bounds only the forward pass's statistics:
      // with fuzzed ones the call is still checked for status, gaps and memory, not for accuracy.
      in_domain[r] = in_domain[r] && s < kMax && !stats_from_data;
      all_in_domain = all_in_domain && in_domain[r];
    }
  }
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    std::copy(dy0.begin(), dy0.end(), dy.data());
    std::copy(x0.begin(), x0.end(), x.data());
    Buffer dx_own(alias == 0 ? e : 0), dgamma(has_dgamma ? cols : 0), dbeta(has_dbeta ? cols : 0);
    dx_own.Fill(kSentinel);
    dgamma.Fill(kSentinel);
    dbeta.Fill(kSentinel);
    Buffer& dx = alias == 0 ? dx_own : alias == 1 ? dy : x;
    const std::vector<float> before = dx.Copy();
    const vlak_status st = vlak_layernorm_backward_f32(
        rows, cols, nulls == 1 ? nullptr : dy.data(), nulls == 2 ? nullptr : x.data(), stride, gamma.data(),
        nulls == 3 ? nullptr : mean.data(), nulls == 4 ? nullptr : rstd.data(), nulls == 5 ? nullptr : dx.data(),
        dgamma.data(), dbeta.data());
    if (!HasResults(st, expect_error, empty, t, dx, before, "dx written on error")) {
      CheckSentinels(dgamma, t, "dgamma written on error");
      CheckSentinels(dbeta, t, "dbeta written on error");
      continue;
    }
    for (size_t r = 0; r < rows; ++r) {
      for (size_t i = 0; i < cols; ++i) {
        const size_t at = r * stride + i;
        if (!in_domain[r]) continue;
        // Subnormal g terms are exact only to 2^-150 each; dx multiplies them by up to xhat^2 rstd.
        Check(Within(dx[at], rdx[at], 1e-5 * scale[r], 4.0 * cols * amplify[r]), "dx outside vlak.h's bound", t, at, dx[at], rdx[at]);
      }
      CheckGap(dx, before, r, rows, cols, stride, t, "gap between rows of dx written");
    }
    for (size_t i = 0; i < cols && all_in_domain; ++i) {
      // vlak.h's subnormal term: xhat below FLT_MIN is exact only to 2^-150, times dy (ab[i] is
      // sum_r |dy|: dbeta's terms are dy).
      if (has_dgamma && ag[i] < 1e38) {
        Check(Within(dgamma[i], sg[i], 1e-5 * ag[i] + 0x1.0p-150 * ab[i], 2.0 * rows), "dgamma outside bound", t, i,
              dgamma[i], sg[i]);
      }
      if (has_dbeta && ab[i] < 1e38) Check(Within(dbeta[i], sb[i], 1e-5 * ab[i], 2.0 * rows), "dbeta outside bound", t, i, dbeta[i], sb[i]);
    }
  }
  return 0;
}
