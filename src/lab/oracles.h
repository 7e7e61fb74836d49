// What the lab and the CLI (tools/) use of the operators beyond vlak.h: their float64 oracles, the
// error measures vlak.h states bounds in, and the softmax row with a chosen exp variant. Each is a
// thin forward to the operator's own function, so tools/ never includes an operator's internals.
#pragma once

#include <cstddef>

#include "vlak/vlak.h"

namespace vlak::lab {

// The vlak_activation values, 0 .. NumActivations() - 1, and their names ("sigmoid", "tanh",
// "gelu", "gelu_tanh", "silu", "softplus"); nullptr for an unknown value.
int NumActivations();
const char* ActivationName(int op);
// vlak.h's formula in float64, with its limits at +-inf and NaN for NaN.
double ActivationReferenceF64(vlak_activation op, double x);
// vlak.h's error measure of an activation: ULPs of the float nearest ref (units of 2^-149 below
// FLT_MIN; inf for a wrong zero, infinity or NaN).
double ActivationUlps(float y, double ref);

// Float64 softmax (or log-softmax with VLAK_SOFTMAX_LOG) of one row, vlak_softmax_f32's special
// values and flags.
void SoftmaxReferenceF64(const float* x, size_t n, double* y, unsigned flags);
// The three-pass softmax of one row with exp variant `variant` at LMUL 2^lmul_pow2 on the active
// target; false for an unknown variant or LMUL, or a VLAK_TARGET that could not be honoured.
bool SoftmaxVariantRow(vlak_exp_variant variant, int lmul_pow2, const float* x, float* y, size_t n);

}  // namespace vlak::lab
