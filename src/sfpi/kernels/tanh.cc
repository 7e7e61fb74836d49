// tanh in SFPI: tt-llk's 8-bit LUT: 0.90625 |x| below 1, 0.09375 |x| + 0.8125
// below 2, 1 beyond, the sign of x kept (lut). One SFPLUT per lane-vector. Published: 37 bf16 ULP.
#include "sfpi/kernels/common.h"
#include "sfpi/kernels/kernels.h"

namespace vlak::VLAK_NS::sfpi_kernels {

vFloat TanhLut(const vFloat& x) {
  const vUInt l0 = 0x1dffu;  // A = 0.90625, B = 0
  const vUInt l1 = 0x481au;  // A = 0.09375, B = 0.8125
  const vUInt l2 = 0xff00u;  // A = 0, B = 1
  return lut(x, l0, l1, l2);
}

void TanhBody() { EachRow([](const vFloat& x) { return TanhLut(x); }); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
