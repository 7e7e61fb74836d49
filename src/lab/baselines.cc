#include "lab/baselines.h"

VLAK_LAB_CREF(compiler, const char*(void))  // src/ops/peer_common.c

#include <algorithm>
#include <memory>
#include <cstdio>

#if defined(VLAK_LAB_HAVE_ONEDNN)
#include <oneapi/dnnl/dnnl.hpp>

#include <exception>
#include <memory>
#include <unordered_map>
#include <vector>
#endif
#if defined(VLAK_LAB_HAVE_OPENBLAS)
#include <cblas.h>
#endif
#if defined(VLAK_LAB_HAVE_SLEEF)
#include <sleef.h>
#if defined(__x86_64__)
#include <immintrin.h>
// sleef.h declares its vector functions only when the including file is compiled for that ISA;
// the lab is compiled for baseline x86-64 and calls them from functions with a target attribute.
extern "C" __attribute__((target("avx512f"))) __m512 Sleef_expf16_u10(__m512);
extern "C" __attribute__((target("avx2,fma"))) __m256 Sleef_expf8_u10(__m256);
#endif
#endif

namespace vlak::lab {

namespace {

// Why a library this build lacks is not built: the cross sysroot has no riscv64 build of any of
// them; on the host, its packages were missing at configure time.
[[maybe_unused]] std::string NotBuilt(const char* packages) {
#if defined(__riscv)
  (void)packages;
  return "not built (no riscv64 build of it in the cross sysroot)";
#else
  return std::string("not built (install ") + packages + ", reconfigure)";
#endif
}

}  // namespace

#if defined(VLAK_LAB_HAVE_XNNPACK)
std::string XnnpackMissing() { return ""; }
#else
std::string XnnpackMissing() { return NotBuilt("libxnnpack-dev libpthreadpool-dev"); }
#endif

ImplDef XnnpackRow(std::string description,
                   std::function<Prepared(const Problem&, Outputs&, int threads, std::string* err)> prepare) {
  ImplDef d = LibraryImpl("xnnpack", std::move(description), XnnpackMissing);
  d.prepare = std::move(prepare);
  return d;
}

#if defined(VLAK_LAB_HAVE_XNNPACK)
pthreadpool_t XnnPool(int threads) {
  static pthreadpool_t pools[256] = {};
  if (threads <= 1) return nullptr;
  const int i = std::min(threads, 255);
  if (pools[i] == nullptr) pools[i] = pthreadpool_create(static_cast<size_t>(i));
  return pools[i];
}

Prepared XnnpackPrepare(const std::string& name, pthreadpool_t pool, std::string* err,
                        const std::function<xnn_status(xnn_operator_t*)>& create,
                        const std::function<xnn_status(xnn_operator_t)>& setup) {
  Prepared pr;
  if (xnn_initialize(nullptr) != xnn_status_success) {
    *err = "xnn_initialize failed";
    return pr;
  }
  xnn_operator_t op = nullptr;
  if (create(&op) != xnn_status_success) {
    *err = "xnn_create_" + name + " failed";
    return pr;
  }
  std::shared_ptr<xnn_operator> holder(op, [](xnn_operator_t o) { xnn_delete_operator(o); });
  if (setup(op) != xnn_status_success) {
    *err = "xnn_setup_" + name + " failed";
    return pr;
  }
  pr.run = [holder, pool] { return xnn_run_operator(holder.get(), pool) == xnn_status_success; };
  return pr;
}
#endif

#if defined(VLAK_LAB_HAVE_ONEDNN)
std::string OnednnMissing() { return ""; }
#else
std::string OnednnMissing() { return NotBuilt("libdnnl-dev"); }
#endif

#if defined(VLAK_LAB_HAVE_SLEEF)
std::string SleefMissing() { return ""; }
#else
std::string SleefMissing() { return NotBuilt("libsleef-dev"); }
#endif

std::string CrefMissing(const std::string& compiler) {
#if defined(VLAK_LAB_HAVE_CREF_GCC)
  if (compiler == "gcc") return "";
#endif
#if defined(VLAK_LAB_HAVE_CREF_CLANG)
  if (compiler == "clang") return "";
#endif
#if defined(__riscv)
  if (compiler == "gcc") return "not built (no riscv64-linux-gnu-gcc: install gcc-riscv64-linux-gnu, reconfigure)";
#endif
  return "not built (no " + compiler + " found at configure time)";
}

ImplDef CrefImplOf(const std::string& compiler, const std::string& file, bool built, PlainRun run) {
  return PlainImpl("c-" + compiler, "compiler", file + " built by " + compiler + ": " + CrefFlags(compiler),
                   [compiler, built] {
                     const std::string m = CrefMissing(compiler);
                     return m.empty() && !built ? "not built (" + compiler + "'s objects are not linked)" : m;
                   },
                   std::move(run));
}

std::string CrefFlags(const std::string& compiler) {
#if defined(VLAK_LAB_HAVE_CREF_GCC) && defined(VLAK_LAB_CREF_GCC_FLAGS)
  if (compiler == "gcc") return VLAK_LAB_CREF_GCC_FLAGS;
#endif
#if defined(VLAK_LAB_HAVE_CREF_CLANG) && defined(VLAK_LAB_CREF_CLANG_FLAGS)
  if (compiler == "clang") return VLAK_LAB_CREF_CLANG_FLAGS;
#endif
  (void)compiler;
  return "";
}

std::string CrefCompilerVersion(const std::string& compiler) {
  auto* version = Cref_compiler(compiler);
  if (version == nullptr) return "";
  return compiler == "gcc" ? std::string("gcc ") + version() : std::string(version());
}

#if defined(VLAK_LAB_HAVE_OPENCV)
std::string OpencvMissing() { return ""; }
#else
std::string OpencvMissing() { return NotBuilt("libopencv-imgproc-dev"); }
#endif

// lab.cmake defines each library's version (its Debian package's, or "linked") where it is built in.
#if !defined(VLAK_LAB_OPENCV_VERSION)
#define VLAK_LAB_OPENCV_VERSION ""
#endif
#if !defined(VLAK_LAB_XNNPACK_VERSION)
#define VLAK_LAB_XNNPACK_VERSION ""
#endif
std::string OpencvVersion() { return VLAK_LAB_OPENCV_VERSION; }
std::string XnnpackVersion() { return VLAK_LAB_XNNPACK_VERSION; }

std::string OnednnVersion() {
#if defined(VLAK_LAB_HAVE_ONEDNN)
  const dnnl_version_t* v = dnnl_version();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d.%d.%d", v->major, v->minor, v->patch);
  return buf;
#else
  return "";
#endif
}

std::string SleefVersion() {
#if defined(VLAK_LAB_HAVE_SLEEF)
  return std::to_string(SLEEF_VERSION_MAJOR) + "." + std::to_string(SLEEF_VERSION_MINOR) + "." +
         std::to_string(SLEEF_VERSION_PATCHLEVEL);
#else
  return "";
#endif
}

#if defined(VLAK_LAB_HAVE_SLEEF) && defined(__x86_64__)
namespace {

__attribute__((target("avx512f"))) void SleefExp16(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, Sleef_expf16_u10(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, Sleef_expf16_u10(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

__attribute__((target("avx2,fma"))) void SleefExp8(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Sleef_expf8_u10(_mm256_loadu_ps(x + i)));
  if (i < n) {
    float buf[8] = {0};
    for (size_t j = 0; j < n - i; ++j) buf[j] = x[i + j];
    _mm256_storeu_ps(buf, Sleef_expf8_u10(_mm256_loadu_ps(buf)));
    for (size_t j = 0; j < n - i; ++j) y[i + j] = buf[j];
  }
}

}  // namespace
#endif

bool SleefIsaSupported(const std::string& isa) {
#if defined(VLAK_LAB_HAVE_SLEEF)
  if (isa == "scalar") return true;
#if defined(__x86_64__)
  if (isa == "avx512") return __builtin_cpu_supports("avx512f");
  if (isa == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#endif
  (void)isa;
  return false;
}

void SleefExpF32(const std::string& isa, const float* x, float* y, size_t n) {
#if defined(VLAK_LAB_HAVE_SLEEF)
#if defined(__x86_64__)
  if (isa == "avx512") return SleefExp16(x, y, n);
  if (isa == "avx2") return SleefExp8(x, y, n);
#endif
  for (size_t i = 0; i < n; ++i) y[i] = Sleef_expf_u10(x[i]);
#else
  (void)isa, (void)x, (void)y, (void)n;
#endif
}

// ---- oneDNN for the transformer operators ----------------------------------------------------

#if defined(VLAK_LAB_HAVE_ONEDNN)
namespace {

// Engine, stream, the primitive and its arguments, shared by the Prepared's closures.
struct OnednnRun {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream s{eng};
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
  std::vector<float> owned;  // buffers oneDNN needs that the lab's problem does not have
};

dnnl::memory::desc Md(std::vector<long> dims) {
  const auto tag = dims.size() == 1 ? dnnl::memory::format_tag::a : dnnl::memory::format_tag::ab;
  return dnnl::memory::desc(dnnl::memory::dims(dims.begin(), dims.end()), dnnl::memory::data_type::f32, tag);
}

dnnl::memory Mem(const OnednnRun& r, const dnnl::memory::desc& md, const float* p) {
  return dnnl::memory(md, r.eng, const_cast<float*>(p));
}

// The thread count set first (primitives fix their thread count when they are created:
// dnnl_get_max_threads(), also a key of oneDNN's primitive cache; select() alone would leave a
// primitive made at another count running that many threads), then build(r) makes the primitive
// and its arguments; the Prepared runs it on `threads` threads. A oneDNN exception leaves run empty and
// *err saying why.
Prepared OnednnPrepare(int threads, std::string* err, const std::function<void(OnednnRun& r)>& build) {
  try {
    SetOmpThreads(threads);
    auto r = std::make_shared<OnednnRun>();
    build(*r);
    Prepared pr;
    pr.select = [threads] { SetOmpThreads(threads); };
    pr.run = [r] {
      r->prim.execute(r->s, r->args);
      r->s.wait();
      return true;
    };
    return pr;
  } catch (const std::exception& e) {
    *err = std::string("oneDNN: ") + e.what();
    return Prepared{};
  }
}

const dnnl::normalization_flags kScaleShift = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;

}  // namespace
#endif

// exp (1-D) and row softmax (2-D) in oneDNN's plain layouts.
Prepared OnednnPrepared(OnednnOp op, std::vector<long> dims, const float* x, float* y, int threads,
                        std::string* err) {
#if defined(VLAK_LAB_HAVE_ONEDNN)
  const size_t rank = op == OnednnOp::kExp ? 1 : 2;
  if (dims.size() != rank) {
    *err = "oneDNN: " + std::to_string(dims.size()) + "-D shape, this operator takes " + std::to_string(rank) + "-D";
    return Prepared{};
  }
  return OnednnPrepare(threads, err, [&](OnednnRun& r) {
    const auto md = Md(dims);
    if (op == OnednnOp::kExp) {
      const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_exp, md, 0.f,
                                             0.f);
      r.prim = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(desc, r.eng));
    } else {
      const dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md, 1);
      r.prim = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(desc, r.eng));
    }
    r.args = {{DNNL_ARG_SRC, Mem(r, md, x)}, {DNNL_ARG_DST, Mem(r, md, y)}};
  });
#else
  (void)op, (void)dims, (void)x, (void)y, (void)threads;
  *err = OnednnMissing();
  return Prepared{};
#endif
}

