// Differential fuzz target of vlak_activation_f32 (see fuzz_util.h). vlak.h promises the same bits
// on every target, so targets are compared bit for bit, and each result is checked against the
// float64 reference (activation_reference.cc) within vlak.h's bound: 2 ULPs of the float nearest
// it, 2^-149 below FLT_MIN.
#include <cmath>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "ops/activation/activation.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  TargetSweep sweep;
  SetThreads(in);
  const size_t n = in.Size(5000);
  const uint8_t ob = in.Byte();
  const int op = ob < 240 ? ob % 6 : (ob == 255 ? -1 : ob);  // some unknown values
  const bool in_place = in.Byte() < 64;
  const uint8_t nulls = in.Byte();
  const bool x_null = nulls == 1, y_null = nulls == 2;
  const bool expect_error = vlak::ActivationName(op) == nullptr || (n > 0 && (x_null || y_null));
  Buffer x(n);
  FillFloats(in, x.data(), n);
  const std::vector<float> x0 = x.Copy();
  Describe("vlak_activation_f32(n %zu, op %d)%s threads %d", n, op, in_place ? " in place" : "",
           vlak_get_num_threads());
  std::vector<float> first;
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    Buffer y_own;
    Buffer& yb = PrepareOutput(in_place, x, x0, y_own, n);
    const std::vector<float> before = yb.Copy();
    const vlak_status st = vlak_activation_f32(n, x_null ? nullptr : (in_place ? yb.data() : x.data()),
                                               y_null ? nullptr : yb.data(), static_cast<vlak_activation>(op));
    Check((st != VLAK_OK) == expect_error, "status differs from vlak.h's rules", t, 0, st, expect_error);
    if (st != VLAK_OK) {
      for (size_t i = 0; i < yb.size(); ++i) Check(Bits(yb[i]) == Bits(before[i]), "written on error", t, i);
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      const double ref = vlak::ActivationReferenceF64(static_cast<vlak_activation>(op), x0[i]);
      Check(vlak::ActivationUlps(yb[i], ref) <= 2.0, "y outside vlak.h's bound", t, i, yb[i], ref);
    }
    if (first.empty()) {
      first = yb.Copy();
    } else {
      for (size_t i = 0; i < n; ++i) Check(Bits(yb[i]) == Bits(first[i]), "bits differ between targets", t, i, yb[i], first[i]);
    }
  }
  return 0;
}
