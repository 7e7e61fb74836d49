// activations f32: the lab's view of them, one operator per function, "activation-<fn>" over N
// elements and "glu-<fn>" over ROWSxCOLS (gate, up -> y); <fn> is the function's name with
// hyphens (activation-gelu-tanh). One operator per function rather than one
// operator with a function per implementation: each row then compares the same function across
// implementations (its speedup column is like for like), and a suite lists the functions it wants.
//   inputs: x (gate) uniform [-10, 10] (XNNPACK's tanh and gelu test range), up uniform [-2, 2].
//   bytes:  8 per element (read x, write y); glu 12 (read gate and up, write y).
//   vlak-fast: the VLAK_ACT_FAST tier (bound 4 ULP; glu 5).
//   bound:  vlak.h's, in ULPs of the float nearest the float64 reference (2; glu 3), through the
//           per-element scale: the ULP times 2^23 (2^-126 below FLT_MIN), so that the bound
//           parameter reads as a relative error (2 ULP is 2^-22) and the lab's loose check of the
//           libraries (1e-4) is one too; other implementations are measured, not judged.
//   peers:  c-gcc / c-clang run activation_peer.c, the formulas in float64 rounded once (within the
//           same bound: the lab holds compiler rows to vlak's; in float they miss it by far, see
//           there); XNNPACK's f32 sigmoid where the library is built; `sleef` / `sleef@avx2`: each
//           function as its textbook formula over SLEEF 3.5's vector functions (expf, tanhf,
//           log1pf u10, erfcf u15), as a user of SLEEF would write it (glu: times up in the same
//           loop); glu's `vlak-2call`: vlak_activation_f32 into y, then y *= up (the same result
//           as vlak_glu_f32, which promises act(gate) as vlak_activation_f32 rounds it).
//   threads: vlak splits a call itself; the C peers split the array into equal blocks over OpenMP
//           threads, XNNPACK over its pthreadpool.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/activation/activation.h"
#include "vlak/vlak.h"

// The plain C peers beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(activation_f32, void(const float* x, float* y, size_t n, int op))
VLAK_LAB_CREF(glu_f32, void(const float* gate, const float* up, float* y, size_t n, int op))

