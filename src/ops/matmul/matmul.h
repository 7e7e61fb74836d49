// Matmul internals shared by the API (matmul.cc), the per-target kernels (matmul_kernel.cc), the
// float64 reference, tests and benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/activation/activation_kernels.h"
#include "vlak/vlak.h"

namespace vlak {

// One call's operands, checked by the API. b_trans: b is n x k (VLAK_MATMUL_TRANS_B).
struct MatmulArgs {
  size_t m, n, k;
  const float* a;
  size_t lda;
  const float* b;
  size_t ldb;
  float* c;
  size_t ldc;
  bool b_trans;
  bool accumulate;
  // The epilogue (vlak_matmul_ex_f32), applied by the kernels to each element once its chain is
  // complete: c = act(c + bias[j]). bias NULL: none; act: an activation kernel op code
  // (ops/activation/activation_kernels.h), or kActNone.
  const float* bias = nullptr;
  int act = kActNone;
  bool HasEpilogue() const { return bias != nullptr || act != kActNone; }
};

// A target's blocking: the register tile (mr rows x nr columns of C, nr = one vector group) and
// the cache blocks (kc of k, nc of n per packed B block). nr and nc are run-time on RVV (VLEN).
struct MatmulShape {
  size_t mr, nr, kc, nc;
  size_t scratch_floats;     // packing buffer one thread needs: kc * nc
  uint32_t direct_max_m;     // m up to this: the direct kernel, B not packed (0: never)
  uint32_t direct_any_rows;  // more rows may take it too, in passes of this many (0: never)
  bool narrow;               // the target's narrow tile (n fits one narrow panel)
};

// Passes over B per thread up to which the direct kernel takes calls whose A and B are both
// larger than the L2 holds for it: below, packing B (and, at several threads, the packed B shared
// behind a barrier and read from the other cores) costs more than the direct kernel's passes over
// B from the L3; above, the packed kernel's B in the L2 does better (docs/ops/matmul.md).
inline constexpr size_t kMatmulDirectMaxPasses = 24;

// Whether a call of this shape takes the direct kernel (B read where it is, not packed) at
// `threads` threads: m <= direct_max_m; or, where direct_any_rows, any m when B is k x n (TRANS_B
// would transpose W's strips in every pass), B is not from memory (at most 8 times the L2: every
// pass of direct_any_rows rows reads all of B), A packed takes at most a quarter of the per-core
// L2, or B at most half of it, or each thread's rows make at most kMatmulDirectMaxPasses passes,
// and each thread gets at least direct_any_rows rows (the rows are split among the threads).
// The arm of direct_any_rows is taken only where MatmulDirectAnyRowsEnabled() (matmul.cc: CPUs that
// split 512-bit operations); SetMatmulDirectAnyRows returns the previous setting.
bool MatmulTakesDirect(const MatmulShape& shape, size_t m, size_t n, size_t k, bool b_trans, size_t threads);
bool MatmulDirectAnyRowsEnabled();
bool SetMatmulDirectAnyRows(bool enabled);

// vlak_matmul_f32 with the thread count forced (0: the library's choice), for tests and
// benchmarks. peak_bytes, if not null, gets the packing memory the call used (all threads).
vlak_status MatmulF32(const MatmulArgs& args, unsigned flags, int threads, size_t* peak_bytes);
// The same, but calls with more than direct_max_m rows take the packed kernel whatever
// MatmulTakesDirect says (tests: the packed path of the shapes the direct kernel takes).
vlak_status MatmulF32PackedBeyondFewRows(const MatmulArgs& args, unsigned flags, int threads, size_t* peak_bytes);

// Skinny calls: k cut into segments. When m * n <= kMatmulKSplitMaxOutputs and
// k >= kMatmulKSplitMinK, k is cut into segments of seg_len = max(1024, 1024 * ceil(k / 65536))
// (at most 64 segments; the last may be shorter); returns their count and sets *seg_len, else
// returns 1. Each C element is then the sum, in segment order, of one chain per segment (the
// sequential fma chain of the segment's products, from its first product), added to the old C
// first with ACCUMULATE: c = ((c_old + s_0) + s_1) + ... Depends on m, n and k only.
inline constexpr size_t kMatmulKSplitMaxOutputs = 4096;
inline constexpr size_t kMatmulKSplitMinK = 4096;
inline size_t MatmulKSegments(size_t m, size_t n, size_t k, size_t* seg_len) {
  *seg_len = k;
  if (m == 0 || n > kMatmulKSplitMaxOutputs / m || m * n > kMatmulKSplitMaxOutputs || k < kMatmulKSplitMinK) return 1;
  *seg_len = 1024 * ((k + 65535) / 65536);
  return (k + *seg_len - 1) / *seg_len;
}

// vlak_matmul_packed_size_f32, vlak_matmul_pack_b_f32, and vlak_matmul_packed_f32 with the thread
// count forced (0: the library's choice; args.b unused).
size_t MatmulPackedBytes(size_t k, size_t n);
vlak_status MatmulPackB(size_t k, size_t n, const float* b, size_t ldb, unsigned flags, void* packed,
                        size_t packed_bytes);
vlak_status MatmulPackedF32(const MatmulArgs& args, const void* packed, unsigned flags, int threads);

// The active target's blocking for a call with n columns (the tile depends on n).
MatmulShape MatmulActiveShape(size_t n);

// Float64 reference, written independently of the kernels (plain triple loop, compensated sum):
// c64[i * n + j] = (accumulate ? c[i][j] : 0) + sum_p a[i][p] * b[p][j], with the products and
// sum in double (each product of two floats is exact in double). abs64 (if not null) gets
// sum_p |a[i][p] * b[p][j]| (+ |c[i][j]| with accumulate): the scale of the error bound.
void MatmulReferenceF64(const MatmulArgs& args, double* c64, double* abs64);

// The epilogue of a public call (vlak_matmul_ex_f32's, vlak_matmul_q_f32's) into args' bias and
// act (an activation kernel op), or VLAK_ERROR_INVALID_ARGUMENT. NULL: none.
template <class Args>
vlak_status SetEpilogue(const vlak_matmul_epilogue* epilogue, Args* args) {
  if (epilogue == nullptr) return VLAK_OK;
  if ((epilogue->flags & ~VLAK_EPILOGUE_ACTIVATION) != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  if ((epilogue->flags & VLAK_EPILOGUE_ACTIVATION) != 0) {
    args->act = ActivationKernelOp(epilogue->activation);
    if (args->act < 0) return VLAK_ERROR_INVALID_ARGUMENT;
  }
  args->bias = epilogue->bias;
  return VLAK_OK;
}

}  // namespace vlak
