// Activations' internals shared by the API, the tests, the fuzz targets, the CLI and the lab.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>

#include "vlak/vlak.h"

namespace vlak {

inline constexpr int kNumActivations = 6;

// "sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"; nullptr for an unknown value.
inline const char* ActivationName(int op) {
  switch (op) {
    case VLAK_ACT_SIGMOID: return "sigmoid";
    case VLAK_ACT_TANH: return "tanh";
    case VLAK_ACT_GELU: return "gelu";
    case VLAK_ACT_GELU_TANH: return "gelu_tanh";
    case VLAK_ACT_SILU: return "silu";
    case VLAK_ACT_SOFTPLUS: return "softplus";
  }
  return nullptr;
}

// Float64 reference of vlak.h's formula (activation_reference.cc), with vlak.h's limits at
// +-inf and NaN for NaN. The reference of glu is ActivationReferenceF64(op, gate) * up.
double ActivationReferenceF64(vlak_activation op, double x);

// vlak.h's measure of an activation's error: |y - ref| in ULPs of the float nearest ref, where
// |ref| >= FLT_MIN; below, in units of 2^-149 (the bound there is |y - ref| <= 2^-149). Exact
// zeros and infinities compare bit for bit with the float nearest ref (sign included: 0 or inf
// of the wrong sign is reported as inf); a NaN y is inf unless ref is NaN.
inline double ActivationUlps(float y, double ref) {
  constexpr double kInf = HUGE_VAL;
  if (std::isnan(ref)) return std::isnan(y) ? 0.0 : kInf;
  if (std::isnan(y)) return kInf;
  const float nearest = static_cast<float>(ref);
  if (std::isinf(nearest) || std::isinf(y)) return y == nearest ? 0.0 : kInf;
  const double a = std::fabs(ref);
  if (a < FLT_MIN) return std::fabs(static_cast<double>(y) - ref) / 0x1p-149;
  int e;
  std::frexp(std::fabs(static_cast<double>(nearest)), &e);  // nearest in [2^(e-1), 2^e)
  return std::fabs(static_cast<double>(y) - ref) / std::ldexp(1.0, e - 24);
}

}  // namespace vlak
