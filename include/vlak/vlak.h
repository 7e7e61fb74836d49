/* vlak: vector-length-agnostic kernels for AI inference. C API.
 *
 * Every entry point that can fail returns a vlak_status (VLAK_OK = 0). Functions are thread-safe.
 * The compute target is chosen once, at first use: the best one the CPU has, or the one named by
 * the environment variable VLAK_TARGET (scalar, avx2, avx512, rvv), or by vlak_set_target().
 *
 * Accuracy bounds below are float64 comparisons for float inputs. Two limits of float arithmetic
 * apply to all of them: an operation whose result is subnormal (below 1.2e-38) is exact only to
 * 2^-150, so each such operation adds up to 2^-149 absolute error to a relative bound; and a result
 * whose magnitude is beyond FLT_MAX is +-inf, as IEEE rounding gives. Where an operator's
 * intermediate values must stay finite for its bound, it says so. tests/fuzz checks every bound. */
#ifndef VLAK_VLAK_H_
#define VLAK_VLAK_H_

#include <stddef.h>
#include <stdint.h>

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
 * an error left by VLAK_TARGET on success. It may be called while other threads run kernels: each
 * call of an entry point runs on one target, the one active when its kernel was chosen (rope and
 * matmul give the same bits on every target; the others differ within their bounds). */
vlak_status vlak_set_target(vlak_target target);

/* Lanes in one register group of 2^lmul_pow2 registers (lmul_pow2 in 0..3) of elements of
 * elem_size bytes (1, 2, 4, 8) on the given target; 0 if the target is not supported or an
 * argument is out of range. On RVV this is VLMAX for SEW = 8 * elem_size, LMUL = 2^lmul_pow2. */
size_t vlak_target_lanes(vlak_target target, int lmul_pow2, size_t elem_size);

/* ---- threads ------------------------------------------------------------------------------ */

/* Threads used by kernels that split work (rows of softmax, tiles of matmul, ...). n >= 1 sets the
 * maximum (counts above 256 are taken as 256); n == 0 returns to the default: VLAK_NUM_THREADS if
 * set, else OMP_NUM_THREADS (its first value) if set, else the CPUs this process may run on: its
 * affinity mask, capped by its cgroup's CPU quota (cpu.max) rounded up. Negative: invalid.
 * How a call splits (src/parallel/parallel.h has the rules): a static cost model gives each thread
 * at least the work that pays for waking it (measured once per process: the pool's wake-up cost and
 * one core's copy rate), so the same call with the same thread count always splits the same way.
 * The calling thread works too, and takes the chunks that a late thread has not started: a call is
 * never held up by a worker the OS has not scheduled. Results never depend on the thread count
 * (layernorm backward's column sums included); vlak's own threads spin for at most 0.2 ms after a
 * call, then sleep. */
vlak_status vlak_set_num_threads(int n);
/* The thread count kernels will use: the largest a call may split over. */
int vlak_get_num_threads(void);

/* A parallel runner runs vlak's work on threads that an embedding runtime owns (a framework's
 * thread pool, OpenMP), so that vlak and the framework do not oversubscribe the cores; in the
 * spirit of XNNPACK's pthreadpool and oneDNN's threadpool interop.
 * runner(runner_ctx, task, task_ctx, n) must call task(task_ctx, i) exactly once for each i in
 * [0, n): on any threads, concurrently or one after another, in any order; and return only after
 * every call has returned. Each task call takes whatever work is left, so calls that run one after
 * another are correct, only slower. vlak calls the runner only with n >= 2; calls from several
 * threads at once may reach it concurrently. */
typedef void (*vlak_parallel_task)(void* task_ctx, size_t i);
typedef void (*vlak_parallel_runner)(void* runner_ctx, vlak_parallel_task task, void* task_ctx, size_t n);
/* Sets the runner for every later call (NULL: vlak's own thread pool, the default). Set it while
 * no vlak call runs. */
vlak_status vlak_set_parallel_runner(vlak_parallel_runner runner, void* runner_ctx);

/* ---- softmax ------------------------------------------------------------------------------ */

/* Flags for vlak_softmax_f32, OR-ed together. */
#define VLAK_SOFTMAX_LOG 0x1u  /* log-softmax: y = x - max - log(sum(exp(x - max))) */
#define VLAK_SOFTMAX_SAFE 0x2u /* a row that is entirely -inf gives zeros (-inf for log) instead of NaN */
/* exp accuracy (bits 4..5): accurate is the default. */
#define VLAK_SOFTMAX_EXP_ACCURATE 0x00u /* rr2 + minimax polynomial, <= 2 ULP exp */
#define VLAK_SOFTMAX_EXP_FAST 0x10u     /* bit-trick exp + degree-5 correction (BITTRICK_P5) */
#define VLAK_SOFTMAX_EXP_PRECISE 0x20u  /* <= 1 ULP exp */
#define VLAK_SOFTMAX_EXP_MASK 0x30u

/* Row-wise softmax of a rows x cols matrix: y[r][c] = exp(x[r][c] - m) / sum_c exp(x[r][c] - m),
 * m = max of the row. Strides are in elements (>= cols). x == y (same stride) is allowed;
 * other overlaps are not. Rows run in parallel on vlak_get_num_threads() threads.
 * Accuracy against float64 softmax, with d = |x - m|: where y64 >= 1e-30, |y - y64| <= (e + 6e-8 d) y64,
 * e = 1e-6 (ACCURATE, PRECISE) or 2e-5 (FAST); below, |y - y64| <= 1e-30. Log-softmax:
 * |y - y64| <= e' max(1, |y64|) + 6e-8 d, e' = 1e-5 (2e-5 FAST). (6e-8 d: x - m rounded to float.)
 * Special values: a NaN in a row makes that row NaN; +inf entries share the row's mass equally
 * and the rest get 0; a row of only -inf is NaN, or zeros with VLAK_SOFTMAX_SAFE.
 * rows == 0 or cols == 0: nothing to do, VLAK_OK. Errors (nothing written): NULL x or y,
 * stride < cols, unknown flag bits, sizes whose extent overflows size_t. */
vlak_status vlak_softmax_f32(size_t rows, size_t cols, const float* x, size_t x_stride, float* y,
                             size_t y_stride, unsigned flags);

/* ---- softmax, int8 / uint8 ------------------------------------------------------------------
 * Row-wise softmax of quantised logits, TFLite's convention: x[r][c] stands for input_scale * x
 * (any zero point: softmax ignores it), y for (y - zp) / 256 with zp = -128 (int8) or 0 (uint8).
 *
 * VLAK_SOFTMAX_I8_TFLITE (default) is bit-exact with TFLite's reference int8/uint8 softmax
 * (tensorflow/lite/kernels/internal/reference/softmax.h) with beta = 1, its constants derived
 * from input_scale as TFLite's Prepare does (input_multiplier and input_left_shift from
 * PreprocessSoftmaxScaling with 5 integer bits, diff_min = -CalculateInputRadius): gemmlowp's
 * Q5.26 exp, the Q12.19 sum, GetReciprocal, RoundingDivideByPOT. Where TFLite's own code leaves
 * int32 (the row's sum of exps reaches 512, so its final shift is >= 32 bits; or reaches 4096,
 * so its Q12.19 sum overflows), its fixed-point quotient is below half an output step for every
 * element and vlak gives that exact rounding: the minimum output (-128 / 0) for the whole row.
 * The CMSIS-NN test vector (arm_softmax_s8 with multiplier 1077952640, left shift 19, diff_min
 * -3968: TFLite's constants for input_scale 1/255) comes out exactly.
 * VLAK_SOFTMAX_I8_LUT: a float exp table and a per-row double reciprocal, not bit-exact with
 * TFLite but within 1 output step of the exact value: |(y - zp) - min(256 p, 255)| < 1 where p
 * is the float64 softmax of input_scale * x (so at most 1 LSB from the correctly rounded output).
 * TFLITE gives the same bits on every target and thread count; LUT the same bits for any thread
 * count on one target (its float sum is added in the target's lane order).
 *
 * input_scale must be finite and > 2^-26 (TFLite's multiplier input_scale * 2^26 must exceed 1).
 * Strides are in elements (>= cols). x == y (same stride) is allowed; other overlaps are not.
 * Rows run on vlak_get_num_threads() threads. Errors (nothing written): unknown flag bits or an
 * input_scale out of range (VLAK_ERROR_INVALID_ARGUMENT, checked first), then, unless rows or cols
 * is 0 (VLAK_OK, nothing to do), NULL x or y, stride < cols, x == y with different strides,
 * extents that overflow size_t. */
