/* vlak: vector-length-agnostic kernels for AI inference. C API.
 *
 * Every entry point that can fail returns a vlak_status (VLAK_OK = 0). Functions are thread-safe.
 * The compute target is chosen once, at first use: the best one the CPU has, or the one named by
 * the environment variable VLAK_TARGET (scalar, avx2, avx512, rvv), or by vlak_set_target(). */
#ifndef VLAK_VLAK_H_
#define VLAK_VLAK_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
/* In C++ the enums get int as their fixed underlying type: the same ABI as in C, and any int a C
 * caller passes is then a valid value that the checks can reject (not undefined behaviour). */
#define VLAK_ENUM_BASE : int
#else
#define VLAK_ENUM_BASE
#endif

typedef enum vlak_status VLAK_ENUM_BASE {
  VLAK_OK = 0,
  VLAK_ERROR_NULL_POINTER = 1,      /* a required pointer is NULL */
  VLAK_ERROR_INVALID_ARGUMENT = 2,  /* a size, stride, flag or enum value is out of range */
  VLAK_ERROR_OVERFLOW = 3,          /* sizes whose product overflows size_t */
  VLAK_ERROR_TARGET_UNAVAILABLE = 4 /* the requested target is not compiled in or the CPU lacks it */
} vlak_status;

typedef enum vlak_target VLAK_ENUM_BASE {
  VLAK_TARGET_SCALAR = 0,
  VLAK_TARGET_AVX2 = 1,   /* AVX2 + FMA */
  VLAK_TARGET_AVX512 = 2, /* AVX-512 F, BW, DQ, VL */
  VLAK_TARGET_RVV = 3     /* RISC-V Vector 1.0, any VLEN from 128 to 1024 bits */
} vlak_target;

/* Library version, "major.minor.patch". */
const char* vlak_version(void);

/* Short English text for a status. */
const char* vlak_status_string(vlak_status status);

/* "scalar", "avx2", "avx512", "rvv"; NULL for an unknown value. */
const char* vlak_target_name(vlak_target target);

/* 1 if the target's kernels are compiled into this library, else 0. */
int vlak_target_compiled(vlak_target target);

/* 1 if the target is compiled in and this CPU (and OS) can run it, else 0. */
int vlak_target_supported(vlak_target target);

/* The target kernels run on. If VLAK_TARGET named a target this CPU cannot run (or an unknown
 * name), the best supported target is returned and vlak_target_error() says why. */
vlak_target vlak_active_target(void);

/* VLAK_OK, or VLAK_ERROR_TARGET_UNAVAILABLE / VLAK_ERROR_INVALID_ARGUMENT when the VLAK_TARGET
 * environment variable could not be honoured. Kernels refuse to run (returning this status)
 * while it is not VLAK_OK, so a benchmark never measures a target it did not ask for. */
vlak_status vlak_target_error(void);

/* Forces a target; VLAK_ERROR_TARGET_UNAVAILABLE if it is not compiled in or unsupported. Clears
 * an error left by VLAK_TARGET on success. */
vlak_status vlak_set_target(vlak_target target);

/* Lanes in one register group of 2^lmul_pow2 registers (lmul_pow2 in 0..3) of elements of
 * elem_size bytes (1, 2, 4, 8) on the given target; 0 if the target is not supported or an
 * argument is out of range. On RVV this is VLMAX for SEW = 8 * elem_size, LMUL = 2^lmul_pow2. */
size_t vlak_target_lanes(vlak_target target, int lmul_pow2, size_t elem_size);

/* ---- threads ------------------------------------------------------------------------------ */

/* Threads used by kernels that split work (rows of softmax, ...). n >= 1 sets it; n == 0 returns
 * to the default, which follows OMP_NUM_THREADS (or the core count). Negative: invalid. */
vlak_status vlak_set_num_threads(int n);
/* The thread count kernels will use. */
int vlak_get_num_threads(void);

