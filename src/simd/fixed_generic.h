// Ops of the fixed-width targets (scalar, AVX2, AVX-512) that are compositions of the target's
// own ops, written once. Each target header includes this at its end, after defining
// VLAK_FIXED_API (how its ops are declared: AVX-512 force-inlines). RVV has native forms of all
// of these (rvv.h); scalar.h states the contract.
//
// - *TU: the op, then lanes >= n of a strip keep the accumulator (one blend per register; whole
//   groups skip the blend).
// - Scalar operands: the vector form on Set(d, s). Set of a loop-invariant scalar is hoisted out
//   of strip loops by the compiler, so a kernel pays one broadcast per constant per call.
// - ReduceSumInto/ReduceMinInto/ReduceMaxInto: the group reduced, then folded into lane 0 of an
//   LMUL-1 accumulator.
#pragma once

#ifndef VLAK_FIXED_API
#define VLAK_FIXED_API inline
#endif

namespace vlak::VLAK_NS {

// ------------------------------------------------------------------ accumulating (tail-kept)
namespace detail {
template <class D>
VLAK_FIXED_API VFromD<D> KeepTail(D d, const VFromD<D>& acc, const VFromD<D>& full) {
  if constexpr (D::kIsStrip) {
    return IfThenElse(d, FirstN(d, d.n), full, acc);
  } else {
    (void)d;
    (void)acc;
    return full;
  }
}
}  // namespace detail
template <class D>
VLAK_FIXED_API VFromD<D> AddTU(D d, const VFromD<D>& acc, const VFromD<D>& v) { return detail::KeepTail(d, acc, Add(d, acc, v)); }
template <class D>
VLAK_FIXED_API VFromD<D> MinTU(D d, const VFromD<D>& acc, const VFromD<D>& v) { return detail::KeepTail(d, acc, Min(d, acc, v)); }
template <class D>
VLAK_FIXED_API VFromD<D> MaxTU(D d, const VFromD<D>& acc, const VFromD<D>& v) { return detail::KeepTail(d, acc, Max(d, acc, v)); }
template <class D>
VLAK_FIXED_API VFromD<D> MulAddTU(D d, const VFromD<D>& a, const VFromD<D>& b, const VFromD<D>& acc) {
  return detail::KeepTail(d, acc, MulAdd(d, a, b, acc));
}
// MaxTU for an accumulator that is never NaN; targets whose max needs a NaN fix-up provide
// detail::MaxUnfixed(d, v, acc), correct when acc is not NaN.
template <class D>
VLAK_FIXED_API VFromD<D> MaxAccumulate(D d, const VFromD<D>& acc, const VFromD<D>& v) {
#if defined(VLAK_HAVE_MAX_UNFIXED)
  return detail::KeepTail(d, acc, detail::MaxUnfixed(d, v, acc));
#else
  return MaxTU(d, acc, v);
#endif
}

// ------------------------------------------------------------------------------- averaging
// floor((a + b) / 2) without widening.
// - x86 (vpavgb/vpavgw: the unsigned mean rounded up, one instruction): for k-bit unsigned lanes
//   floor((a + b) / 2) = ~avg_up(~a, ~b), since complementing turns the sum s into
//   2 (2^k - 1) - s and rounding its half up, complemented, rounds s / 2 down. Signed lanes are
//   first made unsigned by a ^ 0x80 (order kept), so the two steps fold into one xor with 0x7F
//   (0x7FFF): pavg(a ^ m, b ^ m) ^ m. 4 instructions (7 for signed bytes in the shift form:
//   AVX2 has no byte shifts), and a chain of means (resize's mean of means) cancels the inner
//   xor pairs, leaving one pavg per mean.
// - scalar: a + b = 2 (a & b) + (a ^ b) holds for two's complement integers (bitwise ops act on
//   the sign-extended values), so the mean floors to (a & b) + ((a ^ b) >> 1), the shift
//   arithmetic for signed lanes and logical for unsigned ones. The result lies between a and b:
//   the final add cannot overflow.
template <class D>
VLAK_FIXED_API VFromD<D> AverageFloor(D d, const VFromD<D>& a, const VFromD<D>& b) {
  using T = TFromD<D>;
  static_assert(std::is_integral_v<T> && sizeof(T) <= 2, "AverageFloor: 8- and 16-bit integers");
#if defined(VLAK_SIMD_SCALAR)
  return Add(d, And(d, a, b), ShiftRight<1>(d, Xor(d, a, b)));
#else
  const auto m = Set(d, static_cast<T>(std::is_signed_v<T> ? std::numeric_limits<T>::max() : T(~T{0})));
  return Xor(d, detail::AverageCeilUnsigned(d, Xor(d, a, m), Xor(d, b, m)), m);
#endif
}

// ------------------------------------------------------------------------------ selection
template <class D>
VLAK_FIXED_API VFromD<D> IfThenZeroElse(D d, const MFromD<D>& m, const VFromD<D>& no) {
  return IfThenElse(d, m, Zero(d), no);
}

// ------------------------------------------------------------------------ scalar operands
#define VLAK_FIXED_SCALAR_OP(Ret, Op)                                                   \
  template <class D>                                                                    \
  VLAK_FIXED_API Ret Op(D d, const VFromD<D>& a, TFromD<D> b) {                         \
    return Op(d, a, Set(d, b));                                                         \
  }
VLAK_FIXED_SCALAR_OP(VFromD<D>, Add)
VLAK_FIXED_SCALAR_OP(VFromD<D>, Sub)
VLAK_FIXED_SCALAR_OP(VFromD<D>, Mul)
VLAK_FIXED_SCALAR_OP(VFromD<D>, Div)
VLAK_FIXED_SCALAR_OP(VFromD<D>, Min)
VLAK_FIXED_SCALAR_OP(VFromD<D>, Max)
VLAK_FIXED_SCALAR_OP(VFromD<D>, And)
VLAK_FIXED_SCALAR_OP(VFromD<D>, Or)
VLAK_FIXED_SCALAR_OP(VFromD<D>, Xor)
VLAK_FIXED_SCALAR_OP(MFromD<D>, Eq)
VLAK_FIXED_SCALAR_OP(MFromD<D>, Ne)
VLAK_FIXED_SCALAR_OP(MFromD<D>, Lt)
VLAK_FIXED_SCALAR_OP(MFromD<D>, Le)
VLAK_FIXED_SCALAR_OP(MFromD<D>, Gt)
VLAK_FIXED_SCALAR_OP(MFromD<D>, Ge)
#undef VLAK_FIXED_SCALAR_OP

template <class D>
VLAK_FIXED_API VFromD<D> MulAdd(D d, const VFromD<D>& a, TFromD<D> b, const VFromD<D>& c) {
  return MulAdd(d, a, Set(d, b), c);
}
template <class D>
VLAK_FIXED_API VFromD<D> MulAdd(D d, const VFromD<D>& a, const VFromD<D>& b, TFromD<D> c) {
  return MulAdd(d, a, b, Set(d, c));
}
template <class D>
VLAK_FIXED_API VFromD<D> NegMulAdd(D d, const VFromD<D>& a, TFromD<D> b, const VFromD<D>& c) {
  return NegMulAdd(d, a, Set(d, b), c);
}
template <class D>
VLAK_FIXED_API VFromD<D> NegMulAdd(D d, const VFromD<D>& a, const VFromD<D>& b, TFromD<D> c) {
  return NegMulAdd(d, a, b, Set(d, c));
}

// ------------------------------------------------------------------------------- gathering
// Gather8 (contract in scalar.h). x86 has no byte gather: the lanes are read one by one through
// memory (kernels that are gather-bound on x86 use Gather's 32-bit lanes instead).
template <class D>
VLAK_FIXED_API VFromD<D> Gather8(D d, const TFromD<D>* base, const VFromD<RebindD<D, uint16_t>>& idx) {
  static_assert(sizeof(TFromD<D>) == 1, "Gather8 takes 8-bit elements with 16-bit indices");
  constexpr size_t kMax = sizeof(VFromD<D>);
  alignas(64) uint16_t ix[kMax];
  alignas(64) TFromD<D> v[kMax];
  StoreU(Rebind<uint16_t>(d), idx, ix);
  const size_t n = Lanes(d);
  for (size_t i = 0; i < n; ++i) v[i] = base[ix[i]];
  return LoadU(d, v);
}

// ------------------------------------------------------------------------------- widening
// WidenMul / WidenMulAdd / WidenAdd (contract in scalar.h): the narrow operands promoted, then
// the wide op. RVV has each as one instruction (vwmul, vwmacc, vwadd.wv).
template <class DW, class DN>
VLAK_FIXED_API VFromD<DW> WidenMul(DW dw, DN dn, const VFromD<DN>& a, const VFromD<DN>& b) {
  return Mul(dw, PromoteTo(dw, dn, a), PromoteTo(dw, dn, b));
}
template <class DW, class DN>
VLAK_FIXED_API VFromD<DW> WidenMulAdd(DW dw, DN dn, const VFromD<DN>& a, const VFromD<DN>& b, const VFromD<DW>& acc) {
  return Add(dw, acc, Mul(dw, PromoteTo(dw, dn, a), PromoteTo(dw, dn, b)));
}
template <class DW, class DN>
VLAK_FIXED_API VFromD<DW> WidenAdd(DW dw, DN dn, const VFromD<DW>& acc, const VFromD<DN>& v) {
  return Add(dw, acc, PromoteTo(dw, dn, v));
}

// --------------------------------------------------------------- reductions into an m1 lane
namespace detail {
template <class D, class F>
VLAK_FIXED_API VFromD<Simd<TFromD<D>, 0>> FoldIntoLane0(D d, const VFromD<Simd<TFromD<D>, 0>>& acc, F fold) {
  const Simd<TFromD<D>, 0> d1;
  if constexpr (D::kIsStrip) {
    if (d.n == 0) return acc;
  }
  (void)d;
  return IfThenElse(d1, FirstN(d1, 1), Set(d1, fold(GetLane(d1, acc))), acc);
}
}  // namespace detail
template <class D>
VLAK_FIXED_API VFromD<Simd<TFromD<D>, 0>> ReduceSumInto(D d, const VFromD<D>& v, const VFromD<Simd<TFromD<D>, 0>>& acc) {
  using T = TFromD<D>;
  return detail::FoldIntoLane0(d, acc, [&](T a) -> T {
    if constexpr (std::is_integral_v<T>) {  // wraps, like ReduceSum (in unsigned: no overflow UB)
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(ReduceSum(d, v))));
    } else {
      return a + ReduceSum(d, v);
    }
  });
}
template <class D>
VLAK_FIXED_API VFromD<Simd<TFromD<D>, 0>> ReduceMinInto(D d, const VFromD<D>& v, const VFromD<Simd<TFromD<D>, 0>>& acc) {
  const Simd<TFromD<D>, 0> d1;
  return detail::FoldIntoLane0(d, acc, [&](TFromD<D> a) { return ReduceMin(d1, Min(d1, Set(d1, a), Set(d1, ReduceMin(d, v)))); });
}
template <class D>
VLAK_FIXED_API VFromD<Simd<TFromD<D>, 0>> ReduceMaxInto(D d, const VFromD<D>& v, const VFromD<Simd<TFromD<D>, 0>>& acc) {
  const Simd<TFromD<D>, 0> d1;
  return detail::FoldIntoLane0(d, acc, [&](TFromD<D> a) { return ReduceMax(d1, Max(d1, Set(d1, a), Set(d1, ReduceMax(d, v)))); });
}

}  // namespace vlak::VLAK_NS
