// ggml as a lab baseline (ggml_baseline.h): the calls into ggml's public C API, or, where the
// peer build is missing, stubs that say how to build it.
#include "lab/ggml_baseline.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#if defined(VLAK_LAB_HAVE_GGML)
#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>
#endif

namespace vlak::lab {
namespace {

bool KnownType(int t) { return t == kGgmlQ4_0 || t == kGgmlQ4_1 || t == kGgmlQ8_0; }

size_t BlockBytes(int t) { return t == kGgmlQ4_0 ? 18 : t == kGgmlQ4_1 ? 20 : t == kGgmlQ8_0 ? 34 : 0; }

// Sizes ggml indexes with int64_t, and products that must not wrap.
[[maybe_unused]] bool ProductOk(size_t rows, size_t cols) {
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int32_t>::max());
  return rows > 0 && cols > 0 && rows <= kMax && cols <= kMax && rows <= SIZE_MAX / cols / sizeof(float);
}
[[maybe_unused]] bool SizesOk(size_t rows, size_t k) { return k % 32 == 0 && ProductOk(rows, k); }

#if !defined(VLAK_LAB_HAVE_GGML)
bool NotBuilt() {
  static std::once_flag once;
  std::call_once(once, [] { std::fprintf(stderr, "ggml not built: run make peers\n"); });
  return false;
}
#endif

}  // namespace

size_t GgmlRowBytes(int type, size_t k) {
  if (!KnownType(type) || k == 0 || k % 32 != 0) return 0;
  return k / 32 * BlockBytes(type);
}

#if !defined(VLAK_LAB_HAVE_GGML)

std::string GgmlMissing() { return "ggml not built: run make peers"; }
std::string GgmlVersion() { return ""; }
bool GgmlQuantize(int, size_t, size_t, const float*, void*) { return NotBuilt(); }
bool GgmlDequantize(int, size_t, size_t, const void*, float*) { return NotBuilt(); }
bool GgmlMatmulQ(int, size_t, size_t, size_t, const float*, const void*, float*, int) { return NotBuilt(); }
bool GgmlGemvVecDot(int, size_t, size_t, const float*, const void*, float*) { return NotBuilt(); }
std::unique_ptr<GgmlMatmul> GgmlMatmul::Create(int, size_t, size_t, size_t, const void*, int, const std::string&,
                                               std::string* err, size_t) {
  if (err) *err = GgmlMissing();
  NotBuilt();
  return nullptr;
}

#else

std::string GgmlMissing() { return ""; }
std::string GgmlVersion() {
#if defined(VLAK_LAB_GGML_VERSION)
  return VLAK_LAB_GGML_VERSION;
#else
  return "ggml (version unknown)";
#endif
}

namespace {

void CpuInit() {
  static std::once_flag once;
  std::call_once(once, [] {
    // ggml's info lines (each repacked tensor) are noise in a test or a table; warnings stay.
    ggml_log_set(
        [](ggml_log_level level, const char* text, void*) {
          if (level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
        },
        nullptr);
    ggml_cpu_init();
  });
}

ggml_backend_dev_t CpuDevice() { return ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0); }

// The first of ggml's extra CPU buffer types (AMX, the repacked layouts; `only`: the one of that
// name) that takes W for this mul_mat, asked the way llama.cpp's loader asks: W placed in an empty
// buffer of that type, then ggml_backend_dev_supports_op on the op. nullptr where none does.
ggml_backend_buffer_type_t ExtraBufferType(ggml_tensor* w, ggml_tensor* op, const std::string& only) {
  auto get = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(
      ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "ggml_backend_dev_get_extra_bufts"));
  if (!get) return nullptr;
  ggml_backend_dev_t dev = CpuDevice();
  for (ggml_backend_buffer_type_t* b = get(dev); b && *b; ++b) {
    if (!only.empty() && only != ggml_backend_buft_name(*b)) continue;
    ggml_backend_buffer_t probe = ggml_backend_buft_alloc_buffer(*b, 0);
    if (!probe) continue;
    w->buffer = probe;
    const bool ok = ggml_backend_dev_supports_op(dev, op);
    w->buffer = nullptr;
    ggml_backend_buffer_free(probe);
    if (ok) return *b;
  }
  return nullptr;
}

