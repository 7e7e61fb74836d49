// Differential fuzz target of vlak_exp_f32 (see fuzz_util.h). Every variant promises the same bits
// on every target, so targets are compared bit for bit (NaN payloads aside), and each result is
// checked against float64 exp within the variant's bound in vlak.h.
#include <algorithm>

#include "fuzz/fuzz_util.h"

using namespace vlak_fuzz;

namespace {

// vlak.h: relative bounds for the bit-trick variants, ULP bounds for the others, on [-87.3, 88.7]
// (every finite float for PRECISE, denormal results included).
// The variant's relative error bound (the bit-trick variants) or ULP bound (the others).
double RelBound(int variant) {
  switch (variant) {
    case VLAK_EXP_SCHRAUDOLPH: return 3.0e-2;
    case VLAK_EXP_BITTRICK_P3: return 6.2e-4;
    case VLAK_EXP_BITTRICK_P5: return 6.3e-6;
    default: return 0;
  }
}
double UlpBound(int variant) {
  return variant == VLAK_EXP_CEPHES ? 4.08 : variant == VLAK_EXP_ACCURATE ? 2.0 : 1.0;
}

bool WithinExpBound(int variant, float x, float y) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr double kOverflow = 0x1.ffffffp127;  // exp at or above rounds to +inf
  const double ref = std::exp(static_cast<double>(x));
  if (std::isnan(x)) return std::isnan(y);
  if (x == -kInf) return y == 0.0f && !std::signbit(y);
  if (x == kInf) return y == x;
  if (std::signbit(y) || std::isnan(y)) return false;
  const double rel = RelBound(variant);
  const double ulp = ref >= std::numeric_limits<float>::min() ? std::ldexp(1.0, std::ilogb(ref) - 23)
                                                                : std::ldexp(1.0, -149);
  const double bound = rel > 0 ? rel * ref : UlpBound(variant) * ulp;
  const bool in_domain = x >= -87.3f && x <= 88.7f;
  if (variant != VLAK_EXP_PRECISE && !in_domain) {
    // Outside the measured domain vlak.h promises only the saturation: +inf on overflow, +0 on
    // underflow, and in between a value on the right side (exp(88.7) = 3.3e38 > FLT_MAX / 2,
    // exp(-87.3) = 1.2e-38 ~ FLT_MIN).
    if (ref >= kOverflow * (1 + rel) + bound) return y == kInf;
    if (x > 88.7f) return y == kInf || y >= std::numeric_limits<float>::max() / 2;
    return y <= 2 * std::numeric_limits<float>::min();
  }
  if (y == kInf) return ref + bound >= kOverflow;
  if (variant == VLAK_EXP_ACCURATE && ref < std::numeric_limits<float>::min() && y == 0.0f) {
    return true;  // "results below about -87.3 may flush to 0"
  }
  return std::fabs(static_cast<double>(y) - ref) <= bound;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  TargetSweep sweep;
  const size_t n = in.Size(5000);
  const uint8_t vb = in.Byte();
  const int variant = vb < 240 ? vb % 6 : (vb == 255 ? -1 : vb);  // some unknown values
  ElementwiseInput e(in, n);
  const bool expect_error = variant < 0 || variant > 5 || (n > 0 && (e.x_null || e.y_null));
  Describe("vlak_exp_f32(n %zu, variant %d)%s", n, variant, e.in_place ? " in place" : "");
  CheckElementwise(
      e, expect_error, /*nan_payloads_may_differ=*/true,
      [&](const float* x, float* y) { return vlak_exp_f32(n, x, y, static_cast<vlak_exp_variant>(variant)); },
      [&](vlak_target t, size_t i, float y) {
        Check(WithinExpBound(variant, e.x0[i], y), "exp outside vlak.h's bound", t, i, y, e.x0[i]);
      });
  return 0;
}
