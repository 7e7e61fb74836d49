// What the lab links against besides vlak: the plain C reference built by two compilers, and the
// libraries found at configure time (each optional: a missing one is "not built", never a number).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lab/gomp.h"
#include "lab/ops.h"

#if defined(VLAK_LAB_HAVE_XNNPACK)
#include <pthreadpool.h>
#include <xnnpack.h>
#endif

// The plain C kernels (<op>_peer.c beside each operator), each compiled by gcc and by clang with its
// own symbol prefix (lab.cmake). An operator's lab file declares the ones it calls, at file scope:
//   VLAK_LAB_CREF(scale_f32, void(const float* x, float* y, size_t n, float s))
// which gives vlak::lab::Cref_scale_f32("gcc" or "clang"): that compiler's function, or null when
// its objects are not in this build (CrefImpl then reports the row as not built).
#if defined(VLAK_LAB_HAVE_CREF_GCC)
#define VLAK_LAB_CREF_GCC_(fn, T) extern "C" T vlak_ref_gcc_##fn;
#define VLAK_LAB_CREF_GCC_FN_(fn) vlak_ref_gcc_##fn
#else
#define VLAK_LAB_CREF_GCC_(fn, T)
#define VLAK_LAB_CREF_GCC_FN_(fn) nullptr
#endif
#if defined(VLAK_LAB_HAVE_CREF_CLANG)
#define VLAK_LAB_CREF_CLANG_(fn, T) extern "C" T vlak_ref_clang_##fn;
#define VLAK_LAB_CREF_CLANG_FN_(fn) vlak_ref_clang_##fn
#else
#define VLAK_LAB_CREF_CLANG_(fn, T)
#define VLAK_LAB_CREF_CLANG_FN_(fn) nullptr
#endif
#define VLAK_LAB_CREF(fn, ...)                                                                     \
  namespace vlak::lab::cref_types {                                                              \
  using fn = __VA_ARGS__;                                                                        \
  }                                                                                              \
  VLAK_LAB_CREF_GCC_(fn, vlak::lab::cref_types::fn)                                              \
  VLAK_LAB_CREF_CLANG_(fn, vlak::lab::cref_types::fn)                                            \
  namespace vlak::lab {                                                                          \
  inline cref_types::fn* Cref_##fn(const std::string& compiler) {                                \
    return compiler == "gcc" ? VLAK_LAB_CREF_GCC_FN_(fn) : compiler == "clang" ? VLAK_LAB_CREF_CLANG_FN_(fn) : nullptr; \
  }                                                                                              \
  }

