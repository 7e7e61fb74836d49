// vlak_layernorm_f32 and vlak_layernorm_backward_f32: argument checks, rows over threads, and
// the backward's deterministic reduction of dgamma/dbeta.
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include "dispatch/dispatch.h"
#include "ops/layernorm/layernorm.h"
#include "ops/layernorm/layernorm_kernels.h"
#include "ops/parallel_rows.h"
#include "ops/store_aliasing.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_LAYERNORM_KERNELS)
}  // namespace vlak

extern "C" vlak_status vlak_layernorm_f32(size_t rows, size_t cols, const float* x, size_t x_stride,
                                          const float* gamma, const float* beta, float eps, float* y,
                                          size_t y_stride, float* mean, float* rstd) {
  using namespace vlak;
  return NormRows(kLayerNormRows, rows, cols, x, x_stride, y, y_stride, eps,
                  [&](auto* kernel, size_t begin, size_t end, bool stream) {
                    kernel(end - begin, cols, x + begin * x_stride, x_stride, gamma, beta, eps, y + begin * y_stride,
                           y_stride, mean != nullptr ? mean + begin : nullptr,
                           rstd != nullptr ? rstd + begin : nullptr, stream);
                  });
}

namespace {
// The bytes of x, dy and dx (SIZE_MAX where that overflows); cols > 0.
size_t BackwardBytes(size_t rows, size_t cols) { return rows > SIZE_MAX / 12 / cols ? SIZE_MAX : rows * cols * 12; }

// Whether the backward's rows come from memory: x, dy and dx more than 16 times the L2 (past what
// the L3 keeps beside other work). x86 only, where its kernels then take rows one at a time; a
// pair's dx differs from a lone row's in the last bits, so this depends on the shape and the
// machine, never on the thread count. RVV keeps its pairs (false, no instructions spent).
bool BackwardRowsFromMemory(size_t rows, size_t cols) {
#if defined(__x86_64__)
  return BackwardBytes(rows, cols) / 16 > vlak::L2CacheBytes();
#else
  (void)rows, (void)cols;
  return false;
#endif
}

// The backward's column sums on `threads` threads: ranges of 64 columns, each summed in block order
// (the bits of one thread). Out of line: the one-thread path keeps its instructions (RVV budgets).
[[gnu::noinline]] void SumColumnsOnThreads(decltype(vlak::Dispatch(vlak::kLayerNormColumnSums, vlak::Target{})) sum,
                                           const double* sums, size_t per, size_t blocks, size_t cols, int threads,
                                           float* dgamma, float* dbeta) {
  using namespace vlak;
  ParallelFor(PlanChunks(cols, threads, 64, 1), [&](int, size_t c0, size_t c1) {
    if (dgamma != nullptr) sum(sums + c0, per, static_cast<int>(blocks), c1 - c0, dgamma + c0);
    if (dbeta != nullptr) sum(sums + cols + c0, per, static_cast<int>(blocks), c1 - c0, dbeta + c0);
  });
}
}  // namespace

#if defined(__x86_64__)
namespace vlak {
namespace {
// x86: where the column partials lie against the rows modulo 4 KiB. The backward's first pass
// stores dgamma's and dbeta's f32 partials (acc and acc + b) as it loads dy, x and gamma, and meets
// 4K aliasing where a partial trails one of them by 1 to 511 bytes (store_aliasing.h). The
// scratch's page offset is the heap's, so the call's time moved with it from one process to the
// next (docs/ops/layernorm.md). PartialsShift returns the floats (a multiple of 64, 256 bytes,
// less than kPartialsShiftRoom: 16 places at most, tried in order) to skip at acc so that both
// partials avoid that window for the first four rows of dy and x (a quad's rows; `stride` apart)
// and gamma, or miss as few of them as can be. The same arithmetic wherever the partials lie: the
// same bits.
constexpr size_t kPartialsShiftRoom = 1024;
// p rounded up to a 64-byte line (p has room for it).
inline double* LineAligned(double* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<double*>((a + 63) / 64 * 64);
}
size_t PartialsShift(const float* acc, size_t b, const float* dy, const float* x, size_t stride, const float* gamma) {
  // (Rows as addresses only: a row past the last is never formed as a pointer, nor read.)
  const auto row = [stride](const float* p, size_t r) {
    return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + r * stride * sizeof(float));
  };
  size_t best = 0;
  int best_hits = 1 << 30;
  for (size_t shift = 0; shift < kPartialsShiftRoom && best_hits > 0; shift += 64) {
    int hits = 0;
    for (const float* p : {acc + shift, acc + shift + b}) {
      if (gamma != nullptr) hits += StoreTrailsLoad(p, gamma);
      for (size_t r = 0; r < 4; ++r) hits += StoreTrailsLoad(p, row(dy, r)) + StoreTrailsLoad(p, row(x, r));
    }
    if (hits < best_hits) best = shift, best_hits = hits;
  }
  return best;
}
}  // namespace
}  // namespace vlak
#else
namespace vlak {
namespace {
inline double* LineAligned(double* p) { return p; }  // RVV and scalar: the vector's own alignment
}  // namespace
}  // namespace vlak
#endif

