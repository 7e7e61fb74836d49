// Float64 matmul reference: the oracle for tests and the lab. A plain i-j-p triple loop reading
// A and B through their strides (B^T by index), nothing shared with the kernels. Each product of
// two floats is exact in double; the sum of k <= 2^20 of them in double is good to ~k * 2^-53
// of sum |a * b|, some 2^-29 of the float bound the kernels are held to. IEEE special values
// propagate as in any double sum (inf * 0 = NaN, inf - inf = NaN).
#include <cmath>

#include "ops/matmul/matmul.h"

namespace vlak {

void MatmulReferenceF64(const MatmulArgs& g, double* c64, double* abs64) {
  for (size_t i = 0; i < g.m; ++i) {
    for (size_t j = 0; j < g.n; ++j) {
      double sum = 0.0, scale = 0.0;
      if (g.accumulate) {
        sum = g.c[i * g.ldc + j];
        scale = std::fabs(sum);
      }
      for (size_t p = 0; p < g.k; ++p) {
        const double x = g.a[i * g.lda + p];
        const double y = g.b_trans ? g.b[j * g.ldb + p] : g.b[p * g.ldb + j];
        sum += x * y;
        scale += std::fabs(x * y);
      }
      c64[i * g.n + j] = sum;
      if (abs64 != nullptr) abs64[i * g.n + j] = scale;
    }
  }
}

}  // namespace vlak
