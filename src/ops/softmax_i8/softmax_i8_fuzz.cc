// Differential fuzz target of vlak_softmax_i8 and vlak_softmax_u8 (one target for both: the
// input's first byte picks the form). VLAK_SOFTMAX_I8_TFLITE must give the bytes of the TFLite
// port in softmax_i8_tflite_port.h on every target; VLAK_SOFTMAX_I8_LUT must stay within
// one output step of the float64 softmax; nothing written on error or in the gaps between rows.
#include <algorithm>
#include <type_traits>

#include "fuzz/fuzz_util.h"
#include "ops/softmax_i8/softmax_i8_tflite_port.h"

using namespace vlak_fuzz;
namespace tfl = vlak_test::tfl;

namespace {

// Byte extent of rows x cols at stride, or 0 when it overflows size_t.
size_t ByteExtent(size_t rows, size_t cols, size_t stride) {
  if (rows == 0 || cols == 0) return 0;
  const unsigned __int128 e = static_cast<unsigned __int128>(rows - 1) * stride + cols;
  return e > SIZE_MAX ? 0 : static_cast<size_t>(e);
}

size_t ByteStride(Input& in, size_t rows, size_t cols) {
  const uint8_t k = in.Byte();
  if (k < 200) return cols + (k & 7) * (k >> 3 & 1);
  if (k < 220 && cols > 0) return cols - 1 - (k & 3) % cols;
  return rows > 1 ? SIZE_MAX / (rows - 1) + 1 + (k & 15) : SIZE_MAX - (k & 15);
}

template <typename T>
int Run(Input& in) {
  SetThreads(in);
  const size_t rows = in.Size(6), cols = in.Size(5000);
  const size_t xs = ByteStride(in, rows, cols);
  const bool in_place = in.Byte() < 64;
  const size_t ys = in_place ? xs : ByteStride(in, rows, cols);
  // input_scale: common ones, the extremes TFLite accepts, and invalid ones.
  static const float kScales[] = {1.0f / 16, 1.0f / 255, 1.0f / 64, 0.5f, 1.0f, 4.0f, 1e-7f, 16.0f,
                                  1.5e-8f, 0.0f, -1.0f, std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(), 0x1.0p-26f, 0x1.000002p-26f, 100.0f};
  const uint8_t sb = in.Byte();
  const float scale = sb < 240 ? kScales[sb & 15] : std::ldexp(1.0f + (sb & 7) / 8.0f, -12 + (sb & 15));
  const uint8_t fb = in.Byte();
  const unsigned flags = fb < 250 ? (fb & 1) : 0x2u << (fb & 7);
  const uint8_t nulls = in.Byte();
  const bool empty = rows == 0 || cols == 0;
  const bool bad_scale = !(scale > 0x1.0p-26f) || !std::isfinite(scale);
  const size_t xe = xs >= cols ? ByteExtent(rows, cols, xs) : 0;
  const size_t ye = ys >= cols ? ByteExtent(rows, cols, ys) : 0;
  const bool overflow = !empty && ((xs >= cols && xe == 0) || (ys >= cols && ye == 0));
  const bool expect_error = (flags & ~1u) != 0 || bad_scale ||
                            (!empty && (nulls == 1 || nulls == 2 || xs < cols || ys < cols || overflow));
  if (xe > kMaxElems || ye > kMaxElems) return 0;

  std::vector<T> x0(xe);
  {
    const uint8_t dist = in.Byte();
    Rng rng(in.Bits(4) + 1);
    for (size_t i = 0; i < xe; ++i) {
      const uint8_t r = static_cast<uint8_t>(rng.Next());
      // Uniform bytes, two levels (the spec's families), or a narrow band near one value.
      x0[i] = static_cast<T>(dist < 128 ? r : dist < 192 ? ((r & 1) ? dist : dist - 40) : (dist + (r & 3)));
    }
  }
  Describe("vlak_softmax_%s(rows %zu, cols %zu, x_stride %zu, y_stride %zu, input_scale %a, flags 0x%x)%s threads %d",
           std::is_signed_v<T> ? "i8" : "u8", rows, cols, xs, ys, scale, flags, in_place ? " in place" : "",
           vlak_get_num_threads());
  const int zp = std::is_signed_v<T> ? -128 : 0;
  std::vector<T> first;
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    std::vector<T> xb = x0, y_own(in_place ? 0 : ye, static_cast<T>(0x5A));
    std::vector<T>& yb = in_place ? xb : y_own;
    const std::vector<T> before = yb;
    const vlak_status st = vlak_test::SoftmaxBytes<T>(rows, cols, nulls == 1 ? nullptr : xb.data(), xs, scale,
                                   nulls == 2 ? nullptr : yb.data(), ys, flags);
    CheckStatus(st, expect_error, t);
    if (st != VLAK_OK || empty) {
      for (size_t i = 0; i < yb.size(); ++i) Check(yb[i] == before[i], "written on error or empty call", t, i, yb[i], before[i]);
      continue;
    }
    std::vector<T> want(cols);
    std::vector<double> p(cols);
    for (size_t r = 0; r < rows; ++r) {
      const T* xr = x0.data() + r * xs;
      const T* yr = yb.data() + r * ys;
      if (flags == VLAK_SOFTMAX_I8_TFLITE) {
        tfl::Softmax(tfl::Prepare(scale), xr, want.data(), cols);
        for (size_t i = 0; i < cols; ++i) Check(yr[i] == want[i], "TFLITE mode differs from TFLite's reference", t, r * cols + i, yr[i], want[i]);
      } else {
        tfl::Float64(scale, xr, cols, p.data());
        for (size_t i = 0; i < cols; ++i) {
          Check(std::fabs((yr[i] - zp) - p[i]) < 1.0, "LUT mode more than one step from float64", t, r * cols + i, yr[i] - zp, p[i]);
        }
      }
      for (size_t i = cols; r + 1 < rows && i < ys; ++i) {
        Check(yb[r * ys + i] == before[r * ys + i], "gap between rows written", t, r * ys + i);
      }
    }
    if (flags == VLAK_SOFTMAX_I8_TFLITE) {
      if (first.empty()) first = yb;
      else Check(first == yb, "TFLITE mode differs between targets", t);
    }
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return RunByteForms(data, size, [](Input& in, auto form) { return Run<decltype(form)>(in); });
}