Prepared OnednnLayernormForward(size_t rows, size_t cols, const float* x, const float* gamma, const float* beta,
                                float eps, float* y, int threads, std::string* err) {
#if defined(VLAK_LAB_HAVE_ONEDNN)
  return OnednnPrepare(threads, err, [&](OnednnRun& r) {
    const auto md = Md({static_cast<long>(rows), static_cast<long>(cols)});
    const auto cmd = Md({static_cast<long>(cols)});
    const dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md, eps, kScaleShift);
    const dnnl::layer_normalization_forward::primitive_desc pd(desc, r.eng);
    r.prim = dnnl::layer_normalization_forward(pd);
    r.args = {{DNNL_ARG_SRC, Mem(r, md, x)}, {DNNL_ARG_DST, Mem(r, md, y)},
              {DNNL_ARG_SCALE, Mem(r, cmd, gamma)}, {DNNL_ARG_SHIFT, Mem(r, cmd, beta)}};
  });
#else
  (void)rows, (void)cols, (void)x, (void)gamma, (void)beta, (void)eps, (void)y, (void)threads;
  *err = OnednnMissing();
  return Prepared{};
#endif
}

Prepared OnednnLayernormBackward(size_t rows, size_t cols, const float* dy, const float* x, const float* gamma,
                                 const float* mean, const float* rstd, float eps, float* dx, float* dgamma,
                                 float* dbeta, int threads, std::string* err) {
#if defined(VLAK_LAB_HAVE_ONEDNN)
  return OnednnPrepare(threads, err, [&](OnednnRun& r) {
    const auto md = Md({static_cast<long>(rows), static_cast<long>(cols)});
    const auto cmd = Md({static_cast<long>(cols)});
    const auto smd = Md({static_cast<long>(rows)});
    const dnnl::layer_normalization_forward::desc fdesc(dnnl::prop_kind::forward_training, md, eps, kScaleShift);
    const dnnl::layer_normalization_forward::primitive_desc fpd(fdesc, r.eng);
    const dnnl::layer_normalization_backward::desc desc(dnnl::prop_kind::backward, md, md, eps, kScaleShift);
    const dnnl::layer_normalization_backward::primitive_desc pd(desc, r.eng, fpd);
    r.prim = dnnl::layer_normalization_backward(pd);
    // oneDNN wants the variance (rows) and, with use_shift, a shift it does not use (cols, zero).
    r.owned.assign(rows + cols, 0.0f);
    for (size_t i = 0; i < rows; ++i) {
      const double rs = rstd[i];
      r.owned[i] = static_cast<float>(1.0 / (rs * rs) - static_cast<double>(eps));
    }
    r.args = {{DNNL_ARG_SRC, Mem(r, md, x)},          {DNNL_ARG_DIFF_DST, Mem(r, md, dy)},
              {DNNL_ARG_MEAN, Mem(r, smd, mean)},     {DNNL_ARG_VARIANCE, Mem(r, smd, r.owned.data())},
              {DNNL_ARG_SCALE, Mem(r, cmd, gamma)},   {DNNL_ARG_SHIFT, Mem(r, cmd, r.owned.data() + rows)},
              {DNNL_ARG_DIFF_SRC, Mem(r, md, dx)},
              {DNNL_ARG_DIFF_SCALE, Mem(r, cmd, dgamma)}, {DNNL_ARG_DIFF_SHIFT, Mem(r, cmd, dbeta)}};
  });
#else
  (void)rows, (void)cols, (void)dy, (void)x, (void)gamma, (void)mean, (void)rstd, (void)eps, (void)dx, (void)dgamma,
      (void)dbeta, (void)threads;
  *err = OnednnMissing();
  return Prepared{};
#endif
}

