// What the lab links against besides vlak: the plain C reference built by two compilers, and the
// libraries found at configure time (each optional: a missing one is "not built", never a number).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lab/ops.h"

extern "C" {
#if defined(VLAK_LAB_HAVE_CREF_GCC)
void vlak_ref_gcc_softmax_f32(const float* x, float* y, size_t rows, size_t cols);
void vlak_ref_gcc_exp_f32(const float* x, float* y, size_t n);
const char* vlak_ref_gcc_compiler(void);
#endif
#if defined(VLAK_LAB_HAVE_CREF_CLANG)
void vlak_ref_clang_softmax_f32(const float* x, float* y, size_t rows, size_t cols);
void vlak_ref_clang_exp_f32(const float* x, float* y, size_t n);
const char* vlak_ref_clang_compiler(void);
#endif
}

namespace vlak::lab {

// "" if the baseline is linked in, else "not built (...)" naming the package to install.
std::string XnnpackMissing();
std::string OnednnMissing();
std::string SleefMissing();
std::string CrefMissing(const std::string& compiler);  // "gcc" or "clang"

// The flags each C reference was compiled with (for the machine record), "" if not built.
std::string CrefFlags(const std::string& compiler);
std::string CrefCompilerVersion(const std::string& compiler);

// Library versions for the machine record ("" when not built).
std::string XnnpackVersion();
std::string OnednnVersion();
std::string SleefVersion();

// Sets the OpenMP thread count for libraries that follow it (oneDNN) and for the lab's own
// row splitting.
void SetOmpThreads(int threads);

// oneDNN set up once for the lab's operators: a CPU engine and stream, f32 source and
// destination memories over x and y (dense, row-major), the operator's primitive, and a run
// that executes it and waits. select() sets the OpenMP thread count (oneDNN threads itself).
//   kExp: eltwise_forward, forward_inference, eltwise_exp (alpha = beta = 0), dims {n}, tag a.
//   kSoftmaxLastAxis: softmax_forward, forward_inference, axis 1, dims {rows, cols}, tag ab.
// A oneDNN exception, or dims of the wrong rank, leave run empty and *err saying why. Built
// without oneDNN (VLAK_LAB_HAVE_ONEDNN unset) it always fails that way, with OnednnMissing();
// the lab does not get there, as the implementations report "not built" first.
enum class OnednnOp { kExp, kSoftmaxLastAxis };
Prepared OnednnPrepared(OnednnOp op, std::vector<long> dims, const float* x, float* y, int threads,
                        std::string* err);

// SLEEF expf u10 over n floats. isa: "avx512", "avx2" or "scalar" (Sleef_expf16_u10,
// Sleef_expf8_u10, Sleef_expf_u10); SleefIsaSupported says whether this build and CPU have it.
bool SleefIsaSupported(const std::string& isa);
void SleefExpF32(const std::string& isa, const float* x, float* y, size_t n);

}  // namespace vlak::lab
