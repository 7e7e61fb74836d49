// The RVV target's quantized-activations kernel (included by quant_kernel.cc for rvv), at any VLEN
// >= 128: one block of 32 per step, vl = 16. Per block and row of W: the 16 weight bytes (q4: the
// low nibbles are values 0..15, the high ones 16..31; q8_0: two halves of 16), vwmul.vv of the
// first half against q_a[0..15] into int16 lanes and vwmacc.vv of the second against q_a[16..31]
// (exact: |sum| <= 2 * 128 * 127), vfwcvt to f32, vfmacc.vf with fl(d_w d_a) into the row's f32
// lanes (rows in pairs: two rows' int8 parts, then their conversions and fmas: 3 SEW changes per
// pair); q4_1's m_w d_a sum q_a is a scalar per block. One ordered reduction (vfredosum) per C
// element at the end, not one per block. 2 rows of W share each load of A (4 spilled).
// Bound: lanes exact per block, then 2 roundings per block and lane and the 16-term ordered sum:
// within vlak.h's 2k * 2^-24 * S. Cost per block and row of W: 1 load, 2 (q4_1) to 4 (q4_0)
// unpack ops, vwmul, vwmacc, vfwcvt, vfmacc, 1.5 vsetvli, the scale's table load and multiply;
// A's 2 loads per 2 rows. Measurements: docs/ops/quant.md.
#pragma once

#include <riscv_vector.h>

#include <cstddef>
#include <cstdint>

#include "ops/quant/quant_kernels.h"

