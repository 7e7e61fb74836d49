// The RVV target's quantized-activations kernel (included by quant_kernel.cc for rvv), at any VLEN
// >= 128: one block of 32 per step, vl = 16. Per block and row of W: the 16 weight bytes (q4: the
// low nibbles are values 0..15, the high ones 16..31; q8_0: two halves of 16), vwmul.vv of the first
// half against q_a[0..15] into int16 lanes and vwmacc.vv of the second against q_a[16..31] (exact:
// |sum| <= 2 * 128 * 127), vfwcvt to f32, vfmacc.vf with fl(d_w d_a) into the row's f32 lanes; q4_1's
// m_w d_a sum q_a is a scalar per block. One ordered reduction (vfredosum) per C element at the end,
// not one per block. kRowsW rows of W share each load of A.
// Bound: lanes exact per block, then 2 roundings per block and lane and the 16-term ordered sum:
// within vlak.h's 2k * 2^-24 * S. Cost per block and row of W: 1 load, 2 (q4_1) to 4 (q4_0) unpack
// ops, vwmul, vwmacc, vfwcvt, vfmacc, and the scale's 3 scalar ops; A's 2 loads per kRowsW rows.
#pragma once

#include <riscv_vector.h>

#include <cstddef>
#include <cstdint>

#include "ops/quant/quant_kernels.h"

namespace vlak::VLAK_NS::rvv_quant {

template <int kType>
void ActCols(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr size_t kRw = 4;
  constexpr size_t vl = 16;
  const size_t nb = g.k / kQBlock;
  uint8_t* const actm = const_cast<uint8_t*>(act);
  for (size_t j = j0; j < j1; j += kRw) {
    const size_t rw = j1 - j < kRw ? j1 - j : kRw;
    const uint8_t* wr[kRw];
    for (size_t r = 0; r < kRw; ++r) wr[r] = g.w + (j + (r < rw ? r : 0)) * g.w_stride;
    for (size_t i = 0; i < g.m; ++i) {
      const QActRow ar = QActRowAt(actm, g.k, i);
      vfloat32m4_t acc0 = __riscv_vfmv_v_f_f32m4(0.0f, vl), acc1 = acc0, acc2 = acc0, acc3 = acc0;
      float extra[kRw] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (size_t b = 0; b < nb; ++b) {
        const vint8m1_t qlo = __riscv_vle8_v_i8m1(ar.qs + b * kQBlock, vl);
        const vint8m1_t qhi = __riscv_vle8_v_i8m1(ar.qs + b * kQBlock + 16, vl);
        const float da = ar.d[b];
        auto row = [&](size_t r, vfloat32m4_t acc) {
          const uint8_t* blk = wr[r] + b * bb;
          vint8m1_t wlo, whi;
          if constexpr (kType == VLAK_Q8_0) {
            wlo = __riscv_vle8_v_i8m1(reinterpret_cast<const int8_t*>(blk + 2), vl);
            whi = __riscv_vle8_v_i8m1(reinterpret_cast<const int8_t*>(blk + 18), vl);
          } else {
            const vuint8m1_t q = __riscv_vle8_v_u8m1(blk + (kType == VLAK_Q4_1 ? 4 : 2), vl);
            wlo = __riscv_vreinterpret_v_u8m1_i8m1(__riscv_vand_vx_u8m1(q, 0x0F, vl));
            whi = __riscv_vreinterpret_v_u8m1_i8m1(__riscv_vsrl_vx_u8m1(q, 4, vl));
            if constexpr (kType == VLAK_Q4_0) {
              wlo = __riscv_vsub_vx_i8m1(wlo, 8, vl);
              whi = __riscv_vsub_vx_i8m1(whi, 8, vl);
            }
          }
          vint16m2_t p = __riscv_vwmul_vv_i16m2(wlo, qlo, vl);
          p = __riscv_vwmacc_vv_i16m2(p, whi, qhi, vl);
          const float s = HalfToFloat(LoadHalf(blk)) * da;
          if constexpr (kType == VLAK_Q4_1) extra[r] += static_cast<float>(ar.sum[b]) * (HalfToFloat(LoadHalf(blk + 2)) * da);
          return __riscv_vfmacc_vf_f32m4(acc, s, __riscv_vfwcvt_f_x_v_f32m4(p, vl), vl);
        };
        acc0 = row(0, acc0);
        acc1 = row(1, acc1);
        acc2 = row(2, acc2);
        acc3 = row(3, acc3);
      }
      const vfloat32m1_t zero = __riscv_vfmv_s_f_f32m1(0.0f, 1);
      auto store = [&](size_t r, vfloat32m4_t acc) {
        if (r >= rw) return;
        const float s = __riscv_vfmv_f_s_f32m1_f32(__riscv_vfredosum_vs_f32m4_f32m1(acc, zero, vl));
        g.c[i * g.ldc + j + r] = kType == VLAK_Q4_1 ? s + extra[r] : s;
      };
      store(0, acc0);
      store(1, acc1);
      store(2, acc2);
      store(3, acc3);
    }
  }
}

inline void ActColsRvv(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return ActCols<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return ActCols<VLAK_Q4_0>(g, act, j0, j1);
  ActCols<VLAK_Q4_1>(g, act, j0, j1);
}

}  // namespace vlak::VLAK_NS::rvv_quant