#define VLAK_SOFTMAX_I8_TFLITE 0x0u /* bit-exact with TFLite's reference (the default) */
#define VLAK_SOFTMAX_I8_LUT 0x1u    /* float tables, <= 1 LSB from the exact softmax */
vlak_status vlak_softmax_i8(size_t rows, size_t cols, const int8_t* x, size_t x_stride, float input_scale,
                            int8_t* y, size_t y_stride, unsigned flags);
vlak_status vlak_softmax_u8(size_t rows, size_t cols, const uint8_t* x, size_t x_stride, float input_scale,
                            uint8_t* y, size_t y_stride, unsigned flags);

/* ---- exp (f32) ------------------------------------------------------------------------------
 * Six variants, cheapest first. Measured against float64 exp on every float of the domain
 * ([-87.3, 88.7]; every finite float for PRECISE); `vlak accuracy exp --exhaustive` reproduces it:
 *   SCHRAUDOLPH  max relative error 3.0e-2   the IEEE-754 bit trick with one constant correction
 *   BITTRICK_P3  max relative error 6.2e-4   RISC-V hackathon softmax: 2^floor * 2^frac, degree-3 fit
 *   BITTRICK_P5  max relative error 6.3e-6   the same with the hackathon's degree-5 correction (75 ULP)
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

/* ---- activations (f32) ---------------------------------------------------------------------- */

typedef enum vlak_activation VLAK_ENUM_BASE {
  VLAK_ACT_SIGMOID = 0,   /* 1 / (1 + exp(-x)) */
  VLAK_ACT_TANH = 1,
  VLAK_ACT_GELU = 2,      /* x * Phi(x) = 0.5 x erfc(-x / sqrt(2)) */
  VLAK_ACT_GELU_TANH = 3, /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), that formula in exact arithmetic */
  VLAK_ACT_SILU = 4,      /* x * sigmoid(x) */
  VLAK_ACT_SOFTPLUS = 5   /* log(1 + exp(x)) */
} vlak_activation;

/* Accuracy tier, OR-ed into the op of vlak_activation_f32 and vlak_glu_f32 (bits 8..9; other bits
 * are rejected): VLAK_ACT_SILU | VLAK_ACT_FAST. 0, the default, is the accurate tier below.
 * In C++ the OR of an op and a tier is a vlak_activation again (operator| at the end of this file). */
#define VLAK_ACT_ACCURATE 0x000 /* <= 2 ULP (glu 3) */
#define VLAK_ACT_FAST 0x100     /* <= 4 ULP (glu 5): sigmoid, tanh, gelu, gelu_tanh, silu less compensated */
#define VLAK_ACT_TIER_MASK 0x300

/* y[i] = act(x[i]) for i < n. x == y is allowed (other overlaps are not). Large n splits into
 * blocks over vlak_get_num_threads() threads. The results are the same bits on every target of
 * an architecture (x86; RISC-V: below) and thread count, but for VLAK_ACT_FAST's sigmoid and silu
 * (below).
 * Accuracy against the float64 value y64 of the formula, over every finite float x (measured on
 * all of them, `vlak accuracy activations --exhaustive`): where |y64| >= FLT_MIN, |y - y64| <= 2
 * ULPs of the float nearest y64; below, |y - y64| <= 2^-149 (denormal results are kept, rounded
 * once). On x86, sigmoid and silu take VLAK_ACT_FAST's one-division form for x >= -16 and a
 * compensated form below, lane by lane (each result depends on its own x only). Measured maxima
 * on all 4,278,190,080 finite floats (the x86 targets give the same bits: scalar and AVX2
 * compared on all 2^32 inputs, and for sigmoid and silu AVX-512 too, where those two were
 * measured):
 *   sigmoid 1.695 ULP, tanh 1.027, gelu 1.203, gelu_tanh 1.336, silu 1.698, softplus 1.048;
 *   below FLT_MIN at most 0.892 x 2^-149.
 * RISC-V builds (RVV and scalar give the same bits) keep the compensated sigmoid and silu for
 * every x and replace the division of sigmoid, tanh, gelu_tanh, silu and softplus by FMAs, so
 * their bits differ; the same algorithm measured on all 2^32 floats (an x86 build with
 * -DVLAK_ACT_DIV_FREE=1, the same bits as RVV on samples):
 *   sigmoid 1.023 ULP, tanh 1.034, gelu_tanh 1.388, silu 1.322, softplus 1.069 (gelu as above);
 *   below FLT_MIN at most 0.899 x 2^-149.
 * Special values, bit for bit: NaN gives the same NaN. At -inf / +inf: sigmoid 0 / 1, tanh
 * -1 / 1, gelu -0 / +inf, gelu_tanh -0 / +inf, silu -0 / +inf, softplus 0 / +inf. -0 gives -0
 * for tanh, gelu, gelu_tanh and silu (x times a positive factor), 0.5 for sigmoid, log(2) for
 * softplus. Large |x| reach the limits where the exact value rounds to them.
 * VLAK_ACT_FAST: within 4 ULPs of the float nearest y64 where |y64| >= FLT_MIN, 4 x 2^-149 below,
 * over every finite float (measured on all of them, `vlak accuracy activations --fast
 * --exhaustive`), the same special values, the same bits on every x86 target and thread count
 * except sigmoid and silu on AVX-512 and AVX2, which look 2^(j/16) (AVX-512, scaled by vscalefps)
 * or 2^(j/8) (AVX2) up in a register (their own bits on each; the same for every thread count).
 * sigmoid, tanh and silu run cheaper kernels (one exp, one division, nothing compensated: on
 * x86 the default tier's sigmoid and silu from -16 up), gelu_tanh x sigmoid(2w) with silu's
 * kernel and the accurate tier's two-float 2w, gelu the accurate algorithm with fewer two-float
 * terms (the same IEEE ops on RISC-V); softplus runs the accurate kernel (its bits, RISC-V's
 * included, well within the bound).
 * Measured maxima on all 4,278,190,080 finite floats (scalar, AVX2 and AVX-512 give the same
 * bits, sigmoid and silu aside): sigmoid 3.253 ULP (AVX-512: 3.094, below FLT_MIN 1.668 x
 * 2^-149; AVX2: 2.781, 1.499 x 2^-149), tanh 2.498, gelu 3.223, gelu_tanh 2.539, silu 3.462
 * (AVX-512: 3.183, 1.606 x 2^-149; AVX2: 3.006, 1.525 x 2^-149); below FLT_MIN at most 2.139 x
 * 2^-149.
 * Errors (nothing written): an unknown op or tier bit, NULL x or y with n > 0, n * 4 bytes
 * overflowing size_t, or vlak_target_error(). n == 0: VLAK_OK (the op is checked first). */
