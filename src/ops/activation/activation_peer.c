/* Plain C activations and gated units, for the lab's compiler comparison (see peer_common.h): each
 * formula written out in float64 and rounded once to float, with float64 exp and log1p written in
 * C so that a vectoriser sees through every call. Why float64 and not peer_common.h's float exp:
 * the lab holds the compiler rows to vlak's bound (2 ULP), which the formulas in float miss by
 * far (tanh near 0: 1 - 2/(e^2x + 1) cancels; gelu below -5 and gelu_tanh below -4: 0.5x(1 + erf)
 * and 0.5x(1 + tanh) cancel to 0). In float64 they meet it on the lab's inputs, so the rows compare
 * equal accuracy. gelu uses vlak's own form, max(x, 0) - a Phi(-a) with Mills' ratio as a rational
 * function (activation_coeffs.py): C has no erfc a vectoriser can inline.
 *   op: 0 sigmoid, 1 tanh, 2 gelu, 3 gelu_tanh, 4 silu, 5 softplus (vlak_activation's values). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../peer_common.h"

/* e^x for x in [-700, 700] (clamped): n = round(x / ln2) by the 1.5 * 2^52 rounding constant,
 * r = x - n ln2 in two steps (fdlibm's split), e^r by its Taylor series to degree 11 (|r| <= 0.347:
 * 7e-15 relative), times 2^n built in the exponent field. */
static inline double ref_exp(double x) {
  const double kRound = 6755399441055744.0;
  x = x < -700.0 ? -700.0 : x;
  x = x > 700.0 ? 700.0 : x;
  const double t = x * 1.4426950408889634 + kRound;
  const double n = t - kRound;
  double r = x - n * 6.93147180369123816490e-01;
  r = r - n * 1.90821492927058770002e-10;
  double p = 1.0 / 39916800;
  p = 1.0 / 3628800 + r * p;
  p = 1.0 / 362880 + r * p;
  p = 1.0 / 40320 + r * p;
  p = 1.0 / 5040 + r * p;
  p = 1.0 / 720 + r * p;
  p = 1.0 / 120 + r * p;
  p = 1.0 / 24 + r * p;
  p = 1.0 / 6 + r * p;
  p = 0.5 + r * p;
  p = 1.0 + r * p;
  p = 1.0 + r * p;
  int64_t ti;
  memcpy(&ti, &t, sizeof ti);
  const int64_t bits = (ti - 0x4338000000000000LL + 1023) << 52;
  double s;
  memcpy(&s, &bits, sizeof s);
  return p * s;
}

/* log(1 + u) for u in [0, 1]: 2 atanh(s), s = u / (2 + u) <= 1/3, to s^21 (2e-11 relative). */
static inline double ref_log1p(double u) {
  const double s = u / (2.0 + u), z = s * s;
  double p = 1.0 / 21;
  p = 1.0 / 19 + z * p;
  p = 1.0 / 17 + z * p;
  p = 1.0 / 15 + z * p;
  p = 1.0 / 13 + z * p;
  p = 1.0 / 11 + z * p;
  p = 1.0 / 9 + z * p;
  p = 1.0 / 7 + z * p;
  p = 1.0 / 5 + z * p;
  p = 1.0 / 3 + z * p;
  return 2.0 * s * (1.0 + z * p);
}

static inline double ref_sigmoid(double v) { return 1.0 / (1.0 + ref_exp(-v)); }

static inline double ref_tanh(double x) {
  const double a = x < 0.0 ? -x : x;
  const double y = a < 1e-4 ? a - a * a * a / 3.0 : 1.0 - 2.0 / (ref_exp(2.0 * (a < 20.0 ? a : 20.0)) + 1.0);
  return x < 0.0 ? -y : y;
}

/* x Phi(x) = max(x, 0) - a Q(a), a = |x|, Q(a) = exp(-a^2/2) / sqrt(2 pi) M(a): gelu.h's rational. */
static inline double ref_gelu(double x) {
  double a = x < 0.0 ? -x : x;
  a = a > 15.0 ? 15.0 : a;
  const double c0 = 0.39894228040143267794;
  double p = -0.00031633812246540321;
  p = 0.0061987390230702748 + a * p;
  p = 0.080788674805817515 + a * p;
  p = 0.40438533962254047 + a * p;
  p = 1.0304782871309657 + a * p;
  p = 1.2533141412960618 + a * p;
  double q = -0.00031632727608623665;
  q = 0.0061980424311524895 + a * q;
  q = 0.080491858900883853 + a * q;
  q = 0.41026594934635596 + a * q;
  q = 1.1152928143394258 + a * q;
  q = 1.6200875123017551 + a * q;
  q = 1.0 + a * q;
  return (x > 0.0 ? x : 0.0) - a * c0 * ref_exp(-0.5 * a * a) * p / q;
}

static inline double ref_act(double x, int op) {
  switch (op) {
    case 0: return ref_sigmoid(x);
    case 1: return ref_tanh(x);
    case 2: return ref_gelu(x);
    case 3: return x * ref_sigmoid(1.5957691216057308 * (x + 0.044715 * x * x * x));
    case 4: return x * ref_sigmoid(x);
    default: return (x > 0.0 ? x : 0.0) + ref_log1p(ref_exp(x > 0.0 ? -x : x));
  }
}

/* One loop per function, so that each is vectorised on its own. */
#define VLAK_REF_LOOP(k, body)                               \
  case k:                                                    \
    _Pragma("omp simd") for (size_t i = 0; i < n; ++i) body; \
    return;

void VLAK_REF(activation_f32)(const float* x, float* y, size_t n, int op) {
  switch (op) {
    VLAK_REF_LOOP(0, y[i] = (float)ref_act(x[i], 0))
    VLAK_REF_LOOP(1, y[i] = (float)ref_act(x[i], 1))
    VLAK_REF_LOOP(2, y[i] = (float)ref_act(x[i], 2))
    VLAK_REF_LOOP(3, y[i] = (float)ref_act(x[i], 3))
    VLAK_REF_LOOP(4, y[i] = (float)ref_act(x[i], 4))
    VLAK_REF_LOOP(5, y[i] = (float)ref_act(x[i], 5))
  }
}

void VLAK_REF(glu_f32)(const float* gate, const float* up, float* y, size_t n, int op) {
  switch (op) {
    VLAK_REF_LOOP(0, y[i] = (float)(ref_act(gate[i], 0) * up[i]))
    VLAK_REF_LOOP(1, y[i] = (float)(ref_act(gate[i], 1) * up[i]))
    VLAK_REF_LOOP(2, y[i] = (float)(ref_act(gate[i], 2) * up[i]))
    VLAK_REF_LOOP(3, y[i] = (float)(ref_act(gate[i], 3) * up[i]))
    VLAK_REF_LOOP(4, y[i] = (float)(ref_act(gate[i], 4) * up[i]))
    VLAK_REF_LOOP(5, y[i] = (float)(ref_act(gate[i], 5) * up[i]))
  }
}
