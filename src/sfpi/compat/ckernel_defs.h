// Stands in for tt-llk's ckernel_defs.h (see ckernel.h here): only SFPI is provided; its enums
// and definitions (data formats, vector modes, SfpuType, ...) are not modelled.
#pragma once

#include "sfpi.h"