vlak_status vlak_activation_f32(size_t n, const float* x, float* y, vlak_activation op);

/* Gated linear units: y[r][c] = act(gate[r][c]) * up[r][c] for a rows x cols matrix (SwiGLU with
 * VLAK_ACT_SILU, GeGLU with VLAK_ACT_GELU or VLAK_ACT_GELU_TANH), strides in elements. y may be
 * gate (y_stride == gate_stride) or up (y_stride == up_stride); other overlaps are not allowed.
 * act(gate) is vlak_activation_f32's value, then multiplied by up and rounded: |y - y64| <= 3
 * ULPs of the float nearest y64 = act64(gate) * up, plus |up| * 2^-149 where act(gate) is below
 * FLT_MIN (there an act(gate) that rounds to 0 times an infinite up is NaN, IEEE 0 * inf). act's
 * relative error rho shows in the product as up to rho 2^24 ULPs plus its rounding: on x86,
 * sigmoid's and silu's rho is at most 2.05 and 2.27 x 2^-24 over every float, so glu is within
 * 2.55 and 2.77 ULPs, reached with ups that put the product just under a power of 2. (RISC-V
 * keeps the compensated forms; on x86 those measured at most 1.97 ULP in glu, silu, on 2^22 gates
 * over every binade and over [-30, 30] times ups over 2^+-30.)
 * Rows and blocks of long rows run on threads; the results are the same bits on every target of
 * an architecture (as vlak_activation_f32's) and thread count.
 * VLAK_ACT_FAST: act(gate) is vlak_activation_f32's fast value, but for sigmoid and silu a
 * variant with a more accurate exp (relative error at most 2.96 x 2^-24, measured on every float
 * from -104 to 40), so |y - y64| <= 5 ULPs (plus |up| * 4 x 2^-149 below FLT_MIN).
 * Errors (nothing written): an unknown op or tier bit, NULL pointer, a stride < cols, y equal to gate or up
 * with another stride, sizes whose extent overflows size_t, vlak_target_error(). rows == 0 or
 * cols == 0: VLAK_OK (pointers not checked). */
vlak_status vlak_glu_f32(size_t rows, size_t cols, const float* gate, size_t gate_stride, const float* up,
                         size_t up_stride, float* y, size_t y_stride, vlak_activation op);

/* ---- transformer operators (as in Terapines AI-Benchmark) -------------------------------------
 * Row-major, strides in elements. Errors as softmax: a status and nothing written. Sizes of 0:
 * nothing to do, VLAK_OK (pointers are not checked then). Results do not depend on the thread
 * count, except vlak_layernorm_backward_f32's dgamma/dbeta (the same bits for the same count).
 * vlak_rope_f32 and vlak_matmul_f32 give the same bits on every target; the others sum in an order
 * that follows the target's vector length and are bounded against float64 as each states. */

/* Pairing of vlak_rope_f32. */
#define VLAK_ROPE_HALVES 0x0u      /* (i, i + d/2): AI-Benchmark, GPT-NeoX, Hugging Face Llama */
#define VLAK_ROPE_INTERLEAVED 0x1u /* (2i, 2i + 1): GPT-J, Meta's Llama */

/* Rotary position embedding. x and y are [positions][rows_per_position][head_dim], dense
 * (rows_per_position = batch x heads); cos and sin are [positions][table_stride], entries
 * 0 .. head_dim/2 - 1 used. With VLAK_ROPE_HALVES, for i < d/2 (d = head_dim):
 *   y[i]       = x[i] * cos[i] - x[i + d/2] * sin[i]
 *   y[i + d/2] = x[i] * sin[i] + x[i + d/2] * cos[i]
 * VLAK_ROPE_INTERLEAVED rotates the pairs (2i, 2i + 1) by cos[i], sin[i] the same way.
 * Each output is one product and one fused multiply-add, y_a = fma(-x_b, sin, x_a * cos) and
 * y_b = fma(x_b, cos, x_a * sin), so each output is within 2^-23 times the sum of its two
 * products' magnitudes of float64 (|y_a - y_a64| <= 2^-23 * (|x_a * cos| + |x_b * sin|)),
 * bit-identical on every target; NaN and inf
 * propagate as IEEE arithmetic does. x == y is allowed; other overlaps are not.
 * The tables' extent is (positions - 1) * table_stride + head_dim / 2 entries.
 * Errors: NULL pointer, head_dim odd, table_stride < head_dim / 2, unknown flags, overflow. */
vlak_status vlak_rope_f32(size_t positions, size_t rows_per_position, size_t head_dim, const float* x,
                          const float* cos, const float* sin, size_t table_stride, float* y, unsigned flags);

/* Fills the RoPE tables: cos[p][i] = cos(p * base^(-2i/d)), sin[p][i] = sin(...), i < head_dim/2,
 * the angle and its cos/sin computed in float64 and rounded once to float (base 10000 in most
 * models). Errors: NULL pointer, head_dim odd, table_stride < head_dim / 2, base not finite and > 0. */
vlak_status vlak_rope_tables_f32(size_t positions, size_t head_dim, double base, float* cos, float* sin,
                                 size_t table_stride);

/* Layer normalisation of each row of a rows x cols matrix (biased variance):
 *   mean = sum(x) / cols, var = sum((x - mean)^2) / cols, rstd = 1 / sqrt(var + eps),
 *   y = (x - mean) * rstd * gamma + beta.
 * gamma and beta (cols entries) may be NULL: 1 and 0. mean and rstd (rows entries) may be NULL: not
 * stored. x == y with x_stride == y_stride is allowed. Accuracy against float64:
 * |y - y64| <= 1e-5 * (|gamma| * (1 + |xhat64|) + |beta|), |mean - mean64| <= 1e-6 * (|mean64| + sd64),
 * rstd within 1e-6 relative, also for rows with a large common offset (the variance is computed about
 * a shift, never as E[x^2] - E[x]^2). The bounds need var + eps >= 1.2e-38 (FLT_MIN; below, the
 * squares underflow in float and rstd may be +inf) and x - mean finite in float. Special values: a NaN or inf in a row makes that row's y, mean and rstd NaN;
 * a constant row with eps = 0 has var = 0, rstd = +inf and y = 0 * inf = NaN (as PyTorch).
 * Errors: NULL x or y, stride < cols, eps negative or NaN, overflow. */
vlak_status vlak_layernorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma,
                               const float* beta, float eps, float* y, size_t y_stride, float* mean,
                               float* rstd);