namespace vlak::lab {
namespace {

// 2^23 times the ULP of the float nearest r (2^-149 below FLT_MIN): |y - r| / this is vlak.h's
// measure in units of 2^-23.
constexpr double kUlpUnit = 0x1p-23;
float UlpScale(double r) {
  const float nearest = static_cast<float>(r);
  if (std::fabs(r) < FLT_MIN || nearest == 0.0f) return 0x1p-126f;
  if (std::isinf(nearest)) return INFINITY;
  int e;
  std::frexp(std::fabs(static_cast<double>(nearest)), &e);
  return static_cast<float>(std::ldexp(1.0, e - 1));
}

std::string UlpBoundText(double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "ulp<=%g", b / kUlpUnit);
  return buf;
}

// XNNPACK's f32 sigmoid (its own ISA choice), the only activation of these in Debian's XNNPACK
// (libxnnpack-dev 0.0~git20220216: xnn_create_sigmoid_nc_f32; no f32 tanh, gelu, silu, softplus).
ImplDef XnnpackSigmoid() {
  return XnnpackRow("XNNPACK xnn_create_sigmoid_nc_f32 (its own ISA choice), pthreadpool threads",
                    VLAK_LAB_XNNPACK_PREPARE([](const Problem& p, Outputs& out, int threads, std::string* err) {
                      const size_t n = p.In(0).Elements();
                      pthreadpool_t pool = XnnPool(threads);
                      return XnnpackPrepare(
                          "sigmoid_nc_f32", pool, err,
                          [&](xnn_operator_t* op) { return xnn_create_sigmoid_nc_f32(1, 1, 1, 0, op); },
                          [&](xnn_operator_t op) {
                            return xnn_setup_sigmoid_nc_f32(op, n, p.In(0).F32(), out[0].F32(), pool);
                          });
                    }));
}

// ---- SLEEF formulas ---------------------------------------------------------------------------
// SLEEF's vector functions called directly at one ISA (the avx2 / avx512f builds, not the
// dispatching Sleef_expf8_u10, whose indirect call a loop over 8 floats would pay each time).
// sleef.h declares them only in a file compiled for that ISA; the lab is baseline x86-64, so the
// declarations are here with the target attribute, and the loops carry it too.
#if defined(VLAK_LAB_HAVE_SLEEF) && defined(__x86_64__)
#define VLAK_SLEEF_DECLARE(W, N, ISA, TARGET)                                                    \
  extern "C" __attribute__((target(TARGET))) __m##W Sleef_expf##N##_u10##ISA(__m##W);          \
  extern "C" __attribute__((target(TARGET))) __m##W Sleef_tanhf##N##_u10##ISA(__m##W);         \
  extern "C" __attribute__((target(TARGET))) __m##W Sleef_log1pf##N##_u10##ISA(__m##W);        \
  extern "C" __attribute__((target(TARGET))) __m##W Sleef_erfcf##N##_u15##ISA(__m##W);
VLAK_SLEEF_DECLARE(256, 8, avx2, "avx2,fma")
VLAK_SLEEF_DECLARE(512, 16, avx512f, "avx512f")
#undef VLAK_SLEEF_DECLARE

// One function, N lanes: the formulas of vlak.h's enum, each the way one would write it over
// SLEEF. softplus is max(x, 0) + log1p(exp(-|x|)), not log1p(exp(x)), whose exp overflows to
// inf above x = 88.7 (the same two SLEEF calls and two more lane ops); gelu_tanh is
// x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3), not 0.5 x (1 + tanh(u)), whose 1 + tanh(u)
// cancels where u is very negative (2e-4 relative error at x = -10). Then a loop over the
// array (kGlu: times up), its tail through an N-float buffer.
#define VLAK_SLEEF_LOOP(W, N, ISA, TARGET)                                                                 \
  template <int kFn>                                                                                       \
  __attribute__((target(TARGET))) inline __m##W SleefAct##N(__m##W x) {                                   \
    const __m##W one = _mm##W##_set1_ps(1.0f), half = _mm##W##_set1_ps(0.5f);                             \
    const __m##W neg = _mm##W##_sub_ps(_mm##W##_setzero_ps(), x);                                         \
    if constexpr (kFn == VLAK_ACT_SIGMOID) {                                                               \
      return _mm##W##_div_ps(one, _mm##W##_add_ps(one, Sleef_expf##N##_u10##ISA(neg)));                  \
    } else if constexpr (kFn == VLAK_ACT_TANH) {                                                           \
      return Sleef_tanhf##N##_u10##ISA(x);                                                                 \
    } else if constexpr (kFn == VLAK_ACT_GELU) {                                                           \
      const __m##W e = Sleef_erfcf##N##_u15##ISA(_mm##W##_mul_ps(neg, _mm##W##_set1_ps(0.70710678f)));    \
      return _mm##W##_mul_ps(_mm##W##_mul_ps(half, x), e);                                                 \
    } else if constexpr (kFn == VLAK_ACT_GELU_TANH) {                                                      \
      const __m##W x3 = _mm##W##_mul_ps(_mm##W##_mul_ps(x, x), x);                                        \
      const __m##W m2u = _mm##W##_mul_ps(_mm##W##_set1_ps(-1.5957691216f),                                \
                                         _mm##W##_fmadd_ps(_mm##W##_set1_ps(0.044715f), x3, x));          \
      return _mm##W##_div_ps(x, _mm##W##_add_ps(one, Sleef_expf##N##_u10##ISA(m2u)));                    \
    } else if constexpr (kFn == VLAK_ACT_SILU) {                                                           \
      return _mm##W##_div_ps(x, _mm##W##_add_ps(one, Sleef_expf##N##_u10##ISA(neg)));                    \
    } else {                                                                                               \
      const __m##W l = Sleef_log1pf##N##_u10##ISA(Sleef_expf##N##_u10##ISA(_mm##W##_min_ps(x, neg)));     \
      return _mm##W##_add_ps(_mm##W##_max_ps(x, _mm##W##_setzero_ps()), l);                               \
    }                                                                                                      \
  }                                                                                                        \
  template <int kFn, bool kGlu>                                                                            \
  __attribute__((target(TARGET))) void SleefLoop##N(const float* x, const float* u, float* y, size_t n) { \
    size_t i = 0;                                                                                          \
    for (; i + N <= n; i += N) {                                                                           \
      __m##W v = SleefAct##N<kFn>(_mm##W##_loadu_ps(x + i));                                              \
      if constexpr (kGlu) v = _mm##W##_mul_ps(v, _mm##W##_loadu_ps(u + i));                               \
      _mm##W##_storeu_ps(y + i, v);                                                                        \
    }                                                                                                      \
    if (i < n) {                                                                                           \
      float xb[N] = {0}, ub[N] = {0};                                                                      \
      std::memcpy(xb, x + i, (n - i) * sizeof(float));                                                     \
      if constexpr (kGlu) std::memcpy(ub, u + i, (n - i) * sizeof(float));                                \
      __m##W v = SleefAct##N<kFn>(_mm##W##_loadu_ps(xb));                                                 \
      if constexpr (kGlu) v = _mm##W##_mul_ps(v, _mm##W##_loadu_ps(ub));                                  \
      _mm##W##_storeu_ps(xb, v);                                                                           \
      std::memcpy(y + i, xb, (n - i) * sizeof(float));                                                     \
    }                                                                                                      \
  }
