// Softmax row kernels, generic over the tag: compiled once per target.
//
// Three-pass (rows that fit in cache; softmax_three_pass.h): max; exp + sum + store; scale.
// Two-pass (Dukhan & Ablavatski 2020, arXiv 2001.04438), for rows beyond cache: each lane keeps
//   its sum as (s, e) meaning s * 2^e, so no max pass is needed:
//     exp(x) = p * 2^n  (rr2 reduction, p in [0.7, 1.42]),
//     e' = max(e, n);  s' = s * 2^(e - e') + p * 2^(n - e'),
//   then y = p * 2^(n - e_row) / s_row. x is read twice and y written once: 12 bytes/element.
//   Inputs are clamped to |x| <= 2^21 (so n stays an exact small integer); a row that reaches the
//   clamp, or holds NaN/inf (caught by adding x*0 into p), is redone by the three-pass kernel.
//
// Two-pass folds each lane's (s, e) into one f64 pair every kTwoPassBlockStrips strips, so no
// f32 partial sum sees more than that many terms.
#include <cmath>
#include <limits>

#include "math/exp_accurate.h"
#include "math/exp_bittrick_p5.h"
#include "math/exp_precise.h"
#include "ops/softmax/softmax.h"
#include "ops/softmax/softmax_three_pass.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {
namespace {

// LMUL per target: see bench_softmax for the measurement behind each choice.
#if defined(VLAK_SIMD_RVV)
constexpr int kPow2 = 3;
#elif defined(VLAK_SIMD_SCALAR)
constexpr int kPow2 = 0;
#else
constexpr int kPow2 = 1;
#endif
using DF = Simd<float, kPow2>;

constexpr float kInf = std::numeric_limits<float>::infinity();
using softmax_detail::ThreePass;

template <unsigned kExp, class D>
VFromD<D> ExpVariant(D d, VFromD<D> x) {
  if constexpr (kExp == VLAK_SOFTMAX_EXP_FAST) {
    return ExpBittrickP5(d, x);
  } else if constexpr (kExp == VLAK_SOFTMAX_EXP_PRECISE) {
    return ExpPrecise(d, x);
  } else {
    return ExpAccurate(d, x);
  }
}

// ---- two-pass -------------------------------------------------------------------------------
constexpr float kClamp = 2097152.0f;  // 2^21
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693145751953125f;      // ln 2 rounded to 16 bits: n * kLn2Hi is exact in the FMA
constexpr float kLn2Lo = 1.428606765330187e-06f;  // ln 2 - kLn2Hi
// Adding 1.5 * 2^23 rounds a float in (-2^22, 2^22) to an integer held in the low mantissa bits.
constexpr float kRoundMagic = 12582912.0f;

// 2^k for integral k <= 0 given as float: k clamped to -127 gives the bit pattern 0, i.e. +0.
template <class D>
VFromD<D> Exp2Int(D d, VFromD<D> k) {
  const auto di = Rebind<int32_t>(d);
  const auto biased = Add(d, Max(d, k, Set(d, -127.0f)), Set(d, kRoundMagic + 127.0f));
  return BitCast(d, di, ShiftLeft<23>(di, BitCast(di, d, biased)));
}

// exp(x) = p * 2^n for |x| <= 2^21: returns p, sets n (an integral float).
template <class D>
VFromD<D> ExpParts(D d, VFromD<D> x, VFromD<D>& n) {
  const auto biased = MulAdd(d, x, Set(d, kLog2e), Set(d, kRoundMagic));
  n = Sub(d, biased, Set(d, kRoundMagic));
  auto r = NegMulAdd(d, n, Set(d, kLn2Hi), x);
  r = NegMulAdd(d, n, Set(d, kLn2Lo), r);
  return ExpAccurate(d, r);  // |r| <= ln2/2: no range handling needed, one polynomial
}

// On a strip, lanes beyond it keep `old` (the running state of lanes the strip did not reach).
template <class D>
VFromD<D> KeepTail(D d, VFromD<D> fresh, VFromD<D> old) {
  if constexpr (D::kIsStrip) {
    return IfThenElse(d, FirstN(d, Lanes(d)), fresh, old);
  } else {
    (void)d;
    (void)old;
    return fresh;
  }
}

// s * 2^e in double for integral e (as float). Below the double range the result is s * 0, not
// 0, so a NaN lane still poisons the sum and sends the row to the three-pass kernel.
double ScaleByPow2(double s, float e) { return e < -1000.0f ? s * 0.0 : std::ldexp(s, static_cast<int>(e)); }

// Pass 2 needs one f64 (sum, exponent) pair; pass 1 folds each lane's f32 (s, e) into it every
// kTwoPassBlockStrips strips, so no f32 partial sum sees more than that many terms.
constexpr size_t kTwoPassBlockStrips = 64;

// Returns false (nothing written) when the row needs the three-pass kernel.
bool TwoPass(const float* x, float* y, size_t n) {
  const DF d;
  const auto lo = Set(d, -kClamp), hi = Set(d, kClamp), zero = Zero(d), neg_inf = Set(d, -kInf);
  double sum = 0;      // the row's sum is sum * 2^sum_exp
  float sum_exp = -kInf;
  alignas(64) float s_lanes[MaxLanes(d)], e_lanes[MaxLanes(d)];
  const size_t block = kTwoPassBlockStrips * Lanes(d);
  for (size_t b = 0; b < n; b += block) {
    const size_t len = n - b < block ? n - b : block;
    auto e_run = neg_inf;  // lane sums s_run * 2^e_run
    auto s_run = zero;
    ForEachStrip(d, len, [&](auto ds, size_t i) {
      const auto xv = LoadU(ds, x + b + i);
      VFromD<decltype(ds)> nv;
      auto p = ExpParts(ds, Min(ds, Max(ds, xv, lo), hi), nv);
      p = MulAdd(ds, xv, zero, p);  // NaN for NaN/inf inputs: the row goes to three-pass
      const auto e_new = Max(ds, e_run, nv);
      const auto s_new = MulAdd(ds, s_run, Exp2Int(ds, Sub(ds, e_run, e_new)),
                                Mul(ds, p, Exp2Int(ds, Sub(ds, nv, e_new))));
      e_run = KeepTail(ds, e_new, e_run);
      s_run = KeepTail(ds, s_new, s_run);
    });
    const float block_exp = ReduceMax(d, e_run);
    const float new_exp = block_exp > sum_exp ? block_exp : sum_exp;
    sum = sum_exp == -kInf ? 0.0 : ScaleByPow2(sum, sum_exp - new_exp);
    Store(d, s_run, s_lanes);
    Store(d, e_run, e_lanes);
    for (size_t j = 0; j < Lanes(d); ++j) {
      if (e_lanes[j] != -kInf) sum += ScaleByPow2(s_lanes[j], e_lanes[j] - new_exp);
    }
    sum_exp = new_exp;
  }
  // The clamp was reached (|x| >= ~2^21) or a NaN/inf was seen: three-pass handles those rows.
  const float limit = kClamp * kLog2e * 0.999f;
  if (!std::isfinite(sum) || !(sum_exp < limit && sum_exp > -limit)) return false;

  // Pass 2: y = p * (1 / sum) * 2^(n - sum_exp).
  const auto inv = Set(d, static_cast<float>(1.0 / sum));
  const auto ve = Set(d, sum_exp);
  ForEachStrip(d, n, [&](auto ds, size_t i) {
    VFromD<decltype(ds)> nv;
    const auto p = ExpParts(ds, LoadU(ds, x + i), nv);
    StoreU(ds, Mul(ds, Mul(ds, p, inv), Exp2Int(ds, Sub(ds, nv, ve))), y + i);
  });
  return true;
}

template <unsigned kExp>
void Row(const float* x, float* y, size_t n, unsigned flags, int algo) {
  // Two-pass computes its exps with the accurate polynomial, and has no log form.
  const bool two_pass_fits = (flags & VLAK_SOFTMAX_LOG) == 0 && (flags & VLAK_SOFTMAX_EXP_MASK) == VLAK_SOFTMAX_EXP_ACCURATE;
  if (algo == static_cast<int>(SoftmaxAlgo::kTwoPass) && two_pass_fits && TwoPass(x, y, n)) return;
  ThreePass(DF(), [](auto d, auto v) { return ExpVariant<kExp>(d, v); }, x, y, n, flags);
}

}  // namespace

// One row; algo is a SoftmaxAlgo other than kAuto.
void SoftmaxRowF32(const float* x, float* y, size_t n, unsigned flags, int algo) {
  switch (flags & VLAK_SOFTMAX_EXP_MASK) {
    case VLAK_SOFTMAX_EXP_FAST: return Row<VLAK_SOFTMAX_EXP_FAST>(x, y, n, flags, algo);
    case VLAK_SOFTMAX_EXP_PRECISE: return Row<VLAK_SOFTMAX_EXP_PRECISE>(x, y, n, flags, algo);
    default: return Row<VLAK_SOFTMAX_EXP_ACCURATE>(x, y, n, flags, algo);
  }
}

}  // namespace vlak::VLAK_NS
