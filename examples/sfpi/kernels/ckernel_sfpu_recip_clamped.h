// A clamped reciprocal, 1/x with |1/x| capped, as an SFPU kernel in the style of tt-llk's
// ckernel_sfpu_*.h headers (Tenstorrent's SFPI documentation; tt-llk): compiled unchanged by a
// Tensix toolchain's SFPI, and by vlak on the CPU (the example's kernels.cc). Written for this
// example.
//
// y = 1/x where |1/x| <= cap, else +-cap with x's sign (x = 0 included): the cap, in
// vConstFloatPrgm2, keeps a normalisation by a small or zero value finite. |x| >= 2^126 gives +-0
// (1/x would be denormal, and the SFPU flushes denormals); Inf gives +-0 and NaN gives +-0.
#pragma once

#include "ckernel.h"
#include "ckernel_defs.h"
#include "sfpi.h"

namespace ckernel::sfpu {

// 1/m for m in [0.5, 1): the linear seed 48/17 - 32/17 m (relative error at most 1/17) and three
// Newton-Raphson steps y += y (1 - m y), each squaring the error: 1/17, 2^-8, 2^-16, then below
// fp32's rounding.
sfpi_inline sfpi::vFloat reciprocal_half_to_one(sfpi::vFloat m) {
    sfpi::vFloat y = sfpi::vConstFloatPrgm0 - sfpi::vConstFloatPrgm1 * m;
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++) {
        sfpi::vFloat e = sfpi::vConst1 - m * y;
        y = y + y * e;
    }
    return y;
}

template <bool APPROXIMATION_MODE, int ITERATIONS = 8>
inline void calculate_recip_clamped() {
#pragma GCC unroll 0
    for (int d = 0; d < ITERATIONS; d++) {
        sfpi::vFloat x = sfpi::dst_reg[0];
        sfpi::vFloat ax = sfpi::abs(x);
        // |x| = m 2^(E - 126) with m in [0.5, 1) and E the exponent field, so
        // 1/|x| = (1/m) 2^(126 - E), the power of two built directly for E in [1, 252].
        sfpi::vInt e = sfpi::exexp_nodebias(ax);
        sfpi::vFloat y = reciprocal_half_to_one(sfpi::setexp(ax, 126));
        y = y * sfpi::setexp(sfpi::vConst1, 253 - e);
        v_if (e >= 253) { y = 0.0f; }
        v_endif;
        v_if (ax * sfpi::vConstFloatPrgm2 < 1.0f) { y = sfpi::vConstFloatPrgm2; }
        v_endif;
        sfpi::dst_reg[0] = sfpi::setsgn(y, x);
        sfpi::dst_reg++;
    }
}

template <bool APPROXIMATION_MODE>
inline void recip_clamped_init() {
    sfpi::vConstFloatPrgm0 = 48.0f / 17.0f;
    sfpi::vConstFloatPrgm1 = 32.0f / 17.0f;
    sfpi::vConstFloatPrgm2 = 65504.0f;  // the cap: fp16's largest finite value
}

}  // namespace ckernel::sfpu