VLAK_SLEEF_LOOP(256, 8, avx2, "avx2,fma")
VLAK_SLEEF_LOOP(512, 16, avx512f, "avx512f")
#undef VLAK_SLEEF_LOOP

using SleefLoopFn = void (*)(const float*, const float*, float*, size_t);

template <bool kGlu>
SleefLoopFn SleefLoopFor(bool avx512, vlak_activation fn) {
  switch (fn) {
#define VLAK_SLEEF_CASE(F) \
  case F:                  \
    return avx512 ? SleefLoop16<F, kGlu> : SleefLoop8<F, kGlu>;
    VLAK_SLEEF_CASE(VLAK_ACT_SIGMOID)
    VLAK_SLEEF_CASE(VLAK_ACT_TANH)
    VLAK_SLEEF_CASE(VLAK_ACT_GELU)
    VLAK_SLEEF_CASE(VLAK_ACT_GELU_TANH)
    VLAK_SLEEF_CASE(VLAK_ACT_SILU)
    VLAK_SLEEF_CASE(VLAK_ACT_SOFTPLUS)
#undef VLAK_SLEEF_CASE
  }
  return nullptr;
}
#endif

// "sleef" (AVX-512 where the CPU has it, else AVX2) or "sleef@avx2". glu: y = act(gate) * up.
// Threads: equal blocks of the array (as the C peers).
ImplDef SleefActImpl(const std::string& name, vlak_activation fn, bool glu) {
  const bool best = name == "sleef";
  return PlainImpl(
      name, "library",
      std::string("SLEEF 3.5 formula (expf/tanhf/log1pf u10, erfcf u15), ") +
          (best ? "AVX-512 where the CPU has it, else AVX2" : "AVX2") + (glu ? ", times up in the same loop" : ""),
      [best] {
        const std::string m = SleefMissing();
        if (!m.empty()) return m;
#if !defined(__x86_64__)
        (void)best;
        return std::string("x86 only (SLEEF's AVX2 and AVX-512 builds)");
#else
        if (!SleefIsaSupported("avx2") && !(best && SleefIsaSupported("avx512"))) return std::string("CPU lacks avx2");
        return std::string();
#endif
      },
      [best, fn, glu](const Problem& p, Outputs& out, int threads) {
#if defined(VLAK_LAB_HAVE_SLEEF) && defined(__x86_64__)
        const bool avx512 = best && SleefIsaSupported("avx512");
        const SleefLoopFn k = glu ? SleefLoopFor<true>(avx512, fn) : SleefLoopFor<false>(avx512, fn);
        const float* x = p.In(0).F32();
        const float* u = glu ? p.In(1).F32() : nullptr;
        float* y = out[0].F32();
        return ParallelOk(threads, p.In(0).Elements(), [&](size_t b, size_t e) {
          k(x + b, u == nullptr ? nullptr : u + b, y + b, e - b);
          return true;
        });
#else
        (void)p, (void)out, (void)threads, (void)best, (void)fn, (void)glu;
        return false;
#endif
      });
}

