// The header tt-metal / tt-llk kernels include for SFPI (`#include "sfpi.h"`): vlak's SFPI on the
// CPU. This directory (<vlak/sfpi/compat>) is on the include path of the sources that
// vlak_add_sfpi_kernels compiles, so such #includes resolve unchanged (docs/sfpi.md).
#pragma once

#include <vlak/sfpi/sfpi.h>
