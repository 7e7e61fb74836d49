// The strided problem of the matmul tests (matmul_test.cc, matmul_epilogue_test.cc): A (m x k),
// B (k x n, or n x k transposed) and C (m x n), every row followed by a gap. The gaps of A and B
// hold NaN (reading one poisons the result) and C's hold kMatmulSentinel (a call must leave it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "ops/matmul/matmul.h"
#include "ops/ops_test_util.h"
#include "vlak/vlak.h"

namespace vlak_test {

inline constexpr float kMatmulSentinel = -12345.5f;

struct MatmulProblem {
  size_t m, n, k, lda, ldb, ldc;
  bool trans;
  std::vector<float> a, b, c0;  // c0: C before the call (sentinels in the gaps)
  // The generator the values came from, left after them: a test that needs more inputs (a bias)
  // draws them next.
  std::mt19937 rng;

  // Gaps of `gap` floats after A's rows, gap + 2 after B's, gap + 1 after C's; A, B and C (in that
  // order, row by row) uniform in [-1, 1) from `seed`.
  MatmulProblem(size_t m_, size_t n_, size_t k_, bool trans_, uint32_t seed, size_t gap = 3)
      : m(m_), n(n_), k(k_), lda(k_ + gap), ldb((trans_ ? k_ : n_) + gap + 2), ldc(n_ + gap + 1), trans(trans_),
        rng(seed) {
    const UniformReal<float> u(-1.0f, 1.0f);  // std::uniform_real_distribution's values (test_random.h)
    a.assign(m * lda, kNaN);
    b.assign((trans ? n : k) * ldb, kNaN);
    c0.assign(m * ldc, kMatmulSentinel);
    for (size_t i = 0; i < m; ++i)
      for (size_t p = 0; p < k; ++p) a[i * lda + p] = u(rng);
    const size_t brows = trans ? n : k, bcols = trans ? k : n;
    for (size_t r = 0; r < brows; ++r)
      for (size_t q = 0; q < bcols; ++q) b[r * ldb + q] = u(rng);
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) c0[i * ldc + j] = u(rng);
  }
  float B(size_t p, size_t j) const { return trans ? b[j * ldb + p] : b[p * ldb + j]; }
  unsigned Flags(bool accumulate) const {
    return (trans ? VLAK_MATMUL_TRANS_B : 0u) | (accumulate ? VLAK_MATMUL_ACCUMULATE : 0u);
  }
  vlak::MatmulArgs Args(float* c, bool accumulate) const {
    return vlak::MatmulArgs{m, n, k, a.data(), lda, b.data(), ldb, c, ldc, trans, accumulate};
  }
  // vlak_matmul_f32 on C = c0 (ACCUMULATE or not): the status and C.
  vlak_status Call(bool accumulate, std::vector<float>* c) const {
    *c = c0;
    return vlak_matmul_f32(m, n, k, a.data(), lda, b.data(), ldb, c->data(), ldc, Flags(accumulate));
  }
};

}  // namespace vlak_test
