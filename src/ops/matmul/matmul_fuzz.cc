// Differential fuzz target of vlak_matmul_f32 (see fuzz_util.h): the same bits on every target and
// thread count (NaN payloads aside), and within vlak.h's bound of the float64 product.
#include <algorithm>

#include "fuzz/fuzz_util.h"
#include "ops/matmul/matmul.h"

using namespace vlak_fuzz;

namespace {
// A leading dimension for `cols` used columns: dense, a small gap, too small, or overflowing.
size_t Ld(Input& in, size_t rows, size_t cols) { return Stride(in, rows, cols); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  size_t m = in.Size(40), n = in.Size(200), k = in.Size(130);
  // k of 128-130 stands for a long k (4096-12300) on a small C: the skinny calls whose k vlak cuts
  // into segments (vlak.h), around the rule's k edge.
  if (k >= 128) {
    m %= 5;
    n %= 17;
    k = 4096 * (k - 127) + (m * 7 + n) % 13 - 6;
  }
  const uint8_t fb = in.Byte();
  const unsigned flags = fb < 250 ? (fb & 3) : 0x4u << (fb & 7);
  const bool trans = flags & VLAK_MATMUL_TRANS_B, acc = flags & VLAK_MATMUL_ACCUMULATE;
  const size_t b_rows = trans ? n : k, b_cols = trans ? k : n;
  const size_t lda = Ld(in, m, k), ldb = Ld(in, b_rows, b_cols), ldc = Ld(in, m, n);
  const uint8_t nulls = in.Byte();

  const bool empty = m == 0 || n == 0;
  const bool bad_flags = (flags & ~3u) != 0;
  const bool expect_error =
      bad_flags || (!empty && (nulls == 3 || (k != 0 && (nulls == 1 || nulls == 2)) || lda < k || ldb < b_cols ||
                               ldc < n || ExtentOverflows(m, k, lda) || ExtentOverflows(b_rows, b_cols, ldb) ||
                               ExtentOverflows(m, n, ldc)));
  const size_t ae = lda >= k ? Extent(m, k, lda) : 0;
  const size_t be = ldb >= b_cols ? Extent(b_rows, b_cols, ldb) : 0;
  const size_t ce = ldc >= n ? Extent(m, n, ldc) : 0;
  if (ae > kMaxElems || be > kMaxElems || ce > kMaxElems) return 0;

  Buffer a(ae), b(be), c0(ce);
  FillFloats(in, a.data(), a.size());
  FillFloats(in, b.data(), b.size());
  FillFloats(in, c0.data(), c0.size());
  // Gaps of C hold the sentinel (they must stay untouched); used elements the old C (ACCUMULATE).
  for (size_t i = 0; i < ce; ++i) {
    if (i % std::max<size_t>(ldc, 1) >= n) c0[i] = kSentinel;
  }
  Describe("vlak_matmul_f32(m %zu, n %zu, k %zu, lda %zu, ldb %zu, ldc %zu, flags 0x%x) threads %d", m, n, k, lda, ldb,
           ldc, flags, vlak_get_num_threads());
  std::vector<float> first;
  std::vector<double> c64, abs64;
  if (!expect_error && !empty) {
    c64.resize(m * n);
    abs64.resize(m * n);
    // The reference reads C (accumulate) through args.c with ldc.
    vlak::MatmulArgs args{m, n, k, a.data(), lda, b.data(), ldb, c0.data(), ldc, trans, acc};
    vlak::MatmulReferenceF64(args, c64.data(), abs64.data());
  }
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    Buffer c(ce);
    std::copy(c0.data(), c0.data() + ce, c.data());
    const vlak_status st = vlak_matmul_f32(m, n, k, nulls == 1 ? nullptr : a.data(), lda, nulls == 2 ? nullptr : b.data(),
                                           ldb, nulls == 3 ? nullptr : c.data(), ldc, flags);
    if (!HasResults(st, expect_error, empty, t, c, c0)) continue;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const double ref = c64[i * n + j], scale = abs64[i * n + j];
        // vlak.h: 2 (k + acc) 2^-24 sum |A||B| (+|C_old|) while no partial sum overflows
        // (scale < FLT_MAX); subnormal results add at most 2^-150 per FMA.
        if (!(scale < std::numeric_limits<float>::max())) continue;
        const double terms = static_cast<double>(k + (acc ? 1 : 0));
        const double bound = 2 * terms * 0x1.0p-24 * scale;
        Check(Within(c[i * ldc + j], ref, bound, terms + 1), "C outside vlak.h's bound", t, i * n + j, c[i * ldc + j], ref);
      }
      for (size_t j = n; i + 1 < m && j < ldc; ++j) {
        Check(Bits(c[i * ldc + j]) == Bits(kSentinel), "gap between rows of C written", t, i * ldc + j);
      }
    }
    if (!first.empty()) {
      for (size_t i = 0; i < ce; ++i) Check(SameValue(c[i], first[i]), "targets differ (vlak.h: same bits)", t, i, c[i], first[i]);
    } else {
      first = c.Copy();
    }
  }
  return 0;
}
