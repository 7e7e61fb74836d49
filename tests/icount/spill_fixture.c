/*
 * Fixture for scripts/rvv-spill-check (test rvv.spill_check.fixture): proves the check can fail.
 *
 * spill_fixture_spilling keeps six LMUL=8 accumulators live across its loop. With 32 vector
 * registers there are only four m8 groups (one of them v0-v7), so the compiler must spill and
 * reload register groups (vs8r.v / vl8re32.v, slots addressed from sp and vlenb) on every
 * iteration. spill_fixture_clean is the same kind of loop at LMUL=1 with two live values.
 * Built only for rv64gcv; never linked into anything that runs.
 */
#include <riscv_vector.h>
#include <stddef.h>

#if !defined(__riscv_vector)
#error "spill_fixture.c needs the V extension (rv64gcv)"
#endif

void spill_fixture_spilling(const float *x, float *y, size_t n)
{
    size_t vl = __riscv_vsetvlmax_e32m8();
    vfloat32m8_t a0 = __riscv_vfmv_v_f_f32m8(0.0f, vl);
    vfloat32m8_t a1 = __riscv_vfmv_v_f_f32m8(1.0f, vl);
    vfloat32m8_t a2 = __riscv_vfmv_v_f_f32m8(2.0f, vl);
    vfloat32m8_t a3 = __riscv_vfmv_v_f_f32m8(3.0f, vl);
    vfloat32m8_t a4 = __riscv_vfmv_v_f_f32m8(4.0f, vl);
    vfloat32m8_t a5 = __riscv_vfmv_v_f_f32m8(5.0f, vl);
    for (size_t i = 0; i + vl <= n; i += vl) {
        vfloat32m8_t v = __riscv_vle32_v_f32m8(x + i, vl);
        /* Each update reads another accumulator, so all six old values stay live together. */
        vfloat32m8_t b0 = __riscv_vfmacc_vv_f32m8(a0, v, a1, vl);
        vfloat32m8_t b1 = __riscv_vfmacc_vv_f32m8(a1, v, a2, vl);
        vfloat32m8_t b2 = __riscv_vfmacc_vv_f32m8(a2, v, a3, vl);
        vfloat32m8_t b3 = __riscv_vfmacc_vv_f32m8(a3, v, a4, vl);
        vfloat32m8_t b4 = __riscv_vfmacc_vv_f32m8(a4, v, a5, vl);
        vfloat32m8_t b5 = __riscv_vfmacc_vv_f32m8(a5, v, a0, vl);
        a0 = b0; a1 = b1; a2 = b2; a3 = b3; a4 = b4; a5 = b5;
    }
    __riscv_vse32_v_f32m8(y + 0 * vl, a0, vl);
    __riscv_vse32_v_f32m8(y + 1 * vl, a1, vl);
    __riscv_vse32_v_f32m8(y + 2 * vl, a2, vl);
    __riscv_vse32_v_f32m8(y + 3 * vl, a3, vl);
    __riscv_vse32_v_f32m8(y + 4 * vl, a4, vl);
    __riscv_vse32_v_f32m8(y + 5 * vl, a5, vl);
}

void spill_fixture_clean(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t vl = __riscv_vsetvl_e32m1(n - i);
        vfloat32m1_t v = __riscv_vle32_v_f32m1(x + i, vl);
        __riscv_vse32_v_f32m1(y + i, __riscv_vfmul_vf_f32m1(v, 2.0f, vl), vl);
        i += vl;
    }
}
