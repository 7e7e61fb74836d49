/* The compiler that built the plain C kernels (peer_common.h), for the lab's machine record. */
#include "peer_common.h"

const char* VLAK_REF(compiler)(void) { return __VERSION__; }
