// SFPI on the CPU: running a user's kernel on the best compiled target, and checking that every
// target gives the same bits. Installed as <vlak/sfpi/sfpi_dispatch.h>. Target-independent: include
// it from code compiled without any target flags (the program's driver), link vlak.
//
// The kernel source, compiled once per target by vlak_add_sfpi_kernels (vlakSfpi.cmake), registers
// each kernel with VLAK_SFPI_KERNEL(name, init, body) (sfpi_user.h); that defines one tile runner
// per target, vlak_sfpi_user::n_<target>::vlak_sfpi_run_<name>. The driver declares the kernel
// once, at global scope, and gets a vlak::sfpi::UserKernel holding those runners:
//
//   #include <vlak/sfpi/sfpi_dispatch.h>
//   VLAK_SFPI_DECLARE(my_op)                       // defines vlak_sfpi_user::my_op
//   ...
//   int err = vlak_sfpi_user::my_op.Run(tiles, n_tiles);     // on the best target
//   vlak::sfpi::Comparison c = vlak::sfpi::CompareTargets(vlak_sfpi_user::my_op, tiles, n_tiles);
//
// Which targets were compiled comes from VLAK_SFPI_HAVE_<TARGET> (vlak_add_sfpi_kernels defines
// them on its target); a program built with one target (-DVLAK_SFPI_SCALAR / VLAK_SFPI_NATIVE)
// that declares its kernels in the same source needs none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace vlak::sfpi {

// Tiles [begin, end) of the row-major 32 x 32 fp32 tiles at `tiles`, in place, on one target; tile
// t's PRNG is seeded with seed + t (so any split of the tiles gives the same bits). Returns the
// Error bits seen.
using TileRunner = uint32_t (*)(float* tiles, size_t begin, size_t end, uint32_t seed);

struct TargetRunner {
  vlak_target target;
  TileRunner run;
};

// The compiled copies of one kernel, best target last.
class UserKernel {
 public:
  template <size_t N>
  constexpr UserKernel(const char* name, const TargetRunner (&targets)[N]) : name_(name), targets_(targets), count_(N) {}

  const char* name() const { return name_; }
  size_t num_targets() const { return count_; }
  const TargetRunner& target(size_t i) const { return targets_[i]; }

  // The runner of target t, or null when this kernel was not compiled for it or the CPU cannot run it.
  TileRunner RunnerFor(vlak_target t) const {
    for (size_t i = 0; i < count_; ++i) {
      if (targets_[i].target == t) return vlak_target_supported(t) ? targets_[i].run : nullptr;
    }
    return nullptr;
  }

  // The target Run uses: vlak's active target (the best the CPU has, or the one VLAK_TARGET /
  // vlak_set_target chose) when this kernel was compiled for it, else the best compiled target
  // the CPU supports (scalar runs anywhere).
  vlak_target Best() const {
    const vlak_target active = vlak_active_target();
    if (RunnerFor(active) != nullptr) return active;
    for (size_t i = count_; i-- > 0;) {
      if (vlak_target_supported(targets_[i].target)) return targets_[i].target;
    }
    return VLAK_TARGET_SCALAR;
  }

  // Runs the kernel in place over n_tiles tiles on Best(), on the calling thread. Returns the Error
  // bits seen (0: none), or -1 with nothing written for null tiles with n_tiles > 0, or while
  // vlak_target_error() reports that VLAK_TARGET could not be honoured (as vlak's own kernels do,
  // so a benchmark never measures a target it did not ask for).
  int Run(float* tiles, size_t n_tiles, uint32_t seed = 1) const {
    if (vlak_target_error() != VLAK_OK) return -1;
    return RunOn(Best(), tiles, n_tiles, seed);
  }

  // The same on target t; -1 when the kernel was not compiled for t or the CPU cannot run it.
  int RunOn(vlak_target t, float* tiles, size_t n_tiles, uint32_t seed = 1) const {
    const TileRunner run = RunnerFor(t);
    if (run == nullptr || (tiles == nullptr && n_tiles > 0)) return -1;
    return static_cast<int>(run(tiles, 0, n_tiles, seed));
  }