/* Gradient of vlak_layernorm_f32 given dy, x and the forward's mean and rstd (all rows share
 * `stride`, for dy, x and dx): with xhat = (x - mean) * rstd and g = dy * gamma,
 *   dx = rstd * (g - mean_c(g) - xhat * mean_c(g * xhat)),
 *   dgamma[c] = sum_r dy * xhat, dbeta[c] = sum_r dy.
 * gamma may be NULL (1); dgamma and dbeta may be NULL (not computed). dx == dy or dx == x is
 * allowed. Rows run on threads; dgamma/dbeta are sums of partials over blocks of rows fixed by
 * the shape (at least 32 rows, at most 32 blocks), added in block order: the same bits for every
 * thread count (no atomics). Accuracy: dx within 1e-5 times
 * its row's largest term, max rstd * (|g| + |mean_c(g)| + |xhat * mean_c(g * xhat)|) (dx is a
 * difference of these and can cancel to 0), dgamma/dbeta within 1e-5 * sum_r |term64| of their
 * column, dgamma plus 2^-150 * sum_r |dy| (xhat below FLT_MIN is a float subnormal, exact only
 * to 2^-150, and dy scales that: rows of subnormal x with dy ~ 2^37 gave 1.75e-5 relative);
 * while x - mean, g and the row sums of |g| and |g * xhat| and the terms above are finite in
 * float. The bounds are for the mean and rstd vlak_layernorm_f32 gives for the same x: other
 * values are accepted and computed, but without a bound (xhat is formed from x * rstd and
 * mean * rstd, which cancel when the mean is far from the data; tests/fuzz found 3e-4 relative).
 * Errors: NULL dy, x, mean, rstd or dx; stride < cols; overflow (also when the column sums'
 * scratch, 16 bytes per column and block and 8 per column and thread (plus up to 8 KiB and 64
 * bytes a thread on x86), cannot be allocated). */
vlak_status vlak_layernorm_backward_f32(size_t rows, size_t cols, const float* dy, const float* x, size_t stride,
                                        const float* gamma, const float* mean, const float* rstd, float* dx,
                                        float* dgamma, float* dbeta);

/* RMS normalisation (Llama): y = x / sqrt(sum(x^2) / cols + eps) * gamma, gamma (cols entries) may
 * be NULL (1). x == y with equal strides allowed. |y - y64| <= 1e-5 * |gamma| * (1 + |xhat64|) for
 * sum(x^2) / cols + eps >= 1.2e-38 (FLT_MIN; below, the squares underflow in float).
 * A NaN or inf in a row makes the row NaN (inf / inf); a zero row with eps = 0 gives NaN (0 * inf).
 * Errors: NULL x or y, stride < cols, eps negative or NaN, overflow. */
vlak_status vlak_rmsnorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* gamma,
                             float eps, float* y, size_t y_stride);

/* Residual add + normalisation, in one pass over memory (onnxruntime's SkipLayerNormalization,
 * llama.cpp's fused add + norm): per row, s = x + r rounded to float, then
 *   vlak_add_layernorm_f32: y = vlak_layernorm_f32(s) (biased variance, gamma/beta as there),
 *   vlak_add_rmsnorm_f32:   y = vlak_rmsnorm_f32(s),
 * and sum (when not NULL) receives s: the residual stream of a pre-norm model. y is the same bits
 * as vlak_layernorm_f32 / vlak_rmsnorm_f32 called on that s on the same target (and so has their
 * accuracy bounds and special values, with x + r in place of x; inf + -inf is NaN). Rows run on
 * threads; the bits do not depend on the thread count. y and sum may each be x or r (in place),
 * with the same stride; y and sum must not be the same buffer. gamma, beta may be NULL (1, 0).
 * Errors: NULL x, r or y; a stride < cols; y == sum; an in-place buffer with another stride; eps
 * negative or NaN; overflow. Nothing is written on an error. */
vlak_status vlak_add_layernorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r,
                                   size_t r_stride, const float* gamma, const float* beta, float eps, float* y,
                                   size_t y_stride, float* sum, size_t sum_stride);
vlak_status vlak_add_rmsnorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride, const float* r,
                                 size_t r_stride, const float* gamma, float eps, float* y, size_t y_stride,
                                 float* sum, size_t sum_stride);

/* Flags for vlak_matmul_f32. */
#define VLAK_MATMUL_TRANS_B 0x1u    /* b is n x k (row stride ldb): C = A * B^T, attention's Q K^T */
#define VLAK_MATMUL_ACCUMULATE 0x2u /* C += A * B instead of C = A * B */

/* C = A * B for row-major A (m x k, row stride lda), B (k x n, ldb; n x k with TRANS_B) and
 * C (m x n, ldc). Cache-blocked, packed, register-tiled; threads over tiles of C, and over k
 * for skinny calls. Few rows (m <= 16; not on RVV) read B in place, unpacked (with TRANS_B
 * through a transposed strip on the stack), threads over columns; on AVX-512 so do calls of
 * more rows with B (k x n) in cache and A or B small or the rows per thread few, threads over
 * rows.
 * Each C element is one chain in sequential k order: c = a[i][0] * b[0][j], then
 * c = fma(a[i][p], b[p][j], c) for p = 1 .. k-1 (with ACCUMULATE the chain starts from the old C:
 * c = fma(a[i][p], b[p][j], c) for every p). Skinny calls, m * n <= 4096 and k >= 4096, cut k
 * into segments of 1024 * ceil(k / 65536) (the last shorter): one such chain per segment, from
 * its first product, and the segment sums added in order, c = ((c_old +) s_0 + s_1) + ... The
 * order depends on m, n and k only, never on the blocking, so the
 * result is the same bits on every target, VLEN and thread count (NaN payloads aside), and
 * |C - C64| <= 2 * k * 2^-24 * sum_k |A| * |B| (the standard bound; with ACCUMULATE k + 1 terms
 * and |C_old| added to the sum) while that sum is below FLT_MAX (a partial sum beyond it is inf). k == 0 sets C to 0 (or leaves it with ACCUMULATE). NaN and inf
 * propagate as IEEE. C must not overlap A or B. Memory: the few-rows kernel packs nothing (a
 * strip on the stack); otherwise one thread packs B in 1 MiB blocks, several threads pack all of B
 * once (k x n floats, n rounded up to the tile) and share it; a skinny call keeps its segment
 * sums (at most 64 x m x n floats) and 1 MiB per thread. The buffers are kept between calls in a
 * process-wide pool.
 * With k == 0, A and B have no elements: a and b may be NULL, and no stride of theirs overflows.
 * Errors: NULL pointer, lda < k, ldb < n (< k with TRANS_B), ldc < n, unknown flags, overflow
 * (VLAK_ERROR_OVERFLOW also if a buffer above cannot be allocated; nothing is written). */
vlak_status vlak_matmul_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                            float* c, size_t ldc, unsigned flags);

/* The epilogue of vlak_matmul_ex_f32: what happens to each element of C once its product is
 * complete, while its tile is still in registers or L1 (oneDNN's post-ops, MLAS's GEMM
 * activations). A Linear layer y = act(x W^T + b), with W stored [out][in], is one call:
 * m = tokens, n = out, k = in, b = W with VLAK_MATMUL_TRANS_B, epilogue {b, ACTIVATION, act}. */
#define VLAK_EPILOGUE_ACTIVATION 0x1u /* apply `activation` after the bias */

typedef struct vlak_matmul_epilogue {
  const float* bias;          /* NULL, or n floats: C[i][j] = P[i][j] + bias[j], rounded once */
  unsigned flags;             /* VLAK_EPILOGUE_* */
  vlak_activation activation; /* with VLAK_EPILOGUE_ACTIVATION: an op of vlak_activation_f32, its tier OR-ed in */
} vlak_matmul_epilogue;

