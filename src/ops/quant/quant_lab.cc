// matmul with quantized weights, C (m x n) = A (m x k) W^T, W n rows of GGUF blocks: the lab's view.
// One operator per block type: matmul_q8_0, matmul_q4_0, matmul_q4_1.
//   shapes: MxNxK (decode 1x4096x4096, SmolLM2's 1x576x576, prefill 128x4096x4096), or MxNxKxL:
//           L products one after the other, each with its own copy of W, as L layers of a model
//           are (with L copies above the last-level cache, W streams from DRAM, as in a decode).
//   inputs: A uniform [-1, 1]; W = vlak_quantize_f32 of N(0, 1) rows (the bytes ggml writes), and
//           the same W dequantized to f32 (for the f32 matmul peer; not read by the others).
//   bytes:  W's blocks read once (decode is bound by them), A read, C written; GB/s is of these.
//   bound:  vlak.h's 2k 2^-24 sum |A||w| (scale k sum|A||w|, bound 2^-23) against float64 of A times
//           the dequantized w. The quantized-activations operators (matmul_q4_0_qa, ...) run
//           VLAK_MATMUL_Q_QUANTIZE_A against float64 of the quantized activations times w (the
//           activation's rounding is the mode's definition), bound 2k 2^-24 S (vlak.h's S).
//   rows:   vlak (vlak_matmul_q_f32 on the GGUF rows), vlak-packed (W packed once by
//           vlak_matmul_q_pack, then vlak_matmul_q_packed_f32).
//   peers:  ggml's CPU backend (the quantized-activations operators: ggml's arithmetic), its
//           weights placed as llama.cpp's loader places them; vlak_matmul_f32 on the dequantized
//           weights (C = A W^T, TRANS_B); XNNPACK's
//           qd8-f32-qc4w/qc8w where Debian's XNNPACK has them (its 2022 package does not).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "lab/baselines.h"
#include "lab/ggml_baseline.h"
#include "lab/ops.h"
#include "ops/quant/quant.h"
#include "vlak/vlak.h"