// ---- glu as two calls ------------------------------------------------------------------------
// y *= up, the second call of the two-call glu. vlak has no elementwise multiply, so a plain loop:
// AVX2 where the CPU has it (the lab itself is baseline x86-64, SSE2), else whatever the compiler
// makes of it.
#if defined(__x86_64__)
__attribute__((target("avx2"))) void MulInPlaceAvx2(float* y, const float* u, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(u + i)));
  for (; i < n; ++i) y[i] *= u[i];
}
#endif

void MulInPlace(float* y, const float* u, size_t n) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) return MulInPlaceAvx2(y, u, n);
#endif
  for (size_t i = 0; i < n; ++i) y[i] *= u[i];
}

// vlak_activation_f32(gate) into y (on vlak's threads), then y *= up on up to as many threads:
// what a caller without vlak_glu_f32 would write (no temporary: y is the buffer). Its kind is not
// "vlak", so that every vlak row gets a ratio against it (the runner skips vlak's own rows).
ImplDef VlakTwoCallImpl(vlak_activation fn) {
  ImplDef d = VlakImpl("vlak-2call", -1,
                  std::string("vlak_activation_f32 ") + ActivationName(fn) + " into y, then y *= up (AVX2 loop on x86)",
                  3 * kUlpUnit, Available, [fn](const Problem& p, Outputs& out) {
                    const size_t n = p.In(0).Elements();
                    float* y = out[0].F32();
                    if (vlak_activation_f32(n, p.In(0).F32(), y, fn) != VLAK_OK) return false;
                    const float* u = p.In(1).F32();
                    // The multiply on as many threads as have 64K elements each (at most vlak's
                    // count): a small array is not worth waking a thread, as vlak's cost model
                    // also decides for the first call.
                    const int threads = static_cast<int>(std::min<size_t>(
                        static_cast<size_t>(vlak_get_num_threads()), std::max<size_t>(1, n / 65536)));
                    return ParallelOk(threads, n, [&](size_t b, size_t e) {
                      MulInPlace(y + b, u + b, e - b);
                      return true;
                    });
                  });
  d.kind = "composed";
  return d;
}

// The lab's operator names are lowercase words joined by hyphens: gelu_tanh is "gelu-tanh" there.
std::string LabName(vlak_activation fn) {
  std::string name = ActivationName(fn);
  for (char& c : name) c = c == '_' ? '-' : c;
  return name;
}

OpDef ActivationOp(vlak_activation fn) {
  const std::string fname = ActivationName(fn);
  const std::string name = "activation-" + LabName(fn);
  OpDef op = ReadWriteF32Op(name, "N (elements, e.g. 4096, 16M)", "n", 1,
                            name + " shapes are one number of elements (e.g. 4096)");
  op.make_problem = [fn](Problem* p) {
    const size_t n = p->shape.Elements();
    float* x = p->AddInput("x", {n}).F32();
    FillUniform(x, n, -10.0f, 10.0f, 1);
    std::vector<double>& ref = p->AddOutput("y", {n});
    std::vector<float>& scale = p->scale[0];
    scale.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ref[i] = ActivationReferenceF64(fn, x[i]);
      scale[i] = UlpScale(ref[i]);
    }
  };
  op.bound_text = UlpBoundText;
  op.baselines = fn == VLAK_ACT_SIGMOID ? std::vector<std::string>{"xnnpack", "c-clang", "c-gcc", "sleef"}
                                        : std::vector<std::string>{"c-clang", "c-gcc", "sleef"};
  op.test_dims = {{67}};
  op.AddImpls(VlakTargetImpls("vlak_activation_f32 " + fname, 2 * kUlpUnit, Available,
                              [fn](const Problem& p, Outputs& out) {
                                return vlak_activation_f32(p.In(0).Elements(), p.In(0).F32(), out[0].F32(), fn) ==
                                       VLAK_OK;
                              }));
  op.impls.push_back(VlakImpl("vlak-fast", -1, "vlak_activation_f32 " + fname + " | VLAK_ACT_FAST (<= 4 ULP)",
                              4 * kUlpUnit, Available, [fn](const Problem& p, Outputs& out) {
                                return vlak_activation_f32(p.In(0).Elements(), p.In(0).F32(), out[0].F32(),
                                                           fn | VLAK_ACT_FAST) == VLAK_OK;
                              }));
  AddCrefImpls(&op, "src/ops/activation/activation_peer.c", Cref_activation_f32,
               [fn](auto* k, const Problem& p, Outputs& out, int threads) {
                 const float* x = p.In(0).F32();
                 float* y = out[0].F32();
                 return ParallelOk(threads, p.In(0).Elements(), [&](size_t b, size_t e) {
                   k(x + b, y + b, e - b, static_cast<int>(fn));
                   return true;
                 });
               });
  if (fn == VLAK_ACT_SIGMOID) op.impls.push_back(XnnpackSigmoid());
  op.impls.push_back(SleefActImpl("sleef", fn, false));
  op.impls.push_back(SleefActImpl("sleef@avx2", fn, false));  // listed everywhere so suites stay portable
  return op;
}