/* vlak_matmul_f32 with an epilogue: C[i][j] = act(P[i][j] + bias[j]), where P is the value
 * vlak_matmul_f32 computes with the same flags (ACCUMULATE included: P = C_old + A * B), bit for
 * bit. The bias is added in float (one rounding) and act is vlak_activation_f32's function of the
 * tier asked: C is the same bits as vlak_matmul_f32, then C[i][j] += bias[j], then
 * vlak_activation_f32 over C, on the same target. So the bits are the same for every thread
 * count and, like vlak_activation_f32's, on every target of an architecture; without an
 * activation, on every target. epilogue == NULL, or no bias and no flag: vlak_matmul_f32.
 * Accuracy against x64 = P64 + bias (P64 = the exact product; C64 = act64(x64)): with E the
 * matmul bound (vlak_matmul_f32's) and x = fl(P + bias),
 *   |x - x64| <= E + 2^-24 |x|                                       (no activation: C = x);
 *   |C - C64| <= act's bound at x (vlak_activation_f32's, 2 ULPs, fast tier 4) + L |x - x64|,
 * L the largest slope of act: sigmoid 1/4, tanh 1, gelu 1.13, gelu_tanh 1.13, silu 1.10, softplus 1.
 * Special values: those of vlak_matmul_f32, then IEEE addition, then vlak_activation_f32's.
 * k == 0: C = act(0 + bias) (with ACCUMULATE act(C_old + bias)).
 * Errors (nothing written): vlak_matmul_f32's, unknown epilogue flags, an activation that
 * vlak_activation_f32 rejects (with VLAK_EPILOGUE_ACTIVATION). bias must not overlap C. */
vlak_status vlak_matmul_ex_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                               float* c, size_t ldc, unsigned flags, const vlak_matmul_epilogue* epilogue);

/* B packed once for many products (a model's weights: oneDNN's and MLAS's prepacked B, XNNPACK's
 * packed weights). vlak_matmul_pack_b_f32 packs B (k x n, or n x k with VLAK_MATMUL_TRANS_B, a
 * Linear layer's [out][in]) into `packed` in the active target's panel layout; then
 * vlak_matmul_packed_f32 computes C = act(A * B + bias) as vlak_matmul_ex_f32 would with that B,
 * bit for bit (the same chains, the same epilogue), on vlak_get_num_threads() threads, without
 * reading or packing B again. packed_bytes must be at least vlak_matmul_packed_size_f32(k, n),
 * which depends on the active target (its tile width): a buffer packed for one target is refused
 * by another (VLAK_ERROR_INVALID_ARGUMENT; pack again after vlak_set_target). The buffer is plain
 * memory: any alignment of 4 bytes, copyable, usable from several threads at once. Cost: one
 * pass over B (k n floats read, k n_pad written).
 * Errors (nothing written): NULL pointers (b with k n > 0), ldb smaller than a row, unknown
 * flags (pack: TRANS_B only; packed: ACCUMULATE only), packed_bytes too small or a buffer not
 * made by vlak_matmul_pack_b_f32 on this target for this k and n, overflow, and
 * vlak_matmul_ex_f32's epilogue errors. vlak_matmul_packed_size_f32: 0 when the size overflows. */
size_t vlak_matmul_packed_size_f32(size_t k, size_t n);
vlak_status vlak_matmul_pack_b_f32(size_t k, size_t n, const float* b, size_t ldb, unsigned flags, void* packed,
                                   size_t packed_bytes);
vlak_status vlak_matmul_packed_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed,
                                   float* c, size_t ldc, unsigned flags, const vlak_matmul_epilogue* epilogue);

/* ---- attention --------------------------------------------------------------------------- */

/* Flags of vlak_attention_params. */
#define VLAK_ATTENTION_CAUSAL 0x1u          /* query i sees keys j <= i + kv_len - q_len (bottom-right: a KV-cache step) */
#define VLAK_ATTENTION_CAUSAL_TOP_LEFT 0x2u /* query i sees keys j <= i (PyTorch's is_causal when q_len != kv_len) */

typedef struct vlak_attention_params {
  size_t batch, q_heads, kv_heads; /* kv_heads divides q_heads: query head h reads kv head h / (q_heads / kv_heads) */
  size_t q_len, kv_len, head_dim, value_dim;
  /* Strides in elements; the last dimension is contiguous. Element (b, h, i, d) of q is
   * q[b * q_strides[0] + h * q_strides[1] + i * q_strides[2] + d]; k and v likewise with kv heads,
   * o with q heads and value_dim. BNSH, BSNH and a KV cache larger than kv_len are all strides. */
  size_t q_strides[3], k_strides[3], v_strides[3], o_strides[3];
  float scale;    /* logits = scale * (q . k); 0 means 1 / sqrt(head_dim) */
  unsigned flags; /* VLAK_ATTENTION_* */
  size_t window;  /* with a causal flag and window > 0, key j is also masked when j < i' - window + 1 (i' the query's causal limit) */
  const float* bias; /* NULL, or added to the scaled logits: bias[b*bs[0] + h*bs[1] + i*bs[2] + j]; stride 0 broadcasts; -inf masks */
  size_t bias_strides[3];
  float* lse; /* NULL, or [batch][q_heads][q_len] dense: log of the row's sum of exp(logits), natural log; -inf for a fully masked row */
  /* NULL, or [batch] key counts, each <= kv_len: batch row b sees only keys j < kv_lens[b] (a padded
   * batch's key-padding mask, or KV caches of different lengths), and with a causal flag its limits
   * take kv_lens[b] for kv_len. Keys beyond are never read into a row nor computed. */
  const size_t* kv_lens;
} vlak_attention_params;

