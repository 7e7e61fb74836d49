// Three-pass softmax for every exp variant x LMUL, for the RISC-V hackathon harness (`vlak hackathon`)
// and the lab: the production kernel picks one LMUL per target, this file exposes them all.
// One of them spills by construction, and is measured as such: precise at LMUL 8 on RVV keeps
// five register groups live (th, m, t, q and the exponent; softmax_config.h runs the
// production precise softmax at LMUL 4), so scripts/rvv-spill-check excludes it by name.
#include "math/exp_accurate.h"
#include "math/exp_bittrick_p3.h"
#include "math/exp_bittrick_p5.h"
#include "math/exp_cephes.h"
#include "math/exp_precise.h"
#include "math/exp_schraudolph.h"
#include "ops/softmax/softmax_kernels.h"
#include "ops/softmax/softmax_pipelined.h"
#include "ops/softmax/softmax_three_pass.h"

namespace vlak::VLAK_NS {
namespace {

// One named functor per variant, so that a kernel's symbol names its exp (the spill check's
// exclusion in tests/CMakeLists.txt names one). The evaluation is the production softmax's.
#define VLAK_SOFTMAX_EXP_FUNCTOR(Name, Fn)                                        \
  struct Name {                                                                   \
    template <class D>                                                            \
    VFromD<D> operator()(D d, VFromD<D> v) const {                                \
      return Fn<softmax_detail::kExpEval<D>>(d, v);                               \
    }                                                                             \
  };
VLAK_SOFTMAX_EXP_FUNCTOR(SchraudolphExp, ExpSchraudolph)
VLAK_SOFTMAX_EXP_FUNCTOR(BittrickP3Exp, ExpBittrickP3)
VLAK_SOFTMAX_EXP_FUNCTOR(BittrickP5Exp, ExpBittrickP5)
VLAK_SOFTMAX_EXP_FUNCTOR(CephesExp, ExpCephes)
VLAK_SOFTMAX_EXP_FUNCTOR(AccurateExp, ExpAccurate)
VLAK_SOFTMAX_EXP_FUNCTOR(PreciseExp, ExpPrecise)
#undef VLAK_SOFTMAX_EXP_FUNCTOR

// Out of line per variant and LMUL: inlined into one switch, every call would save and restore
// the registers of all 24 kernels.
// The accurate exp at LMUL 1 and 2 on RVV: the production row's passes (softmax_pipelined.h) at
// that LMUL, whose exp pass holds three strips in flight (at LMUL 4 and 8 its splats do not fit).
// Modelled cycles against ThreePass: docs/ops/softmax.md.
template <int kPow2, class Exp>
[[gnu::noinline]] void Run(Exp exp, const float* x, float* y, size_t n) {
  using D = Simd<float, kPow2>;
#if defined(VLAK_SIMD_RVV)
  if constexpr (std::is_same_v<Exp, AccurateExp> && kPow2 <= 1) {
    return softmax_detail::ThreePassPipelined<softmax_detail::PipeExp::kAccurate, false, kPow2, kPow2, kPow2>(x, y, n, 0);
  }
  if constexpr (std::is_same_v<Exp, BittrickP5Exp> && kPow2 <= 1) {
    return softmax_detail::ThreePassPipelined<softmax_detail::PipeExp::kFast, false, kPow2, kPow2, kPow2>(x, y, n, 0);
  }
#endif
  softmax_detail::ThreePass<softmax_detail::kMaskedExpLaneSum<D>>(D(), exp, x, y, n, 0);
}

template <class Exp>
bool RunLmul(int lmul_pow2, Exp exp, const float* x, float* y, size_t n) {
  switch (lmul_pow2) {
    case 0: Run<0>(exp, x, y, n); return true;
    case 1: Run<1>(exp, x, y, n); return true;
    case 2: Run<2>(exp, x, y, n); return true;
    case 3: Run<3>(exp, x, y, n); return true;
    default: return false;
  }
}

}  // namespace

// exp_variant: a vlak_exp_variant; false for an unknown variant or LMUL.
bool SoftmaxVariantRowF32(int exp_variant, int lmul_pow2, const float* x, float* y, size_t n) {
  switch (exp_variant) {
    case VLAK_EXP_SCHRAUDOLPH: return RunLmul(lmul_pow2, SchraudolphExp(), x, y, n);
    case VLAK_EXP_BITTRICK_P3: return RunLmul(lmul_pow2, BittrickP3Exp(), x, y, n);
    case VLAK_EXP_BITTRICK_P5: return RunLmul(lmul_pow2, BittrickP5Exp(), x, y, n);
    case VLAK_EXP_CEPHES: return RunLmul(lmul_pow2, CephesExp(), x, y, n);
    case VLAK_EXP_ACCURATE: return RunLmul(lmul_pow2, AccurateExp(), x, y, n);
    case VLAK_EXP_PRECISE: return RunLmul(lmul_pow2, PreciseExp(), x, y, n);
    default: return false;
  }
}

VLAK_KERNELS_DEFINED(VLAK_SOFTMAX_KERNELS)

}  // namespace vlak::VLAK_NS
