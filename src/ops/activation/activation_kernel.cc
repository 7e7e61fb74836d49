// Activation kernels, generic over the tag: compiled once per target. The functions themselves
// are in the headers beside this file (sigmoid.h, tanh.h, gelu.h, gelu_tanh.h, softplus.h), one
// algorithm for every target, and fast.h the fast tier of sigmoid, tanh, gelu, gelu_tanh and
// silu: each is a fixed sequence of IEEE operations with FMA (no target-specific
// approximations), so the results are the same bits on every target; the exceptions are the
// fast tier's sigmoid and silu on AVX2 and AVX-512 (sigmoid_avx2.h, sigmoid_avx512.h: a table in a
// register).
#include "ops/activation/activation_kernels.h"

#include "ops/activation/fast.h"
#include "ops/activation/gelu.h"
#include "ops/activation/gelu_tanh.h"
#include "ops/activation/sigmoid.h"
#include "ops/activation/sigmoid_split.h"
#include "ops/activation/softplus.h"
#include "ops/activation/tanh.h"
#include "ops/output_strips.h"
#include "simd/simd.h"
#include "vlak/vlak.h"

namespace vlak::VLAK_NS {
namespace {

// LMUL per function (figures: docs/ops/activation.md). x86: two registers per value, faster than
// one for every function. RVV: LMUL 2 for every activation loop, which halves the instructions per
// element (for gelu at a few % more X60 cycles; the count its budget holds). They keep everything in registers there because the masks are made by shifts
// (exp_parts.h's SignOf), the reciprocal's seed takes scalar operands (recip.h) and silu's,
// tanh's, softplus's and gelu_tanh's exps splat 2-4 of their Horner constants in the loop
// (SetAt: one vfmv.v.f each) rather than hold them (scripts/rvv-spill-check: with them held,
// 2-6 registers spilled). Softplus is at LMUL 2 for its 42 % fewer instructions at about the same
// X60 cycles. glu: LMUL 1 (at LMUL 2 its loops
// still spill 2-5 registers: the row loop around them holds more). Scalar: 1.
// The fast tier (fast.h) as the accurate kernels, LMUL 2 on RVV too (no spills there; counts:
// docs/ops/activation.md), but sigmoid_avx2.h's sigmoid and silu at one register per value: with
// two, their loops ran 2-3 % slower (docs/ops/activation.md, "The fast sigmoid and silu on AVX2").
template <int kOp, bool kGlu>
inline constexpr int kPow2 = [] {
  if (VLAK_TARGET_ID == ::vlak::Target::kAvx2 && !kGlu &&
      (kOp == (VLAK_ACT_SIGMOID | VLAK_ACT_FAST) || kOp == (VLAK_ACT_SILU | VLAK_ACT_FAST)))
    return 0;
  if (VLAK_TARGET_ID == ::vlak::Target::kAvx2 || VLAK_TARGET_ID == ::vlak::Target::kAvx512) return 1;
  if (VLAK_TARGET_ID == ::vlak::Target::kRvv) return !kGlu ? 1 : 0;
  return 0;
}();

// kGlu: glu's fast tier keeps fast.h's degree-4 q for sigmoid and silu. Its 5 ULP bound on
// act(gate) * up takes act's relative error rho as up to rho 2^24 ULP of the product (act's
// mantissa near 1, the product's near 2), plus the product's rounding: degree 4 has rho <= 2.96 x
// 2^-24, degree 3 up to 4.6 x 2^-24 (5.1 ULP). The default tier's split form, rho <= 2.27 x 2^-24,
// fits glu's 3 ULP the same way (docs/ops/activation.md).
template <int kOp, bool kGlu = false, class D>
[[gnu::always_inline]] inline VFromD<D> Act(D d, VFromD<D> v) {
  if constexpr (kOp == kActNone) return v;
  else if constexpr (kOp == (VLAK_ACT_SIGMOID | VLAK_ACT_FAST)) return act::FastSigmoid<kGlu ? 4 : 3>(d, v);
  else if constexpr (kOp == (VLAK_ACT_TANH | VLAK_ACT_FAST)) return act::FastTanh(d, v);
  else if constexpr (kOp == (VLAK_ACT_SILU | VLAK_ACT_FAST)) return act::FastSilu<kGlu ? 4 : 3>(d, v);
  else if constexpr (kOp == (VLAK_ACT_GELU | VLAK_ACT_FAST)) return act::FastGelu(d, v);
  else if constexpr (kOp == (VLAK_ACT_GELU_TANH | VLAK_ACT_FAST)) return act::FastGeluTanh(d, v);
  else if constexpr (kOp == VLAK_ACT_SIGMOID) return act::DefaultSigmoid(d, v);
  else if constexpr (kOp == VLAK_ACT_TANH) return act::Tanh(d, v);
  else if constexpr (kOp == VLAK_ACT_GELU) return act::Gelu(d, v);
  else if constexpr (kOp == VLAK_ACT_GELU_TANH) return act::GeluTanh(d, v);
  else if constexpr (kOp == VLAK_ACT_SILU) return act::DefaultSilu(d, v);
  else return act::Softplus(d, v);
}

// stream: non-temporal stores of y (x86; output_strips.h), for outputs larger than the caches.
// AVX2's fast sigmoid in cache: whole vectors by sigmoid_avx2.h's pipelined loop, the tail by
// the strip loop below (the same arithmetic).
template <int kOp>
[[gnu::noinline]] void Run(const float* x, float* y, size_t n, bool stream) {
  const Simd<float, kPow2<kOp, false>> d;
#if defined(VLAK_SIMD_AVX2)
  if constexpr (kOp == (VLAK_ACT_SIGMOID | VLAK_ACT_FAST)) {
    if (!stream) {
      const size_t whole = n / 8 * 8;
      act::FastSigmoidLoopAvx2(x, y, whole);
      x += whole, y += whole, n -= whole;
    }
  }
#endif
  // Each strip is loaded before it is stored: x == y is fine.
  OutputStrips(d, y, n, stream, nullptr, nullptr, nullptr, [&](auto ds, size_t i) { return Act<kOp>(ds, LoadU(ds, x + i)); });
  EndStreamedOutput(stream);
}

template <int kOp>
[[gnu::noinline]] void Glu(size_t rows, size_t cols, const float* gate, size_t gate_stride, const float* up, size_t up_stride, float* y,
         size_t y_stride) {
  const Simd<float, kPow2<kOp, true>> d;
  for (size_t r = 0; r < rows; ++r) {
    const float* g = gate + r * gate_stride;
    const float* u = up + r * up_stride;
    float* yr = y + r * y_stride;
    // Both operands are loaded before the store: y may be gate or up.
    ForEachStrip(d, cols, [&](auto ds, size_t i) {
      const auto a = Act<kOp, true>(ds, LoadU(ds, g + i));
      StoreU(ds, Mul(ds, a, LoadU(ds, u + i)), yr + i);
    });
  }
}

// Matmul's epilogue on a tile of C (rows x cols, row stride y_stride), in place: per row, the
// bias added in one loop, then Run's loop on the row (in L1). On RVV at LMUL 2 the activation's
// loop spills inside a loop over rows (as glu's does), and at LMUL 1 retired 1.4x the
// instructions; Run's own loop does neither.
template <int kOp>
[[gnu::noinline]] void BiasAct(size_t rows, size_t cols, const float* bias, float* y, size_t y_stride) {
  const Simd<float, kPow2<kOp, false>> d;
  for (size_t r = 0; r < rows; ++r) {
    float* const yr = y + r * y_stride;
    if (bias != nullptr) {
      ForEachStrip(d, cols, [&](auto ds, size_t i) { StoreU(ds, Add(ds, LoadU(ds, yr + i), LoadU(ds, bias + i)), yr + i); });
    }
    if constexpr (kOp != kActNone) Run<kOp>(yr, yr, cols, false);
  }
}

}  // namespace

namespace {

void Activation(int op, const float* x, float* y, size_t n, bool stream) {
  switch (op) {
    case VLAK_ACT_SIGMOID: return Run<VLAK_ACT_SIGMOID>(x, y, n, stream);
    case VLAK_ACT_TANH: return Run<VLAK_ACT_TANH>(x, y, n, stream);
    case VLAK_ACT_GELU: return Run<VLAK_ACT_GELU>(x, y, n, stream);
    case VLAK_ACT_GELU_TANH: return Run<VLAK_ACT_GELU_TANH>(x, y, n, stream);
    case VLAK_ACT_SILU: return Run<VLAK_ACT_SILU>(x, y, n, stream);
    case VLAK_ACT_SOFTPLUS: return Run<VLAK_ACT_SOFTPLUS>(x, y, n, stream);
    case kActFastSigmoid: return Run<VLAK_ACT_SIGMOID | VLAK_ACT_FAST>(x, y, n, stream);
    case kActFastTanh: return Run<VLAK_ACT_TANH | VLAK_ACT_FAST>(x, y, n, stream);
    case kActFastSilu: return Run<VLAK_ACT_SILU | VLAK_ACT_FAST>(x, y, n, stream);
    case kActFastGelu: return Run<VLAK_ACT_GELU | VLAK_ACT_FAST>(x, y, n, stream);
    case kActFastGeluTanh: return Run<VLAK_ACT_GELU_TANH | VLAK_ACT_FAST>(x, y, n, stream);
  }
}

}  // namespace

void ActivationF32(int op, const float* x, float* y, size_t n) { Activation(op, x, y, n, false); }

void ActivationStreamF32(int op, const float* x, float* y, size_t n) { Activation(op, x, y, n, true); }

void BiasActivationRowsF32(int op, size_t rows, size_t cols, const float* bias, float* y, size_t y_stride) {
  switch (op) {
    case kActNone: return BiasAct<kActNone>(rows, cols, bias, y, y_stride);
    case VLAK_ACT_SIGMOID: return BiasAct<VLAK_ACT_SIGMOID>(rows, cols, bias, y, y_stride);
    case VLAK_ACT_TANH: return BiasAct<VLAK_ACT_TANH>(rows, cols, bias, y, y_stride);
    case VLAK_ACT_GELU: return BiasAct<VLAK_ACT_GELU>(rows, cols, bias, y, y_stride);
    case VLAK_ACT_GELU_TANH: return BiasAct<VLAK_ACT_GELU_TANH>(rows, cols, bias, y, y_stride);
    case VLAK_ACT_SILU: return BiasAct<VLAK_ACT_SILU>(rows, cols, bias, y, y_stride);
    case VLAK_ACT_SOFTPLUS: return BiasAct<VLAK_ACT_SOFTPLUS>(rows, cols, bias, y, y_stride);
    case kActFastSigmoid: return BiasAct<VLAK_ACT_SIGMOID | VLAK_ACT_FAST>(rows, cols, bias, y, y_stride);
    case kActFastTanh: return BiasAct<VLAK_ACT_TANH | VLAK_ACT_FAST>(rows, cols, bias, y, y_stride);
    case kActFastSilu: return BiasAct<VLAK_ACT_SILU | VLAK_ACT_FAST>(rows, cols, bias, y, y_stride);
    case kActFastGelu: return BiasAct<VLAK_ACT_GELU | VLAK_ACT_FAST>(rows, cols, bias, y, y_stride);
    case kActFastGeluTanh: return BiasAct<VLAK_ACT_GELU_TANH | VLAK_ACT_FAST>(rows, cols, bias, y, y_stride);
  }
}

void GluF32(int op, size_t rows, size_t cols, const float* gate, size_t gate_stride, const float* up, size_t up_stride,
            float* y, size_t y_stride) {
  switch (op) {
    case VLAK_ACT_SIGMOID: return Glu<VLAK_ACT_SIGMOID>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case VLAK_ACT_TANH: return Glu<VLAK_ACT_TANH>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case VLAK_ACT_GELU: return Glu<VLAK_ACT_GELU>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case VLAK_ACT_GELU_TANH: return Glu<VLAK_ACT_GELU_TANH>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case VLAK_ACT_SILU: return Glu<VLAK_ACT_SILU>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case VLAK_ACT_SOFTPLUS: return Glu<VLAK_ACT_SOFTPLUS>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case kActFastSigmoid:
      return Glu<VLAK_ACT_SIGMOID | VLAK_ACT_FAST>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case kActFastTanh:
      return Glu<VLAK_ACT_TANH | VLAK_ACT_FAST>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case kActFastSilu:
      return Glu<VLAK_ACT_SILU | VLAK_ACT_FAST>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case kActFastGelu:
      return Glu<VLAK_ACT_GELU | VLAK_ACT_FAST>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
    case kActFastGeluTanh:
      return Glu<VLAK_ACT_GELU_TANH | VLAK_ACT_FAST>(rows, cols, gate, gate_stride, up, up_stride, y, y_stride);
  }
}

VLAK_KERNELS_DEFINED(VLAK_ACTIVATION_KERNELS)

}  // namespace vlak::VLAK_NS