namespace vlak::lab {
namespace {

size_t M(const Problem& p) { return p.shape.dims[0]; }
size_t N(const Problem& p) { return p.shape.dims[1]; }
size_t K(const Problem& p) { return p.shape.dims[2]; }
size_t Layers(const Shape& s) { return s.dims.size() > 3 ? s.dims[3] : 1; }
size_t Layers(const Problem& p) { return Layers(p.shape); }
// f(l) for each layer l in order; false at the first that fails.
template <class F>
bool EachLayer(const Problem& p, F&& f) {
  for (size_t l = 0; l < Layers(p); ++l) {
    if (!f(l)) return false;
  }
  return true;
}

void MakeProblem(vlak_qtype t, bool qa, Problem* p) {
  const size_t m = M(*p), n = N(*p), k = K(*p), rb = vlak_qtype_row_bytes(t, k), layers = Layers(*p);
  float* a = p->AddInput("A", {m, k}).F32();
  // The layers' copies of W follow each other: layer l's rows start at row l n.
  uint8_t* w = p->AddInput("W", {layers * n, rb}, DType::kU8).Data<uint8_t>();
  float* wf = p->AddInput("Wf32", {n, k}).F32();
  FillUniform(a, m * k, -1.0f, 1.0f, 1);
  {
    std::vector<float> row(k);
    for (size_t j = 0; j < n; ++j) {
      FillUniform(row.data(), k, -1.0f, 1.0f, static_cast<unsigned>(2 + j));
      vlak_quantize_f32(t, 1, k, row.data(), k, w + j * rb, rb);
    }
  }
  for (size_t l = 1; l < layers; ++l) std::memcpy(w + l * n * rb, w, n * rb);
  vlak_dequantize_f32(t, n, k, w, rb, wf, k);
  std::vector<double>& ref = p->AddOutput("C", {m, n});
  std::vector<float>& scale = p->scale[0];
  scale.resize(m * n);
  if (qa) {
    // The reference of the mode: float64 of the quantized activations times w; scale k S.
    const QMatmulArgs g{m, n, k, a, k, t, w, rb, nullptr, n};
    std::vector<double> s64(m * n);
    MatmulQReferenceF64(g, true, ref.data(), nullptr, nullptr, s64.data());
    for (size_t i = 0; i < m * n; ++i) scale[i] = static_cast<float>(static_cast<double>(k) * s64[i]);
    return;
  }
  for (size_t j = 0; j < n; ++j) {
    const float* wr = wf + j * k;
    for (size_t i = 0; i < m; ++i) {
      const float* ar = a + i * k;
      double s = 0, mag = 0;
      for (size_t q = 0; q < k; ++q) {
        const double prod = static_cast<double>(ar[q]) * wr[q];
        s += prod;
        mag += std::fabs(prod);
      }
      ref[i * n + j] = s;
      scale[i * n + j] = static_cast<float>(static_cast<double>(k) * mag);
    }
  }
}

OpDef MakeOp(vlak_qtype t, const char* name, bool qa) {
  OpDef op = NewOp(name, "MxNxK (e.g. 1x4096x4096)", "k",
                   "W's block bytes + 4 (mk + mn) (read W once, A; write C); 2mnk flop");
  op.roofline = "memory";
  op.check_shape = ShapeRule({3, 4},
                             std::string(name) + " shapes are MxNxK with K a multiple of 32 (e.g. 1x4096x4096), or MxNxKxL "
                                                 "for L layers' copies of W (e.g. 1x4096x4096x16: W from DRAM)",
                             [](const std::vector<size_t>& dims) { return dims[2] % 32 == 0 && (dims.size() < 4 || dims[3] <= 1000); });
  op.bytes_per_run = [t](const Shape& s) {
    const double m = static_cast<double>(s.dims[0]), n = static_cast<double>(s.dims[1]), k = static_cast<double>(s.dims[2]);
    return static_cast<double>(Layers(s)) * (n * static_cast<double>(vlak_qtype_row_bytes(t, s.dims[2])) + 4.0 * (m * k + m * n));
  };
  op.flops_per_run = [](const Shape& s) {
    return 2.0 * static_cast<double>(Layers(s)) * static_cast<double>(s.dims[0]) * static_cast<double>(s.dims[1]) *
           static_cast<double>(s.dims[2]);
  };
  op.make_problem = [t, qa](Problem* p) { MakeProblem(t, qa, p); };
  op.bound_text = [qa](double) { return std::string(qa ? "abs<=2k2^-24 S (vs A quantized)" : "abs<=2k2^-24 sum|A||w|"); };
  op.baselines = qa ? std::vector<std::string>{"ggml", "xnnpack"} : std::vector<std::string>{"vlak-f32", "xnnpack"};
  op.test_dims = {{3, 5, 64}, {3, 5, 64, 2}};  // the second: two layers' copies of W
  const double bound = std::ldexp(2.0, -24);
  auto run = [t](unsigned flags) {
    return [t, flags](const Problem& p, Outputs& out) {
      const size_t n = N(p), k = K(p), rb = vlak_qtype_row_bytes(t, k);
      return EachLayer(p, [&](size_t l) {
        return vlak_matmul_q_f32(M(p), n, k, p.In(0).F32(), k, t, p.In(1).Data<uint8_t>() + l * n * rb, rb,
                                 out[0].F32(), n, flags, nullptr) == VLAK_OK;
      });
    };
  };
  if (qa) {
    op.AddImpls(VlakTargetImpls("vlak_matmul_q_f32 VLAK_MATMUL_Q_QUANTIZE_A (ggml's arithmetic)", bound,
                                Available, run(VLAK_MATMUL_Q_QUANTIZE_A)));
  } else {
    op.AddImpls(VlakTargetImpls("vlak_matmul_q_f32 (exact weights)", bound, Available, run(0)));
    op.impls.push_back(VlakImpl("vlak-f32", -1, "vlak_matmul_f32 (TRANS_B) on W dequantized to f32 beforehand", bound,
                                nullptr, [](const Problem& p, Outputs& out) {
                                  // One f32 copy (4 bytes a weight: above the L3 from 4096 x 2048 on), L times.
                                  return EachLayer(p, [&](size_t) {
                                    return vlak_matmul_f32(M(p), N(p), K(p), p.In(0).F32(), K(p), p.In(2).F32(), K(p),
                                                           out[0].F32(), N(p), VLAK_MATMUL_TRANS_B) == VLAK_OK;
                                  });
                                }));
  }
  // W packed once by vlak_matmul_q_pack, outside the timing (a model packs its weights when it
  // loads); again when the problem or the target changes.
  {
    struct Key {
      const uint8_t* w;
      size_t n, k, layers;
      vlak_target target;
    };
    auto packed = std::make_shared<std::vector<uint8_t>>();
    auto packed_for = std::make_shared<Key>(Key{nullptr, 0, 0, 0, VLAK_TARGET_SCALAR});
    const unsigned flags = qa ? VLAK_MATMUL_Q_QUANTIZE_A : 0u;
    op.impls.push_back(PlainImpl(
        "vlak-packed", "vlak", "vlak_matmul_q_packed_f32 on W packed once by vlak_matmul_q_pack (not timed)",
        Available,
        [t, flags, packed, packed_for](const Problem& p, Outputs& out, int threads) {
          const size_t m = M(p), n = N(p), k = K(p), layers = Layers(p), bytes = vlak_matmul_q_packed_size(t, n, k);
          vlak_set_num_threads(threads);
          const Key now{p.In(1).Data<uint8_t>(), n, k, layers, vlak_active_target()};
          if (packed_for->w != now.w || packed_for->n != n || packed_for->k != k || packed_for->layers != layers ||
              packed_for->target != now.target) {
            packed->assign(layers * bytes, 0);
            const size_t rb = vlak_qtype_row_bytes(t, k);
            if (!EachLayer(p, [&](size_t l) {
                  return vlak_matmul_q_pack(t, n, k, now.w + l * n * rb, rb, packed->data() + l * bytes, bytes) == VLAK_OK;
                })) {
              return false;
            }
            *packed_for = now;
          }
          return EachLayer(p, [&](size_t l) {
            return vlak_matmul_q_packed_f32(m, n, k, p.In(0).F32(), k, packed->data() + l * bytes, out[0].F32(), n,
                                            flags, nullptr) == VLAK_OK;
          });
        }));
  }
  if (qa) {
    // ggml's own CPU kernels, prepared as llama.cpp's loader places a weight (repacked, or AMX
    // where the CPU has it) with the graph and ggml's thread pool made once; a run copies A in,
    // computes, and copies C out. ggml's arithmetic is this operator's (A quantized per block).
    // Its pool polls between runs within its turn and is paused when the turn ends.
    ImplDef ggml = LibraryImpl(
        "ggml", "ggml_mul_mat on ggml's CPU backend, weights placed as llama.cpp does (" + GgmlVersion() + ")",
        [] { return GgmlMissing(); });
    ggml.prepare = [t](const Problem& p, Outputs& out, int threads, std::string* err) {
      Prepared pr;
      std::shared_ptr<GgmlMatmul> g =
          GgmlMatmul::Create(static_cast<int>(t), M(p), N(p), K(p), p.In(1).Data<uint8_t>(), threads, "auto", err, Layers(p));
      if (!g) return pr;
      pr.run = [&p, &out, g] {
        std::memcpy(g->A(), p.In(0).F32(), M(p) * K(p) * sizeof(float));
        if (!g->Run()) return false;
        std::memcpy(out[0].F32(), g->C(), M(p) * N(p) * sizeof(float));
        return true;
      };
      pr.leave = [g] { g->Idle(); };
      return pr;
    };
    op.impls.push_back(ggml);
  }
  ImplDef xnn = LibraryImpl("xnnpack", "XNNPACK qd8-f32-qc4w / qc8w fully connected",
                            [] { return std::string("not in Debian's XNNPACK (no qd8-f32-qc4w/qc8w operators)"); });
  op.impls.push_back(xnn);
  return op;
}

}  // namespace

std::vector<OpDef> LabOps_quant() {
  return {MakeOp(VLAK_Q8_0, "matmul_q8_0", false),   MakeOp(VLAK_Q4_0, "matmul_q4_0", false),
          MakeOp(VLAK_Q4_1, "matmul_q4_1", false),   MakeOp(VLAK_Q8_0, "matmul_q8_0_qa", true),
          MakeOp(VLAK_Q4_0, "matmul_q4_0_qa", true), MakeOp(VLAK_Q4_1, "matmul_q4_1_qa", true)};
}

}  // namespace vlak::lab
