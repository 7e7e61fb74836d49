// The fp32 arithmetic of the Chisel VALU (alu/vec/fp.scala) on raw bit patterns.
//
// "Tier 2" IEEE subset, as the hardware builds it (not as its comments say): inputs with a zero
// exponent (zero, subnormal) or an all-ones exponent (Inf, NaN) are read as a signed zero; the
// 24 x 24-bit mantissa product is truncated (the comment says RNE, the circuit drops the low bits);
// a result exponent >= 255 gives +-0x7F7FFFFF, <= 0 gives +-0. int -> fp truncates the magnitude
// to 24 bits; fp -> int truncates toward zero and saturates at +-2^31.
#include <cstdint>

#include "npu/npu.h"

namespace vlak::npu {
namespace {

constexpr uint32_t Sign(uint32_t f) { return f >> 31; }
constexpr uint32_t Exp(uint32_t f) { return (f >> 23) & 0xFF; }
constexpr uint32_t Man(uint32_t f) { return f & 0x7FFFFF; }
// NaN/Inf/subnormal/zero -> signed zero.
constexpr uint32_t Sanitize(uint32_t f) { return (Exp(f) == 0xFF || Exp(f) == 0) ? (f & 0x80000000u) : f; }

}  // namespace

uint32_t Fmul32(uint32_t a, uint32_t b) {
  const uint32_t as = Sanitize(a), bs = Sanitize(b);
  const uint32_t sign = Sign(as) ^ Sign(bs);
  if (Exp(as) == 0 || Exp(bs) == 0) return sign << 31;
  const uint64_t prod = static_cast<uint64_t>(Man(as) | 0x800000u) * (Man(bs) | 0x800000u);  // 48 bits
  int exp = static_cast<int>(Exp(as)) + static_cast<int>(Exp(bs)) - 127;
  uint32_t man;
  if (prod >> 47) {
    exp += 1;
    man = static_cast<uint32_t>(prod >> 24) & 0x7FFFFF;  // truncated, not rounded
  } else {
    man = static_cast<uint32_t>(prod >> 23) & 0x7FFFFF;
  }
  if (exp >= 255) return sign ? 0xFF7FFFFFu : 0x7F7FFFFFu;
  if (exp <= 0) return sign << 31;
  return (sign << 31) | (static_cast<uint32_t>(exp) << 23) | man;
}

uint32_t S32ToF32(int32_t s) {
  if (s == 0) return 0;
  const uint32_t sign = s < 0 ? 1u : 0u;
  const uint32_t mag = sign ? 0u - static_cast<uint32_t>(s) : static_cast<uint32_t>(s);
  const int msb = 31 - __builtin_clz(mag);
  const uint32_t man = (msb >= 23 ? mag >> (msb - 23) : mag << (23 - msb)) & 0x7FFFFF;
  return (sign << 31) | (static_cast<uint32_t>(msb + 127) << 23) | man;
}

int32_t F32ToS32Rtz(uint32_t f) {
  const uint32_t fs = Sanitize(f);
  if (Exp(fs) == 0) return 0;
  const int unbiased = static_cast<int>(Exp(fs)) - 127;
  const uint32_t man = Man(fs) | 0x800000u;
  if (unbiased >= 31) return Sign(fs) ? INT32_MIN : INT32_MAX;
  uint32_t mag;
  if (unbiased >= 23) {
    mag = man << (unbiased - 23);
  } else if (unbiased >= 0) {
    mag = man >> (23 - unbiased);
  } else {
    return 0;
  }
  return Sign(fs) ? -static_cast<int32_t>(mag) : static_cast<int32_t>(mag);
}

int8_t F32ToS8(uint32_t f) {
  const int32_t s = F32ToS32Rtz(f);
  return static_cast<int8_t>(s > 127 ? 127 : s < -128 ? -128 : s);
}

}  // namespace vlak::npu
