// Array exp, strip-mined over the vector layer: compiled once per target (src/CMakeLists.txt).
#include "ops/exp/exp_kernels.h"

#include "math/exp_accurate.h"
#include "math/exp_bittrick_p3.h"
#include "math/exp_bittrick_p5.h"
#include "math/exp_cephes.h"
#include "math/exp_precise.h"
#include "math/exp_schraudolph.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

template <ExpVariant kVariant, class Exp>
void Run(Exp exp, const float* x, float* y, size_t n) {
  const Simd<float, kExpF32Pow2<kVariant>> d;
  // Each strip is loaded before it is stored, so x == y is fine.
  ForEachStrip(d, n, [&](auto ds, size_t i) { StoreU(ds, exp(ds, LoadU(ds, x + i)), y + i); });
}

}  // namespace

void ExpF32(ExpVariant variant, const float* x, float* y, size_t n) {
  switch (variant) {
    case ExpVariant::kSchraudolph: return Run<ExpVariant::kSchraudolph>([](auto d, auto v) { return ExpSchraudolph(d, v); }, x, y, n);
    case ExpVariant::kBittrickP3: return Run<ExpVariant::kBittrickP3>([](auto d, auto v) { return ExpBittrickP3(d, v); }, x, y, n);
    case ExpVariant::kBittrickP5: return Run<ExpVariant::kBittrickP5>([](auto d, auto v) { return ExpBittrickP5(d, v); }, x, y, n);
    case ExpVariant::kCephes: return Run<ExpVariant::kCephes>([](auto d, auto v) { return ExpCephes(d, v); }, x, y, n);
    case ExpVariant::kAccurate: return Run<ExpVariant::kAccurate>([](auto d, auto v) { return ExpAccurate(d, v); }, x, y, n);
    case ExpVariant::kPrecise: return Run<ExpVariant::kPrecise>([](auto d, auto v) { return ExpPrecise(d, v); }, x, y, n);
  }
}

VLAK_KERNELS_DEFINED(VLAK_EXP_KERNELS)

}  // namespace vlak::VLAK_NS