namespace vlak::VLAK_NS::rvv_quant {

// fp16 -> f32 by a table of all 65536 (ggml's approach where the ISA has no half conversion: rv64gcv
// does not imply Zfhmin): one load instead of ~12 scalar instructions with two branches.
inline const float* HalfTable() {
  static const float* const table = [] {
    float* t = new float[65536];
    for (uint32_t h = 0; h < 65536; ++h) t[h] = HalfToFloat(static_cast<uint16_t>(h));
    return t;
  }();
  return table;
}

template <int kType>
void ActCols(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr size_t kRw = 2;  // 4 rows' accumulators beside the temporaries spilled (rvv.spill_check)
  constexpr size_t vl = 16;
  const size_t nb = g.k / kQBlock;
  const float* const half = HalfTable();
  uint8_t* const actm = const_cast<uint8_t*>(act);
  for (size_t j = j0; j < j1; j += kRw) {
    const size_t rw = j1 - j < kRw ? j1 - j : kRw;
    const uint8_t* wr[kRw];
    for (size_t r = 0; r < kRw; ++r) wr[r] = g.w + (j + (r < rw ? r : 0)) * g.w_stride;
    for (size_t i = 0; i < g.m; ++i) {
      const QActRow ar = QActRowAt(actm, g.k, i);
      vfloat32m4_t acc0 = __riscv_vfmv_v_f_f32m4(0.0f, vl), acc1 = acc0;
      float extra[kRw] = {0.0f, 0.0f};
      for (size_t b = 0; b < nb; ++b) {
        const vint8m1_t qlo = __riscv_vle8_v_i8m1(ar.qs + b * kQBlock, vl);
        const vint8m1_t qhi = __riscv_vle8_v_i8m1(ar.qs + b * kQBlock + 16, vl);
        const float da = ar.d[b];
        auto dot = [&](size_t r) {
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
          return __riscv_vwmacc_vv_i16m2(__riscv_vwmul_vv_i16m2(wlo, qlo, vl), whi, qhi, vl);
        };
        auto fold = [&](size_t r, vint16m2_t p, vfloat32m4_t acc) {
          const uint8_t* blk = wr[r] + b * bb;
          const float s = half[LoadHalf(blk)] * da;
          if constexpr (kType == VLAK_Q4_1) extra[r] += static_cast<float>(ar.sum[b]) * (half[LoadHalf(blk + 2)] * da);
          return __riscv_vfmacc_vf_f32m4(acc, s, __riscv_vfwcvt_f_x_v_f32m4(p, vl), vl);
        };
        // The int8 parts of both rows, then their conversions (SEW 16) and fmas (SEW 32): SEW
        // changes 3 times per block.
        const vint16m2_t p0 = dot(0), p1 = dot(1);
        acc0 = fold(0, p0, acc0);
        acc1 = fold(1, p1, acc1);
      }
      const vfloat32m1_t zero = __riscv_vfmv_s_f_f32m1(0.0f, 1);
      auto store = [&](size_t r, vfloat32m4_t acc) {
        if (r >= rw) return;
        const float s = __riscv_vfmv_f_s_f32m1_f32(__riscv_vfredosum_vs_f32m4_f32m1(acc, zero, vl));
        g.c[i * g.ldc + j + r] = kType == VLAK_Q4_1 ? s + extra[r] : s;
      };
      store(0, acc0);
      store(1, acc1);
    }
  }
}

// Quantized activations times W in vlak_matmul_q_pack's RVV layout (quant.h): groups of R =
// VLMAX(e8, m1) rows, per block the R fp16 d (and m), then the quantized bytes as columns of R
// (column c: byte c of every row). Rows across the lanes: per block, each byte column is one load
// and one vwmaccsu.vx (q4: its low nibbles against q_a[c], its high nibbles against q_a[16 + c],
// two int16 accumulators, exact: 16 * 15 * 127 < 2^15; q8_0: vwmul.vx + vwmacc.vx of two
// columns, then vwadd.wv into int32, exact), so one instruction serves R rows; then per block
// the int32 sum (q4_0: - 8 sum q_a), vfcvt, and acc = fma(float(s), fl(d_w d_a), acc) (q4_1: then
// fma(m_w, fl(d_a sum q_a), acc)) on R f32 lanes, the scales through the half table (vluxei32).
// No reduction: lane r is C[i][j + r]. The bits of MatmulQActGroupedColsF32's plain form.
// Bound: as ActCols'. Cost per block and R rows: q4 4 loads of 4 columns (m4), 8 unpack ops, 32
// vwmaccsu and 32 scalar loads of q_a, ~10 for the sum, conversion and scales; q8_0 16 loads of 2
// columns, 48 multiply-adds. Retired instructions per weight (q4_1 / q4_0 / q8_0, quant_icount.cc):
// VLEN 128 0.27 / 0.26 / 0.37, 256 0.14 / 0.14 / 0.19, 512 0.08 / 0.08 / 0.10.
template <int kType>
void GroupedCols(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType), head = kType == VLAK_Q4_1 ? 4 : 2;
  const size_t R = g.group;  // == __riscv_vsetvlmax_e8m1()
  const size_t rec = R * bb, nb = g.k / kQBlock, R4 = 4 * R;
  const float* const half = HalfTable();
  uint8_t* const actm = const_cast<uint8_t*>(act);
  for (size_t j = j0; j < j1; j += R) {
    const uint8_t* const grp = g.w + j / R * nb * rec;
    const size_t cols = j1 - j < R ? j1 - j : R;
    for (size_t i = 0; i < g.m; ++i) {
      const QActRow ar = QActRowAt(actm, g.k, i);
      vfloat32m4_t acc = __riscv_vfmv_v_f_f32m4(0.0f, R);
      for (size_t b = 0; b < nb; ++b) {
        const uint8_t* const r = grp + b * rec;
        const int8_t* const qa = ar.qs + b * kQBlock;
        vint32m4_t s;
        if constexpr (kType == VLAK_Q8_0) {
          // 2 columns per load (m2): with 4 (m4) clang hoisted the loads and spilled.
          s = __riscv_vmv_v_x_i32m4(0, R);
          for (size_t q = 0; q < 16; ++q) {
            const vint8m2_t v = __riscv_vle8_v_i8m2(reinterpret_cast<const int8_t*>(r + head * R + q * 2 * R), 2 * R);
            vint16m2_t p = __riscv_vwmul_vx_i16m2(__riscv_vget_v_i8m2_i8m1(v, 0), qa[2 * q], R);
            p = __riscv_vwmacc_vx_i16m2(p, qa[2 * q + 1], __riscv_vget_v_i8m2_i8m1(v, 1), R);
            s = __riscv_vwadd_wv_i32m4(s, p, R);
          }
        } else {
          vint16m2_t lo = __riscv_vmv_v_x_i16m2(0, R), hi = lo;
          for (size_t q = 0; q < 4; ++q) {  // 4 columns per load
            const vuint8m4_t v = __riscv_vle8_v_u8m4(r + head * R + q * R4, R4);
            const vuint8m4_t vl4 = __riscv_vand_vx_u8m4(v, 0x0F, R4), vh4 = __riscv_vsrl_vx_u8m4(v, 4, R4);
            const int8_t* const a = qa + 4 * q;
            lo = __riscv_vwmaccsu_vx_i16m2(lo, a[0], __riscv_vget_v_u8m4_u8m1(vl4, 0), R);
            hi = __riscv_vwmaccsu_vx_i16m2(hi, a[16], __riscv_vget_v_u8m4_u8m1(vh4, 0), R);
            lo = __riscv_vwmaccsu_vx_i16m2(lo, a[1], __riscv_vget_v_u8m4_u8m1(vl4, 1), R);
            hi = __riscv_vwmaccsu_vx_i16m2(hi, a[17], __riscv_vget_v_u8m4_u8m1(vh4, 1), R);
            lo = __riscv_vwmaccsu_vx_i16m2(lo, a[2], __riscv_vget_v_u8m4_u8m1(vl4, 2), R);
            hi = __riscv_vwmaccsu_vx_i16m2(hi, a[18], __riscv_vget_v_u8m4_u8m1(vh4, 2), R);
            lo = __riscv_vwmaccsu_vx_i16m2(lo, a[3], __riscv_vget_v_u8m4_u8m1(vl4, 3), R);
            hi = __riscv_vwmaccsu_vx_i16m2(hi, a[19], __riscv_vget_v_u8m4_u8m1(vh4, 3), R);
          }
          s = __riscv_vwadd_vv_i32m4(lo, hi, R);
          if constexpr (kType == VLAK_Q4_0) s = __riscv_vadd_vx_i32m4(s, -8 * ar.sum[b], R);
        }
        const float da = ar.d[b];
        auto scales = [&](const uint8_t* p) {  // R fp16 -> f32 through the table
          const vuint16m2_t h = __riscv_vle16_v_u16m2(reinterpret_cast<const uint16_t*>(p), R);
          return __riscv_vluxei32_v_f32m4(half, __riscv_vsll_vx_u32m4(__riscv_vzext_vf2_u32m4(h, R), 2, R), R);
        };
        acc = __riscv_vfmacc_vv_f32m4(acc, __riscv_vfcvt_f_x_v_f32m4(s, R), __riscv_vfmul_vf_f32m4(scales(r), da, R), R);
        if constexpr (kType == VLAK_Q4_1) {
          acc = __riscv_vfmacc_vf_f32m4(acc, da * static_cast<float>(ar.sum[b]), scales(r + 2 * R), R);
        }
      }
      __riscv_vse32_v_f32m4(g.c + i * g.ldc + j, acc, cols);
    }
  }
}

