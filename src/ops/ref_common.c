/* The compiler that built the plain C kernels (ref_common.h), for the lab's machine record. */
#include "ref_common.h"

const char* VLAK_REF(compiler)(void) { return __VERSION__; }