class GgmlMatmulImpl final : public GgmlMatmul {
 public:
  ~GgmlMatmulImpl() override {
    if (backend_) ggml_backend_free(backend_);
    if (pool_) ggml_threadpool_free(pool_);
    if (wbuf_) ggml_backend_buffer_free(wbuf_);
    if (iobuf_) ggml_backend_buffer_free(iobuf_);
    if (ctx_w_) ggml_free(ctx_w_);
    if (ctx_io_) ggml_free(ctx_io_);
  }

  bool Init(int type, size_t m, size_t n, size_t k, const void* w, int threads, const std::string& layout,
            size_t copies, std::string* err) {
    CpuInit();
    const ggml_init_params wp{ggml_tensor_overhead() * (copies + 1), nullptr, true};
    ctx_w_ = ggml_init(wp);
    const ggml_init_params iop{ggml_tensor_overhead() * (copies + 8) + ggml_graph_overhead(), nullptr, true};
    ctx_io_ = ggml_init(iop);
    if (!ctx_w_ || !ctx_io_) return Fail(err, "ggml_init");
    a_ = ggml_new_tensor_2d(ctx_io_, GGML_TYPE_F32, static_cast<int64_t>(k), static_cast<int64_t>(m));
    std::vector<ggml_tensor*> ws, cs;
    for (size_t i = 0; i < copies; ++i) {
      ws.push_back(ggml_new_tensor_2d(ctx_w_, static_cast<ggml_type>(type), static_cast<int64_t>(k),
                                      static_cast<int64_t>(n)));
      cs.push_back(ggml_mul_mat(ctx_io_, ws.back(), a_));  // ne = {n, m}: C row-major m×n
    }
    w_ = ws[0];
    c_ = cs[0];
    ggml_backend_buffer_type_t wbuft = nullptr;
    if (layout != "CPU") {
      wbuft = ExtraBufferType(w_, c_, layout == "auto" ? std::string() : layout);
      if (!wbuft && layout != "auto") return Fail(err, "layout " + layout + " for this W");
    }
    if (!wbuft) wbuft = ggml_backend_cpu_buffer_type();
    layout_ = ggml_backend_buft_name(wbuft);
    wbuf_ = ggml_backend_alloc_ctx_tensors_from_buft(ctx_w_, wbuft);
    if (!wbuf_) return Fail(err, "ggml_backend_alloc_ctx_tensors_from_buft (weights)");
    ggml_backend_buffer_set_usage(wbuf_, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    for (ggml_tensor* wi : ws) ggml_backend_tensor_set(wi, w, 0, ggml_nbytes(wi));  // repacks in an extra buffer
    iobuf_ = ggml_backend_alloc_ctx_tensors_from_buft(ctx_io_, ggml_backend_cpu_buffer_type());
    if (!iobuf_) return Fail(err, "ggml_backend_alloc_ctx_tensors_from_buft (activations)");
    graph_ = ggml_new_graph(ctx_io_);
    for (ggml_tensor* ci : cs) ggml_build_forward_expand(graph_, ci);
    backend_ = ggml_backend_cpu_init();
    if (!backend_) return Fail(err, "ggml_backend_cpu_init");
    ggml_threadpool_params tp = ggml_threadpool_params_default(threads);
    pool_ = ggml_threadpool_new(&tp);
    if (!pool_) return Fail(err, "ggml_threadpool_new");
    ggml_backend_cpu_set_n_threads(backend_, threads);
    ggml_backend_cpu_set_threadpool(backend_, pool_);
    return true;
  }

  float* A() override { return static_cast<float*>(a_->data); }
  const float* C() const override { return static_cast<const float*>(c_->data); }
  bool Run() override { return ggml_backend_graph_compute(backend_, graph_) == GGML_STATUS_SUCCESS; }
  void Idle() override { ggml_threadpool_pause(pool_); }  // a paused pool resumes at the next compute
  std::string Layout() const override { return layout_; }

 private:
  static bool Fail(std::string* err, const char* what) {
    if (err) *err = std::string(what) + " failed";
    return false;
  }
  static bool Fail(std::string* err, const std::string& what) {
    if (err) *err = what + ": not available";
    return false;
  }
  ggml_context* ctx_w_ = nullptr;
  ggml_context* ctx_io_ = nullptr;
  ggml_tensor* w_ = nullptr;
  ggml_tensor* a_ = nullptr;
  ggml_tensor* c_ = nullptr;
  ggml_cgraph* graph_ = nullptr;
  ggml_backend_buffer_t wbuf_ = nullptr;
  ggml_backend_buffer_t iobuf_ = nullptr;
  ggml_backend_t backend_ = nullptr;
  ggml_threadpool* pool_ = nullptr;
  std::string layout_;
};

}  // namespace

