// SFPI kernels shipped with vlak (src/sfpi/kernels/*.cc, written in SFPI, compiled per target).
//
// Each kernel is the per-face body a tt-llk author writes (8 dst_reg rows, dst_reg++), plus the
// init that programs vConst*Prgm*. The algorithms are those of Tenstorrent's
// tt-llk (Low Level Kernels); vlak's code is its own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_list.h"
#include "vlak/sfpi.h"

// The kernel runner's signature, declared once (dispatch/kernel_list.h): sfpi_api.cc builds its
// dispatch table from this list; kernels.cc checks its definition against it.
// SfpiRunTiles: tiles [begin, end) of the row-major 32 x 32 tiles at `tiles` through kernel k of
// the table, in place; tile t's PRNG seed is seed + t. Returns the ::vlak::sfpi::Error bits seen
// (~0u: bad k).
#define VLAK_SFPI_KERNELS(X) \
  X(kSfpiRunTiles, uint32_t, SfpiRunTiles, (size_t k, float* tiles, size_t begin, size_t end, uint32_t seed))

namespace vlak::VLAK_NS::sfpi_kernels {

// The kernel table of this target (same order and names on every target).
const ::vlak::sfpi::KernelInfo* Kernels(size_t* count);

}  // namespace vlak::VLAK_NS::sfpi_kernels

namespace vlak::VLAK_NS {
VLAK_SFPI_KERNELS(VLAK_DECLARE_KERNEL)
}  // namespace vlak::VLAK_NS