/* Fused scaled-dot-product attention (FlashAttention's online softmax over blocks of keys; no
 * logits matrix in memory):
 *   logits[b,h,i,j] = scale * sum_d q[b,h,i,d] k[b,kv(h),j,d] (+ bias[b,h,i,j]) for the keys j the
 *   row sees (the causal flag and window; every key without a flag), kv(h) = h / (q_heads / kv_heads);
 *   o[b,h,i,:] = sum_j softmax_j(logits[b,h,i,:]) v[b,kv(h),j,:];  lse[b,h,i] = log sum_j exp(logits).
 * A row that sees no key, or whose logits are all -inf (bias), gives o = 0 and lse = -inf.
 * Accuracy against float64 (u = 2^-24, D = head_dim, M = the row's max over the keys it sees of
 * |scale| * sum_d |q_d k_jd| + |bias_j| (a -inf bias counts 0): a logit of that size carries its
 * rounding into every weight): |o - o64| <= (1e-5 + 2 (D + 2) u M + 2 kv_len u) * sum_j p64_j |v_jd|
 * + 2^-126 sum_j |v_jd| (the second term: weights below 2^-126 of the row's largest may be 0,
 * the exp's underflow; it matters only for |v| near 1e30), and |lse - lse64| <= 1e-5 (1 + |lse64|) +
 * 2 (D + 2) u M; sums over the keys the row sees. (D + 2) u M bounds a logit's error (D FMAs, the
 * scale, the bias); o's bound holds while that is at most 2^-10 (M below about 16384 / (D + 2)); beyond,
 * o is still a convex combination of the row's v, within 1e-5 max_j |v_jd|. All of this while the
 * float intermediates stay finite: the unscaled sums sum_d |q_d k_jd|, the biases and sum_j |v_jd|
 * below FLT_MAX / 4 (a logit that overflows to -inf masks its key).
 * The result depends on the target (and VLEN), never on the thread count.
 * Special values: a NaN in q, in bias, or in k at a key the row sees makes the row NaN (o and
 * lse); a NaN in v at such a key makes that element of o NaN, an inf gives inf or NaN (also at a
 * key of weight 0, a -inf bias or an exp that underflows: 0 * inf is NaN); keys the row does not
 * see (causal, window) are never read into it. A +inf logit gives NaN (inf - inf). Threads over
 * (batch, kv head, block of query rows); the query heads that share a kv head run together
 * (grouped-query and multi-query attention read each key block once). With one block of query
 * rows per kv head (at most 96 rows: decode) and more than 256 keys, the keys are split into
 * blocks of 256 that threads share, merged by log-sum-exp in a fixed order (split-KV): the split
 * depends on the shape, not on the thread count.
 * Sizes: batch, q_heads or q_len 0: nothing to do, VLAK_OK (the arguments are still checked,
 * except the pointers). kv_len 0: every row sees no key (o = 0, lse = -inf; k and v may be NULL).
 * value_dim 0: o has no elements (lse is still written). head_dim 0 is an error.
 * o must not overlap q, k, v, bias or lse, nor itself (its strides must nest: sorted by size, each
 * of the dimensions longer than 1 at least the extent of the ones below it); lse likewise. The
 * inputs may overlap each other and themselves (stride 0 broadcasts).
 * Key padding: kv_lens (above) masks a batch row's padded keys without computing them, where a
 * bias of 0 / -inf per key (bias_strides {kv_len, 0, 0}) gives the same o and lse within the bound
 * above but computes every key's logit.
 * Errors (nothing written): NULL p, q, k, v or o (VLAK_ERROR_NULL_POINTER); kv_heads 0 or not
 * dividing q_heads, head_dim 0, unknown flags or both causal flags, window > 0 without a causal
 * flag, scale NaN or inf, a kv_lens entry > kv_len, o or lse overlapping (INVALID_ARGUMENT); an extent whose last element
 * lies beyond SIZE_MAX bytes, or batch * q_heads * q_len beyond SIZE_MAX (VLAK_ERROR_OVERFLOW, also when the scratch cannot be allocated: per
 * thread at most (head_dim + 96) * BC + 96 * value_dim floats, BC = 256 keys (VLEN / 8 on RVV above
 * VLEN 2048), plus, with more than 96 query rows per kv head, the packed keys and values,
 * (head_dim + value_dim) * kv_len floats when that is at most 4M; and per call, with split-KV,
 * value_dim + 3 floats per query row and split, at most 16M). */
vlak_status vlak_attention_f32(const vlak_attention_params* p, const float* q, const float* k, const float* v,
                               float* o);

/* ---- Image operators (as in Terapines AI-Benchmark, INT8) -------------------------------------
 * Planar images, [channels][height][width], dense (row stride = width). Fixed-point arithmetic
 * stated exactly: the same bits on every target, VLEN and thread count. Errors: a status and
 * nothing written. */

/* Coordinate mapping of vlak_resize_bilinear_i8 / _u8. */
#define VLAK_RESIZE_ASYMMETRIC 0x0u /* src = dst * in / out: AI-Benchmark, TensorFlow's legacy mode */
#define VLAK_RESIZE_HALF_PIXEL 0x1u /* src = (dst + 0.5) * in / out - 0.5, clamped at 0: OpenCV
                                       INTER_LINEAR, PyTorch align_corners=False */

/* Bilinear resize of each channel plane from in_h x in_w to out_h x out_w, in fixed point with 7
 * fractional bits (Q7), exactly (integer arithmetic, >> is a flooring shift of a signed value):
 *   column position px = floor(ox * in_w * 128 / out_w)                       (ASYMMETRIC)
 *                   px = max(0, floor((2 ox + 1) * in_w * 64 / out_w) - 64)   (HALF_PIXEL)
 *   x0 = px >> 7, x1 = min(x0 + 1, in_w - 1), wx1 = px & 127, wx0 = 128 - wx1,
 *   and the same for rows: py, y0, y1, wy0, wy1 from oy, in_h, out_h;
 *   top = (s[y0][x0] * wx0 + s[y0][x1] * wx1) >> 7,  bot = (s[y1][x0] * wx0 + s[y1][x1] * wx1) >> 7,
 *   out[oy][ox] = (top * wy0 + bot * wy1) >> 7.
 * Each step lies between its two inputs, so nothing saturates. For out = 2 * in with ASYMMETRIC this
 * is AI-Benchmark's resize (positions dst << 6: even outputs copy, odd ones are floored means); in =
 * out copies. Accuracy against the exact real-valued bilinear value at px / 128, py / 128: below
 * 2 LSB (two floorings), and the Q7 position itself is floored (OpenCV and XNNPACK use 11 bits).
 * src and dst must not overlap. channels, out_h or out_w == 0: nothing to do, VLAK_OK (only the
 * flags are checked then).
 * Errors: unknown flags; in_h or in_w == 0 (INVALID_ARGUMENT); NULL src or dst; in_w or in_h >=
 * 2^31, or channels * in_h * in_w, channels * out_h * out_w, in_w * out_w * 128 or in_h * out_h *
 * 128 overflowing size_t (OVERFLOW, also when the 2 * out_w + 4 * in_w bytes of row scratch per
 * thread cannot be allocated). */
vlak_status vlak_resize_bilinear_i8(size_t channels, size_t in_h, size_t in_w, const int8_t* src, size_t out_h,
                                    size_t out_w, int8_t* dst, unsigned flags);
vlak_status vlak_resize_bilinear_u8(size_t channels, size_t in_h, size_t in_w, const uint8_t* src, size_t out_h,
                                    size_t out_w, uint8_t* dst, unsigned flags);

/* Horizontal warp: src and dst are [channels][height][width]; offsets is [height][width] in 8.8
 * fixed point, shared by all channels. For each pixel (c, h, w), with o = offsets[h][w]:
 *   n = o >> 8 (arithmetic, -128 .. 127), f = (int8_t)(o & 0xFF) (the low byte as a SIGNED int8,
 *   AI-Benchmark's arithmetic: -128 .. 127), r = w - n, l = r - 1,
 *   R = src[c][h][r], L = src[c][h][l], each 0 when its column is outside [0, width),
 *   dst[c][h][w] = (int8_t)((R * 256 + (L - R) * f) >> 8): bits 8 .. 15 of the sum, i.e.
 *   AI-Benchmark's int16 arithmetic with wrap-around (the sum is exact in 32 bits, the low 16 kept).
 * Difference from AI-Benchmark: its C computes r and l in int8 (r = (int8_t)(w - n)), so its taps
 * reach only columns 0 .. 127 and wrapped indices read as 0; vlak uses full-width indices (any
 * width). The two agree bit for bit at width 128 (tested against AI-Benchmark's own C); at
 * narrower widths wherever r < width (AI-Benchmark's C reads past its row for r >= width); at
 * wider widths they differ wherever w - n leaves -128 .. 127.
 * channels, height or width == 0: nothing to do, VLAK_OK (pointers not checked). dst must not
 * overlap src or offsets.
 * Errors: NULL pointer, overflow of channels * height * width. */
vlak_status vlak_warp_i8(size_t channels, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                         int8_t* dst);

/* Flag of vlak_correlation_i8. */
#define VLAK_CORRELATION_WRAP16 0x1u /* AI-Benchmark's arithmetic: int16 sums, truncated output */

