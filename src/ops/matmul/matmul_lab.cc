// matmul f32, C (m x n) = A (m x k) B (k x n), row-major, dense (Terapines AI-Benchmark's Matmul, e.g.
// 256x512x256): the lab's view of it.
//   shapes: MxNxK, as AI-Benchmark writes them.
//   inputs: A and B uniform [-1, 1]. output: C.
//   flops:  2 m n k; roofline against the FMA peak (compute-bound). bytes (for GB/s only): read A
//           and B, write C once, 4 (mk + kn + mn).
//   bound:  vlak.h's, |C - C64| <= 2 k 2^-24 sum_k |A| |B| (the standard dot-product bound), with
//           C64 and sum |A||B| in float64 here.
//   threads: the C reference splits rows of C in one block per thread; the libraries thread
//           themselves (openblas_set_num_threads, Eigen::setNbThreads, oneDNN's OpenMP).
#include <cmath>
#include <cstdio>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "vlak/vlak.h"

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(matmul_f32, void(const float* a, const float* b, float* c, size_t m, size_t n, size_t k))

namespace vlak::lab {
namespace {

size_t M(const Problem& p) { return p.shape.dims[0]; }
size_t N(const Problem& p) { return p.shape.dims[1]; }
size_t K(const Problem& p) { return p.shape.dims[2]; }

void MakeProblem(Problem* p) {
  const size_t m = M(*p), n = N(*p), k = K(*p);
  float* a = p->AddInput("A", {m, k}).F32();
  float* b = p->AddInput("B", {k, n}).F32();
  FillUniform(a, m * k, -1.0f, 1.0f, 1);
  FillUniform(b, k * n, -1.0f, 1.0f, 2);
  std::vector<double>& ref = p->AddOutput("C", {m, n});
  std::vector<float>& scale = p->scale[0];
  scale.resize(m * n);
  // i-k-j order: a row of C and of sum |A||B| accumulate along contiguous rows of B.
  std::vector<double> acc(n), mag(n);
  for (size_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (size_t kk = 0; kk < k; ++kk) {
      const double av = a[i * k + kk];
      const float* br = b + kk * n;
      for (size_t j = 0; j < n; ++j) {
        acc[j] += av * br[j];
        mag[j] += std::fabs(av * br[j]);
      }
    }
    for (size_t j = 0; j < n; ++j) {
      ref[i * n + j] = acc[j];
      scale[i * n + j] = static_cast<float>(static_cast<double>(k) * mag[j]);  // the bound's k sum|A||B|
    }
  }
}

// A library call or C kernel over the whole product (it threads itself or is split by rows).
ImplDef MatmulImpl(const std::string& name, const std::string& what, std::function<std::string()> missing,
                   std::function<void(int threads, size_t m, size_t n, size_t k, const float*, const float*, float*)> fn) {
  return PlainImpl(name, "library", what, std::move(missing), [fn](const Problem& p, Outputs& out, int threads) {
    fn(threads, M(p), N(p), K(p), p.In(0).F32(), p.In(1).F32(), out[0].F32());
    return true;
  });
}

}  // namespace

std::vector<OpDef> LabOps_matmul() {
  OpDef op = NewOp("matmul", "MxNxK (e.g. 256x512x256)", "k",
                   "4 (mk + kn + mn) bytes (read A, B; write C); 2mnk flop");
  op.roofline = "compute";
  op.check_shape = ShapeRule({3}, "matmul shapes are MxNxK (e.g. 256x512x256)");
  op.bytes_per_run = [](const Shape& s) {
    const double m = static_cast<double>(s.dims[0]), n = static_cast<double>(s.dims[1]), k = static_cast<double>(s.dims[2]);
    return 4.0 * (m * k + k * n + m * n);
  };
  op.flops_per_run = [](const Shape& s) {
    return 2.0 * static_cast<double>(s.dims[0]) * static_cast<double>(s.dims[1]) * static_cast<double>(s.dims[2]);
  };
  op.make_problem = MakeProblem;
  op.bound_text = [](double) { return std::string("abs<=2k2^-24 sum|A||B|"); };
  op.baselines = {"openblas", "onednn", "eigen", "c-gcc", "c-clang"};
  op.test_dims = {{8, 12, 20}};

  op.AddImpls(VlakTargetImpls("vlak_matmul_f32", std::ldexp(2.0, -24),
                              Available,
                              [](const Problem& p, Outputs& out) {
                                return vlak_matmul_f32(M(p), N(p), K(p), p.In(0).F32(), K(p), p.In(1).F32(), N(p),
                                                       out[0].F32(), N(p), 0) == VLAK_OK;
                              }));
  AddCrefImpls(&op, "src/ops/matmul/matmul_peer.c", Cref_matmul_f32, [](auto* kr, const Problem& p, Outputs& out, int threads) {
    const size_t n = N(p), k = K(p);
    return ParallelOk(threads, M(p), [&](size_t i0, size_t i1) {
      kr(p.In(0).F32() + i0 * k, p.In(1).F32(), out[0].F32() + i0 * n, i1 - i0, n, k);
      return true;
    });
  });
  op.impls.push_back(MatmulImpl("openblas", "OpenBLAS cblas_sgemm (its own kernel choice), openblas_set_num_threads",
                                OpenblasMissing, OpenblasSgemm));
  op.impls.push_back(MatmulImpl("eigen", "Eigen 3 Map<RowMajor> c.noalias() = a * b, -march=native, Eigen::setNbThreads",
                                EigenMissing, EigenMatmul));
  ImplDef dnnl = LibraryImpl("onednn", "oneDNN matmul primitive (its own ISA choice), OpenMP threads", OnednnMissing);
  dnnl.prepare = [](const Problem& p, Outputs& out, int threads, std::string* err) {
    return OnednnMatmul(M(p), N(p), K(p), p.In(0).F32(), p.In(1).F32(), out[0].F32(), threads, err);
  };
  op.impls.push_back(dnnl);
  op.impls.push_back(TorchImpl(TorchOp::kMatmul));
  return {op};
}

}  // namespace vlak::lab