Prepared OnednnMatmul(size_t m, size_t n, size_t k, const float* a, const float* b, float* c, int threads,
                      std::string* err) {
#if defined(VLAK_LAB_HAVE_ONEDNN)
  return OnednnPrepare(threads, err, [&](OnednnRun& r) {
    const auto amd = Md({static_cast<long>(m), static_cast<long>(k)});
    const auto bmd = Md({static_cast<long>(k), static_cast<long>(n)});
    const auto cmd = Md({static_cast<long>(m), static_cast<long>(n)});
    const dnnl::matmul::desc desc(amd, bmd, cmd);
    r.prim = dnnl::matmul(dnnl::matmul::primitive_desc(desc, r.eng));
    r.args = {{DNNL_ARG_SRC, Mem(r, amd, a)}, {DNNL_ARG_WEIGHTS, Mem(r, bmd, b)}, {DNNL_ARG_DST, Mem(r, cmd, c)}};
  });
#else
  (void)m, (void)n, (void)k, (void)a, (void)b, (void)c, (void)threads;
  *err = OnednnMissing();
  return Prepared{};
#endif
}

Prepared OnednnLinear(size_t m, size_t n, size_t k, const float* a, const float* w, const float* bias, bool gelu,
                      float* c, int threads, std::string* err) {
#if defined(VLAK_LAB_HAVE_ONEDNN)
  return OnednnPrepare(threads, err, [&](OnednnRun& r) {
    const long lm = static_cast<long>(m), ln = static_cast<long>(n), lk = static_cast<long>(k);
    const auto amd = Md({lm, lk});
    // W stored [n][k]: the k x n weights with strides {1, k}.
    const dnnl::memory::desc wmd(dnnl::memory::dims{lk, ln}, dnnl::memory::data_type::f32, dnnl::memory::dims{1, lk});
    const dnnl::memory::desc bmd(dnnl::memory::dims{1, ln}, dnnl::memory::data_type::f32,
                                 dnnl::memory::format_tag::ab);
    const auto cmd = Md({lm, ln});
    dnnl::primitive_attr attr;
    if (gelu) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    const dnnl::matmul::desc desc(amd, wmd, bmd, cmd);
    r.prim = dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, r.eng));
    r.args = {{DNNL_ARG_SRC, Mem(r, amd, a)},
              {DNNL_ARG_WEIGHTS, Mem(r, wmd, w)},
              {DNNL_ARG_BIAS, Mem(r, bmd, bias)},
              {DNNL_ARG_DST, Mem(r, cmd, c)}};
  });
