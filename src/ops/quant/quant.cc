// vlak_quantize_f32, vlak_dequantize_f32, vlak_matmul_q_f32: argument checks, dispatch, threads.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "dispatch/dispatch.h"
#include "dispatch/specialisation.h"
#include "ops/activation/activation_kernels.h"
#include "ops/buffer_pool.h"
#include "ops/matmul/matmul.h"
#include "ops/parallel_rows.h"
#include "ops/quant/quant.h"
#include "ops/quant/quant_kernels.h"
#include "parallel/parallel.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_QUANT_KERNELS)
VLAK_PER_TARGET_TABLES(VLAK_ACTIVATION_KERNELS)  // the epilogue

#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)
// quant_avx512vnni.cc: the quantized-activations columns with vpdpbusd (CPU with AVX512_VNNI).
void MatmulQActColsAvx512Vnni(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1);
// quant_packed_avx512vnni.cc: the same for an x16 W (j0 a multiple of kQGroup).
void MatmulQActPackedAvx512Vnni(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1);
bool QuantCpuHasVnni();
// quant_packed_avx512amx.cc: the same with AMX tiles, 16 rows of A at a time (the rest by VNNI).
void MatmulQActPackedAvx512Amx(const QMatmulArgs& g, const uint8_t* act, size_t j0, size_t j1);
bool QuantCpuHasAmx();
#endif

namespace {
// Whether the CPU (and the OS) can run each avx512 specialisation.
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)
bool CpuVnni() { return QuantCpuHasVnni(); }
bool CpuAmx() { return QuantCpuHasAmx(); }
// Whether decode (m < 4) on an x16 W should take the 512-bit VNNI kernel: not on a CPU that
// issues a 512-bit operation as two 256-bit halves (CpuSplitsZmm: Zen 4). There the
// AVX2 form (quant_x86.h, the same bits) ran SmolLM2's decode 1.9x faster (docs/ops/quant.md).
bool CpuPrefersZmmDecode() { return !CpuSplitsZmm(); }
#else
bool CpuVnni() { return false; }
bool CpuAmx() { return false; }
bool CpuPrefersZmmDecode() { return false; }
#endif
}  // namespace

VLAK_SPECIALISATION_SWITCH(QuantVnni, "VLAK_AVX512_VNNI", CpuVnni)
VLAK_SPECIALISATION_SWITCH(QuantAmx, "VLAK_AVX512_AMX", CpuAmx)
VLAK_SPECIALISATION_SWITCH(QuantZmmDecode, "VLAK_AVX512_ZMM_DECODE", CpuVnni, CpuPrefersZmmDecode)

namespace {

bool KnownType(int t) { return QBlockBytes(t) != 0; }

constexpr size_t kGrain = 16;  // rows of W per unit of the column split

// rows x cols elements of `elem` bytes at `stride` elements fit in addressable bytes.
bool ExtentFits(size_t rows, size_t cols_bytes, size_t stride_bytes) {
  if (rows <= 1 || cols_bytes == 0) return true;  // a matrix without columns has no elements
  return (rows - 1) <= (SIZE_MAX - cols_bytes) / stride_bytes;
}
bool FloatExtentFits(size_t rows, size_t cols, size_t stride) {
  if (cols > SIZE_MAX / 4) return false;
  if (rows <= 1 || cols == 0) return true;  // one row: its stride is never stepped
  if (stride > SIZE_MAX / 4) return false;
  return ExtentFits(rows, cols * 4, stride * 4);
}

using ActCols = void (*)(const QMatmulArgs&, const uint8_t*, size_t, size_t);

ActCols ActColsKernel(Target target) {
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)
  if (target == Target::kAvx512 && QuantVnniEnabled()) return MatmulQActColsAvx512Vnni;
#endif
  return Dispatch(kMatmulQActCols, target);
}