 private:
  const char* name_;
  const TargetRunner* targets_;
  size_t count_;
};

// What CompareTargets found. The first target run (scalar) is the reference.
struct Comparison {
  bool same = true;                // every target that ran gave the reference's bits and errors
  vlak_target ran[8] = {};         // the targets run, in order
  size_t num_ran = 0;
  vlak_target skipped[8] = {};     // compiled, but this CPU cannot run them
  size_t num_skipped = 0;
  size_t mismatches = 0;           // values that differ from the reference, over all targets
  vlak_target first_target = VLAK_TARGET_SCALAR;  // the first differing target, value and bits
  size_t first_index = 0;
  uint32_t first_reference_bits = 0, first_bits = 0;
  uint32_t errors = 0;             // the reference's Error bits
  bool errors_differ = false;      // some target reported other Error bits:
  vlak_target errors_target = VLAK_TARGET_SCALAR;  // the first such target and its bits
  uint32_t target_errors = 0;

  // One line: "same bits on scalar, avx2 (avx512: not supported by this CPU)" or where they differ.
  void Print(FILE* out, const char* label) const {
    std::fprintf(out, "%s: %s on", label, same ? "same bits" : "DIFFERENT bits");
    for (size_t i = 0; i < num_ran; ++i) std::fprintf(out, "%s %s", i == 0 ? "" : ",", vlak_target_name(ran[i]));
    for (size_t i = 0; i < num_skipped; ++i) {
      std::fprintf(out, " (%s: not supported by this CPU)", vlak_target_name(skipped[i]));
    }
    if (mismatches > 0) {
      std::fprintf(out, "; %zu values differ, first at %zu on %s: 0x%08x, reference 0x%08x", mismatches,
                   first_index, vlak_target_name(first_target), static_cast<unsigned>(first_bits),
                   static_cast<unsigned>(first_reference_bits));
    }
    if (errors_differ) {
      std::fprintf(out, "; Error bits 0x%x on %s, reference 0x%x", static_cast<unsigned>(target_errors),
                   vlak_target_name(errors_target), static_cast<unsigned>(errors));
    }
    std::fprintf(out, "\n");
  }
};

// Runs kernel k on a copy of the n_tiles tiles at `tiles` on every target it was compiled for that
// the CPU supports, and compares the results bit for bit (and the Error bits) with the first.
// `tiles` is left unchanged.
inline Comparison CompareTargets(const UserKernel& k, const float* tiles, size_t n_tiles, uint32_t seed = 1) {
  Comparison c;
  const size_t n = n_tiles * 1024;
  std::vector<float> ref, out;
  for (size_t i = 0; i < k.num_targets(); ++i) {
    const vlak_target t = k.target(i).target;
    if (!vlak_target_supported(t)) {
      if (c.num_skipped < 8) c.skipped[c.num_skipped++] = t;
      continue;
    }
    std::vector<float>& dst = c.num_ran == 0 ? ref : out;
    dst.assign(tiles, tiles + n);
    const uint32_t err = k.target(i).run(dst.data(), 0, n_tiles, seed);
    if (c.num_ran < 8) c.ran[c.num_ran++] = t;
    if (&dst == &ref) {
      c.errors = err;
      continue;
    }
    if (err != c.errors && !c.errors_differ) {
      c.errors_differ = true;
      c.errors_target = t;
      c.target_errors = err;
    }
    for (size_t j = 0; j < n; ++j) {
      uint32_t a, b;
      std::memcpy(&a, &ref[j], 4);
      std::memcpy(&b, &out[j], 4);
      if (a == b) continue;
      if (c.mismatches++ == 0) {
        c.first_target = t;
        c.first_index = j;
        c.first_reference_bits = a;
        c.first_bits = b;
      }
    }
    c.same = c.mismatches == 0 && !c.errors_differ;
  }
  return c;
}

}  // namespace vlak::sfpi

