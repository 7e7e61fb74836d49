// The example's kernels, compiled once per vector target by vlak_add_sfpi_kernels (CMakeLists.txt).
// The kernel headers are tt-llk style and unchanged; this file only registers them.
//
// VLAK_SFPI_BEGIN/END put everything between them in a namespace of the target being compiled, so
// the scalar, AVX2 and AVX-512 copies of calculate_softplus<false, 8> & co. stay distinct symbols
// in one program (<vlak/sfpi/sfpi_user.h>). Standard and vlak headers go before VLAK_SFPI_BEGIN.
#include <vlak/sfpi/sfpi.h>

VLAK_SFPI_BEGIN

#include "ckernel_sfpu_recip_clamped.h"
#include "ckernel_sfpu_softplus.h"

// name, init (once per tile), body (once per 16 x 16 face): as the LLK API calls them.
VLAK_SFPI_KERNEL(softplus, ckernel::sfpu::softplus_init<false>, (ckernel::sfpu::calculate_softplus<false, 8>))
VLAK_SFPI_KERNEL(recip_clamped, ckernel::sfpu::recip_clamped_init<false>,
                 (ckernel::sfpu::calculate_recip_clamped<false, 8>))

VLAK_SFPI_END
