// Run-time target choice and per-target kernel tables (internal).
//
// A kernel family compiled once per target (vlak_target_objects in CMake) defines the same
// function in each target namespace; VLAK_PER_TARGET declares them all and Dispatch() picks the
// active one. A target not compiled into this build has a null slot.
#pragma once

#include <array>

#include "simd/targets.h"
#include "vlak/vlak.h"

namespace vlak {

// The active target, chosen once (thread-safe) from the CPU and VLAK_TARGET.
Target ActiveTarget();
bool TargetCompiled(Target t);
bool TargetSupported(Target t);
// VLAK_OK unless VLAK_TARGET asked for something this process cannot run.
vlak_status TargetError();

template <typename Fn>
using PerTarget = std::array<Fn*, kNumTargets>;

// Entry for the active target (never null: the scalar target is always compiled).
template <typename Fn>
Fn* Dispatch(const PerTarget<Fn>& table) {
  Fn* f = table[static_cast<int>(ActiveTarget())];
  return f != nullptr ? f : table[static_cast<int>(Target::kScalar)];
}

}  // namespace vlak

#if defined(VLAK_HAVE_TARGET_AVX2)
#define VLAK_IF_AVX2(x) x
#else
#define VLAK_IF_AVX2(x) nullptr
#endif
#if defined(VLAK_HAVE_TARGET_AVX512)
#define VLAK_IF_AVX512(x) x
#else
#define VLAK_IF_AVX512(x) nullptr
#endif
#if defined(VLAK_HAVE_TARGET_RVV)
#define VLAK_IF_RVV(x) x
#else
#define VLAK_IF_RVV(x) nullptr
#endif

// Declares `ret name(args)` in every target namespace and defines a PerTarget table
// `table_name` holding those compiled into this build.
#define VLAK_PER_TARGET(table_name, ret, name, args)                                       \
  namespace n_scalar { ret name args; }                                                    \
  namespace n_avx2 { ret name args; }                                                      \
  namespace n_avx512 { ret name args; }                                                    \
  namespace n_rvv { ret name args; }                                                       \
  inline const ::vlak::PerTarget<ret args> table_name = {                                  \
      &n_scalar::name, VLAK_IF_AVX2(&n_avx2::name), VLAK_IF_AVX512(&n_avx512::name),      \
      VLAK_IF_RVV(&n_rvv::name)};
