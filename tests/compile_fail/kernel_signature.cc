// A kernel source whose definition differs from its kernel list (dispatch/kernel_list.h) must not
// compile (tests dispatch.compile_fail.kernel_signature_*): softmax's real list, a definition of
// SoftmaxRowF32 as a kernel source would write it, and the check a kernel source ends with.
// VLAK_REJECT_CASE 0 is the control (the listed signature: it must build, so the other cases fail
// for the reason they name); built for the scalar target by CTest.
#include "ops/softmax/softmax_kernels.h"
#include "simd/simd.h"

namespace vlak::VLAK_NS {

#if VLAK_REJECT_CASE == 0
// As listed.
vlak_status SoftmaxRowF32(const float*, float*, size_t, unsigned, int) { return VLAK_OK; }
#elif VLAK_REJECT_CASE == 1
// A parameter's type differs (int for size_t): in C++ a second overload, not an error by itself.
vlak_status SoftmaxRowF32(const float*, float*, int, unsigned, int) { return VLAK_OK; }
#elif VLAK_REJECT_CASE == 2
// A const dropped: also an overload.
vlak_status SoftmaxRowF32(float*, float*, size_t, unsigned, int) { return VLAK_OK; }
#elif VLAK_REJECT_CASE == 3
// The return type differs.
int SoftmaxRowF32(const float*, float*, size_t, unsigned, int) { return 0; }
#else
#error "define VLAK_REJECT_CASE"
#endif

VLAK_KERNELS_DEFINED(VLAK_SOFTMAX_KERNELS)

}  // namespace vlak::VLAK_NS
