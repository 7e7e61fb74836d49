// vlak_matmul_f32: argument checks, the split of C over threads, the packing buffers.

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "dispatch/dispatch.h"
#include "dispatch/threads.h"
#include "ops/matmul/matmul.h"

namespace vlak {
VLAK_PER_TARGET(kMatmulShape, MatmulShape, MatmulShapeF32, (size_t n))
VLAK_PER_TARGET(kMatmulBlock, void, MatmulBlockF32,
                (const MatmulArgs& g, bool narrow, size_t i0, size_t i1, size_t j0, size_t j1, float* scratch))

namespace {

constexpr unsigned kKnownFlags = VLAK_MATMUL_TRANS_B | VLAK_MATMUL_ACCUMULATE;

// A second thread only when each gets at least this many fused multiply-adds: ~40 us of work at
// 50 GFMA/s, against a few us to wake an OpenMP thread (bench_matmul: 128^3 = 2M on one thread).
constexpr size_t kMinFmasPerThread = size_t{1} << 21;

// The packing buffers, kept between calls in a small process-wide pool: a call takes one buffer
// (all its threads' slices) before anything is written, so a failed allocation leaves C
// untouched, and hands it back after; once warm, a call allocates nothing. Concurrent calls from
// different threads take different buffers. Plain atomics (no destructor, no thread_local object
// with one): buffers still pooled at exit stay reachable, not leaked. The buffer's size sits in
// its first 64 bytes.
constexpr int kPoolSlots = 8;
std::atomic<float*> g_pool[kPoolSlots];
constexpr size_t kHeaderFloats = 16;

size_t BufferFloats(float* base) {
  size_t n;
  std::memcpy(&n, base, sizeof n);
  return n;
}

// A 64-byte aligned buffer of at least `floats` floats (its base, data at base + 16), or null.
float* AcquireBuffer(size_t floats) {
  for (auto& slot : g_pool) {
    float* base = slot.exchange(nullptr, std::memory_order_acquire);
    if (base == nullptr) continue;
    if (BufferFloats(base) >= floats) return base;
    std::free(base);
  }
  if (floats > (SIZE_MAX - 64) / sizeof(float) - kHeaderFloats) return nullptr;
  const size_t bytes = ((floats + kHeaderFloats) * sizeof(float) + 63) / 64 * 64;
  auto* base = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (base != nullptr) std::memcpy(base, &floats, sizeof floats);
  return base;
}

void ReleaseBuffer(float* base) {
  for (auto& slot : g_pool) {
    float* expected = nullptr;
    if (slot.compare_exchange_strong(expected, base, std::memory_order_release, std::memory_order_relaxed)) return;
  }
  std::free(base);
}

// Last element + 1 of a rows x cols matrix with row stride ld fits in addressable bytes.
bool Fits(size_t rows, size_t cols, size_t ld) {
  constexpr size_t kMaxElems = SIZE_MAX / sizeof(float);
  if (cols > kMaxElems) return false;
  // A matrix without columns has no elements (A and B when k == 0): any ld is fine, as any pointer.
  if (cols == 0) return true;
  return rows <= 1 || (rows - 1) <= (kMaxElems - cols) / ld;  // ld >= cols > 0
}

}  // namespace

MatmulShape MatmulActiveShape(size_t n) { return Dispatch(kMatmulShape)(n); }

vlak_status MatmulF32(const MatmulArgs& args, unsigned flags, int threads, size_t* peak_bytes) {
  if (peak_bytes != nullptr) *peak_bytes = 0;
  if ((flags & ~kKnownFlags) != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  MatmulArgs g = args;
  g.b_trans = (flags & VLAK_MATMUL_TRANS_B) != 0;
  g.accumulate = (flags & VLAK_MATMUL_ACCUMULATE) != 0;
  if (g.m == 0 || g.n == 0) return VLAK_OK;
  if (g.c == nullptr || (g.k != 0 && (g.a == nullptr || g.b == nullptr))) return VLAK_ERROR_NULL_POINTER;
  if (g.lda < g.k || g.ldc < g.n || g.ldb < (g.b_trans ? g.k : g.n)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (!Fits(g.m, g.k, g.lda) || !Fits(g.m, g.n, g.ldc) ||
      !(g.b_trans ? Fits(g.n, g.k, g.ldb) : Fits(g.k, g.n, g.ldb))) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  if (g.k == 0) {  // C = 0 (an empty sum), or C unchanged
    if (!g.accumulate) {
      for (size_t i = 0; i < g.m; ++i) std::memset(g.c + i * g.ldc, 0, g.n * sizeof(float));
    }
    return VLAK_OK;
  }

  const Target target = ActiveTarget();
  const MatmulShape shape = Dispatch(kMatmulShape, target)(g.n);
  auto* const block = Dispatch(kMatmulBlock, target);

  // Threads over tiles of C, never over k (each element stays one sequential chain). Split the
  // rows (in whole MR tiles, evenly) when each thread gets >= 4 row tiles: every thread then
  // packs all of B for itself, which costs k*n copies against m*n*k/threads multiply-adds.
  // Otherwise split the columns in whole NR panels. One static part per thread, no barrier until
  // the end. Tried: one packed B block shared by the threads (packed together, then row x column
  // items taken dynamically; two barriers per kc block): on the shared 2-vCPU benchmark machine,
  // interleaved runs gave it 0.5-0.9x the one-thread speed where this split gave 0.8-1.1x (a
  // descheduled thread holds every barrier); quiet, this split measured 1.82-1.91x at 256^3-1024^3.
  const size_t row_tiles = (g.m + shape.mr - 1) / shape.mr;
  const size_t col_tiles = (g.n + shape.nr - 1) / shape.nr;
  size_t t = 1;
  const double fmas = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
  if (threads > 0) {
    t = static_cast<size_t>(threads);
  } else if (fmas >= 2.0 * kMinFmasPerThread) {
    t = static_cast<size_t>(NumThreads());
    const double by_work = fmas / kMinFmasPerThread;
    if (static_cast<double>(t) > by_work) t = static_cast<size_t>(by_work);
  }
  const bool split_rows = row_tiles >= 4 * t || row_tiles >= col_tiles;
  const size_t tiles = split_rows ? row_tiles : col_tiles;
  if (t > tiles) t = tiles;
  if (t < 1) t = 1;
  const size_t slice = (shape.scratch_floats + 15) / 16 * 16;  // 64-byte aligned slices
  float* const base = AcquireBuffer(t * slice);
  if (base == nullptr) return VLAK_ERROR_OVERFLOW;  // no memory for the packing buffers
  float* const pool = base + kHeaderFloats;
  if (peak_bytes != nullptr) *peak_bytes = t * slice * sizeof(float);

  // Part p of t: tiles [p * tiles / t, (p + 1) * tiles / t), in elements.
  auto run_part = [&](size_t p) {
    const size_t lo = p * tiles / t, hi = (p + 1) * tiles / t;
    if (lo == hi) return;
    if (split_rows) {
      const size_t i0 = lo * shape.mr, i1 = hi * shape.mr < g.m ? hi * shape.mr : g.m;
      block(g, shape.narrow, i0, i1, 0, g.n, pool + p * slice);
    } else {
      const size_t j0 = lo * shape.nr, j1 = hi * shape.nr < g.n ? hi * shape.nr : g.n;
      block(g, shape.narrow, 0, g.m, j0, j1, pool + p * slice);
    }
  };
  if (t == 1) {
    run_part(0);
  } else {
#pragma omp parallel for num_threads(static_cast<int>(t)) schedule(static, 1)
    for (size_t p = 0; p < t; ++p) run_part(p);
  }
  ReleaseBuffer(base);
  return VLAK_OK;
}

}  // namespace vlak

extern "C" vlak_status vlak_matmul_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                                       size_t ldb, float* c, size_t ldc, unsigned flags) {
  const vlak::MatmulArgs args{m, n, k, a, lda, b, ldb, c, ldc, false, false};
  return vlak::MatmulF32(args, flags, 0, nullptr);
}
