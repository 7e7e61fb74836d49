// Stands in for tt-llk's ckernel.h so that an SFPU kernel header that includes it compiles
// unchanged. Only SFPI is provided: the rest of ckernel.h (the TTI_ / TT_ instruction macros,
// configuration-register and semaphore helpers, the LLK math and packer API) is not modelled, and
// a kernel that uses it fails to compile at that use (docs/sfpi.md).
#pragma once

#include "sfpi.h"