// Columns [0, n) over threads in chunks of whole grains of rows of W (kGrain, or a grouped
// layout's group when larger: chunks start on a group); every column is computed whole
// by one chunk, so the split never changes a bit. Threads from the call's time at the kernels'
// rate: ns_per_mac, a round figure below what one core measured (docs/ops/quant.md: decode at
// 0.05-0.12 ns per weight); the byte-based rule of the row operators assumes memcpy speed, several
// times these kernels'. fn_cols(worker, j0, j1); `slice_bytes` > 0: each worker's scratch, passed
// as fn_cols' first argument (nullptr when slice_bytes is 0). VLAK_ERROR_OVERFLOW when it cannot
// be had, before anything is written.
template <class F>
vlak_status ForEachColumnChunk(const QMatmulArgs& g, Target target, int threads, double ns_per_mac, size_t slice_bytes,
                               F&& fn_cols) {
  // Each chunk's columns get the epilogue right after they are computed (still in cache).
  auto* const epilogue = g.HasEpilogue() ? Dispatch(kBiasActivationRowsF32, target) : nullptr;
  const size_t grain = g.group > kGrain ? g.group : kGrain;  // groups are powers of 2: 16 divides them
  const size_t units = (g.n + grain - 1) / grain;
  int t = threads;
  if (t <= 0) {
    const double macs = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
    t = macs < static_cast<double>(kNeverSplitBytes) || NumThreads() <= 1 ? 1 : ThreadsForNs(macs * ns_per_mac, units);
  }
  if ((t <= 1 || units < 2) && slice_bytes == 0) {  // one thread, no scratch: the kernel directly
    fn_cols(nullptr, size_t{0}, g.n);
    if (epilogue != nullptr) epilogue(g.act, g.m, g.n, g.bias, g.c, g.ldc);
    return VLAK_OK;
  }
  const ParallelPlan plan = t <= 1 || units < 2 ? OneThreadPlan(units) : PlanChunks(units, t, 1, 4);
  const size_t slices = static_cast<size_t>(plan.threads);
  if (slice_bytes > 0 && slices > SIZE_MAX / slice_bytes - 64) return VLAK_ERROR_OVERFLOW;
  auto run = [&](uint8_t* scratch) {
    ParallelFor(plan, [&](int worker, size_t begin, size_t end) {
      const size_t j0 = begin * grain, j1 = end * grain < g.n ? end * grain : g.n;
      fn_cols(scratch != nullptr ? scratch + worker * slice_bytes : nullptr, j0, j1);
      if (epilogue != nullptr) epilogue(g.act, g.m, j1 - j0, g.bias != nullptr ? g.bias + j0 : nullptr, g.c + j0, g.ldc);
    });
  };
  if (slice_bytes == 0) {
    run(nullptr);
    return VLAK_OK;
  }
  PooledBuffer scratch((slices * slice_bytes + 3) / 4);
  if (scratch.data() == nullptr) return VLAK_ERROR_OVERFLOW;
  run(reinterpret_cast<uint8_t*>(scratch.data()));
  return VLAK_OK;
}

// The scratch ForRows needs per worker: kQGroup rows (0 when W is in rows already).
size_t RowsScratchBytes(const QMatmulArgs& g) { return g.group > 0 ? kQGroup * g.w_stride : 0; }

// fn(rows_args, j0', j1') over columns [j0, j1) of C with W in GGUF's row layout: g itself, or for
// a grouped W each kQGroup rows unpacked into `scratch` and an args of those rows (n, w, c, bias
// moved to them). The kernels compute each column whole, so the bits are those of the rows.
template <class F>
void ForRows(const QMatmulArgs& g, uint8_t* scratch, size_t j0, size_t j1, F&& fn) {
  if (g.group == 0) {
    fn(g, j0, j1);
    return;
  }
  for (size_t j = j0; j < j1; j += kQGroup) {
    const size_t rows = j1 - j < kQGroup ? j1 - j : kQGroup;
    for (size_t r = 0; r < rows; ++r) UnpackGroupRow(g.wtype, g.k, g.w, j + r, g.group, g.piece, scratch + r * g.w_stride);
    QMatmulArgs s = g;
    s.n = rows;
    s.w = scratch;
    s.c = g.c + j;
    s.bias = g.bias != nullptr ? g.bias + j : nullptr;
    s.group = s.piece = 0;
    fn(s, size_t{0}, rows);
  }
}

