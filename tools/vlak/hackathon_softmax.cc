// The RISC-V hackathon softmax's (April 2025) scalar and RVV softmax, rewritten from the
// hackathon article's description.
#include "hackathon_softmax.h"

#include <cmath>

#if defined(__riscv_vector)
#include <riscv_vector.h>
#endif

#include "vlak/vlak.h"

namespace vlak::cli {

void HackathonScalarLibmSoftmax(const float* x, float* y, size_t n) {
  float m = x[0];
#pragma clang loop vectorize(disable) interleave(disable)
  for (size_t i = 1; i < n; ++i) {
    if (x[i] > m) m = x[i];
  }
  float sum = 0;
#pragma clang loop vectorize(disable) interleave(disable)
  for (size_t i = 0; i < n; ++i) {
    y[i] = expf(x[i] - m);
    sum += y[i];
  }
#pragma clang loop vectorize(disable) interleave(disable)
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / sum;
}

#if defined(__riscv_vector)
namespace {

constexpr float kOneOverLn2 = 1.44269504088896341f;
// delta(t) = t + 1 - 2^t on [0, 1], degree 5 matched at both ends (the hackathon, after Perini 2018).
constexpr float kS1 = 3.06852819440055e-1f, kS2 = -2.40226506959101e-1f, kS3 = -5.57129652016652e-2f,
                kS4 = -9.01146535969578e-3f, kS5 = -1.90188191959304e-3f;

// The hackathon's code converts with vfcvt.rtz (round toward zero); qemu 7.2 aborts on that encoding, so the
// conversions use a static rounding mode with the same result on its domain: v <= 0 here
// (toward zero = up), and the final value is positive (toward zero = down). It costs an fsrmi and
// an fsrm per conversion, which the hackathon's code does not pay.
vfloat32m8_t Frac(vfloat32m8_t v, size_t vl) {  // v - trunc(v) + 1: in (0, 1] for v <= 0
  vint32m8_t i = __riscv_vmv_v_x_i32m8(0, vl);
  i = __riscv_vfcvt_x_f_v_i32m8_rm_tu(i, v, __RISCV_FRM_RUP, vl);
  const vfloat32m8_t t = __riscv_vfcvt_f_x_v_f32m8(i, vl);
  return __riscv_vfadd_vf_f32m8(__riscv_vfsub_vv_f32m8(v, t, vl), 1.0f, vl);
}

vfloat32m8_t Delta(vfloat32m8_t t, size_t vl) {
  vfloat32m8_t p = __riscv_vfmv_v_f_f32m8(kS5, vl);
  p = __riscv_vfmadd_vv_f32m8(p, t, __riscv_vfmv_v_f_f32m8(kS4, vl), vl);
  p = __riscv_vfmadd_vv_f32m8(p, t, __riscv_vfmv_v_f_f32m8(kS3, vl), vl);
  p = __riscv_vfmadd_vv_f32m8(p, t, __riscv_vfmv_v_f_f32m8(kS2, vl), vl);
  p = __riscv_vfmadd_vv_f32m8(p, t, __riscv_vfmv_v_f_f32m8(kS1, vl), vl);
  return __riscv_vfmul_vv_f32m8(p, t, vl);
}

vfloat32m8_t FastPow2(vfloat32m8_t v, size_t vl) {  // bits = 2^23 * (v - delta + 127)
  vfloat32m8_t t = __riscv_vfsub_vv_f32m8(v, Delta(Frac(v, vl), vl), vl);
  t = __riscv_vfmul_vf_f32m8(__riscv_vfadd_vf_f32m8(t, 127.0f, vl), 8388608.0f, vl);
  vint32m8_t bits = __riscv_vmv_v_x_i32m8(0, vl);
  bits = __riscv_vfcvt_x_f_v_i32m8_rm_tu(bits, t, __RISCV_FRM_RDN, vl);
  return __riscv_vreinterpret_v_i32m8_f32m8(bits);
}

}  // namespace

bool HackathonRvvSoftmax(const float* x, float* y, size_t n) {
  if (!vlak_target_supported(VLAK_TARGET_RVV)) return false;
  // max
  size_t vl = __riscv_vsetvl_e32m8(n);
  vfloat32m8_t vmax = __riscv_vle32_v_f32m8(x, vl);
  for (size_t i = vl; i < n; i += vl) {
    vl = __riscv_vsetvl_e32m8(n - i);
    vmax = __riscv_vfmax_vv_f32m8_tu(vmax, vmax, __riscv_vle32_v_f32m8(x + i, vl), vl);
  }
  vfloat32m1_t r = __riscv_vfmv_v_f_f32m1(-INFINITY, 1);
  r = __riscv_vfredmax_vs_f32m8_f32m1(vmax, r, __riscv_vsetvl_e32m8(n));
  const float m = __riscv_vfmv_f_s_f32m1_f32(r);
  // exp and sum
  vl = __riscv_vsetvl_e32m8(n);
  vfloat32m8_t vsum = __riscv_vfmv_v_f_f32m8(0.0f, vl);
  for (size_t i = 0; i < n; i += vl) {
    vl = __riscv_vsetvl_e32m8(n - i);
    vfloat32m8_t v = __riscv_vfsub_vf_f32m8(__riscv_vle32_v_f32m8(x + i, vl), m, vl);
    v = FastPow2(__riscv_vfmul_vf_f32m8(v, kOneOverLn2, vl), vl);
    vsum = __riscv_vfadd_vv_f32m8_tu(vsum, vsum, v, vl);
    __riscv_vse32_v_f32m8(y + i, v, vl);
  }
  r = __riscv_vfmv_v_f_f32m1(0.0f, 1);
  r = __riscv_vfredosum_vs_f32m8_f32m1(vsum, r, __riscv_vsetvl_e32m8(n));
  const float sum = __riscv_vfmv_f_s_f32m1_f32(r);
  // divide
  for (size_t i = 0; i < n; i += vl) {
    vl = __riscv_vsetvl_e32m8(n - i);
    __riscv_vse32_v_f32m8(y + i, __riscv_vfdiv_vf_f32m8(__riscv_vle32_v_f32m8(y + i, vl), sum, vl), vl);
  }
  return true;
}
#else
bool HackathonRvvSoftmax(const float*, float*, size_t) { return false; }
#endif

}  // namespace vlak::cli