inline void GroupedColsRvv(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return GroupedCols<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return GroupedCols<VLAK_Q4_0>(g, act, j0, j1);
  GroupedCols<VLAK_Q4_1>(g, act, j0, j1);
}

inline void ActColsRvv(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return ActCols<VLAK_Q8_0>(g, act, j0, j1);
  if (g.wtype == VLAK_Q4_0) return ActCols<VLAK_Q4_0>(g, act, j0, j1);
  ActCols<VLAK_Q4_1>(g, act, j0, j1);
}


// Exact weights (m < 16): per block and row of W the 32 values are widened (vsext/vzext.vf4),
// converted and scaled in f32 registers (q4_0, q8_0: (q - off) * d, exact; q4_1: q * d + m, the
// one rounding of vlak_dequantize_f32's), then c += a * w (vfmacc) into one accumulator
// per C element (value p in lane p % 16, values 0..15 of a block before 16..31), reduced in order
// (vfredosum) at the end. 2 rows of W per pass: more spill (rvv.spill_check).
template <int kType>
void ExactCols(const QMatmulArgs& g, size_t j0, size_t j1) {
  constexpr size_t bb = QBlockBytes(kType);
  constexpr size_t vl = 16;
  const size_t nb = g.k / kQBlock;
  const float* const half = HalfTable();
  for (size_t j = j0; j < j1; j += 2) {
    const bool two = j + 1 < j1;
    const uint8_t* const w0 = g.w + j * g.w_stride;
    const uint8_t* const w1 = two ? w0 + g.w_stride : w0;
    for (size_t i = 0; i < g.m; ++i) {
      const float* const ar = g.a + i * g.lda;
      vfloat32m4_t c0 = __riscv_vfmv_v_f_f32m4(0.0f, vl), c1 = c0;
      for (size_t b = 0; b < nb; ++b) {
        // Half by half (values 0..15, then 16..31), both rows per half: A's half, one row's
        // widened half and two accumulators live at a time (more spilled: rvv.spill_check).
        for (size_t h = 0; h < 2; ++h) {
          const vfloat32m4_t av = __riscv_vle32_v_f32m4(ar + b * kQBlock + 16 * h, vl);
          auto wv = [&](const uint8_t* wr) {
            const uint8_t* blk = wr + b * bb;
            const float d = half[LoadHalf(blk)];
            if constexpr (kType == VLAK_Q8_0) {
              const vint8m1_t q = __riscv_vle8_v_i8m1(reinterpret_cast<const int8_t*>(blk + 2 + 16 * h), vl);
              return __riscv_vfmul_vf_f32m4(__riscv_vfcvt_f_x_v_f32m4(__riscv_vsext_vf4_i32m4(q, vl), vl), d, vl);
            } else {
              const vuint8m1_t q = __riscv_vle8_v_u8m1(blk + (kType == VLAK_Q4_1 ? 4 : 2), vl);
              const vuint8m1_t nib = h == 0 ? __riscv_vand_vx_u8m1(q, 0x0F, vl) : __riscv_vsrl_vx_u8m1(q, 4, vl);
              const vuint32m4_t u = __riscv_vzext_vf4_u32m4(nib, vl);
              if constexpr (kType == VLAK_Q4_0) {
                const vint32m4_t sq = __riscv_vsub_vx_i32m4(__riscv_vreinterpret_v_u32m4_i32m4(u), 8, vl);
                return __riscv_vfmul_vf_f32m4(__riscv_vfcvt_f_x_v_f32m4(sq, vl), d, vl);
              } else {
                // q * d is exact, so fl(q * d) + m rounds once, as vlak_dequantize_f32.
                const float m = half[LoadHalf(blk + 2)];
                return __riscv_vfadd_vf_f32m4(__riscv_vfmul_vf_f32m4(__riscv_vfcvt_f_xu_v_f32m4(u, vl), d, vl), m, vl);
              }
            }
          };
          c0 = __riscv_vfmacc_vv_f32m4(c0, av, wv(w0), vl);
          c1 = __riscv_vfmacc_vv_f32m4(c1, av, wv(w1), vl);
        }
      }
      const vfloat32m1_t zero = __riscv_vfmv_s_f_f32m1(0.0f, 1);
      g.c[i * g.ldc + j] = __riscv_vfmv_f_s_f32m1_f32(__riscv_vfredosum_vs_f32m4_f32m1(c0, zero, vl));
      if (two) g.c[i * g.ldc + j + 1] = __riscv_vfmv_f_s_f32m1_f32(__riscv_vfredosum_vs_f32m4_f32m1(c1, zero, vl));
    }
  }
}

inline void ExactColsRvv(const QMatmulArgs& g, size_t j0, size_t j1) {
  if (g.wtype == VLAK_Q8_0) return ExactCols<VLAK_Q8_0>(g, j0, j1);
  if (g.wtype == VLAK_Q4_0) return ExactCols<VLAK_Q4_0>(g, j0, j1);
  ExactCols<VLAK_Q4_1>(g, j0, j1);
}

}  // namespace vlak::VLAK_NS::rvv_quant