#else
  (void)m, (void)n, (void)k, (void)a, (void)w, (void)bias, (void)gelu, (void)c, (void)threads;
  *err = OnednnMissing();
  return Prepared{};
#endif
}

// ---- OpenBLAS -------------------------------------------------------------------------------

#if defined(VLAK_LAB_HAVE_OPENBLAS)
std::string OpenblasMissing() { return ""; }
#else
std::string OpenblasMissing() { return NotBuilt("libopenblas-dev"); }
#endif

std::string OpenblasVersion() {
#if defined(VLAK_LAB_HAVE_OPENBLAS)
  // openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64"
  return openblas_get_config();
#else
  return "";
#endif
}

void OpenblasSetThreads(int threads) {
#if defined(VLAK_LAB_HAVE_OPENBLAS)
  openblas_set_num_threads(threads);
#else
  (void)threads;
#endif
}

void OpenblasSgemm(int threads, size_t m, size_t n, size_t k, const float* a, const float* b, float* c) {
#if defined(VLAK_LAB_HAVE_OPENBLAS)
  openblas_set_num_threads(threads);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m), static_cast<blasint>(n),
              static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(k), b, static_cast<blasint>(n), 0.0f, c,
              static_cast<blasint>(n));
#else
  (void)threads, (void)m, (void)n, (void)k, (void)a, (void)b, (void)c;