// Exact weights, m >= kQPanelMinM: panels of W dequantized into a buffer, then vlak_matmul_f32's
// kernel (C[:, j0:j1] = A * panel^T). The panel height depends on k only.
vlak_status PanelMatmul(const QMatmulArgs& g, Target target, int threads) {
  size_t rows = (size_t{1} << 18) / g.k / 16 * 16;  // ~1 MiB of floats
  if (rows < 16) rows = 16;
  if (rows > g.n) rows = g.n;
  // A grouped W: one row at a time unpacked into a row's bytes after the panel, then dequantized.
  const size_t row_floats = g.group > 0 ? (g.w_stride + 3) / 4 * static_cast<size_t>(NumThreads() + 1) : 0;
  PooledBuffer buf(rows * g.k + row_floats);
  if (buf.data() == nullptr) return VLAK_ERROR_OVERFLOW;
  auto* const deq = Dispatch(kDequantizeRows, target);
  for (size_t j0 = 0; j0 < g.n; j0 += rows) {
    const size_t nr = g.n - j0 < rows ? g.n - j0 : rows;
    float* const panel = buf.data();
    ForEachRowChunk(nr, g.k, [&](int worker, size_t b, size_t e) {
      if (g.group == 0) {
        deq(g.wtype, e - b, g.k, g.w + (j0 + b) * g.w_stride, g.w_stride, panel + b * g.k, g.k);
        return;
      }
      auto* const row = reinterpret_cast<uint8_t*>(buf.data() + rows * g.k + (g.w_stride + 3) / 4 * worker);
      for (size_t r = b; r < e; ++r) {
        UnpackGroupRow(g.wtype, g.k, g.w, j0 + r, g.group, g.piece, row);
        deq(g.wtype, 1, g.k, row, g.w_stride, panel + r * g.k, g.k);
      }
    });
    MatmulArgs ma{g.m, nr, g.k, g.a, g.lda, panel, g.k, g.c + j0, g.ldc, true, false};
    ma.bias = g.bias != nullptr ? g.bias + j0 : nullptr;  // vlak_matmul_ex_f32's epilogue, applied by its kernels
    ma.act = g.act;
    const vlak_status s = MatmulF32(ma, VLAK_MATMUL_TRANS_B, threads, nullptr);
    if (s != VLAK_OK) return s;
  }
  return VLAK_OK;
}

}  // namespace