/* Optical-flow correlation: a and b are [channels][height][width], out is
 * [displacements][height][width]. For each d < displacements, i < height, j < width:
 *   out[d][i][j] = sat8((sum_k a[k][i][j] * b[k][i][j - d]) >> shift)   for j >= d,
 *   out[d][i][j] = 0                                                     for j <  d
 * (AI-Benchmark leaves j < d unwritten; vlak defines them; displacements >= width give whole
 * planes of zeros). The sum is taken in int32 (exact unless channels > 131072: then modulo 2^32), the shift
 * is arithmetic (floor), sat8 clamps to -128 .. 127.
 * VLAK_CORRELATION_WRAP16: AI-Benchmark's arithmetic exactly: the sum modulo 2^16 as int16, shifted
 * arithmetically, truncated to int8: out = (int8_t)((int16_t)sum >> shift) (the int32 sum
 * truncated to 16 bits is the same value, so any order of accumulation gives these bytes).
 * channels == 0 gives sums of 0, so out is all zeros (a and b are then not read and may be NULL).
 * displacements, height or width == 0: nothing to do, VLAK_OK (pointers not checked; shift and
 * flags are). out must not overlap a or b.
 * Errors: NULL pointer, shift > 31, unknown flags, overflow of channels (or displacements) *
 * height * width. */
vlak_status vlak_correlation_i8(size_t displacements, size_t channels, size_t height, size_t width, const int8_t* a,
                                const int8_t* b, unsigned shift, int8_t* out, unsigned flags);

/* ---- quantized weights (GGUF's q8_0, q4_0, q4_1 blocks) ---------------------------------------
 * A row of k values (k a multiple of 32) is k / 32 blocks of 32, stored as GGUF stores them (ggml's
 * ggml-common.h), little-endian, no padding, no alignment required:
 *   VLAK_Q8_0: fp16 d, then int8 q[32]                                   34 bytes; x = q * d
 *   VLAK_Q4_0: fp16 d, then 16 bytes: element j < 16 is the low nibble of byte j, element 16 + j
 *              its high nibble                                           18 bytes; x = (q - 8) * d
 *   VLAK_Q4_1: fp16 d, fp16 m, then the nibbles as q4_0                  20 bytes; x = q * d + m
 * fp16 is IEEE binary16. The enum values are GGUF's ggml_type ids, so a GGUF reader passes a
 * tensor's type through. A row of W starts every stride bytes (>= the row's bytes). */
typedef enum vlak_qtype VLAK_ENUM_BASE { VLAK_Q4_0 = 2, VLAK_Q4_1 = 3, VLAK_Q8_0 = 8 } vlak_qtype;

/* Bytes of one row of k values of type t: k / 32 * (34, 18 or 20); 0 when t is unknown, k is not
 * a multiple of 32, or the size overflows size_t. */
size_t vlak_qtype_row_bytes(vlak_qtype t, size_t k);

/* Quantizes rows x k floats (row stride x_stride floats) into rows of blocks of type t (row stride
 * q_stride_bytes), with ggml's rounding: the bytes equal those of ggml's quantize_row_*_ref. Per block
 * (all float arithmetic in binary32, fp16() rounding to nearest even, overflow to inf):
 *   q8_0: d = max|x| / 127, id = d ? 1/d : 0, stored fp16(d), q = roundf(x * id) (ties away from 0);
 *   q4_0: v = the x of largest |x| (the first such), d = v / -8, id = d ? 1/d : 0, stored fp16(d),
 *         q = min(15, trunc(x * id + 8.5));
 *   q4_1: d = (max - min) / 15, id = d ? 1/d : 0, stored fp16(d) and fp16(min),
 *         q = min(15, trunc((x - min) * id + 0.5)).
 * id is the reciprocal of the binary32 d, not of the fp16 one, as ggml does. When id overflows
 * (d below 2^-128: a block of magnitudes below 3.7e-37) or (x - min) * id is not finite, the value
 * to be truncated is not finite and q is 0 (what x86 builds of ggml store); the stored fp16 d is 0
 * there, so the block dequantizes to 0 (q8_0, q4_0) or m (q4_1) all the same. A block whose scale
 * overflows fp16 (d > 65504: max|x| > 8.3e6 for q8_0) stores d = inf, as ggml does.
 * The same bytes on every target and for every thread count (rows over threads).
 * rows == 0 or k == 0: nothing to do (VLAK_OK, pointers not checked).
 * Errors (nothing written): NULL x or q (VLAK_ERROR_NULL_POINTER); unknown t, k not a multiple of
 * 32, x_stride < k, q_stride_bytes < vlak_qtype_row_bytes(t, k), a NaN or inf in x
 * (VLAK_ERROR_INVALID_ARGUMENT); extents beyond SIZE_MAX bytes (VLAK_ERROR_OVERFLOW). q must not
 * overlap x. */
vlak_status vlak_quantize_f32(vlak_qtype t, size_t rows, size_t k, const float* x, size_t x_stride, void* q,
                              size_t q_stride_bytes);

/* y = the values of rows x k blocks of type t (row stride q_stride_bytes) as floats (row stride
 * y_stride): the floats of ggml's dequantize_row_*: q8_0 q * d and q4_0 (q - 8) * d (both exact:
 * an 8-bit integer times an fp16), q4_1 fl(q * d) + m rounded once more (two roundings: a build of
 * ggml that contracts it into an fma may differ by one rounding). IEEE arithmetic: a scale of inf
 * gives +-inf, or NaN for q * d with q * d's integer 0; a NaN scale gives NaN. The same bits on
 * every target and for every thread count.
 * rows == 0 or k == 0: nothing to do (VLAK_OK). Errors (nothing written): NULL q or y; unknown t,
 * k not a multiple of 32, q_stride_bytes < the row's bytes, y_stride < k; overflow. */
vlak_status vlak_dequantize_f32(vlak_qtype t, size_t rows, size_t k, const void* q, size_t q_stride_bytes, float* y,
                                size_t y_stride);

/* Flag of vlak_matmul_q_f32. */
#define VLAK_MATMUL_Q_QUANTIZE_A 0x1u /* quantized activations: ggml's integer arithmetic (below) */

