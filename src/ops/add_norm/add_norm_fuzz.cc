// Differential fuzz target of vlak_add_layernorm_f32 and vlak_add_rmsnorm_f32 (see fuzz_util.h):
// on every target, the status follows vlak.h's rules (nothing written on an error), and y and sum
// are the bits of vlak.h's definition, s = x + r in float and then vlak_layernorm_f32 /
// vlak_rmsnorm_f32 on s (whose own fuzz targets check them against float64).
#include <algorithm>

#include "fuzz/norm_fuzz_util.h"

using namespace vlak_fuzz;

namespace {

// In-place layouts: 0 none, 1 y = x, 2 y = r, 3 sum = x, 4 sum = r, 5 y = x and sum = r.
constexpr int kLayouts = 6;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const bool rms = in.Bool();
  const size_t rows = in.Size(6);
  const size_t cols = in.Size(2100);
  const int layout = in.Byte() % kLayouts;
  const size_t x_stride = Stride(in, rows, cols);
  const size_t r_stride = Stride(in, rows, cols);
  const bool y_on_x = layout == 1 || layout == 5, y_on_r = layout == 2;
  const bool sum_on_x = layout == 3, sum_on_r = layout == 4 || layout == 5;
  const size_t y_stride = y_on_x ? x_stride : y_on_r ? r_stride : Stride(in, rows, cols);
  const bool has_sum = sum_on_x || sum_on_r || in.Bool();
  const size_t sum_stride = sum_on_x ? x_stride : sum_on_r ? r_stride : has_sum ? Stride(in, rows, cols) : 0;
  const float eps = DecodeEps(in);
  const bool has_gamma = in.Bool(), has_beta = in.Bool();
  const uint8_t nulls = in.Byte();
  const bool x_null = nulls == 1, r_null = nulls == 2, y_null = nulls == 3;

  const bool empty = rows == 0 || cols == 0;
  const bool bad_stride = x_stride < cols || r_stride < cols || y_stride < cols || (has_sum && sum_stride < cols);
  const bool overflows = ExtentOverflows(rows, cols, x_stride) || ExtentOverflows(rows, cols, r_stride) ||
                         ExtentOverflows(rows, cols, y_stride) || (has_sum && ExtentOverflows(rows, cols, sum_stride));
  const bool expect_error = !(eps >= 0.0f) || (!empty && (x_null || r_null || y_null || bad_stride || overflows));
  const size_t xe = x_stride >= cols ? Extent(rows, cols, x_stride) : 0;
  const size_t re = r_stride >= cols ? Extent(rows, cols, r_stride) : 0;
  const size_t ye = y_stride >= cols ? Extent(rows, cols, y_stride) : 0;
  const size_t se = has_sum && sum_stride >= cols ? Extent(rows, cols, sum_stride) : 0;
  if (xe > kMaxElems || re > kMaxElems || ye > kMaxElems || se > kMaxElems) return 0;

  Buffer x(xe), r(re), gamma(has_gamma ? cols : 0), beta(has_beta ? cols : 0);
  FillFloats(in, x.data(), x.size());
  FillFloats(in, r.data(), r.size());
  FillFloats(in, gamma.data(), gamma.size());
  FillFloats(in, beta.data(), beta.size());
  const std::vector<float> x0 = x.Copy(), r0 = r.Copy();
  Describe("vlak_add_%s_f32(rows %zu, cols %zu, strides x %zu r %zu y %zu sum %zu, eps %g, gamma %d, beta %d, "
           "layout %d)",
           rms ? "rmsnorm" : "layernorm", rows, cols, x_stride, r_stride, y_stride, sum_stride, eps, has_gamma,
           has_beta, layout);

  // vlak.h's definition on one target: s in a float loop, then the plain norm on s.
  std::vector<float> s(rows * cols), want(rows * cols);
  if (!expect_error && !empty) {
    for (size_t i = 0; i < rows; ++i) {
      for (size_t j = 0; j < cols; ++j) s[i * cols + j] = x0[i * x_stride + j] + r0[i * r_stride + j];
    }
  }
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    std::copy(x0.begin(), x0.end(), x.data());
    std::copy(r0.begin(), r0.end(), r.data());
    Buffer y_own, s_own;
    if (!y_on_x && !y_on_r) {
      y_own = Buffer(ye);
      y_own.Fill(kSentinel);
    }
    if (has_sum && !sum_on_x && !sum_on_r) {
      s_own = Buffer(se);
      s_own.Fill(kSentinel);
    }
    float* const yp = y_on_x ? x.data() : y_on_r ? r.data() : y_own.data();
    // A sum whose extent the harness does not allocate (it overflows, or stride < cols) still
    // passes a pointer: NULL would mean "no sum", which is valid.
    float dummy = kSentinel;
    float* sp = !has_sum ? nullptr : sum_on_x ? x.data() : sum_on_r ? r.data() : s_own.data();
    if (has_sum && sp == nullptr) sp = &dummy;
    const std::vector<float> y_before = y_own.Copy(), s_before = s_own.Copy();
    const vlak_status st =
        rms ? vlak_add_rmsnorm_f32(rows, cols, x_null ? nullptr : x.data(), x_stride, r_null ? nullptr : r.data(),
                                   r_stride, gamma.data(), eps, y_null ? nullptr : yp, y_stride, sp, sum_stride)
            : vlak_add_layernorm_f32(rows, cols, x_null ? nullptr : x.data(), x_stride, r_null ? nullptr : r.data(),
                                     r_stride, gamma.data(), beta.data(), eps, y_null ? nullptr : yp, y_stride, sp,
                                     sum_stride);
    if (!HasResults(st, expect_error, empty, t, x, x0, "x written on error")) {
      CheckUnchanged(r, r0, t, "r written on error");
      CheckUnchanged(y_own, y_before, t, "y written on error");
      CheckUnchanged(s_own, s_before, t, "sum written on error");
      continue;
    }
    // The plain norm on s, on this target.
    const vlak_status wst =
        rms ? vlak_rmsnorm_f32(rows, cols, s.data(), cols, gamma.data(), eps, want.data(), cols)
            : vlak_layernorm_f32(rows, cols, s.data(), cols, gamma.data(), beta.data(), eps, want.data(), cols, nullptr,
                                 nullptr);
    Check(wst == VLAK_OK, "the plain norm failed", t, 0, wst);
    for (size_t i = 0; i < rows; ++i) {
      for (size_t j = 0; j < cols; ++j) {
        Check(SameValue(yp[i * y_stride + j], want[i * cols + j]), "y differs from the norm of x + r", t,
              i * cols + j, yp[i * y_stride + j], want[i * cols + j]);
        if (sp != nullptr) {
          Check(SameValue(sp[i * sum_stride + j], s[i * cols + j]), "sum differs from x + r", t, i * cols + j,
                sp[i * sum_stride + j], s[i * cols + j]);
        }
      }
      for (size_t j = cols; i + 1 < rows && j < y_stride && y_own.size() != 0; ++j) {
        Check(Bits(y_own[i * y_stride + j]) == Bits(kSentinel), "gap between y's rows written", t, i * y_stride + j);
      }
      for (size_t j = cols; i + 1 < rows && j < sum_stride && s_own.size() != 0; ++j) {
        Check(Bits(s_own[i * sum_stride + j]) == Bits(kSentinel), "gap between sum's rows written", t,
              i * sum_stride + j);
      }
    }
  }
  return 0;
}
