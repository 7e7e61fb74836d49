// The measured accuracy of each exp variant (see exp_oracle.h: MeasuredBound), in
// vlak_exp_variant order. Source: `vlak accuracy exp --exhaustive` on avx512 (every float of the
// domain; identical on every target because the vector layer is bit-exact).
#pragma once

#include <cfloat>

#include "exp_oracle.h"

namespace vlak::exp_test {

inline constexpr FloatRange kMainDomain = {-87.3f, 88.7f};
inline constexpr FloatRange kAllFinite = {-FLT_MAX, FLT_MAX};

// Exhaustive maxima as printed (4 decimals / 4 digits), rounded up in the last digit.
inline constexpr MeasuredBound kBounds[] = {
    {"schraudolph", kMainDomain, 366463.0, 2.984e-2},
    {"bittrick_p3", kMainDomain, 7239.0, 6.157e-4},
    {"bittrick_p5", kMainDomain, 75.1097, 6.281e-6},
    {"cephes", kMainDomain, 4.0735, 2.487e-7},
    {"accurate", kMainDomain, 1.5190, 1.208e-7},
    {"precise", kAllFinite, 0.8764, 7.309e-8},
};

}  // namespace vlak::exp_test
