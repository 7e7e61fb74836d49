// Run-time target choice and per-target kernel tables (internal).
//
// A kernel family compiled once per target (vlak_target_objects in CMake) defines the same
// function in each target namespace; VLAK_PER_TARGET declares them all and Dispatch() picks the
// active one. A target not compiled into this build has a null slot. The signatures come from
// the family's kernel list (dispatch/kernel_list.h), which the kernel source checks its
// definitions against: VLAK_PER_TARGET_TABLES(list) here.
#pragma once

#include <array>
#include <atomic>

#include "dispatch/kernel_list.h"
#include "simd/targets.h"
#include "vlak/vlak.h"

namespace vlak {

bool TargetCompiled(Target t);
bool TargetSupported(Target t);

namespace detail {
// The selection, target and error packed into one word (target | error << 8), so that a kernel
// call reads it with one load, no lock and no call: with a mutex and out-of-line accessors this
// cost ~100 instructions per softmax call (qemu-icount). kUnsetSelection until the first use,
// which computes it from the CPU and VLAK_TARGET (target_select.cc). A lone word needs no
// ordering with other data: relaxed loads suffice.
inline constexpr unsigned kUnsetSelection = ~0u;
extern std::atomic<unsigned> g_selection;
unsigned InitSelection();
inline unsigned Selection() {
  const unsigned s = g_selection.load(std::memory_order_relaxed);
  return s != kUnsetSelection ? s : InitSelection();
}
}  // namespace detail

// The active target, chosen once (thread-safe) from the CPU and VLAK_TARGET.
inline Target ActiveTarget() { return static_cast<Target>(detail::Selection() & 0xFF); }
// VLAK_OK unless VLAK_TARGET asked for something this process cannot run.
inline vlak_status TargetError() { return static_cast<vlak_status>(detail::Selection() >> 8); }

template <typename Fn>
using PerTarget = std::array<Fn*, kNumTargets>;

// Entry for a target (never null: the scalar target is always compiled).
template <typename Fn>
[[gnu::always_inline]] inline Fn* Dispatch(const PerTarget<Fn>& table, Target t) {
  Fn* f = table[static_cast<int>(t)];
  return f != nullptr ? f : table[static_cast<int>(Target::kScalar)];
}
// Entry for the active target.
template <typename Fn>
[[gnu::always_inline]] inline Fn* Dispatch(const PerTarget<Fn>& table) { return Dispatch(table, ActiveTarget()); }

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

// Every table of a kernel list (dispatch/kernel_list.h): VLAK_PER_TARGET for each entry.
#define VLAK_PER_TARGET_TABLES(list) list(VLAK_PER_TARGET)
