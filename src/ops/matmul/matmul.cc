// vlak_matmul_f32: argument checks, the split of C over threads, the packing buffers.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatch/specialisation.h"
#include "ops/activation/activation_kernels.h"
#include "ops/buffer_pool.h"
#include "ops/matmul/matmul_kernels.h"
#include "parallel/parallel.h"
#include "ops/matmul/matmul.h"

namespace vlak {

// The direct kernel at any m (MatmulTakesDirect's direct_any_rows arm) on CPUs that split 512-bit
// operations (Zen 4). There its 16 x 1 zmm pass, one FMA a cycle, runs at the core's peak and skips
// B's packing; on an Emerald Rapids Xeon, two FMAs a cycle, the packed kernel's 6 x 64 tile was
// 5-13 % faster at one thread, and at two 20-24 % faster on two shapes, 4-8 % slower on three
// (docs/ops/matmul.md). Tests turn it on to cover the route on every AVX-512 CPU;
// VLAK_MATMUL_DIRECT_ANY_ROWS=0 turns it off.
VLAK_SPECIALISATION_SWITCH(MatmulDirectAnyRows, "VLAK_MATMUL_DIRECT_ANY_ROWS", CpuRunsAvx512Target, CpuSplitsZmm)
VLAK_PER_TARGET_TABLES(VLAK_MATMUL_KERNELS)
VLAK_PER_TARGET_TABLES(VLAK_ACTIVATION_KERNELS)  // the epilogue where matmul.cc writes C itself

namespace {

constexpr unsigned kKnownFlags = VLAK_MATMUL_TRANS_B | VLAK_MATMUL_ACCUMULATE;

// Below this many fused multiply-adds a call never splits and measures nothing (~10 us even at
// 200 GFMA/s: no wake-up measured so far is cheap enough to pay for less).
constexpr double kNeverSplitFmas = double(size_t{1} << 21);

// Last element + 1 of a rows x cols matrix with row stride ld fits in addressable bytes.
bool Fits(size_t rows, size_t cols, size_t ld) {
  constexpr size_t kMaxElems = SIZE_MAX / sizeof(float);
  if (cols > kMaxElems) return false;
  // A matrix without columns has no elements (A and B when k == 0): any ld is fine, as any pointer.
  if (cols == 0) return true;
  return rows <= 1 || (rows - 1) <= (kMaxElems - cols) / ld;  // ld >= cols > 0
}

// One core's time per FMA of the target's kernel, measured once per target on an L1/L2-resident
// call (4 MR x 4 NR tiles, k = 256; best of 3), rounded down to a power of two: the parallel
// layer's cost model turns a call's FMAs into time with it (src/parallel/parallel.h).
double NsPerFma(Target target, const MatmulShape& shape, decltype(Dispatch(kMatmulBlock)) block) {
  static std::atomic<float> measured[kNumTargets];
  std::atomic<float>& slot = measured[static_cast<int>(target)];
  float v = slot.load(std::memory_order_relaxed);
  if (v > 0) return v;
  const size_t m = 4 * shape.mr, n = 4 * shape.nr < shape.nc ? 4 * shape.nr : shape.nc, k = 256;
  std::unique_ptr<float[]> a(new (std::nothrow) float[m * k]()), b(new (std::nothrow) float[k * n]()),
      c(new (std::nothrow) float[m * n]());
  float* const base = AcquireBuffer(shape.scratch_floats);
  double best = 1e300;
  if (a && b && c && base != nullptr) {
    const MatmulArgs g{m, n, k, a.get(), k, b.get(), n, c.get(), n, false, false};
    for (int r = 0; r < 3; ++r) {
      const int64_t t0 = MonotonicNs();
      block(g, shape.narrow, 0, m, 0, n, base + kPoolHeaderFloats);
      const double ns = static_cast<double>(MonotonicNs() - t0);
      if (ns > 0 && ns < best) best = ns;
    }
  }
  if (base != nullptr) ReleaseBuffer(base);
  double per = best < 1e300 ? best / static_cast<double>(m * n * k) : 1.0;
  const double p2 = PowerOfTwoAtMost(per);
  slot.store(static_cast<float>(p2), std::memory_order_relaxed);
  return p2;
}

// All of B packed: for the column block jc (nc wide) and the k block pc, the panels sit at
// jc * k + pc * ncur_padded: k x n (padded to NR) floats in all. The layout SharedB shares among
// threads and vlak_matmul_pack_b_f32 keeps for the caller.
// Floats of all of B packed (k x n rounded up to the tile's NR), 0 if that overflows.
size_t PackedFloats(size_t k, size_t n, const MatmulShape& shape) {
  const size_t n_pad = (n + shape.nr - 1) / shape.nr * shape.nr;
  return n_pad != 0 && k > SIZE_MAX / sizeof(float) / n_pad ? 0 : k * n_pad;
}

// Where the panels of the column block jc and the k block pc sit in all of B packed.
const float* BlockBase(const MatmulArgs& g, const MatmulShape& shape, const float* packed, size_t jc, size_t pc) {
  const size_t w = g.n - jc < shape.nc ? g.n - jc : shape.nc;
  return packed + jc * g.k + pc * ((w + shape.nr - 1) / shape.nr * shape.nr);
}

// Packs all of B into `packed` (PackedFloats floats) on `threads` threads, or fewer where the
// copy is too short to split (`by_bytes`; SharedB's threads are awake for the product anyway).
// Items: (group of up to 4 panels of the whole n, k block), column-group major: ComputePacked's
// tasks run column-block major, so a thread's tasks tend to read the panels it packed, from its
// own L2 (128 x 512 x 512 on 2 threads of a Zen 4: 349 -> 327 us).
void PackAllB(const MatmulArgs& g, const MatmulShape& shape, int threads, bool by_bytes, Target target, float* packed) {
  const size_t nr = shape.nr, nc = shape.nc, kc_max = shape.kc;
  const size_t n_pad = (g.n + nr - 1) / nr * nr;
  auto* const pack = Dispatch(kMatmulPackB, target);
  const size_t k_blocks = (g.k + kc_max - 1) / kc_max;
  // 4 panels an item, or fewer where that would leave a thread fewer than two items (a B of 4
  // AVX-512 panels and one k block was one item: one thread packed it while the others waited).
  const size_t panels = n_pad / nr;
  size_t panels_per_item = 4;
  while (panels_per_item > 1 &&
         k_blocks * ((panels + panels_per_item - 1) / panels_per_item) < 2 * static_cast<size_t>(threads)) {
    panels_per_item /= 2;
  }
  const size_t groups = (panels + panels_per_item - 1) / panels_per_item;
  const size_t pack_bytes = g.k > SIZE_MAX / 8 / n_pad ? SIZE_MAX : g.k * n_pad * 8;
  const int pack_threads = by_bytes ? std::min(threads, ThreadsForBytes(pack_bytes, k_blocks * groups)) : threads;
  ParallelFor(PlanChunks(k_blocks * groups, pack_threads),
              [&](int, size_t begin, size_t end) {
                for (size_t item = begin; item < end; ++item) {
                  const size_t grp = item / k_blocks, pcb = item % k_blocks;
                  const size_t pc = pcb * kc_max, kc = g.k - pc < kc_max ? g.k - pc : kc_max;
                  const size_t j0 = grp * panels_per_item * nr;
                  if (j0 >= g.n) continue;
                  const size_t j1 = j0 + panels_per_item * nr < g.n ? j0 + panels_per_item * nr : g.n;
                  // A group inside one column block (nc is a multiple of NR, not always of 4 NR).
                  for (size_t j = j0; j < j1;) {
                    const size_t jb = j / nc * nc, jend = jb + nc < j1 ? jb + nc : j1;
                    pack(g, shape.narrow, pc, kc, j, jend - j,
                         const_cast<float*>(BlockBase(g, shape, packed, jb, pc)) + (j - jb) * kc);
                    j = jend;
                  }
                }
              });
}

// C from all of B packed, on `threads` threads: C cut into a 2-D grid of tasks (row blocks of
// whole MR tiles x column blocks of whole NR panels), at least 4 per thread where the shape has
// them, each running the k blocks in order over its rows and columns. Every C element is still one
// chain in sequential k order: the bits do not depend on the thread count or on which thread runs
// a task. false (nothing written) when the task list cannot be allocated. g: the call whose B
// was packed (its n and k place the panels); run: the product computed, over the k range
// [p0, p0 + run.k) of that B (a segment of a skinny call; g itself otherwise, p0 = 0): run.a
// starts at column p0 of A and the chains start at p0 (from C with run.accumulate).
// packed null (run = g, p0 = 0): B is not packed yet; it is packed here (below), and
// *peak_bytes (if not null) set to the buffers' size. false also when they cannot be allocated.
bool ComputePacked(const MatmulArgs& g, const MatmulArgs& run, size_t p0, const MatmulShape& shape, int threads,
                   Target target, const float* packed, size_t* peak_bytes = nullptr) {
  const size_t nr = shape.nr, mr = shape.mr, nc = shape.nc, kc_max = shape.kc;
  const size_t n_pad = (g.n + nr - 1) / nr * nr;
  auto* const rows_fn = Dispatch(kMatmulPackedRows, target);
  auto block_cols = [&](size_t jc) { return g.n - jc < nc ? g.n - jc : nc; };
  // Tasks: row blocks of rt MR tiles x column blocks of ct NR panels (inside one nc block). Start
  // from at most 16 x (nc / NR) and halve the columns to 4 panels, then the rows to 4 tiles, then
  // either to 1, until there are >= 4 tasks per thread. The row blocks are of equal size (128
  // rows are 22 tiles of 6: 11 + 11, not 16 + 6). At several threads this settles the column
  // blocks only: the row blocks then become single tiles (below).
  const size_t row_tiles = (g.m + mr - 1) / mr;
  const size_t panels = n_pad / nr;
  const size_t panels_per_block = nc / nr;
  const auto even_rows = [row_tiles](size_t at_most) {
    const size_t blocks = (row_tiles + at_most - 1) / at_most;
    return (row_tiles + blocks - 1) / blocks;
  };
  // One thread: all rows in one block, as the one-thread kernel runs them (each B block read once).
  size_t rt = threads > 1 ? even_rows(16) : row_tiles;
  size_t ct = panels_per_block < panels ? panels_per_block : panels;
  auto tasks_for = [&](size_t r, size_t c) {
    size_t col_blocks = 0;
    for (size_t jc = 0; jc < g.n; jc += nc) col_blocks += ((block_cols(jc) + nr - 1) / nr + c - 1) / c;
    return ((row_tiles + r - 1) / r) * col_blocks;
  };
  const size_t want = threads > 1 ? 4 * static_cast<size_t>(threads) : 1;
  // Balanced: the tasks (of about equal size) keep every thread busy for at least 95 % of the
  // longest share (11 tasks on 2 threads left one thread 6 and the other 5: 92 %; 22 tasks are
  // 11 each).
  const auto balanced = [threads](size_t t) {
    const size_t th = static_cast<size_t>(threads), rounds = (t + th - 1) / th;
    return 20 * t >= 19 * rounds * th;
  };
  for (size_t t = tasks_for(rt, ct); t < want || !balanced(t); t = tasks_for(rt, ct)) {
    if (ct > 4) ct = (ct + 1) / 2;
    else if (rt > 4) rt = even_rows((rt + 1) / 2);
    else if (ct > 1) ct = (ct + 1) / 2;
    else if (rt > 1) rt = even_rows((rt + 1) / 2);
    else break;
  }
  // Column blocks, in order: (jc, first panel in the block, panel count).
  struct ColBlock {
    size_t jc, j0, ncols;
  };
  std::vector<ColBlock> cols;
  try {
    for (size_t jc = 0; jc < g.n; jc += nc) {
      const size_t w = block_cols(jc);
      for (size_t j = 0; j < w; j += ct * nr) cols.push_back({jc, jc + j, w - j < ct * nr ? w - j : ct * nr});
    }
  } catch (const std::bad_alloc&) {
    return false;
  }
  // Several threads: the shares are cut at single row tiles (a share's tasks in one column block
  // run as one call, below), so that they come out even: 128 rows cut at blocks of 3 tiles (18
  // rows) gave shares of 72 and 56 rows.
  if (threads > 1) rt = 1;
  const size_t row_blocks = (row_tiles + rt - 1) / rt;
  const size_t tasks = row_blocks * cols.size();
  auto task_rows = [&](size_t task, size_t& i0, size_t& i1) {
    i0 = (task % row_blocks) * rt * mr;
    i1 = i0 + rt * mr < g.m ? i0 + rt * mr : g.m;
  };
  auto task_cost = [&](size_t task) {
    size_t i0, i1;
    task_rows(task, i0, i1);
    return static_cast<double>(i1 - i0) * static_cast<double>(cols[task / row_blocks].ncols);
  };
  // Task order: column-block major, so the threads that run neighbouring tasks share B panels.
  // One share of tasks per thread, contiguous and of about equal cost (rows x columns: the last
  // column block may be narrower), k blocks outermost in it (BLIS's loop order): each kc block of
  // the share's B panels is read from memory or the L3 once per thread and stays in its L2 while
  // the share's row blocks pass over it, instead of once per task (256 x 256 x 1024: all of B,
  // 1 MiB, per 24-row task). A share its thread has not started is taken whole by another.
  const size_t shares = static_cast<size_t>(threads) < tasks ? static_cast<size_t>(threads) : tasks;
  std::vector<size_t> cut;  // share s: tasks [cut[s], cut[s + 1])
  try {
    cut.assign(shares + 1, tasks);
  } catch (const std::bad_alloc&) {
    return false;
  }
  double total = 0;
  for (size_t task = 0; task < tasks; ++task) total += task_cost(task);
  cut[0] = 0;
  double done = 0;  // the cost of the tasks before `task`
  for (size_t task = 0, s = 1; task < tasks && s < shares; ++task) {
    const double cost = task_cost(task);
    // Share s starts at this task when ending the one before here leaves it nearer its goal.
    if (task > cut[s - 1] && done + cost / 2 > total * static_cast<double>(s) / static_cast<double>(shares)) {
      cut[s++] = task;
    }
    done += cost;
  }
  // B not packed yet: each share packs the panels its tasks read, one k block at a time, before
  // its tasks of that k block, so that a panel is written by the core that reads it. (A panel
  // written by one core and read by another costs the reader misses, and the next call's writer
  // an invalidation of the reader's copy per line: docs/ops/matmul.md.) Where B packed takes at
  // most a quarter of the L2, each participant packs the panels of the shares it runs into a
  // region of its own, indexed by the participant rather than by the share: a share taken by
  // another thread (or run by another thread in the next call) then writes lines its core
  // already holds. Beyond that, shares of whole column blocks read different panels: one
  // buffer, each share packing its own part; shares of rows read the same panels: PackAllB packs
  // all of B once, in parallel, and every share reads it.
  bool whole_columns = true;
  for (size_t s = 0; s < shares; ++s) whole_columns = whole_columns && cut[s] % row_blocks == 0;
  const size_t b_floats = (PackedFloats(g.k, g.n, shape) + 15) / 16 * 16;
  const bool per_worker = packed == nullptr && shares > 1 && b_floats * sizeof(float) <= L2CacheBytes() / 4;
  const bool pack_in_shares = packed == nullptr && (whole_columns || per_worker);
  std::optional<PooledBuffer> buffer;
  if (packed == nullptr) {
    if (b_floats == 0 || (per_worker && b_floats > SIZE_MAX / sizeof(float) / shares)) return false;
    const size_t floats = per_worker ? b_floats * shares : b_floats;
    buffer.emplace(floats);
    if (buffer->data() == nullptr) return false;
    if (peak_bytes != nullptr) *peak_bytes = floats * sizeof(float);
    if (!pack_in_shares) PackAllB(g, shape, threads, false, target, buffer->data());
  }
  float* const pack_base = buffer ? buffer->data() : nullptr;
  auto* const pack = Dispatch(kMatmulPackB, target);
  ParallelFor(PlanChunks(shares, static_cast<int>(shares), 1, 1), [&](int worker, size_t s0, size_t s1) {
    for (size_t s = s0; s < s1; ++s) {
      float* const b = per_worker ? pack_base + static_cast<size_t>(worker) * b_floats : pack_base;
      const float* const panels = b != nullptr ? b : packed;
      for (size_t pc = 0; pc < run.k; pc += kc_max) {
        const size_t kc = run.k - pc < kc_max ? run.k - pc : kc_max;
        if (pack_in_shares) {
          // The share's column blocks: tasks are column-block major.
          for (size_t c = cut[s] / row_blocks; c <= (cut[s + 1] - 1) / row_blocks; ++c) {
            pack(g, shape.narrow, pc, kc, cols[c].j0, cols[c].ncols,
                 const_cast<float*>(BlockBase(g, shape, b, cols[c].jc, pc)) + (cols[c].j0 - cols[c].jc) * kc);
          }
        }
        // The share's tasks of one column block (consecutive row blocks) as one call.
        for (size_t task = cut[s]; task < cut[s + 1];) {
          const size_t c = task / row_blocks, end = std::min(cut[s + 1], (c + 1) * row_blocks);
          const ColBlock& cb = cols[c];
          size_t i0, i1, unused;
          task_rows(task, i0, unused);
          task_rows(end - 1, unused, i1);
          rows_fn(run, shape.narrow, pc, kc, BlockBase(g, shape, panels, cb.jc, p0 + pc) + (cb.j0 - cb.jc) * kc,
                  cb.j0, cb.ncols, i0, i1);
          task = end;
        }
      }
    }
  });
  return true;
}

// Many threads: B is packed once, by the threads that read it (ComputePacked: each share packs
// its own panels, or PackAllB all of them first). Tried before (2 vCPUs, libomp): a packed B
// shared through two barriers per kc block lost to per-thread packing when a thread was
// descheduled; here there is no barrier inside the product, and a share that its thread has not
// started when another thread is done is taken by that one whole (parallel.h rule 4).
// false (nothing written) when the packed B or the task list cannot be allocated: the caller then
// runs the call on one thread, whose packing needs only 1 MiB.
bool SharedB(const MatmulArgs& g, const MatmulShape& shape, int threads, Target target, size_t* peak_bytes) {
  return ComputePacked(g, g, 0, shape, threads, target, nullptr, peak_bytes);
}

// Few rows: the direct kernel (no packing of B) on column blocks of C, each a whole number of
// units (vectors), at least 4 per thread where n has them. Every block needs all of A: each
// participant packs it once, at its first block, into its own buffer (in its own caches), and
// its later blocks read it there. Where A packed takes more than a quarter of the L2 (or the
// memory is not there), each block packs A's k blocks as it goes instead. Each C element is
// computed by one task, whole: the bits do not depend on the thread count.
void DirectSplit(const MatmulArgs& g, int threads, Target target, size_t unit) {
  const auto direct = Dispatch(kMatmulDirect, target);
  const auto pack_a = Dispatch(kMatmulDirectPackA, target);
  const size_t units = (g.n + unit - 1) / unit;
  const size_t want = 4 * static_cast<size_t>(threads);
  const size_t per = units <= want ? 1 : (units + want - 1) / want;
  const size_t blocks = (units + per - 1) / per;
  const size_t a_floats = (g.m * g.k + 15) / 16 * 16;  // 64-byte aligned per participant
  const bool own_a = a_floats * sizeof(float) <= L2CacheBytes() / 4;
  std::optional<PooledBuffer> a_buffer;
  if (own_a) a_buffer.emplace(a_floats * static_cast<size_t>(threads));
  float* const a_base = a_buffer ? a_buffer->data() : nullptr;
  bool a_packed[kMaxThreads] = {};
  ParallelFor(PlanChunks(blocks, threads, 1, 4), [&](int worker, size_t begin, size_t end) {
    float* a = nullptr;
    if (a_base != nullptr) {
      a = a_base + static_cast<size_t>(worker) * a_floats;
      if (!a_packed[worker]) pack_a(g, 0, g.m, a);
      a_packed[worker] = true;
    }
    const size_t j0 = begin * per * unit, j1 = end * per * unit < g.n ? end * per * unit : g.n;
    direct(g, false, 0, g.m, j0, j1, a);
  });
}

// Rows split among threads for the direct kernel, at least direct_any_rows each
// (MatmulTakesDirect): the shares' edges at multiples of direct_any_rows where the even cut is
// near one. Each share reads all of B and packs its own rows of A, a pass's k block at a time, as
// one thread does.
void DirectRowsSplit(const MatmulArgs& g, const MatmulShape& shape, int threads, Target target) {
  const auto direct = Dispatch(kMatmulDirect, target);
  const size_t t = static_cast<size_t>(threads), r = shape.direct_any_rows;
  auto edge = [&](size_t w) {
    const size_t even = g.m * w / t;
    const size_t aligned = (even + r / 2) / r * r;
    return w == t ? g.m : (aligned < g.m ? aligned : g.m);
  };
  ParallelFor(PlanChunks(t, threads, 1, 1), [&](int, size_t w0, size_t w1) {
    for (size_t w = w0; w < w1; ++w) {
      if (edge(w) < edge(w + 1)) direct(g, false, edge(w), edge(w + 1), 0, g.n, nullptr);
    }
  });
}

// A call the direct kernel takes (MatmulTakesDirect) at t threads, or more where few rows and
// the library's choice (auto_threads): B's bytes bound such a call as much as its FMAs. Few
// rows split by columns, more by rows. Out of line: MatmulF32's other paths (all of RVV's) keep
// their instruction counts.
[[gnu::noinline]] void RunDirect(const MatmulArgs& g, const MatmulShape& shape, size_t t, bool auto_threads,
                                 bool few_rows, Target target) {
  if (!few_rows) {
    if (t > 1) return DirectRowsSplit(g, shape, static_cast<int>(t), target);
  } else {
    const size_t col_tiles = (g.n + shape.nr - 1) / shape.nr;
    if (auto_threads && NumThreads() > 1) {
      const size_t tb = static_cast<size_t>(ThreadsForBytes(g.k * g.n * sizeof(float), col_tiles));
      if (tb > t) t = tb;
    }
    if (t > col_tiles) t = col_tiles;
    if (t > 1) return DirectSplit(g, static_cast<int>(t), target, shape.nr);
  }
  Dispatch(kMatmulDirect, target)(g, false, 0, g.m, 0, g.n, nullptr);
}

// C = (C_old +) partial 0 + partial 1 + ... in that order, element by element (partial s: m x n,
// dense, at partial + s m n), then the epilogue.
void SumSegments(const MatmulArgs& g, const float* partial, size_t segments, int threads) {
  const size_t mn = g.m * g.n;
  ParallelFor(PlanChunks(g.m, std::min(threads, ThreadsForBytes((segments + 2) * mn * sizeof(float), g.m))),
              [&](int, size_t begin, size_t end) {
                for (size_t i = begin; i < end; ++i) {
                  float* const c = g.c + i * g.ldc;
                  const float* p = partial + i * g.n;
                  if (g.accumulate) {
                    for (size_t j = 0; j < g.n; ++j) c[j] += p[j];
                  } else {
                    for (size_t j = 0; j < g.n; ++j) c[j] = p[j];
                  }
                  for (size_t s = 1; s < segments; ++s) {
                    p += mn;
                    for (size_t j = 0; j < g.n; ++j) c[j] += p[j];
                  }
                  if (g.HasEpilogue()) Dispatch(kBiasActivationRowsF32)(g.act, 1, g.n, g.bias, c, g.ldc);
                }
              });
}

// Skinny calls (few C elements, long k): C is too small to give every thread tiles, so k is cut
// too. The rule depends on m, n and k only (not on threads or target), and every C element is
// then the ordered sum of its segments' chains (matmul.h, MatmulKSegments), so the bits are still
// the same for every thread count and target. Tasks: (segment, row block, column block); each
// runs the one-thread blocked kernel on its piece into the segment's partial C, with its own
// packing buffer; then the partials are added in segment order, in parallel over rows.
// false (nothing written) when the buffers cannot be allocated.
bool KSplit(const MatmulArgs& g, const MatmulShape& shape, int threads, size_t segments, size_t seg_len,
            decltype(Dispatch(kMatmulBlock)) block, bool packs, size_t* peak_bytes) {
  const size_t mn = g.m * g.n;
  // Row and column blocks (whole MR tiles, whole NR panels): halve until >= 4 tasks per thread.
  size_t rows_per = g.m, cols_per = g.n;
  auto count = [](size_t total, size_t per) { return (total + per - 1) / per; };
  const size_t want = 4 * static_cast<size_t>(threads);
  while (segments * count(g.m, rows_per) * count(g.n, cols_per) < want) {
    const size_t r2 = (rows_per / 2 + shape.mr - 1) / shape.mr * shape.mr;
    const size_t c2 = (cols_per / 2 + shape.nr - 1) / shape.nr * shape.nr;
    if (r2 < rows_per && r2 >= shape.mr && rows_per >= cols_per / 4) rows_per = r2;
    else if (c2 < cols_per && c2 >= shape.nr) cols_per = c2;
    else if (r2 < rows_per && r2 >= shape.mr) rows_per = r2;
    else break;
  }
  const size_t row_blocks = count(g.m, rows_per), col_blocks = count(g.n, cols_per);
  const size_t tasks = segments * row_blocks * col_blocks;
  if (static_cast<size_t>(threads) > tasks) threads = static_cast<int>(tasks);
  // Partials (segments x m x n, rounded up to a 64-byte multiple) then one packing buffer per
  // participant, each 64-byte aligned as the one-thread path's.
  const size_t partial_floats = (segments * mn + 15) / 16 * 16;
  const size_t per_worker = packs ? (shape.scratch_floats + kPoolHeaderFloats + 15) / 16 * 16 : 0;
  const size_t floats = partial_floats + static_cast<size_t>(threads) * per_worker;
  float* const base = AcquireBuffer(floats);
  if (base == nullptr) return false;
  float* const partial = base + kPoolHeaderFloats;
  float* const scratch = partial + partial_floats;
  if (peak_bytes != nullptr) *peak_bytes = floats * sizeof(float);
  ParallelFor(PlanChunks(tasks, threads, 1, 4), [&](int worker, size_t begin, size_t end) {
    for (size_t task = begin; task < end; ++task) {
      const size_t s = task / (row_blocks * col_blocks), rc = task % (row_blocks * col_blocks);
      const size_t i0 = rc / col_blocks * rows_per, j0 = rc % col_blocks * cols_per;
      const size_t p0 = s * seg_len, kk = g.k - p0 < seg_len ? g.k - p0 : seg_len;
      const MatmulArgs gs{g.m, g.n, kk, g.a + p0, g.lda, g.b_trans ? g.b + p0 : g.b + p0 * g.ldb, g.ldb,
                          partial + s * mn, g.n, g.b_trans, false};
      block(gs, shape.narrow, i0, i0 + rows_per < g.m ? i0 + rows_per : g.m, j0,
            j0 + cols_per < g.n ? j0 + cols_per : g.n,
            packs ? scratch + static_cast<size_t>(worker) * per_worker : nullptr);  // direct: A not packed
    }
  });
  SumSegments(g, partial, segments, threads);
  ReleaseBuffer(base);
  return true;
}

// k == 0: C = 0 (an empty sum), or C unchanged with ACCUMULATE; then the epilogue.
vlak_status EmptyProduct(const MatmulArgs& g) {
  if (!g.accumulate) {
    for (size_t i = 0; i < g.m; ++i) std::memset(g.c + i * g.ldc, 0, g.n * sizeof(float));
  }
  if (g.HasEpilogue()) Dispatch(kBiasActivationRowsF32)(g.act, g.m, g.n, g.bias, g.c, g.ldc);
  return VLAK_OK;
}

// The header vlak_matmul_pack_b_f32 writes before the panels (read and written with memcpy: the
// caller's buffer is only 4-byte aligned). The panels start kPackedHeaderBytes in.
struct PackedHeader {
  uint64_t magic;
  uint32_t target, narrow;
  uint64_t k, n, nr, nc, kc;
};
constexpr uint64_t kPackedMagic = 0x3130425050414c56ull;  // "VLAPPB01"
constexpr size_t kPackedHeaderBytes = 64;
static_assert(sizeof(PackedHeader) <= kPackedHeaderBytes, "header fits");

}  // namespace

// Bytes of B packed with `shape` (header included), 0 when that overflows.
size_t PackedBytesFor(size_t k, size_t n, const MatmulShape& shape) {
  const size_t floats = PackedFloats(k, n, shape);
  if (floats == 0 && k != 0 && n != 0) return 0;
  if (floats > (SIZE_MAX - kPackedHeaderBytes) / sizeof(float)) return 0;
  return kPackedHeaderBytes + floats * sizeof(float);
}

size_t MatmulPackedBytes(size_t k, size_t n) { return PackedBytesFor(k, n, Dispatch(kMatmulShape)(n)); }

vlak_status MatmulPackB(size_t k, size_t n, const float* b, size_t ldb, unsigned flags, void* packed,
                        size_t packed_bytes) {
  if ((flags & ~VLAK_MATMUL_TRANS_B) != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  const bool trans = (flags & VLAK_MATMUL_TRANS_B) != 0;
  if (packed == nullptr || (k != 0 && n != 0 && b == nullptr)) return VLAK_ERROR_NULL_POINTER;
  if (k != 0 && n != 0 && ldb < (trans ? k : n)) return VLAK_ERROR_INVALID_ARGUMENT;
  if (!(trans ? Fits(n, k, ldb) : Fits(k, n, ldb))) return VLAK_ERROR_OVERFLOW;
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  // The target read once: the size checked, the panels written and the header agree even when
  // another thread changes the active target meanwhile.
  const Target target = ActiveTarget();
  const MatmulShape shape = Dispatch(kMatmulShape, target)(n);
  const size_t need = PackedBytesFor(k, n, shape);
  if (need == 0) return VLAK_ERROR_OVERFLOW;
  if (packed_bytes < need) return VLAK_ERROR_INVALID_ARGUMENT;
  const MatmulArgs g{0, n, k, nullptr, 0, b, ldb, nullptr, 0, trans, false};
  float* const panels = reinterpret_cast<float*>(static_cast<char*>(packed) + kPackedHeaderBytes);
  if (k != 0 && n != 0) PackAllB(g, shape, NumThreads(), true, target, panels);
  const PackedHeader h{kPackedMagic, static_cast<uint32_t>(target), shape.narrow ? 1u : 0u, k, n, shape.nr, shape.nc,
                       shape.kc};
  std::memcpy(packed, &h, sizeof h);
  return VLAK_OK;
}

vlak_status MatmulPackedF32(const MatmulArgs& args, const void* packed, unsigned flags, int threads) {
  if ((flags & ~VLAK_MATMUL_ACCUMULATE) != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  MatmulArgs g = args;
  g.b = nullptr;
  g.ldb = 0;
  g.b_trans = false;
  g.accumulate = (flags & VLAK_MATMUL_ACCUMULATE) != 0;
  if (g.m == 0 || g.n == 0) return VLAK_OK;
  if (g.c == nullptr || packed == nullptr || (g.k != 0 && g.a == nullptr)) return VLAK_ERROR_NULL_POINTER;
  if (g.lda < g.k || g.ldc < g.n) return VLAK_ERROR_INVALID_ARGUMENT;
  if (!Fits(g.m, g.k, g.lda) || !Fits(g.m, g.n, g.ldc)) return VLAK_ERROR_OVERFLOW;
  if (const vlak_status e = TargetError(); e != VLAK_OK) return e;
  const Target target = ActiveTarget();
  const MatmulShape shape = Dispatch(kMatmulShape, target)(g.n);
  PackedHeader h;
  std::memcpy(&h, packed, sizeof h);
  if (h.magic != kPackedMagic || h.target != static_cast<uint32_t>(target) || h.k != g.k || h.n != g.n ||
      h.nr != shape.nr || h.nc != shape.nc || h.kc != shape.kc || h.narrow != (shape.narrow ? 1u : 0u)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if (g.k == 0) return EmptyProduct(g);
  const float* const panels =
      reinterpret_cast<const float*>(static_cast<const char*>(packed) + kPackedHeaderBytes);
  const size_t row_tiles = (g.m + shape.mr - 1) / shape.mr, col_tiles = (g.n + shape.nr - 1) / shape.nr;
  size_t seg_len = 0;
  const size_t segments = MatmulKSegments(g.m, g.n, g.k, &seg_len);
  size_t t = 1;
  const double fmas = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
  if (threads > 0) {
    t = static_cast<size_t>(threads);
  } else if (fmas >= kNeverSplitFmas && NumThreads() > 1) {
    t = static_cast<size_t>(
        ThreadsForNs(fmas * NsPerFma(target, shape, Dispatch(kMatmulBlock, target)), segments * row_tiles * col_tiles));
  }
  if (segments == 1) {
    if (t > row_tiles * col_tiles) t = row_tiles * col_tiles;
    return ComputePacked(g, g, 0, shape, static_cast<int>(t), target, panels) ? VLAK_OK : VLAK_ERROR_OVERFLOW;
  }
  // Skinny: the segments' chains into partial sums (seg_len is a multiple of kc: every segment
  // starts a k block), then added in order, as vlak_matmul_f32 does: the same bits.
  const size_t mn = g.m * g.n;
  float* const base = AcquireBuffer(segments * mn);
  if (base == nullptr) return VLAK_ERROR_OVERFLOW;
  float* const partial = base + kPoolHeaderFloats;
  bool ok = true;
  for (size_t s = 0; s < segments && ok; ++s) {
    const size_t p0 = s * seg_len, kk = g.k - p0 < seg_len ? g.k - p0 : seg_len;
    const MatmulArgs run{g.m, g.n, kk, g.a + p0, g.lda, nullptr, 0, partial + s * mn, g.n, false, false};
    ok = ComputePacked(g, run, p0, shape, static_cast<int>(t), target, panels);
  }
  if (ok) SumSegments(g, partial, segments, static_cast<int>(t));
  ReleaseBuffer(base);
  return ok ? VLAK_OK : VLAK_ERROR_OVERFLOW;
}

MatmulShape MatmulActiveShape(size_t n) { return Dispatch(kMatmulShape)(n); }

bool MatmulTakesDirect(const MatmulShape& shape, size_t m, size_t n, size_t k, bool b_trans, size_t threads) {
  if (m <= shape.direct_max_m) return true;
  if (shape.direct_any_rows == 0 || b_trans || !MatmulDirectAnyRowsEnabled()) return false;
  const double l2 = static_cast<double>(L2CacheBytes());
  const double a_bytes = static_cast<double>(m) * static_cast<double>(k) * sizeof(float);
  const double b_bytes = static_cast<double>(k) * static_cast<double>(n) * sizeof(float);
  const size_t t = threads > 1 ? threads : 1;
  if (b_bytes > 8 * l2) return false;
  if (a_bytes > l2 / 4 && b_bytes > l2 / 2 && m > kMatmulDirectMaxPasses * shape.direct_any_rows * t) return false;
  return m >= shape.direct_any_rows * t;
}

namespace {
[[gnu::always_inline]] inline vlak_status MatmulF32Impl(const MatmulArgs& args, unsigned flags, int threads,
                                                        size_t* peak_bytes, bool packed_beyond_few_rows) {
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
  if (g.k == 0) return EmptyProduct(g);

  const Target target = ActiveTarget();
  const MatmulShape shape = Dispatch(kMatmulShape, target)(g.n);
  auto* const block = Dispatch(kMatmulBlock, target);

  const size_t row_tiles = (g.m + shape.mr - 1) / shape.mr;
  const size_t col_tiles = (g.n + shape.nr - 1) / shape.nr;
  const double fmas = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
  size_t seg_len = 0;
  const size_t segments = MatmulKSegments(g.m, g.n, g.k, &seg_len);
  const size_t parts = segments * row_tiles * col_tiles;
  size_t t = 1;
  if (threads > 0) {
    t = static_cast<size_t>(threads);
  } else if (fmas >= kNeverSplitFmas && NumThreads() > 1) {
    t = static_cast<size_t>(ThreadsForNs(fmas * NsPerFma(target, shape, block), parts));
  }
  const bool few_rows = g.m <= shape.direct_max_m;
#if defined(__x86_64__)
  const bool direct = few_rows || (shape.direct_any_rows != 0 && !packed_beyond_few_rows &&
                                   MatmulTakesDirect(shape, g.m, g.n, g.k, g.b_trans, t));
#else
  // No target of other architectures takes the direct kernel at any m; RVV's instruction
  // budgets count every check.
  (void)packed_beyond_few_rows;
  const bool direct = few_rows;
#endif
  if (segments > 1) {
    auto* const kernel = direct ? Dispatch(kMatmulDirect, target) : block;
    if (t > parts) t = parts;
    if (KSplit(g, shape, static_cast<int>(t), segments, seg_len, kernel, !direct, peak_bytes)) return VLAK_OK;
    if (t > 1 && KSplit(g, shape, 1, segments, seg_len, kernel, !direct, peak_bytes)) return VLAK_OK;
    return VLAK_ERROR_OVERFLOW;  // no memory for the partial sums
  }
  if (direct) {
    RunDirect(g, shape, t, threads <= 0, few_rows, target);
    return VLAK_OK;
  }
  if (t > row_tiles * col_tiles) t = row_tiles * col_tiles;
  if (t > 1 && SharedB(g, shape, static_cast<int>(t), target, peak_bytes)) return VLAK_OK;
  // One thread: the blocked kernel with its own packing buffer.
  float* const base = AcquireBuffer(shape.scratch_floats);
  if (base == nullptr) return VLAK_ERROR_OVERFLOW;  // no memory for the packing buffer
  if (peak_bytes != nullptr) *peak_bytes = shape.scratch_floats * sizeof(float);
  block(g, shape.narrow, 0, g.m, 0, g.n, base + kPoolHeaderFloats);
  ReleaseBuffer(base);
  return VLAK_OK;
}
}  // namespace

vlak_status MatmulF32(const MatmulArgs& args, unsigned flags, int threads, size_t* peak_bytes) {
  return MatmulF32Impl(args, flags, threads, peak_bytes, false);
}

vlak_status MatmulF32PackedBeyondFewRows(const MatmulArgs& args, unsigned flags, int threads, size_t* peak_bytes) {
  return MatmulF32Impl(args, flags, threads, peak_bytes, true);
}


}  // namespace vlak

extern "C" vlak_status vlak_matmul_ex_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                                          size_t ldb, float* c, size_t ldc, unsigned flags,
                                          const vlak_matmul_epilogue* epilogue) {
  vlak::MatmulArgs args{m, n, k, a, lda, b, ldb, c, ldc, false, false};
  if (const vlak_status e = vlak::SetEpilogue(epilogue, &args); e != VLAK_OK) return e;
  return vlak::MatmulF32(args, flags, 0, nullptr);
}

extern "C" size_t vlak_matmul_packed_size_f32(size_t k, size_t n) { return vlak::MatmulPackedBytes(k, n); }

extern "C" vlak_status vlak_matmul_pack_b_f32(size_t k, size_t n, const float* b, size_t ldb, unsigned flags,
                                              void* packed, size_t packed_bytes) {
  return vlak::MatmulPackB(k, n, b, ldb, flags, packed, packed_bytes);
}

extern "C" vlak_status vlak_matmul_packed_f32(size_t m, size_t n, size_t k, const float* a, size_t lda,
                                              const void* packed, float* c, size_t ldc, unsigned flags,
                                              const vlak_matmul_epilogue* epilogue) {
  vlak::MatmulArgs args{m, n, k, a, lda, nullptr, 0, c, ldc, false, false};
  if (const vlak_status e = vlak::SetEpilogue(epilogue, &args); e != VLAK_OK) return e;
  return vlak::MatmulPackedF32(args, packed, flags, 0);
}

extern "C" vlak_status vlak_matmul_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                                       size_t ldb, float* c, size_t ldc, unsigned flags) {
  const vlak::MatmulArgs args{m, n, k, a, lda, b, ldb, c, ldc, false, false};
  return vlak::MatmulF32(args, flags, 0, nullptr);
}
