// vlak vector layer: tags shared by every target.
//
// A tag names an element type and a register-group size LMUL = 2^kPow2 (kPow2 in 0..3), as RVV
// does (LLVM's "RISC-V Vector Extension" docs: RVV types, LMUL, SEW). Ops are free functions in
// the target's namespace taking the tag first; no data for a group (Simd), lanes for a strip (SimdN).
//
// Why every op takes the tag, even Add: on RVV each instruction runs on `vl` lanes; passing the
// strip tag to every op lets one vsetvli cover the whole strip body instead of toggling between a
// tail vl for memory ops and VLMAX for arithmetic. On x86 and scalar, arithmetic ignores the tag.
//
// Widening and narrowing keep the lane count and move kPow2 by log2 of the size ratio (u8 at
// LMUL 1 widens to i32 at LMUL 4), so no fractional LMUL is needed for whole-group kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace vlak::simd {

inline constexpr int kMinPow2 = 0;
inline constexpr int kMaxPow2 = 3;

// A whole register group: every op acts on Lanes(d) lanes.
template <typename T, int kPow2>
struct Simd {
  static_assert(kPow2 >= kMinPow2 && kPow2 <= kMaxPow2, "LMUL must be 1, 2, 4 or 8");
  using T_ = T;
  static constexpr int kPow2_ = kPow2;
  static constexpr bool kIsStrip = false;
};

// A strip of a group: ops act on lanes [0, n); n <= Lanes(Simd<T, kPow2>). Lanes at and above n
// of a result are unspecified unless the op says otherwise (the *TU ops keep them).
template <typename T, int kPow2>
struct SimdN {
  static_assert(kPow2 >= kMinPow2 && kPow2 <= kMaxPow2, "LMUL must be 1, 2, 4 or 8");
  using T_ = T;
  static constexpr int kPow2_ = kPow2;
  static constexpr bool kIsStrip = true;
  size_t n;
};

template <class D>
using TFromD = typename D::T_;

template <class D>
inline constexpr int Pow2FromD = D::kPow2_;

// The whole-group tag of any tag.
template <class D>
using FullTag = Simd<TFromD<D>, Pow2FromD<D>>;

namespace detail {
constexpr int Log2(size_t x) { return x <= 1 ? 0 : 1 + Log2(x / 2); }

// DemoteTo's one float form is f64 -> f32 (scalar.h); every target rejects the others with this.
template <typename TT, typename TF>
inline constexpr bool kDemoteFloatOk = !(std::is_floating_point_v<TT> || std::is_floating_point_v<TF>) ||
                                       (std::is_same_v<TF, double> && std::is_same_v<TT, float>);
}  // namespace detail
#define VLAK_DEMOTE_FLOAT_MESSAGE                                                                   \
  "DemoteTo: the only float form is f64 -> f32; for float -> integer use ConvertTo (f32 -> i32, " \
  "toward zero) or NearestInt (f32 -> i32, nearest even), then DemoteTo the i32 lanes"

// Same lane count, element type U: kPow2 moves by log2(sizeof(U) / sizeof(T)).
template <typename U, class D>
constexpr auto Rebind(D d) {
  constexpr int k = Pow2FromD<D> + detail::Log2(sizeof(U)) - detail::Log2(sizeof(TFromD<D>));
  if constexpr (D::kIsStrip) {
    return SimdN<U, k>{d.n};
  } else {
    return Simd<U, k>{};
  }
}

template <class D, typename U>
using RebindD = decltype(Rebind<U>(D{}));

// Strip tag for the first n lanes (n <= Lanes(d)).
template <typename T, int kPow2>
constexpr SimdN<T, kPow2> Strip(Simd<T, kPow2>, size_t n) {
  return SimdN<T, kPow2>{n};
}

template <typename T>
using MakeSigned = std::conditional_t<std::is_floating_point_v<T>,
                                      std::conditional_t<sizeof(T) == 4, int32_t, int64_t>,
                                      std::make_signed_t<T>>;

}  // namespace vlak::simd
