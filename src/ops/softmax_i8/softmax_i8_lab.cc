// softmax uint8, rows x cols, row-wise (vlak_softmax_u8; XNNPACK's quantised softmax is qu8 only,
// so the lab compares on the u8 form; the i8 form is the same kernel): the lab's view of it.
//   input:  uniform bytes 0..255 with input_scale 1/16 (logits spanning 16 units: a realistic
//           attention/classifier spread, neither one-hot nor uniform).
//   bytes:  2 per element (read x, write y).
//   output: u8, scale 1/256, zero point 0. Reference: min(256 p, 255) with p the float64 softmax of
//           input_scale * x; "abs" is |y - ref| in output steps (LSB). Bound (vlak-lut): < 1.
//   rows:   vlak (VLAK_SOFTMAX_I8_TFLITE, TFLite's bits) on each target, vlak-lut, c-gcc/c-clang
//           (src/ops/softmax_i8/softmax_i8_peer.c: TFLite's reference algorithm in plain C, the same bits as
//           vlak's default mode), xnnpack (xnn_create_softmax_nc_qu8, output scale 1/256, zp 0).
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/softmax_i8/softmax_i8.h"
#include "vlak/vlak.h"
#if defined(VLAK_LAB_HAVE_XNNPACK)
#include <xnnpack.h>
#endif

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(softmax_u8, void(const uint8_t* x, uint8_t* y, size_t rows, size_t cols, int32_t multiplier, int left_shift, int diff_min))

namespace vlak::lab {
namespace {

constexpr float kScale = 1.0f / 16;

Accuracy U8Accuracy(const Problem& p, const Outputs& out, double bound) {
  Accuracy a;
  const uint8_t* y = out[0].Data<uint8_t>();
  const std::vector<double>& ref = p.ref[0];
  double s2 = 0, e2 = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double e = static_cast<double>(y[i]) - ref[i];
    a.max_abs = std::fmax(a.max_abs, std::fabs(e));
    if (ref[i] >= 1.0) a.max_rel = std::fmax(a.max_rel, std::fabs(e) / ref[i]);
    s2 += ref[i] * ref[i];
    e2 += e * e;
  }
  a.snr_db = e2 > 0 ? 10.0 * std::log10(s2 / e2) : INFINITY;
  a.max_scaled = a.max_abs;
  if (!std::isnan(bound)) a.bound_ok = a.max_abs < bound ? 1 : 0;
  return a;
}

ImplDef XnnpackQu8() {
  return XnnpackRow(
      "XNNPACK xnn_create_softmax_nc_qu8 (input scale 1/16, output scale 1/256, zp 0), 1 thread or pthreadpool",
      VLAK_LAB_XNNPACK_PREPARE([](const Problem& p, Outputs& out, int threads, std::string* err) {
        if (threads != 1) {
          *err = "the softmax-i8 xnnpack row runs 1 thread only";
          return Prepared();
        }
        const size_t cols = ColsOf(p);
        return XnnpackPrepare(
            "softmax_nc_qu8", nullptr, err,
            [&](xnn_operator_t* op) {
              return xnn_create_softmax_nc_qu8(cols, cols, cols, kScale, 0, 1.0f / 256, 0, op);
            },
            [&](xnn_operator_t op) {
              return xnn_setup_softmax_nc_qu8(op, RowsOf(p), p.In(0).Data<uint8_t>(), out[0].Data<uint8_t>(),
                                              nullptr);
            });
      }));
}

}  // namespace

std::vector<OpDef> LabOps_softmax_i8() {
  OpDef op = RowsColsOp("softmax-i8", "2 bytes/element (read x u8, write y u8)", 2.0);
  op.make_problem = [](Problem* p) {
    const size_t rows = RowsOf(*p), cols = ColsOf(*p);
    uint8_t* x = p->AddInput("x", {rows, cols}, DType::kU8).Data<uint8_t>();
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> u(0, 255);
    for (size_t i = 0; i < rows * cols; ++i) x[i] = static_cast<uint8_t>(u(rng));
    std::vector<double>& ref = p->AddOutput("y", {rows, cols}, DType::kU8);
    for (size_t r = 0; r < rows; ++r) {
      const uint8_t* xr = x + r * cols;
      int mx = 0;
      for (size_t c = 0; c < cols; ++c) mx = xr[c] > mx ? xr[c] : mx;
      double sum = 0;
      for (size_t c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(kScale) * (xr[c] - mx));
      for (size_t c = 0; c < cols; ++c) {
        ref[r * cols + c] = std::fmin(256.0 * std::exp(static_cast<double>(kScale) * (xr[c] - mx)) / sum, 255.0);
      }
    }
  };
  op.accuracy = U8Accuracy;
  op.bound_text = BoundFormat("|y-256p|<%.0f LSB");
  op.baselines = {"c-gcc", "c-clang", "xnnpack"};

  const double nan = std::nan("");
  op.AddImpls(VlakTargetImpls("vlak_softmax_u8 (TFLITE: TFLite's bits)", nan, Available,
                              [](const Problem& p, Outputs& out) {
                                const size_t cols = ColsOf(p);
                                return vlak_softmax_u8(RowsOf(p), cols, p.In(0).Data<uint8_t>(), cols, kScale,
                                                       out[0].Data<uint8_t>(), cols, VLAK_SOFTMAX_I8_TFLITE) == VLAK_OK;
                              }));
  op.impls.push_back(VlakImpl("vlak-lut", -1, "vlak_softmax_u8 VLAK_SOFTMAX_I8_LUT (float tables, <= 1 LSB)", 1.0,
                              Available, [](const Problem& p, Outputs& out) {
                                const size_t cols = ColsOf(p);
                                return vlak_softmax_u8(RowsOf(p), cols, p.In(0).Data<uint8_t>(), cols, kScale,
                                                       out[0].Data<uint8_t>(), cols, VLAK_SOFTMAX_I8_LUT) == VLAK_OK;
                              }));
  AddCrefImpls(&op, "src/ops/softmax_i8/softmax_i8_peer.c", Cref_softmax_u8, [](auto* k, const Problem& p, Outputs& out, int threads) {
    const size_t cols = ColsOf(p);
    SoftmaxI8Params prm;
    SoftmaxI8TfliteParams(kScale, &prm);
    return RowBlocks(threads, p, [&](size_t r0, size_t r1) {
      k(p.In(0).Data<uint8_t>() + r0 * cols, out[0].Data<uint8_t>() + r0 * cols, r1 - r0, cols,
        prm.input_multiplier, prm.input_left_shift, prm.diff_min);
    });
  });
  op.impls.push_back(XnnpackQu8());
  return {op};
}

}  // namespace vlak::lab