vlak_status MatmulQF32(const QMatmulArgs& args, unsigned flags, int threads, int on_target) {
  const QMatmulArgs& g = args;
  if ((flags & ~VLAK_MATMUL_Q_QUANTIZE_A) != 0 || !KnownType(g.wtype) || g.k % kQBlock != 0) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if (g.m == 0 || g.n == 0) return VLAK_OK;
  if (g.c == nullptr || (g.k != 0 && (g.a == nullptr || g.w == nullptr))) return VLAK_ERROR_NULL_POINTER;
  const size_t row_bytes = vlak_qtype_row_bytes(static_cast<vlak_qtype>(g.wtype), g.k);
  if (g.lda < g.k || g.ldc < g.n || g.w_stride < row_bytes) return VLAK_ERROR_INVALID_ARGUMENT;
  if (!FloatExtentFits(g.m, g.k, g.lda) || !FloatExtentFits(g.m, g.n, g.ldc) ||
      !ExtentFits(g.n, row_bytes, g.w_stride)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  const Target target = on_target >= 0 ? static_cast<Target>(on_target) : ActiveTarget();
  if (g.k == 0) {
    for (size_t i = 0; i < g.m; ++i) std::memset(g.c + i * g.ldc, 0, g.n * sizeof(float));
    if (g.HasEpilogue()) Dispatch(kBiasActivationRowsF32, target)(g.act, g.m, g.n, g.bias, g.c, g.ldc);
    return VLAK_OK;
  }
  if ((flags & VLAK_MATMUL_Q_QUANTIZE_A) != 0) {
    const size_t per_row = QActBytes(g.k);
    if (g.m > SIZE_MAX / per_row - 64) return VLAK_ERROR_OVERFLOW;
    PooledBuffer buf((g.m * per_row + 3) / 4);
    if (buf.data() == nullptr) return VLAK_ERROR_OVERFLOW;
    uint8_t* const act = reinterpret_cast<uint8_t*>(buf.data());
    auto* const qa = Dispatch(kQuantizeActRows, target);
    ForEachRowChunk(g.m, g.k, [&](int, size_t b, size_t e) {
      qa(e - b, g.k, g.a + b * g.lda, g.lda, act + b * per_row);
    });
    // A grouped layout: its target's own kernel, split at a decode's streaming rate (docs/ops/quant.md).
    if (g.group > 0) {
      ActCols packed = Dispatch(kMatmulQActGroupedCols, target);
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)
      if (target == Target::kAvx512) {  // only the VNNI target packs x16
        if (g.m >= 16 && QuantAmxEnabled()) {
          packed = MatmulQActPackedAvx512Amx;
        } else if (g.m >= 4 || QuantZmmDecodeEnabled()) {
          packed = MatmulQActPackedAvx512Vnni;
        }  // else decode on a CPU that splits 512-bit operations: the AVX2 form, the same bits
      }
#endif
      return ForEachColumnChunk(g, target, threads, 0.05, 0, [&](uint8_t*, size_t j0, size_t j1) { packed(g, act, j0, j1); });
    }
    const ActCols cols = ActColsKernel(target);
    return ForEachColumnChunk(g, target, threads, 0.04, RowsScratchBytes(g), [&](uint8_t* scratch, size_t j0, size_t j1) {
      ForRows(g, scratch, j0, j1, [&](const QMatmulArgs& r, size_t c0, size_t c1) { cols(r, act, c0, c1); });
    });
  }
  if (g.m >= kQPanelMinM) return PanelMatmul(g, target, threads);
  auto* const exact = Dispatch(kMatmulQExactCols, target);
  return ForEachColumnChunk(g, target, threads, 0.08, RowsScratchBytes(g), [&](uint8_t* scratch, size_t j0, size_t j1) {
    ForRows(g, scratch, j0, j1, [&](const QMatmulArgs& r, size_t c0, size_t c1) { exact(r, c0, c1); });
  });
}

vlak_status MatmulQGroupedPlainF32(const QMatmulArgs& g) {
  if (g.group == 0 || g.k == 0 || g.m == 0) return VLAK_ERROR_INVALID_ARGUMENT;
  const size_t per_row = QActBytes(g.k);
  PooledBuffer buf((g.m * per_row + 3) / 4);
  if (buf.data() == nullptr) return VLAK_ERROR_OVERFLOW;
  uint8_t* const act = reinterpret_cast<uint8_t*>(buf.data());
  Dispatch(kQuantizeActRows, Target::kScalar)(g.m, g.k, g.a, g.lda, act);
  Dispatch(kMatmulQActGroupedCols, Target::kScalar)(g, act, 0, g.n);
  return VLAK_OK;
}

void QuantizeActRowsForTest(bool scalar, size_t rows, size_t k, const float* a, size_t lda, uint8_t* act) {
  Dispatch(kQuantizeActRows, scalar ? Target::kScalar : ActiveTarget())(rows, k, a, lda, act);
}

}  // namespace vlak

using vlak::kQBlock;

