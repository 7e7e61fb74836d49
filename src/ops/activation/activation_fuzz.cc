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
  OpInput in(data, size);
  const size_t n = in.Size(5000);
  const uint8_t ob = in.Byte();
  const int op = ob < 240 ? ob % 6 : (ob == 255 ? -1 : ob);  // some unknown values
  ElementwiseInput e(in, n);
  const bool expect_error = vlak::ActivationName(op) == nullptr || (n > 0 && (e.x_null || e.y_null));
  Describe("vlak_activation_f32(n %zu, op %d)%s threads %d", n, op, e.in_place ? " in place" : "",
           vlak_get_num_threads());
  const auto act = static_cast<vlak_activation>(op);
  CheckElementwise(
      e, expect_error, /*nan_payloads_may_differ=*/false,
      [&](const float* x, float* y) { return vlak_activation_f32(n, x, y, act); },
      [&](vlak_target t, size_t i, float y) {
        const double ref = vlak::ActivationReferenceF64(act, e.x0[i]);
        Check(vlak::ActivationUlps(y, ref) <= 2.0, "y outside vlak.h's bound", t, i, y, ref);
      });
  return 0;
}