/* ---- softmax ------------------------------------------------------------------------------ */

/* Flags for vlak_softmax_f32, OR-ed together. */
#define VLAK_SOFTMAX_LOG 0x1u  /* log-softmax: y = x - max - log(sum(exp(x - max))) */
#define VLAK_SOFTMAX_SAFE 0x2u /* a row that is entirely -inf gives zeros (-inf for log) instead of NaN */
/* exp accuracy (bits 4..5): accurate is the default. */
#define VLAK_SOFTMAX_EXP_ACCURATE 0x00u /* rr2 + minimax polynomial, <= 2 ULP exp */
#define VLAK_SOFTMAX_EXP_FAST 0x10u     /* seed 000's bit trick + degree-5 correction */
#define VLAK_SOFTMAX_EXP_PRECISE 0x20u  /* <= 1 ULP exp */
#define VLAK_SOFTMAX_EXP_MASK 0x30u

/* Row-wise softmax of a rows x cols matrix: y[r][c] = exp(x[r][c] - m) / sum_c exp(x[r][c] - m),
 * m = max of the row. Strides are in elements (>= cols). x == y (same stride) is allowed;
 * other overlaps are not. Rows run in parallel on vlak_get_num_threads() threads.
 * Special values: a NaN in a row makes that row NaN; +inf entries share the row's mass equally
 * and the rest get 0; a row of only -inf is NaN, or zeros with VLAK_SOFTMAX_SAFE.
 * rows == 0 or cols == 0: nothing to do, VLAK_OK. Errors (nothing written): NULL x or y,
 * stride < cols, unknown flag bits, sizes whose extent overflows size_t. */
vlak_status vlak_softmax_f32(size_t rows, size_t cols, const float* x, size_t x_stride, float* y,
                             size_t y_stride, unsigned flags);

/* ---- exp (f32) ------------------------------------------------------------------------------
 * Six variants, cheapest first. Measured against float64 exp on every float of the domain
 * ([-87.3, 88.7]; every finite float for PRECISE); `vlak accuracy exp --exhaustive` reproduces it:
 *   SCHRAUDOLPH  max relative error 3.0e-2   the IEEE-754 bit trick with one constant correction
 *   BITTRICK_P3  max relative error 6.2e-4   seed 000: 2^floor * 2^frac, degree-3 correction
 *   BITTRICK_P5  max relative error 6.3e-6   the same with seed 000's degree-5 correction (75 ULP)
 *   CEPHES       max 4.08 ULP                Cody-Waite + the Cephes expf polynomial
 *   ACCURATE     max 1.52 ULP (<= 2)         results below about -87.3 may flush to 0
 *   PRECISE      max 0.88 ULP (<= 1)         on every float, denormal results kept
 * Every variant gives exp(-inf) = +0, exp(NaN) = NaN, +inf on overflow and +0 on underflow (the
 * denormal for PRECISE). Results are bit-identical on every target. */
typedef enum vlak_exp_variant VLAK_ENUM_BASE {
  VLAK_EXP_SCHRAUDOLPH = 0,
  VLAK_EXP_BITTRICK_P3 = 1,
  VLAK_EXP_BITTRICK_P5 = 2,
  VLAK_EXP_CEPHES = 3,
  VLAK_EXP_ACCURATE = 4,
  VLAK_EXP_PRECISE = 5
} vlak_exp_variant;

/* "schraudolph", "bittrick_p3", "bittrick_p5", "cephes", "accurate", "precise"; NULL if unknown. */
const char* vlak_exp_variant_name(vlak_exp_variant variant);

/* y[i] = exp(x[i]) for i < n. x == y is allowed (other overlaps are not). n == 0: VLAK_OK.
 * Errors (nothing written): NULL x or y with n > 0, an unknown variant, or vlak_target_error(). */
vlak_status vlak_exp_f32(size_t n, const float* x, float* y, vlak_exp_variant variant);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VLAK_VLAK_H_ */