// ---- declaring a kernel registered with VLAK_SFPI_KERNEL --------------------------------------
#if !defined(VLAK_SFPI_HAVE_SCALAR) && !defined(VLAK_SFPI_HAVE_AVX2) && !defined(VLAK_SFPI_HAVE_AVX512) && \
    !defined(VLAK_SFPI_HAVE_RVV)
// No list of compiled targets: a one-target program declaring its kernels in the kernel's source.
#if defined(VLAK_SIMD_SCALAR)
#define VLAK_SFPI_HAVE_SCALAR 1
#elif defined(VLAK_SIMD_AVX2)
#define VLAK_SFPI_HAVE_AVX2 1
#elif defined(VLAK_SIMD_AVX512)
#define VLAK_SFPI_HAVE_AVX512 1
#elif defined(VLAK_SIMD_RVV)
#define VLAK_SFPI_HAVE_RVV 1
#else
#error "sfpi_dispatch.h: no VLAK_SFPI_HAVE_<TARGET> (vlak_add_sfpi_kernels defines them on its target)"
#endif
#endif

#define VLAK_SFPI_DETAIL_DECL(ns, name) \
  namespace ns {                        \
  std::uint32_t vlak_sfpi_run_##name(float* tiles, std::size_t begin, std::size_t end, std::uint32_t seed); \
  }
#define VLAK_SFPI_DETAIL_ENTRY(T, ns, name) {T, &ns::vlak_sfpi_run_##name},
#if defined(VLAK_SFPI_HAVE_SCALAR)
#define VLAK_SFPI_DETAIL_IF_SCALAR(x) x
#else
#define VLAK_SFPI_DETAIL_IF_SCALAR(x)
#endif
#if defined(VLAK_SFPI_HAVE_AVX2)
#define VLAK_SFPI_DETAIL_IF_AVX2(x) x
#else
#define VLAK_SFPI_DETAIL_IF_AVX2(x)
#endif
#if defined(VLAK_SFPI_HAVE_AVX512)
#define VLAK_SFPI_DETAIL_IF_AVX512(x) x
#else
#define VLAK_SFPI_DETAIL_IF_AVX512(x)
#endif
#if defined(VLAK_SFPI_HAVE_RVV)
#define VLAK_SFPI_DETAIL_IF_RVV(x) x
#else
#define VLAK_SFPI_DETAIL_IF_RVV(x)
#endif

// At global scope: declares the per-target runners of kernel `name` and defines
// vlak_sfpi_user::name, a constexpr vlak::sfpi::UserKernel over them (scalar first, best last).
#define VLAK_SFPI_DECLARE(name)                                                                           \
  namespace vlak_sfpi_user {                                                                              \
  VLAK_SFPI_DETAIL_IF_SCALAR(VLAK_SFPI_DETAIL_DECL(n_scalar, name))                                       \
  VLAK_SFPI_DETAIL_IF_AVX2(VLAK_SFPI_DETAIL_DECL(n_avx2, name))                                           \
  VLAK_SFPI_DETAIL_IF_AVX512(VLAK_SFPI_DETAIL_DECL(n_avx512, name))                                       \
  VLAK_SFPI_DETAIL_IF_RVV(VLAK_SFPI_DETAIL_DECL(n_rvv, name))                                             \
  inline constexpr ::vlak::sfpi::TargetRunner vlak_sfpi_targets_##name[] = {                              \
      VLAK_SFPI_DETAIL_IF_SCALAR(VLAK_SFPI_DETAIL_ENTRY(VLAK_TARGET_SCALAR, n_scalar, name))              \
      VLAK_SFPI_DETAIL_IF_AVX2(VLAK_SFPI_DETAIL_ENTRY(VLAK_TARGET_AVX2, n_avx2, name))                    \
      VLAK_SFPI_DETAIL_IF_AVX512(VLAK_SFPI_DETAIL_ENTRY(VLAK_TARGET_AVX512, n_avx512, name))              \
      VLAK_SFPI_DETAIL_IF_RVV(VLAK_SFPI_DETAIL_ENTRY(VLAK_TARGET_RVV, n_rvv, name))};                     \
  inline constexpr ::vlak::sfpi::UserKernel name{#name, vlak_sfpi_targets_##name};                        \
  }
