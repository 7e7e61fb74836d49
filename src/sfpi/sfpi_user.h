// SFPI on the CPU: what a kernel written outside vlak needs beyond the language (installed as
// <vlak/sfpi/sfpi_user.h>, included by <vlak/sfpi/sfpi.h>).
//
// 1. The spellings of tt-metal / tt-llk kernels (Tenstorrent's SFPI documentation; tt-llk's
//    ckernel_sfpu_*.h): `sfpi_inline`, and a namespace `sfpi` that `using namespace sfpi;`,
//    `sfpi::vFloat` and `namespace sfpi { ... }` (adding helpers to it) all work with.
//
// 2. Compiling one kernel source once per vector target into one binary (vlak_add_sfpi_kernels in
//    vlakSfpi.cmake), and registering its kernels so that the target-independent
//    <vlak/sfpi/sfpi_dispatch.h> picks the best copy at run time:
//
//      #include <vlak/sfpi/sfpi.h>
//      VLAK_SFPI_BEGIN
//      using namespace sfpi;
//      namespace ckernel::sfpu { ...tt-llk style code: init and calculate_ functions... }
//      VLAK_SFPI_KERNEL(my_op, ckernel::sfpu::my_op_init, (ckernel::sfpu::calculate_my_op<false, 8>))
//      VLAK_SFPI_END
//
//    Why the BEGIN/END pair: the copies of one source for scalar, AVX2 and AVX-512 are linked into
//    one program. Anything they define with external linkage under the same name (a
//    `calculate_my_op<false, 8>` instantiation, an inline helper) would be one symbol to the
//    linker, which keeps one copy (an ODR violation): the scalar path could end up running AVX-512
//    code, or the AVX-512 path scalar code with the same bits, silently. VLAK_SFPI_BEGIN opens a
//    namespace of the target being compiled (vlak_sfpi_user::n_scalar, ::n_avx2, ...), so every
//    name the kernel code defines is distinct per target. Standard headers must be included before
//    VLAK_SFPI_BEGIN (a standard header opened inside a namespace breaks); tt-llk-style headers of
//    kernel code can be included between BEGIN and END.
//
// Two ways to compile a source that includes this header:
//  - per target (vlak_add_sfpi_kernels, or vlak's own build): -DVLAK_SIMD_<SCALAR|AVX2|AVX512|RVV>
//    and the target's flags. There is no global `::sfpi` then, so kernel code outside
//    VLAK_SFPI_BEGIN/END (where it would clash across targets) does not compile.
//  - one target, for quick use: -DVLAK_SFPI_SCALAR, or -DVLAK_SFPI_NATIVE with the compiler's ISA
//    flags (-march=native, or -mavx2 -mfma -mf16c): the best target those flags enable. Then
//    `::sfpi` exists as well, so a kernel can be written at global scope and run with
//    sfpi::RunTile / sfpi::RunTiles directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#ifndef sfpi_inline
// As sfpi defines it: kernels' helpers are always inlined into the kernel body.
#define sfpi_inline inline __attribute__((always_inline))
#endif

namespace vlak::VLAK_NS::sfpi {
// The vector target this copy of the language is compiled for: "scalar", "avx2", "avx512", "rvv".
inline constexpr const char* kTargetName = ::vlak::TargetName(VLAK_TARGET_ID);
}  // namespace vlak::VLAK_NS::sfpi

namespace vlak::VLAK_NS::sfpi::impl {
// init / body arguments of VLAK_SFPI_KERNEL: a function (or captureless lambda) called with no
// arguments, or nullptr for "no init".
inline void Invoke(std::nullptr_t) {}
template <class F>
[[gnu::always_inline]] inline void Invoke(F&& f) {
  f();
}
}  // namespace vlak::VLAK_NS::sfpi::impl

#if defined(VLAK_SFPI_SINGLE_TARGET)
// One target per program: the tt-llk namespace at global scope as well.
namespace sfpi {
using namespace ::vlak::VLAK_NS::sfpi;
}  // namespace sfpi
#endif

// Opens the namespace of the target being compiled; inside it, `sfpi` names the language.
#define VLAK_SFPI_BEGIN                           \
  namespace vlak_sfpi_user::VLAK_NS {             \
  namespace sfpi {                                \
  using namespace ::vlak::VLAK_NS::sfpi;          \
  }
#define VLAK_SFPI_END }

// Between VLAK_SFPI_BEGIN and VLAK_SFPI_END: registers kernel `name` (an identifier) with `init`
// (run once per tile, before the faces: where vConstFloatPrgm0..2 are programmed; nullptr for
// none) and `body` (run once per 16 x 16 face, walking its 8 dst_reg rows with dst_reg++).
// A template-id with commas goes in parentheses: (calculate_my_op<false, 8>). Defines
// vlak_sfpi_run_<name>, the tile runner of this target that VLAK_SFPI_DECLARE refers to.
#define VLAK_SFPI_KERNEL(name, init, body)                                                             \
  std::uint32_t vlak_sfpi_run_##name(float* tiles, std::size_t begin, std::size_t end, std::uint32_t seed) { \
    return ::vlak::VLAK_NS::sfpi::RunTiles(+[] { ::vlak::VLAK_NS::sfpi::impl::Invoke(body); }, tiles,  \
                                           begin, end,                                                \
                                           +[] { ::vlak::VLAK_NS::sfpi::impl::Invoke(init); }, seed);  \
  }