extern "C" vlak_status vlak_layernorm_backward_f32(size_t rows, size_t cols, const float* dy, const float* x,
                                                   size_t stride, const float* gamma, const float* mean,
                                                   const float* rstd, float* dx, float* dgamma, float* dbeta) {
  using namespace vlak;
  if (rows == 0 || cols == 0) return VLAK_OK;
  if (dy == nullptr || x == nullptr || mean == nullptr || rstd == nullptr || dx == nullptr) {
    return VLAK_ERROR_NULL_POINTER;
  }
  if (stride < cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (RowsExtentOverflows(rows, cols, stride)) return VLAK_ERROR_OVERFLOW;
  if (const vlak_status error = TargetError(); error != VLAK_OK) return error;
  // One target for the whole call (vlak_set_target may run concurrently): rows and column sums.
  const Target target = ActiveTarget();
  auto* const kernel = Dispatch(kLayerNormBackwardRows, target);
  const bool columns = dgamma != nullptr || dbeta != nullptr;
  const bool from_memory = BackwardRowsFromMemory(rows, cols);
  // The column sums are reduced over fixed blocks of rows whose size depends on `rows` only (at
  // least 32 rows, at most 32 blocks): each block's f64 sums are added in block order, so
  // dgamma/dbeta are the same bits for every thread count. Scratch, kept by the calling thread
  // between calls: f64 sums per block (16 bytes per column) and an f32 partial per participating
  // thread (8 bytes per column, the pad below and, on x86, 4 KiB and a line of room to place it).
  constexpr size_t kMaxBlocks = 32, kMinBlockRows = 32;
  size_t block_rows = rows, blocks = 1;  // up to 32 rows: one block
  if (rows > kMinBlockRows) {
    block_rows = (rows + kMaxBlocks - 1) / kMaxBlocks;
    if (block_rows < kMinBlockRows) block_rows = kMinBlockRows;
    blocks = (rows + block_rows - 1) / block_rows;
  }
  int threads = 1;
  if (blocks > 1 && NumThreads() > 1) {
    threads = ThreadsForBytes(BackwardBytes(rows, cols), blocks);
  }
  // One vector for both: f32 partials (as doubles' worth of space) for `threads`, then the sums.
  thread_local std::vector<double> scratch;
  // x86: dbeta's f32 partials start 2 KiB after dgamma's, modulo 4 KiB (acc_pad floats between
  // them): at a power-of-two width the two would otherwise share L1 sets, and a load of one would
  // wait on a store to the other (4K aliasing) in the loop that updates both. Measured on x86 only
  // (docs/ops/layernorm.md); elsewhere no pad, and no instructions for it.
  // x86 also starts the partials (each thread's, and dbeta's: cols + acc_pad is 512 modulo 1024)
  // and the f64 sums on 64-byte lines: at the vector's 16-byte alignment every other 32-byte load
  // and store of the first pass's partials straddled two lines (docs/ops/layernorm.md).
  const size_t per = 2 * cols;
#if defined(__x86_64__)
  const size_t acc_pad = (1536 - cols % 1024) % 1024;
  // The shifts' room, and up to a line more: per + acc_pad + room is a whole number of lines.
  const size_t room = kPartialsShiftRoom + (16 - (per + acc_pad) % 16) % 16;
  constexpr size_t kSlack = 64 / sizeof(double) - 1;  // to reach a line from the vector's start
#else
  constexpr size_t acc_pad = 0, room = 0, kSlack = 0;
#endif
  // One participating thread's partials take per + acc_pad + room floats.
  const size_t acc_doubles = ((per + acc_pad + room) * static_cast<size_t>(threads) + 1) / 2;
  if (columns && scratch.size() < kSlack + acc_doubles + per * blocks) {
    try {
      scratch.resize(kSlack + acc_doubles + per * blocks);
    } catch (const std::bad_alloc&) {
      return VLAK_ERROR_OVERFLOW;  // as matmul: no out-of-memory status; nothing written yet
    }
  }
  // Without column sums the vector may be empty (data() null): no offset from it then.
  double* const base = columns ? LineAligned(scratch.data()) : scratch.data();
  float* const acc_base = reinterpret_cast<float*>(base);
  double* const sums_base = columns ? base + acc_doubles : nullptr;
  // Block b of the rows, reduced on its own into its f64 sums.
  auto block = [&](int worker, size_t b) {
    float* ag = columns ? acc_base + (per + acc_pad + room) * static_cast<size_t>(worker) : nullptr;
    double* const sg = columns ? sums_base + per * b : nullptr;
    const size_t begin = b * block_rows, end = rows - begin < block_rows ? rows : begin + block_rows;
#if defined(__x86_64__)
    if (columns) ag += PartialsShift(ag, cols + acc_pad, dy + begin * stride, x + begin * stride, stride, gamma);
#endif
    kernel(end - begin, cols, dy + begin * stride, x + begin * stride, stride, gamma, mean + begin, rstd + begin,
           dx + begin * stride, ag, columns ? ag + cols + acc_pad : nullptr, sg, columns ? sg + cols : nullptr,
           from_memory);
  };
  if (blocks == 1) {
    block(0, 0);
  } else if (threads <= 1) {
    for (size_t b = 0; b < blocks; ++b) block(0, b);
  } else {
    ParallelFor(PlanChunks(blocks, threads, 1, 1), [&](int worker, size_t b0, size_t b1) {  // items: the blocks
      for (size_t b = b0; b < b1; ++b) block(worker, b);
    });
    // The blocks' sums, column by column in block order, on the threads that ran the blocks
    // (columns in ranges of 64: each column's sum is the same whichever thread adds it).
    if (columns) {
      SumColumnsOnThreads(Dispatch(kLayerNormColumnSums, target), sums_base, per, blocks, cols, threads, dgamma,
                          dbeta);
    }
    return VLAK_OK;
  }
  if (columns) {
    auto* const column_sums = Dispatch(kLayerNormColumnSums, target);
    if (dgamma != nullptr) column_sums(sums_base, per, static_cast<int>(blocks), cols, dgamma);
    if (dbeta != nullptr) column_sums(sums_base + cols, per, static_cast<int>(blocks), cols, dbeta);
  }
  return VLAK_OK;
}
