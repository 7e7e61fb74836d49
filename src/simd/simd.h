// vlak vector layer: include this, compiled with exactly one VLAK_SIMD_<NAME> defined
// (SCALAR, AVX2, AVX512, RVV).
// The build compiles each kernel translation unit once per target with that target's flags;
// everything lands in namespace vlak::VLAK_NS (vlak::n_scalar, vlak::n_avx2, ...), so the copies
// coexist in one binary and dispatch picks one at run time.
#pragma once

#if defined(VLAK_SIMD_SCALAR)
#define VLAK_NS n_scalar
#define VLAK_TARGET_ID ::vlak::Target::kScalar
#include "scalar.h"
#elif defined(VLAK_SIMD_AVX2)
#define VLAK_NS n_avx2
#define VLAK_TARGET_ID ::vlak::Target::kAvx2
#include "avx2.h"
#elif defined(VLAK_SIMD_AVX512)
#define VLAK_NS n_avx512
#define VLAK_TARGET_ID ::vlak::Target::kAvx512
#include "avx512.h"
#elif defined(VLAK_SIMD_RVV)
#define VLAK_NS n_rvv
#define VLAK_TARGET_ID ::vlak::Target::kRvv
#include "rvv.h"
#else
#error "compile with one of VLAK_SIMD_SCALAR, _AVX2, _AVX512, _RVV"
#endif

#include "targets.h"
#include "strip.h"