extern "C" size_t vlak_qtype_row_bytes(vlak_qtype t, size_t k) {
  const size_t bb = vlak::QBlockBytes(t);
  if (bb == 0 || k % kQBlock != 0) return 0;
  const size_t blocks = k / kQBlock;
  if (blocks > SIZE_MAX / bb) return 0;
  return blocks * bb;
}

namespace {
// Shared checks of quantize / dequantize: VLAK_OK with *empty when there is nothing to do.
vlak_status CheckRows(vlak_qtype t, size_t rows, size_t k, const void* x, size_t x_stride, const void* q,
                      size_t q_stride, bool* empty) {
  *empty = false;
  if (vlak::QBlockBytes(t) == 0 || k % kQBlock != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (rows == 0 || k == 0) {
    *empty = true;
    return VLAK_OK;
  }
  if (x == nullptr || q == nullptr) return VLAK_ERROR_NULL_POINTER;
  const size_t row_bytes = vlak_qtype_row_bytes(t, k);
  if (x_stride < k || q_stride < row_bytes || row_bytes == 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if (!vlak::FloatExtentFits(rows, k, x_stride) || !(rows <= 1 || (rows - 1) <= (SIZE_MAX - row_bytes) / q_stride)) {
    return VLAK_ERROR_OVERFLOW;
  }
  return vlak::TargetError();
}
}  // namespace

extern "C" vlak_status vlak_quantize_f32(vlak_qtype t, size_t rows, size_t k, const float* x, size_t x_stride, void* q,
                                         size_t q_stride_bytes) {
  using namespace vlak;
  bool empty = false;
  if (const vlak_status s = CheckRows(t, rows, k, x, x_stride, q, q_stride_bytes, &empty); s != VLAK_OK || empty) return s;
  for (size_t i = 0; i < rows; ++i) {  // finite inputs only: checked before anything is written
    const float* xr = x + i * x_stride;
    bool finite = true;
    for (size_t p = 0; p < k; ++p) finite &= std::fabs(xr[p]) <= 3.40282347e38f;
    if (!finite) return VLAK_ERROR_INVALID_ARGUMENT;
  }
  auto* const kernel = Dispatch(kQuantizeRows, ActiveTarget());
  uint8_t* const qb = static_cast<uint8_t*>(q);
  ForEachRowChunk(rows, k, [&](int, size_t b, size_t e) {
    kernel(t, e - b, k, x + b * x_stride, x_stride, qb + b * q_stride_bytes, q_stride_bytes);
  });
  return VLAK_OK;
}

extern "C" vlak_status vlak_dequantize_f32(vlak_qtype t, size_t rows, size_t k, const void* q, size_t q_stride_bytes,
                                           float* y, size_t y_stride) {
  using namespace vlak;
  bool empty = false;
  if (const vlak_status s = CheckRows(t, rows, k, y, y_stride, q, q_stride_bytes, &empty); s != VLAK_OK || empty) return s;
  auto* const kernel = Dispatch(kDequantizeRows, ActiveTarget());
  const uint8_t* const qb = static_cast<const uint8_t*>(q);
  ForEachRowChunk(rows, k, [&](int, size_t b, size_t e) {
    kernel(t, e - b, k, qb + b * q_stride_bytes, q_stride_bytes, y + b * y_stride, y_stride);
  });
  return VLAK_OK;
}

extern "C" vlak_status vlak_matmul_q_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, vlak_qtype wtype,
                                         const void* w, size_t w_stride_bytes, float* c, size_t ldc, unsigned flags,
                                         const struct vlak_matmul_epilogue* epilogue) {
  vlak::QMatmulArgs g{m, n, k, a, lda, static_cast<int>(wtype), static_cast<const uint8_t*>(w), w_stride_bytes, c, ldc};
  if (const vlak_status s = vlak::SetEpilogue(epilogue, &g); s != VLAK_OK) return s;
  return vlak::MatmulQF32(g, flags, 0);
}
