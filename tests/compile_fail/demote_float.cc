// Must not compile (tests simd.compile_fail.*): DemoteTo's only float form is f64 -> f32, and a
// float -> integer narrowing is rejected with a message naming ConvertTo / NearestInt
// (scalar.h, the check in tags.h). Built per target and per VLAK_REJECT_CASE by CTest, which
// expects the build to fail with that message.
#include "simd/simd.h"

namespace vlak::VLAK_NS {

#if VLAK_REJECT_CASE == 1
// f32 -> i16
VFromD<Simd<int16_t, 0>> Reject(VFromD<Simd<float, 1>> v) {
  return DemoteTo(Simd<int16_t, 0>(), Simd<float, 1>(), v);
}
#elif VLAK_REJECT_CASE == 2
// f64 -> i32
VFromD<Simd<int32_t, 0>> Reject(VFromD<Simd<double, 1>> v) {
  return DemoteTo(Simd<int32_t, 0>(), Simd<double, 1>(), v);
}
#elif VLAK_REJECT_CASE == 3
// f32 -> u8
VFromD<Simd<uint8_t, 0>> Reject(VFromD<Simd<float, 2>> v) {
  return DemoteTo(Simd<uint8_t, 0>(), Simd<float, 2>(), v);
}
#else
#error "define VLAK_REJECT_CASE"
#endif

}  // namespace vlak::VLAK_NS
