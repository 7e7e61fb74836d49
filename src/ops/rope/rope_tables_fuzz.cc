// Fuzz target of vlak_rope_tables_f32 (see fuzz_util.h): every entry is cos/sin of the angle
// computed in float64 and rounded once (checked against long double within one float ulp, which
// allows the double rounding), the same bits on every target, nothing outside the used entries.
#include <algorithm>

#include "fuzz/fuzz_util.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  TargetSweep sweep;
  const size_t positions = in.Size(300);
  const size_t head_dim = in.Size(300);
  static const double kBases[] = {10000.0, 500000.0, 2.0, 1.0, 0.5, 1e300, 0.0, -1.0, std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN()};
  const double base = kBases[in.Byte() % 10];
  const uint8_t sb = in.Byte();
  size_t table_stride = head_dim / 2 + (sb & 7);
  if (sb >= 240) table_stride = head_dim / 2 > 0 ? head_dim / 2 - 1 : 0;
  if (sb == 239) table_stride = positions > 1 ? SIZE_MAX / 4 / (positions - 1) + 1 : SIZE_MAX;
  const uint8_t nulls = in.Byte();
  const size_t half = head_dim / 2;
  const bool empty = positions == 0 || head_dim == 0;
  const bool expect_error = head_dim % 2 != 0 || !(base > 0.0) || !std::isfinite(base) ||
                            (!empty && (nulls == 1 || nulls == 2 || table_stride < half ||
                                        ExtentOverflows(positions, std::max<size_t>(half, 1), table_stride)));
  const size_t e = table_stride >= half && !ExtentOverflows(positions, std::max<size_t>(half, 1), table_stride)
                       ? Extent(positions, half, table_stride)
                       : 0;
  if (e > kMaxElems) return 0;
  Describe("vlak_rope_tables_f32(positions %zu, head_dim %zu, base %g, table_stride %zu)", positions, head_dim, base,
           table_stride);
  std::vector<float> first_c, first_s;
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    Buffer c(e), s(e);
    c.Fill(kSentinel);
    s.Fill(kSentinel);
    const vlak_status st =
        vlak_rope_tables_f32(positions, head_dim, base, nulls == 1 ? nullptr : c.data(), nulls == 2 ? nullptr : s.data(),
                             table_stride);
    CheckStatus(st, expect_error, t);
    for (size_t i = 0; i < e; ++i) {
      const size_t p = i / std::max<size_t>(table_stride, 1), j = i % std::max<size_t>(table_stride, 1);
      const bool used = st == VLAK_OK && j < half;
      if (!used) {
        Check(Bits(c[i]) == Bits(kSentinel) && Bits(s[i]) == Bits(kSentinel), "written outside the used entries", t, i);
        continue;
      }
      const long double angle = static_cast<long double>(p) *
                                std::pow(static_cast<long double>(base), -2.0L * j / static_cast<long double>(head_dim));
      const long double cr = std::cos(angle), sr = std::sin(angle);
      // One float ulp of the result's binade plus float64's own error on the angle (p up to 300:
      // the angle's rounding moves cos/sin by ~p * 2^-53).
      const auto ulp = [](long double v) {
        const float f = static_cast<float>(std::fabs(v));
        return static_cast<long double>(std::nextafter(f, std::numeric_limits<float>::infinity()) - f);
      };
      const long double slack = 4e-16L * (1 + angle);
      Check(std::fabs(c[i] - cr) <= ulp(cr) + slack, "cos table", t, i, c[i], static_cast<double>(cr));
      Check(std::fabs(s[i] - sr) <= ulp(sr) + slack, "sin table", t, i, s[i], static_cast<double>(sr));
    }
    if (!first_c.empty()) {
      for (size_t i = 0; i < e; ++i) {
        Check(Bits(c[i]) == Bits(first_c[i]) && Bits(s[i]) == Bits(first_s[i]), "targets differ", t, i);
      }
    } else {
      first_c = c.Copy();
      first_s = s.Copy();
    }
  }
  return 0;
}
