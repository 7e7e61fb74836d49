#include "lab/oracles.h"

#include "ops/activation/activation.h"
#include "ops/softmax/softmax.h"

namespace vlak::lab {

int NumActivations() { return kNumActivations; }
const char* ActivationName(int op) { return vlak::ActivationName(op); }
double ActivationReferenceF64(vlak_activation op, double x) { return vlak::ActivationReferenceF64(op, x); }
double ActivationUlps(float y, double ref) { return vlak::ActivationUlps(y, ref); }

void SoftmaxReferenceF64(const float* x, size_t n, double* y, unsigned flags) {
  vlak::SoftmaxReferenceF64(x, n, y, flags);
}
bool SoftmaxVariantRow(vlak_exp_variant variant, int lmul_pow2, const float* x, float* y, size_t n) {
  return vlak::SoftmaxVariantRow(variant, lmul_pow2, x, y, n);
}

}  // namespace vlak::lab
