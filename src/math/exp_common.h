// Pieces shared by the f32 exp family (exp_<variant>.h): constants and the exponent-field trick.
//
// Every variant reduces exp(x) = 2^n * e^t and builds 2^n without a float->int conversion:
// adding kMagic = 1.5 * 2^23 to a float v with |v| < 2^22 rounds v to an integer (nearest even)
// that lands in the low mantissa bits of the sum, and the magic's own bits all sit at bit 22 and
// above. So if b = kMagic + n + bias, then bits(b) << 23 is (n + bias) << 23 (mod 2^32): with
// bias 127 and n + 127 in [1, 254] that is the float 2^n, with n + 127 = 0 it is +0. One shift
// replaces Round + ConvertTo + Add + Shift, and b - (kMagic + bias) gives n back as a float.
//
// Instruction counts in the variants' comments are per vector, from the disassembly of clang 19
// (AVX-512 and AVX2 at LMUL 1, RVV at LMUL 4 on a strip tag). On RVV each Set() in the loop
// becomes a vfmv.v.f/vmv.v.x per strip (the intrinsics do not fold a splat into the .vf/.vx
// form of its user, and Set takes the strip's vl, so it cannot be hoisted): 10-13 extra
// instructions per strip, listed separately as "splats".
#pragma once

#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace exp_detail {

inline constexpr float kLog2e = 1.44269502163f;  // 0x3FB8AA3B, log2(e) rounded to float
inline constexpr float kMagic = 12582912.0f;     // 1.5 * 2^23
// Cody-Waite split of ln 2 (tools/remez/exp_coeffs.py): kLn2Hi has 16 significant bits, so
// n * kLn2Hi is exact for |n| < 256 and x - n * kLn2Hi is exact in one FMA; kLn2Lo is the rest.
inline constexpr float kLn2Hi = 0.693145751953125f;      // 0x3F317200
inline constexpr float kLn2Lo = 1.428606765330187e-06f;  // 0x35BFBE8E

// bits(b) << 23 reinterpreted as float: 2^(k - 127) for k = (bits(b) & 0x1FF) in [1, 254].
template <class D>
VFromD<D> ExponentFromMagic(D d, VFromD<D> b) {
  const auto di = Rebind<int32_t>(d);
  return BitCast(d, di, ShiftLeft<23>(di, BitCast(di, d, b)));
}

}  // namespace exp_detail
}  // namespace vlak::VLAK_NS
