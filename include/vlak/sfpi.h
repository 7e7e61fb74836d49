// vlak SFPI: the public, target-independent part of SFPI on the CPU.
//
// SFPI is the C++ interface of the Tenstorrent Tensix vector unit (SFPU): vFloat / vInt / vUInt
// over 32 lanes, dst_reg[] over a 32x32 tile, v_if / v_elseif / v_else / v_endif predication.
// vlak runs SFPI kernels on the CPU, bit-exact with the documented Wormhole / Blackhole arithmetic
// (Tenstorrent's SFPI documentation and tt-isa-documentation), on scalar, AVX2, AVX-512 and RVV.
//
// Kernels are written against src/sfpi/sfpi.h (the language), which is compiled once per vector
// target like every vlak kernel; this header holds what is shared by every target: the
// architecture choice and the error bits a run reports.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace vlak::sfpi {

// Wormhole and Blackhole differ in SFPMAD's zero/NaN/sticky rules, `>>` on vInt (Blackhole only:
// arithmetic) and the flags of a few library functions. Grayskull is not modelled (sfpi dropped it).
enum class Arch : int { kWormhole = 0, kBlackhole = 1 };

namespace detail {
inline std::atomic<int> g_arch{static_cast<int>(Arch::kWormhole)};
}  // namespace detail

// The architecture every later RunTile (on any thread) models. Default: Wormhole.
inline void SetArch(Arch a) { detail::g_arch.store(static_cast<int>(a), std::memory_order_relaxed); }
inline Arch GetArch() { return static_cast<Arch>(detail::g_arch.load(std::memory_order_relaxed)); }

// What RunTile reports (bits, or'ed over the tile's four faces). On hardware these cases are
// undefined behaviour; the CPU version keeps running (with a deeper stack) and reports them.
enum Error : uint32_t {
  kOk = 0,
  kStackOverflow = 1,   // a 9th push on the 8-entry condition stack (v_if / v_elseif / v_block / ||)
  kStackUnderflow = 2,  // a pop with the stack empty (unbalanced v_endif)
  kUnclosed = 4,        // the kernel returned with conditions still pushed
  kUnsupported = 8,     // an operation the architecture lacks (vInt >> on Wormhole), computed anyway
};

// ---- the kernels shipped with vlak (src/sfpi/kernels), run through the library ----------------------
struct KernelInfo {
  const char* name;              // "exp-accurate", "exp-bf16", "exp-approx", "exp-fast", "recip", ...
  void (*init)();                // programs vConst*Prgm* (target-specific pointer; may be null)
  void (*body)();                // one 16 x 16 face (target-specific pointer)
  double (*reference)(double);   // the float64 function it approximates (null: none)
  const char* published;         // the published accuracy figure, as text
};

// The kernels (the same list on every target; the pointers are the scalar target's).
const KernelInfo* Kernels(size_t* count);

// Runs kernel `name` in place over n_tiles row-major 32 x 32 fp32 tiles on the active target
// (vlak_set_target / VLAK_TARGET), the tiles split over vlak's threads; tile t's PRNG is seeded
// with seed + t, so the bits do not depend on the thread count or the target. Returns the Error
// bits seen (0: none), or -1 for an unknown name or a null `tiles` with n_tiles > 0 (nothing
// written).
int RunKernel(const char* name, float* tiles, size_t n_tiles, uint32_t seed = 1);

}  // namespace vlak::sfpi