namespace vlak::lab {

// "" if the baseline is linked in, else "not built (...)" naming the package to install.
std::string XnnpackMissing();
#if defined(VLAK_LAB_HAVE_XNNPACK)
// One pthreadpool per thread count, kept for the whole run (creating one per call would time
// thread creation, not the operator); nullptr (XNNPACK's caller thread) for 1 thread.
pthreadpool_t XnnPool(int threads);
// An XNNPACK operator row: xnn_initialize, create(&op), setup(op), each checked (*err names the
// failing step, "xnn_create_<name>" or "xnn_setup_<name>"); run executes the operator on `pool`
// (nullptr: the caller's thread), which is deleted with the last copy of the Prepared.
Prepared XnnpackPrepare(const std::string& name, pthreadpool_t pool, std::string* err,
                        const std::function<xnn_status(xnn_operator_t*)>& create,
                        const std::function<xnn_status(xnn_operator_t)>& setup);
#endif
// An XNNPACK row (LibraryImpl "xnnpack", unavailable as XnnpackMissing says) set up by prepare.
// Write prepare inside VLAK_LAB_XNNPACK_PREPARE(...): a build without XNNPACK compiles none of it
// and gets a prepare that returns an empty Prepared (never called: the row is not built).
ImplDef XnnpackRow(std::string description,
                   std::function<Prepared(const Problem&, Outputs&, int threads, std::string* err)> prepare);
#if defined(VLAK_LAB_HAVE_XNNPACK)
#define VLAK_LAB_XNNPACK_PREPARE(...) __VA_ARGS__
#else
#define VLAK_LAB_XNNPACK_PREPARE(...) \
  [](const ::vlak::lab::Problem&, ::vlak::lab::Outputs&, int, std::string*) { return ::vlak::lab::Prepared(); }
#endif
std::string OnednnMissing();
std::string SleefMissing();
std::string CrefMissing(const std::string& compiler);  // "gcc" or "clang"

// An implementation "c-gcc" / "c-clang" running the plain C file `file` (a path in the tree): run
// gets that compiler's kernel fn (from Cref_<name>; the implementation is "not built" when it is
// null, and run is never called then).
ImplDef CrefImplOf(const std::string& compiler, const std::string& file, bool built, PlainRun run);
template <class F, class Run>
ImplDef CrefImpl(const std::string& compiler, const std::string& file, F* fn, Run run) {
  return CrefImplOf(compiler, file, fn != nullptr,
                    [fn, run](const Problem& p, Outputs& out, int threads) { return run(fn, p, out, threads); });
}

// Both of those rows of one peer, appended to op's implementations: cref_of is its Cref_<name>
// (VLAK_LAB_CREF), run as CrefImpl's.
template <class CrefOf, class Run>
void AddCrefImpls(OpDef* op, const std::string& file, CrefOf cref_of, Run run) {
  for (const char* cc : {"gcc", "clang"}) op->impls.push_back(CrefImpl(cc, file, cref_of(cc), run));
}

// The flags each C reference was compiled with (for the machine record), "" if not built.
std::string CrefFlags(const std::string& compiler);
std::string CrefCompilerVersion(const std::string& compiler);

// Library versions for the machine record ("" when not built).
std::string XnnpackVersion();
std::string OnednnVersion();
std::string SleefVersion();
std::string OpencvVersion();
// "" when OpenCV's imgproc is linked, else why not.
std::string OpencvMissing();

// SetOmpThreads (the libgomp thread count oneDNN, libtorch and Eigen follow) is in lab/gomp.h.

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

// oneDNN for the transformer operators, dense row-major f32, set up once (engine, stream, memories
// over the lab's buffers, primitive); select() sets the OpenMP thread count oneDNN uses.
//   layer_normalization_forward, forward_inference, use_scale | use_shift (gamma, beta), rows x cols.
Prepared OnednnLayernormForward(size_t rows, size_t cols, const float* x, const float* gamma, const float* beta,
                                float eps, float* y, int threads, std::string* err);
//   layer_normalization_backward, prop backward (dx and the scale/shift gradients), given the
//   forward's mean and rstd (oneDNN takes the variance: 1/rstd^2 - eps, made here, not timed).
Prepared OnednnLayernormBackward(size_t rows, size_t cols, const float* dy, const float* x, const float* gamma,
                                 const float* mean, const float* rstd, float eps, float* dx, float* dgamma,
                                 float* dbeta, int threads, std::string* err);
//   matmul primitive, C (m x n) = A (m x k) B (k x n).
Prepared OnednnMatmul(size_t m, size_t n, size_t k, const float* a, const float* b, float* c, int threads,
                      std::string* err);
//   matmul primitive as a Linear layer: C (m x n) = A (m x k) W^T + bias, W stored n x k, bias n
//   floats, and with gelu a post-op eltwise_gelu_erf (oneDNN's fused epilogue).
Prepared OnednnLinear(size_t m, size_t n, size_t k, const float* a, const float* w, const float* bias, bool gelu,
                      float* c, int threads, std::string* err);

// OpenBLAS cblas_sgemm (row-major, no transposes, alpha 1, beta 0) on `threads` threads
// (openblas_set_num_threads before each call: a 1-thread row must not use the pool).
std::string OpenblasMissing();
std::string OpenblasVersion();
// openblas_set_num_threads; nothing without OpenBLAS. Also for libtorch's matmul: Debian's
// libtorch has no MKL and calls sgemm_ of the system BLAS (libblas.so.3, OpenBLAS's pthread build),
// which threads itself and does not follow at::set_num_threads. The lab links libopenblas.so.0
// directly, so that sgemm_ binds to the copy whose count this sets.
void OpenblasSetThreads(int threads);
void OpenblasSgemm(int threads, size_t m, size_t n, size_t k, const float* a, const float* b, float* c);

// Eigen 3 matrix product (Map of row-major matrices, c.noalias() = a * b), compiled in
// eigen_kernels.cc by g++ -O3 -march=native -fopenmp as a user of the header-only library would
// build it; Eigen::setNbThreads(threads) (its OpenMP GEMM, on libgomp).
std::string EigenMissing();
std::string EigenVersion();
void EigenMatmul(int threads, size_t m, size_t n, size_t k, const float* a, const float* b, float* c);

// PyTorch's CPU kernels through libtorch (torch_kernels.cc): the `torch` implementation of the
// operators it has. eps is layernorm's. "not built (...)" without libtorch-dev.
enum class TorchOp { kSoftmax, kExp, kLayernorm, kMatmul };
std::string TorchMissing();
std::string TorchVersion();
ImplDef TorchImpl(TorchOp op, double eps = 0);

// SLEEF expf u10 over n floats. isa: "avx512", "avx2" or "scalar" (Sleef_expf16_u10,
// Sleef_expf8_u10, Sleef_expf_u10); SleefIsaSupported says whether this build and CPU have it.
bool SleefIsaSupported(const std::string& isa);
void SleefExpF32(const std::string& isa, const float* x, float* y, size_t n);

}  // namespace vlak::lab
