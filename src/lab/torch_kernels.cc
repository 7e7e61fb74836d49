// PyTorch's CPU kernels (libtorch, Debian libtorch-dev) as a lab baseline: the `torch` rows of
// softmax, exp, layernorm and matmul. Optional at build time (lab.cmake): without libtorch these
// are "not built".
//
// What runs is what torch.softmax / torch.exp / F.layer_norm / torch.mm run on CPU, into the
// lab's own buffers (at::from_blob: no copies, no allocation inside the timed call):
//   softmax: at::_softmax_out(y, x, 1) (structured: the dispatcher, then the last-dim kernel)
//   exp: at::exp_out(y, x); matmul: at::mm_out(C, A, B)
//   layernorm: at::native_layer_norm (what F.layer_norm runs: it allocates y, mean and rstd and
//     runs the CPU kernel), then y copied into the lab's output. libtorch 1.13 exports no entry
//     that writes into a given y (native_layer_norm_out is generated as this same call plus
//     copies of all three outputs; the kernel stub and layer_norm_cpu_out are not exported), so
//     this row carries one copy of y that a user's call does not: compare with the softmax
//     `copy` row of the same shape for its size.
// Threads: at::set_num_threads(row's threads) before each timed batch (ATen's intra-op pool, GNU
// OpenMP in Debian's build), and openblas_set_num_threads too: torch.mm goes to the system BLAS,
// which Debian's libtorch (no MKL) leaves to OpenBLAS's own pthread pool (OpenblasSetThreads).
// libtorch 1.13's headers do not compile as C++20 (std::vector<IValue> of an incomplete type in
// constexpr code), so this file is C++17 (lab.cmake); only plain types cross its interface.
// Torch reports errors by C++ exceptions; this file is built only on the host (no libtorch for
// riscv64), and every call is wrapped so a failure becomes a failed run, not a crash.
#include <string>

#include "lab/baselines.h"
#include "lab/ops.h"

#if defined(VLAK_LAB_HAVE_TORCH)
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_softmax.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/native_layer_norm.h>

#include <exception>
#endif

namespace vlak::lab {

std::string TorchMissing() {
#if defined(VLAK_LAB_HAVE_TORCH)
  return "";
#elif defined(__riscv)
  return "not built (no libtorch for riscv64)";
#else
  return "not built (install libtorch-dev, reconfigure)";
#endif
}

std::string TorchVersion() {
#if defined(VLAK_LAB_HAVE_TORCH)
  return VLAK_LAB_TORCH_VERSION;
#else
  return "";
#endif
}

ImplDef TorchImpl(TorchOp op, double eps) {
  ImplDef d;
  d.name = "torch";
  d.kind = "library";
  switch (op) {
    case TorchOp::kSoftmax: d.description = "PyTorch at::_softmax_out (torch.softmax's CPU kernel), at::set_num_threads"; break;
    case TorchOp::kExp: d.description = "PyTorch at::exp_out (torch.exp's CPU kernel), at::set_num_threads"; break;
    case TorchOp::kLayernorm:
      d.description = "PyTorch at::native_layer_norm (F.layer_norm: allocates y, mean, rstd) + one copy of y, at::set_num_threads";
      break;
    case TorchOp::kMatmul:
      d.description = "PyTorch at::mm_out (torch.mm on CPU), at::set_num_threads and openblas_set_num_threads";
      break;
  }
  d.unavailable = TorchMissing;
  d.prepare = [op, eps](const Problem& p, Outputs& out, int threads, std::string* err) {
    Prepared pr;
#if defined(VLAK_LAB_HAVE_TORCH)
    try {
      const auto f32 = at::TensorOptions().dtype(at::kFloat);
      const auto in = [&](size_t i, std::vector<int64_t> dims) {
        return at::from_blob(const_cast<float*>(p.In(i).F32()), dims, f32);
      };
      const auto res = [&](size_t i, std::vector<int64_t> dims) { return at::from_blob(out[i].F32(), dims, f32); };
      const auto dims = [&](const Tensor& t) { return std::vector<int64_t>(t.dims().begin(), t.dims().end()); };
      pr.select = [threads] {
        at::set_num_threads(threads);
        OpenblasSetThreads(threads);
      };
      // Each run: the call, exceptions turned into a failed run.
      const auto guarded = [](auto fn) {
        return [fn]() mutable {
          try {
            fn();
            return true;
          } catch (const std::exception&) {
            return false;
          }
        };
      };
      switch (op) {
        case TorchOp::kSoftmax: {
          at::Tensor x = in(0, dims(p.In(0))), y = res(0, dims(p.In(0)));
          pr.run = guarded([x, y]() mutable { at::_softmax_out(y, x, 1, false); });
          break;
        }
        case TorchOp::kExp: {
          at::Tensor x = in(0, dims(p.In(0))), y = res(0, dims(p.In(0)));
          pr.run = guarded([x, y]() mutable { at::exp_out(y, x); });
          break;
        }
        case TorchOp::kLayernorm: {
          const int64_t rows = static_cast<int64_t>(RowsOf(p)), cols = static_cast<int64_t>(ColsOf(p));
          at::Tensor x = in(0, {rows, cols}), g = in(1, {cols}), b = in(2, {cols}), y = res(0, {rows, cols});
          pr.run = guarded([x, g, b, y, cols, eps]() mutable {
            y.copy_(std::get<0>(at::native_layer_norm(x, {cols}, g, b, eps)));
          });
          break;
        }
        case TorchOp::kMatmul: {
          at::Tensor a = in(0, dims(p.In(0))), b = in(1, dims(p.In(1)));
          at::Tensor c = res(0, {a.size(0), b.size(1)});
          pr.run = guarded([a, b, c]() mutable { at::mm_out(c, a, b); });
          break;
        }
      }
      at::set_num_threads(threads);
      if (at::get_num_threads() != threads) {
        *err = "at::set_num_threads(" + std::to_string(threads) + ") left " + std::to_string(at::get_num_threads());
        pr.run = nullptr;
      }
    } catch (const std::exception& e) {
      *err = std::string("libtorch: ") + e.what();
      pr.run = nullptr;
    }
#else
    (void)p, (void)out, (void)threads, (void)err, (void)op, (void)eps;
#endif
    return pr;
  };
  return d;
}

}  // namespace vlak::lab
