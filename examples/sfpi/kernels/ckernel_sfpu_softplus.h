// softplus(x) = log(1 + exp(x)) as an SFPU kernel in the style of tt-llk's ckernel_sfpu_*.h headers
// (Tenstorrent's SFPI documentation; tt-llk): compiled unchanged by a Tensix toolchain's SFPI, and
// by vlak on the CPU (the example's kernels.cc). Written for this example.
//
// softplus(x) = max(x, 0) + log(1 + e^-|x|): e^-|x| is in (0, 1], so nothing overflows and the
// small tail for x << 0 keeps its relative accuracy (log1p is evaluated directly, not as
// log(1 + t)).
#pragma once

#include "ckernel.h"
#include "ckernel_defs.h"
#include "sfpi.h"

using namespace sfpi;

namespace ckernel {
namespace sfpu {

// e^z for z in [-87.33, 0] (the result stays a normal float): z = n ln2 + r, n = round(z log2 e),
// r in [-ln2/2, ln2/2]; e^r by a degree-6 polynomial (relative error about 1e-7, near fp32's
// rounding); 2^n added to the exponent field as an integer. ln2 is split Cody-Waite style into a
// 9-bit high part (n * ln2_hi is exact for |n| < 2^15) and the low remainder.
sfpi_inline vFloat exp_nonpositive(vFloat z) {
    // Adding 1.5 * 2^23 rounds z log2 e to an integer held in the low mantissa bits (one SFPMAD).
    vFloat k = z * vConstFloatPrgm0 + 12582912.0f;
    vFloat n = k - 12582912.0f;
    vFloat r = n * vConstFloatPrgm1 + z;
    r = n * vConstFloatPrgm2 + r;
    vFloat p = 0.0013836829f * r + 0.0083748158f;
    p = p * r + 0.041668225f;
    p = p * r + 0.16666420f;
    p = p * r + 0.49999991f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    vInt n_int = reinterpret<vInt>(k) - 0x4B400000;
    return reinterpret<vFloat>(reinterpret<vInt>(p) + (n_int << 23));
}

// log(1 + t) for t in [0, 1]: t P(t), P a degree-9 fit of log(1 + t) / t (relative error about 1e-7).
sfpi_inline vFloat log1p_unit(vFloat t) {
    vFloat p = -0.0032438508f * t + 0.019850677f;
    p = p * t - 0.056958057f;
    p = p * t + 0.10603505f;
    p = p * t - 0.15305504f;
    p = p * t + 0.19675909f;
    p = p * t - 0.24954128f;
    p = p * t + 0.33329961f;
    p = p * t - 0.49999902f;
    p = p * t + 1.0f;
    return p * t;
}

template <bool APPROXIMATION_MODE, int ITERATIONS = 8>
inline void calculate_softplus() {
#pragma GCC unroll 0
    for (int d = 0; d < ITERATIONS; d++) {
        vFloat x = dst_reg[0];
        vFloat z = -sfpi::abs(x);
        vFloat t = exp_nonpositive(z);
        // Below ln(FLT_MIN) = -87.336544... e^z is denormal: 0, as the SFPU flushes denormals.
        v_if (z < -87.33654f) { t = 0.0f; }
        v_endif;
        vFloat y = log1p_unit(t);
        v_if (x > 0.0f) { y = y + x; }
        v_endif;
        dst_reg[0] = y;
        dst_reg++;
    }
}

template <bool APPROXIMATION_MODE>
inline void softplus_init() {
    vConstFloatPrgm0 = 1.44269504f;      // log2(e)
    vConstFloatPrgm1 = -0.693359375f;    // -ln2_hi
    vConstFloatPrgm2 = 2.12194440e-4f;   // -ln2_lo = ln2_hi - ln2
}

}  // namespace sfpu
}  // namespace ckernel
