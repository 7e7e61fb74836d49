// Eigen 3 as a baseline (header-only), built as a user of it on Linux builds it: by g++ with
// -O3 -march=native -fopenmp (lab.cmake). -march=native because the rest of the lab is built for
// baseline x86-64, where Eigen would only use SSE2 and lose for a reason no user has; g++'s
// -fopenmp because Eigen's GEMM threads only through `#pragma omp parallel` (Eigen/src/Core/
// products/Parallelizer.h) and the lab's one OpenMP runtime is GNU libgomp (lab/gomp.h), which
// clang cannot target. The interface is C so that nothing of either compiler's C++ crosses it.
#include <Eigen/Core>

#include <string>

extern "C" const char* vlak_lab_eigen_version(void) {
  static const std::string v = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                               std::to_string(EIGEN_MINOR_VERSION) + " (" + Eigen::SimdInstructionSetsInUse() +
                               ", g++ OpenMP)";
  return v.c_str();
}

// C = A B, row-major, on up to `threads` threads (Eigen::setNbThreads: Eigen's GEMM then uses
// min(threads, what the product's size pays for)).
extern "C" void vlak_lab_eigen_matmul(int threads, size_t m, size_t n, size_t k, const float* a, const float* b,
                                      float* c) {
  using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Mat> A(a, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(k));
  const Eigen::Map<const Mat> B(b, static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(n));
  Eigen::Map<Mat> C(c, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(n));
  Eigen::setNbThreads(threads);
  C.noalias() = A * B;
}
