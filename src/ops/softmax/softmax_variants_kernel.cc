// Three-pass softmax for every exp variant x LMUL, for the seed-000 harness (`vlak hackathon`)
// and the lab: the production kernel picks one LMUL per target, this file exposes them all.
#include "math/exp_accurate.h"
#include "math/exp_bittrick_p3.h"
#include "math/exp_bittrick_p5.h"
#include "math/exp_cephes.h"
#include "math/exp_precise.h"
#include "math/exp_schraudolph.h"
#include "ops/softmax/softmax_three_pass.h"

namespace vlak::VLAK_NS {
namespace {

template <int kPow2, class Exp>
void Run(Exp exp, const float* x, float* y, size_t n) {
  softmax_detail::ThreePass(Simd<float, kPow2>(), exp, x, y, n, 0);
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
    case VLAK_EXP_SCHRAUDOLPH: return RunLmul(lmul_pow2, [](auto d, auto v) { return ExpSchraudolph(d, v); }, x, y, n);
    case VLAK_EXP_BITTRICK_P3: return RunLmul(lmul_pow2, [](auto d, auto v) { return ExpBittrickP3(d, v); }, x, y, n);
    case VLAK_EXP_BITTRICK_P5: return RunLmul(lmul_pow2, [](auto d, auto v) { return ExpBittrickP5(d, v); }, x, y, n);
    case VLAK_EXP_CEPHES: return RunLmul(lmul_pow2, [](auto d, auto v) { return ExpCephes(d, v); }, x, y, n);
    case VLAK_EXP_ACCURATE: return RunLmul(lmul_pow2, [](auto d, auto v) { return ExpAccurate(d, v); }, x, y, n);
    case VLAK_EXP_PRECISE: return RunLmul(lmul_pow2, [](auto d, auto v) { return ExpPrecise(d, v); }, x, y, n);
    default: return false;
  }
}

}  // namespace vlak::VLAK_NS