bool GgmlQuantize(int type, size_t rows, size_t k, const float* x, void* q) {
  if (!KnownType(type) || !SizesOk(rows, k) || !x || !q) return false;
  CpuInit();
  const size_t bytes = ggml_quantize_chunk(static_cast<ggml_type>(type), x, q, 0, static_cast<int64_t>(rows),
                                           static_cast<int64_t>(k), nullptr);
  return bytes == rows * GgmlRowBytes(type, k);
}

bool GgmlDequantize(int type, size_t rows, size_t k, const void* q, float* x) {
  if (!KnownType(type) || !SizesOk(rows, k) || !q || !x) return false;
  const ggml_type_traits* t = ggml_get_type_traits(static_cast<ggml_type>(type));
  if (!t || !t->to_float) return false;
  const size_t rb = GgmlRowBytes(type, k);
  for (size_t r = 0; r < rows; ++r) {
    t->to_float(static_cast<const char*>(q) + r * rb, x + r * k, static_cast<int64_t>(k));
  }
  return true;
}

std::unique_ptr<GgmlMatmul> GgmlMatmul::Create(int type, size_t m, size_t n, size_t k, const void* w, int threads,
                                               const std::string& layout, std::string* err, size_t copies) {
  if (!KnownType(type) || !SizesOk(m, k) || !SizesOk(n, k) || !ProductOk(m, n) || !w || threads < 1 || copies < 1 ||
      copies > 1000) {
    if (err) *err = "bad arguments";
    return nullptr;
  }
  auto p = std::make_unique<GgmlMatmulImpl>();
  if (!p->Init(type, m, n, k, w, threads, layout, copies, err)) return nullptr;
  return p;
}

bool GgmlMatmulQ(int type, size_t m, size_t n, size_t k, const float* a, const void* w, float* c, int threads) {
  if (!KnownType(type) || !SizesOk(m, k) || !SizesOk(n, k) || !ProductOk(m, n) || !a || !w || !c || threads < 1) {
    return false;
  }
  std::string err;
  auto p = GgmlMatmul::Create(type, m, n, k, w, threads, "auto", &err);
  if (!p) return false;
  std::memcpy(p->A(), a, m * k * sizeof(float));
  if (!p->Run()) return false;
  std::memcpy(c, p->C(), m * n * sizeof(float));
  return true;
}

bool GgmlGemvVecDot(int type, size_t n, size_t k, const float* a, const void* w, float* c) {
  if (!KnownType(type) || !SizesOk(n, k) || !a || !w || !c) return false;
  CpuInit();
  const ggml_type_traits_cpu* t = ggml_get_type_traits_cpu(static_cast<ggml_type>(type));
  if (!t || !t->vec_dot) return false;
  const ggml_type_traits_cpu* q = ggml_get_type_traits_cpu(t->vec_dot_type);
  if (!q || !q->from_float) return false;
  std::vector<unsigned char> aq(ggml_row_size(t->vec_dot_type, static_cast<int64_t>(k)));
  q->from_float(a, aq.data(), static_cast<int64_t>(k));
  const size_t rb = GgmlRowBytes(type, k);
  for (size_t j = 0; j < n; ++j) {
    t->vec_dot(static_cast<int>(k), c + j, 0, static_cast<const char*>(w) + j * rb, 0, aq.data(), 0, 1);
  }
  return true;
}

#endif  // VLAK_LAB_HAVE_GGML

}  // namespace vlak::lab