OpDef GluOp(vlak_activation fn) {
  const std::string fname = ActivationName(fn);
  OpDef op;
  op.name = "glu-" + LabName(fn);
  SetRowsColsShape(&op);
  op.bytes_formula = "12 bytes/element (read gate and up, write y)";
  op.bytes_per_run = BytesPerElement(12.0);
  op.make_problem = [fn](Problem* p) {
    const size_t rows = RowsOf(*p), cols = ColsOf(*p), n = rows * cols;
    float* g = p->AddInput("gate", {rows, cols}).F32();
    float* u = p->AddInput("up", {rows, cols}).F32();
    FillUniform(g, n, -10.0f, 10.0f, 1);
    FillUniform(u, n, -2.0f, 2.0f, 2);
    std::vector<double>& ref = p->AddOutput("y", {rows, cols});
    std::vector<float>& scale = p->scale[0];
    scale.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ref[i] = ActivationReferenceF64(fn, g[i]) * u[i];
      scale[i] = UlpScale(ref[i]);
    }
  };
  op.bound_text = UlpBoundText;
  op.baselines = {"c-clang", "c-gcc", "vlak-2call", "sleef"};
  op.test_dims = {{3, 67}};
  op.AddImpls(VlakTargetImpls("vlak_glu_f32 " + fname, 3 * kUlpUnit, Available,
                              [fn](const Problem& p, Outputs& out) {
                                const size_t cols = ColsOf(p);
                                return vlak_glu_f32(RowsOf(p), cols, p.In(0).F32(), cols, p.In(1).F32(), cols,
                                                    out[0].F32(), cols, fn) == VLAK_OK;
                              }));
  op.impls.push_back(VlakImpl("vlak-fast", -1, "vlak_glu_f32 " + fname + " | VLAK_ACT_FAST (<= 5 ULP)",
                              5 * kUlpUnit, Available, [fn](const Problem& p, Outputs& out) {
                                const size_t cols = ColsOf(p);
                                return vlak_glu_f32(RowsOf(p), cols, p.In(0).F32(), cols, p.In(1).F32(), cols,
                                                    out[0].F32(), cols, fn | VLAK_ACT_FAST) == VLAK_OK;
                              }));
  AddCrefImpls(&op, "src/ops/activation/activation_peer.c", Cref_glu_f32,
               [fn](auto* k, const Problem& p, Outputs& out, int threads) {
                 const float* g = p.In(0).F32();
                 const float* u = p.In(1).F32();
                 float* y = out[0].F32();
                 return ParallelOk(threads, p.In(0).Elements(), [&](size_t b, size_t e) {
                   k(g + b, u + b, y + b, e - b, static_cast<int>(fn));
                   return true;
                 });
               });
  op.impls.push_back(VlakTwoCallImpl(fn));
  op.impls.push_back(SleefActImpl("sleef", fn, true));
  op.impls.push_back(SleefActImpl("sleef@avx2", fn, true));
  return op;
}

}  // namespace

std::vector<OpDef> LabOps_activation() {
  std::vector<OpDef> ops;
  for (int k = 0; k < kNumActivations; ++k) ops.push_back(ActivationOp(static_cast<vlak_activation>(k)));
  for (int k = 0; k < kNumActivations; ++k) ops.push_back(GluOp(static_cast<vlak_activation>(k)));
  return ops;
}

}  // namespace vlak::lab
