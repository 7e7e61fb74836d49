// Relative error bounds of vlak's exp variants on normal-range results, as the lab checks them.
// accurate and precise: their contracts (<= 2 and <= 1 ULP; ulp(y) <= 2^-23 y). The approximate
// variants promise no ULP bound: theirs is the exhaustive measurement over every float of
// [-87.3, 88.7] written in each header (src/math/exp_*.h), rounded up, which the lab's inputs
// (a subset of that domain) cannot exceed unless the kernel changed.
#pragma once

#include "vlak/vlak.h"

namespace vlak::lab {

inline double ExpVariantBound(vlak_exp_variant v) {
  switch (v) {
    case VLAK_EXP_SCHRAUDOLPH: return 2.99e-2;  // measured 2.983e-2
    case VLAK_EXP_BITTRICK_P3: return 6.2e-4;   // measured 6.156e-4
    case VLAK_EXP_BITTRICK_P5: return 6.3e-6;   // measured 6.280e-6
    case VLAK_EXP_CEPHES: return 2.5e-7;        // measured 2.486e-7
    case VLAK_EXP_ACCURATE: return 0x1p-22;     // <= 2 ULP
    case VLAK_EXP_PRECISE: return 0x1p-23;      // <= 1 ULP
  }
  return __builtin_nan("");
}

}  // namespace vlak::lab
