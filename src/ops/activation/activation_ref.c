/* Plain C activations and gated units, for the lab's compiler comparison (see ref_common.h): the
 * textbook formulas on ref_common.h's exp, so that a vectoriser sees through every call. No care
 * for cancellation or tails: this is what a straightforward C port computes.
 *   op: 0 sigmoid 1 / (1 + e^-x), 1 tanh 1 - 2 / (e^2x + 1), 2 gelu 0.5 x (1 + erf(x / sqrt 2)) with
 *   Abramowitz & Stegun 7.1.26's erf (|error| <= 1.5e-7, on e^-z^2), 3 gelu_tanh by the same tanh,
 *   4 silu x / (1 + e^-x), 5 softplus max(x, 0) + log1p(e^-|x|), log1p by its atanh series. */
#include <stddef.h>

#include "../ref_common.h"

static inline float ref_tanhf(float x) { return 1.0f - 2.0f / (vlak_ref_expf(2.0f * x) + 1.0f); }

static inline float ref_erff(float x) {
  const float z = x < 0.0f ? -x : x;
  const float t = 1.0f / (1.0f + 0.3275911f * z);
  const float p = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  const float r = 1.0f - p * vlak_ref_expf(-z * z);
  return x < 0.0f ? -r : r;
}

/* log(1 + u) for u in [0, 1]: 2 atanh(s), s = u / (2 + u) <= 1/3, to s^11. */
static inline float ref_log1pf(float u) {
  const float s = u / (2.0f + u), s2 = s * s;
  return 2.0f * s * (1.0f + s2 * (1.0f / 3 + s2 * (1.0f / 5 + s2 * (1.0f / 7 + s2 * (1.0f / 9 + s2 * (1.0f / 11))))));
}

static inline float ref_act(float x, int op) {
  switch (op) {
    case 0: return 1.0f / (1.0f + vlak_ref_expf(-x));
    case 1: return ref_tanhf(x);
    case 2: return 0.5f * x * (1.0f + ref_erff(x * 0.70710678f));
    case 3: return 0.5f * x * (1.0f + ref_tanhf(0.79788456f * (x + 0.044715f * x * x * x)));
    case 4: return x / (1.0f + vlak_ref_expf(-x));
    default: return (x > 0.0f ? x : 0.0f) + ref_log1pf(vlak_ref_expf(x > 0.0f ? -x : x));
  }
}

/* One loop per function, so that each is vectorised on its own. */
#define VLAK_REF_LOOP(k, body)             \
  case k:                                  \
    _Pragma("omp simd") for (size_t i = 0; i < n; ++i) body; \
    return;

void VLAK_REF(activation_f32)(const float* x, float* y, size_t n, int op) {
  switch (op) {
    VLAK_REF_LOOP(0, y[i] = ref_act(x[i], 0))
    VLAK_REF_LOOP(1, y[i] = ref_act(x[i], 1))
    VLAK_REF_LOOP(2, y[i] = ref_act(x[i], 2))
    VLAK_REF_LOOP(3, y[i] = ref_act(x[i], 3))
    VLAK_REF_LOOP(4, y[i] = ref_act(x[i], 4))
    VLAK_REF_LOOP(5, y[i] = ref_act(x[i], 5))
  }
}

void VLAK_REF(glu_f32)(const float* gate, const float* up, float* y, size_t n, int op) {
  switch (op) {
    VLAK_REF_LOOP(0, y[i] = ref_act(gate[i], 0) * up[i])
    VLAK_REF_LOOP(1, y[i] = ref_act(gate[i], 1) * up[i])
    VLAK_REF_LOOP(2, y[i] = ref_act(gate[i], 2) * up[i])
    VLAK_REF_LOOP(3, y[i] = ref_act(gate[i], 3) * up[i])
    VLAK_REF_LOOP(4, y[i] = ref_act(gate[i], 4) * up[i])
    VLAK_REF_LOOP(5, y[i] = ref_act(gate[i], 5) * up[i])
  }
}
