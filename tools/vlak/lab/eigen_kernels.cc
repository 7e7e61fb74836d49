// Eigen 3 as a baseline (header-only): compiled in its own translation unit with -march=native
// (lab.cmake), as a user of the library would build it; the rest of the lab is built for baseline
// x86-64, where Eigen would only use SSE2 and lose for a reason no user has.
#include "lab/baselines.h"

#if defined(VLAK_LAB_HAVE_EIGEN)
#include <Eigen/Core>
#endif

namespace vlak::lab {

std::string EigenVersion() {
#if defined(VLAK_LAB_HAVE_EIGEN)
  return std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
         std::to_string(EIGEN_MINOR_VERSION) + " (" + Eigen::SimdInstructionSetsInUse() + ")";
#else
  return "";
#endif
}

void EigenMatmul(int threads, size_t m, size_t n, size_t k, const float* a, const float* b, float* c) {
#if defined(VLAK_LAB_HAVE_EIGEN)
  using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Mat> A(a, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(k));
  const Eigen::Map<const Mat> B(b, static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(n));
  Eigen::Map<Mat> C(c, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(n));
  Eigen::setNbThreads(threads);  // its GEMM threads with OpenMP when built with it
  C.noalias() = A * B;
#else
  (void)threads, (void)m, (void)n, (void)k, (void)a, (void)b, (void)c;
#endif
}

}  // namespace vlak::lab