/* C = A * W^T: A is m x k floats (row stride lda), W is n rows of k values of type wtype (row stride
 * w_stride_bytes: a GGUF tensor of shape [k, n] as stored), C is m x n (row stride ldc). k is a
 * multiple of 32. Let w be W dequantized (vlak_dequantize_f32's floats).
 * Default, exact weights: C = A * w^T in float arithmetic, each element one sum in an order fixed by
 * m, n, k and the target, |C - C64| <= 2k * 2^-24 * sum_p |a_p| |w_p| against the float64 product of
 * the same w. Decode shapes (m < 16) dequantize each block in registers (x86, RVV; the scalar
 * target through a small L1 buffer) and never store w; from m = 16 on, panels of w are dequantized
 * into a buffer and multiplied by vlak_matmul_f32's kernel.
 * It is the default because its result is the product of the weights the file holds, to float
 * rounding, whatever the activations: the quantized mode adds an error of up to half an int8 step
 * of each block's largest activation, times |w|, which no later layer can undo. Both read W once;
 * the quantized mode's integer kernels are faster (about 2x at decode on x86: docs/ops/quant.md),
 * so a caller who accepts ggml's arithmetic asks for it.
 * VLAK_MATMUL_Q_QUANTIZE_A, ggml's arithmetic (its vec_dot_q*_q8_0 / q4_1_q8_1): each row of A is
 * quantized per block of 32 as vlak_quantize_f32 does for q8_0 (d_a = fp16(max|a| / 127), aq = q_a *
 * d_a; a block holding a NaN or inf gives d_a = NaN), then per block b the integer sum
 * s_b = sum q_w q_a is exact and C = sum_b d_w d_a s_b (+ m_w d_a sum q_a for q4_1, its sum of q_a
 * kept exact where ggml's q8_1 rounds d_a sum q_a to fp16), in float, in an order fixed by m, n, k
 * and the target. With S = sum_p (|q_p d_w| + |m_w|) |aq_p| (q4_0: q_p - 8 for q_p; q8_0, q4_0: m = 0):
 *   |C - C64| <= sum_p |w_p| * delta_p + 2k * 2^-24 * S,
 *   delta_p = |a_p - aq_p| <= d/2 + 127 |d - fp16(d)| + 2^-16 d,  d = max|a| / 127 of a_p's block
 * (|d - fp16(d)| <= 2^-11 d for d in fp16's normal range, <= 2^-25 below it).
 * Special values: NaN and inf in A or W (a scale of inf or NaN) propagate: exact weights as IEEE
 * arithmetic of the products; with QUANTIZE_A a row of A with a NaN or inf gives NaN in that row
 * of C, and a W row with a non-finite scale gives +-inf or NaN in its column. An activation block
 * whose largest magnitude exceeds 127 * 65504 (8.3e6) gets d_a = inf, as in ggml: its row of C is
 * then +-inf or NaN.
 * Adversarial fp16 scales (subnormal, 65504, 0) are within the bounds above.
 * Threads over the rows of W (columns of C); exact weights from m = 16 on over vlak_matmul_f32's
 * tiles. Every C element is computed by one task, whole, in an order that depends on m, n, k and
 * the target only: the same bits for every thread count (not across targets).
 * epilogue (NULL: none): vlak_matmul_ex_f32's, C[i][j] = act(P[i][j] + bias[j]) with P the value
 * above, bit for bit: the bias added in float (one rounding), then vlak_activation_f32's function
 * of the tier asked, on the same target; its bounds as vlak_matmul_ex_f32 states them with E the
 * bound above. A Linear layer of GGUF weights, y = act(x W^T + b), is one call.
 * m == 0 or n == 0: nothing to do; k == 0: C = act(0 + bias) (a and w not read: they may be NULL).
 * Errors (nothing written): NULL a, w or c (VLAK_ERROR_NULL_POINTER); unknown wtype or flags, k not
 * a multiple of 32, lda < k, ldc < n, w_stride_bytes < the row's bytes, unknown epilogue flags or
 * an activation vlak_activation_f32 rejects (VLAK_ERROR_INVALID_ARGUMENT); extents beyond SIZE_MAX
 * bytes, or no memory for the buffers (VLAK_ERROR_OVERFLOW). C must not overlap A or W; bias must
 * not overlap C. */
vlak_status vlak_matmul_q_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, vlak_qtype wtype,
                              const void* w, size_t w_stride_bytes, float* c, size_t ldc, unsigned flags,
                              const vlak_matmul_epilogue* epilogue);

/* Repacked quantized weights: vlak_matmul_q_pack copies W (n rows of k values of type wtype, as
 * vlak_matmul_q_f32 takes it) into `packed` in the active target's layout, and
 * vlak_matmul_q_packed_f32 computes what vlak_matmul_q_f32 computes with that W, under the same
 * bounds, special values and thread rules. The layout, named in the buffer's 64-byte header:
 *   rows: W's rows as given (scalar, avx512 without AVX512_VNNI);
 *   grouped: groups of G rows (the last padded with zero rows), per group and block of 32 the G
 *         rows' fp16 d, then (q4_1) their G fp16 m, then the quantized bytes in pieces of P bytes,
 *         piece p of rows 0..G-1 side by side: the same bytes as the rows, moved. x16 on the avx512
 *         target of a CPU with AVX512_VNNI (one vpdpbusd per piece) and on avx2 (vpmaddubsw per
 *         piece, 8 rows a register): G = 16, P = 4; rvv: G = VLEN / 8, P = 1 (one vwmaccsu.vx per
 *         byte column).
 * With VLAK_MATMUL_Q_QUANTIZE_A a grouped layout has its own kernel: each lane sums one row's whole
 * block, then C += float(s) fl(d_w d_a) (q4_1: + m_w fl(d_a sum q_a)) by fmas, one per block and G
 * rows (ggml's repacked q4_0 gemv in spirit), where the rows layout needs a horizontal sum per row
 * and the float work per 8 or 16 values: 3-4x faster at decode on AVX-512 VNNI and on AVX2,
 * 4-15x fewer instructions on RVV (docs/ops/quant.md). From 16 rows of A, a CPU with AMX-INT8
 * (and an OS that grants its tile state) runs the x16 products on AMX tiles, 16 rows at a time,
 * with the same bits (VLAK_AVX512_AMX=0 turns it off). Below 4 rows of A, an AMD Zen 4 (which
 * splits 512-bit operations) runs the avx512 target's x16 products by the avx2 kernel's form, also
 * with the same bits (VLAK_AVX512_ZMM_DECODE=0 does so on any CPU). Its bits may differ from
 * vlak_matmul_q_f32's in the last places, never its bound (per block 2 roundings, q4_1 4); every
 * grouped layout and target gives the same bits. Exact weights give vlak_matmul_q_f32's bits (the rows unpacked, 16 at a time).
 * packed_bytes must be at least vlak_matmul_q_packed_size(wtype, n, k): 64 + n rounded up to the
 * active target's G, times the row's bytes (0 when wtype is unknown, k is not a multiple of 32 or
 * the size overflows). A buffer packed on one target is refused by another
 * (VLAK_ERROR_INVALID_ARGUMENT; pack again after vlak_set_target or a change of VLAK_AVX512_VNNI),
 * and so is one for another wtype, n or k. The buffer is plain memory: any alignment, copyable,
 * readable by several calls at once.
 * Errors (nothing written): NULL w (with n k > 0), packed, a or c; unknown wtype, k not a multiple
 * of 32, w_stride_bytes below the row's bytes, packed_bytes too small, unknown flags (pack: none;
 * product: VLAK_MATMUL_Q_QUANTIZE_A), lda < k, ldc < n, an epilogue vlak_matmul_q_f32 refuses
 * (VLAK_ERROR_INVALID_ARGUMENT); extents beyond SIZE_MAX (VLAK_ERROR_OVERFLOW). n == 0 or k == 0
 * pack a header alone; the product of such a buffer is vlak_matmul_q_f32's for that n and k. */
size_t vlak_matmul_q_packed_size(vlak_qtype wtype, size_t n, size_t k);
vlak_status vlak_matmul_q_pack(vlak_qtype wtype, size_t n, size_t k, const void* w, size_t w_stride_bytes,
                               void* packed, size_t packed_bytes);
vlak_status vlak_matmul_q_packed_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const void* packed,
                                     float* c, size_t ldc, unsigned flags, const vlak_matmul_epilogue* epilogue);

#ifdef __cplusplus
} /* extern "C" */
/* An op with a tier, VLAK_ACT_SILU | VLAK_ACT_FAST, is a vlak_activation in C++ as it is in C. */
constexpr inline vlak_activation operator|(vlak_activation op, int tier) {
  return static_cast<vlak_activation>(static_cast<int>(op) | tier);
}
#endif

#endif /* VLAK_VLAK_H_ */