#endif
}

#if defined(VLAK_LAB_HAVE_EIGEN)
extern "C" const char* vlak_lab_eigen_version(void);
extern "C" void vlak_lab_eigen_matmul(int threads, size_t m, size_t n, size_t k, const float* a, const float* b,
                                      float* c);
#endif

std::string EigenMissing() {
#if defined(VLAK_LAB_HAVE_EIGEN)
  return "";
#elif defined(__riscv)
  return "not built (the lab does not build Eigen for riscv64)";
#elif defined(VLAK_LAB_EIGEN_NEEDS)
  return "not built (needs " VLAK_LAB_EIGEN_NEEDS ": Eigen's threads are OpenMP's, built by g++ on libgomp)";
#else
  return "not built (install libeigen3-dev, reconfigure)";
#endif
}

std::string EigenVersion() {
#if defined(VLAK_LAB_HAVE_EIGEN)
  return vlak_lab_eigen_version();
#else
  return "";
#endif
}

void EigenMatmul(int threads, size_t m, size_t n, size_t k, const float* a, const float* b, float* c) {
#if defined(VLAK_LAB_HAVE_EIGEN)
  vlak_lab_eigen_matmul(threads, m, n, k, a, b, c);
#else
  (void)threads, (void)m, (void)n, (void)k, (void)a, (void)b, (void)c;
#endif
}

}  // namespace vlak::lab
