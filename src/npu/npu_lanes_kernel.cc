// The NPU model's lane loops, generic over the tag: compiled once per target.
//
// All widths run on int32 lanes: an 8- or 16-bit operand is sign-extended (shift left, arithmetic
// shift right), the op is exact in 32 bits for those widths (|a*b| < 2^30), then clamped (sat)
// and masked back to the width. 32-bit ops wrap, as the layer's integer Add/Sub/Mul do; a
// saturating 32-bit add/sub/mul needs the 64-bit result and takes a scalar path (the model's
// programs do not use it). Per lane: 2 loads, <= 4 shifts, the op, <= 2 min/max, 1 and, 1 store.
// The LUT is a gather of 32-bit words from the bank's widened copy (the machine keeps one).
// At K <= 64 the interpreter's per-instruction work (decode, register views) dominates, not these
// loops (measured: docs/npu.md). They keep every target bit-identical (tests/npu:
// SameOnEveryTarget, ArithOnEveryTarget).
#include <algorithm>
#include <cstdint>

#include "npu/npu.h"
#include "npu/npu_lanes_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

using DI = Simd<int32_t, 1>;
using npu::Op;

template <int kBits, class D>
VFromD<D> SignExtend(D d, VFromD<D> v) {
  if constexpr (kBits == 32) {
    (void)d;
    return v;
  } else {
    return ShiftRight<32 - kBits>(d, ShiftLeft<32 - kBits>(d, v));
  }
}

template <int kBits>
void Arith(Op op, bool sat, size_t k, const int32_t* a, const int32_t* b, int32_t* r) {
  const DI d;
  ForEachStrip(d, k, [&](auto dd, size_t i) {
    const auto x = SignExtend<kBits>(dd, LoadU(dd, a + i));
    const auto braw = LoadU(dd, b + i);
    const auto y = SignExtend<kBits>(dd, braw);
    VFromD<decltype(dd)> v;
    bool range = true;  // the result may leave the width: saturate or mask
    switch (op) {
      case Op::kVadd: v = Add(dd, x, y); break;
      case Op::kVsub: v = Sub(dd, x, y); break;
      case Op::kVrsub: v = Sub(dd, y, x); break;
      case Op::kVmul: v = Mul(dd, x, y); break;
      case Op::kVmax: v = Max(dd, x, y); range = false; break;
      case Op::kVmin: v = Min(dd, x, y); range = false; break;
      default: v = Shr(dd, x, And(dd, braw, Set(dd, kBits - 1))); range = false; break;  // vsra
    }
    if constexpr (kBits < 32) {
      if (range && sat) {
        v = Min(dd, Max(dd, v, Set(dd, -(1 << (kBits - 1)))), Set(dd, (1 << (kBits - 1)) - 1));
      }
      v = And(dd, v, Set(dd, (1 << kBits) - 1));
    }
    StoreU(dd, v, r + i);
  });
}

// 32-bit saturating add/sub/rsub/mul: the exact 64-bit result clamped.
[[gnu::noinline, gnu::cold]] void Sat32(Op op, size_t k, const int32_t* a, const int32_t* b, int32_t* r) {
  for (size_t i = 0; i < k; ++i) {
    const int64_t x = a[i], y = b[i];
    const int64_t v = op == Op::kVadd ? x + y : op == Op::kVsub ? x - y : op == Op::kVrsub ? y - x : x * y;
    r[i] = static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
  }
}

}  // namespace

void NpuLaneArith(int op_int, int bits, bool sat, size_t k, const uint32_t* a, const uint32_t* b, uint32_t* r) {
  const auto op = static_cast<Op>(op_int);
  const auto* ai = reinterpret_cast<const int32_t*>(a);
  const auto* bi = reinterpret_cast<const int32_t*>(b);
  auto* ri = reinterpret_cast<int32_t*>(r);
  if (bits == 8) return Arith<8>(op, sat, k, ai, bi, ri);
  if (bits == 16) return Arith<16>(op, sat, k, ai, bi, ri);
  if (sat && (op == Op::kVadd || op == Op::kVsub || op == Op::kVrsub || op == Op::kVmul)) return Sat32(op, k, ai, bi, ri);
  return Arith<32>(op, false, k, ai, bi, ri);
}

void NpuLaneLut(const int32_t* wide, size_t k, const uint32_t* idx, uint32_t* r) {
  const DI d;
  ForEachStrip(d, k, [&](auto dd, size_t i) {
    const auto ix = And(dd, LoadU(dd, reinterpret_cast<const int32_t*>(idx) + i), Set(dd, 255));
    StoreU(dd, Gather(dd, wide, ix), reinterpret_cast<int32_t*>(r) + i);
  });
}

VLAK_KERNELS_DEFINED(VLAK_NPU_LANES_KERNELS)

}  // namespace vlak::VLAK_NS
