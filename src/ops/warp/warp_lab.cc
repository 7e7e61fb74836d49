// warp i8 (Terapines AI-Benchmark's horizontal warp): the lab's view of it.
//   shapes: HEIGHTxWIDTHxCHANNELS[xREACH], AI-Benchmark's order (1024x1024x3); the tensors are planar
//           CHW.
//   inputs: src uniform int8; offsets o = n * 256 + f with n uniform in -REACH .. REACH (default
//           16, at most 127), or with a JITTER, n = a smooth field of amplitude REACH - JITTER
//           (SmoothShift) plus a uniform -JITTER .. JITTER; the low byte f in 0 .. 120, a
//           multiple of 8. Why that low byte:
//           with a low byte >= 128 (negative as AI-Benchmark reads it) its blend extrapolates
//           beyond R instead of interpolating, which no resampler reproduces; and OpenCV's remap
//           positions have 5 fractional bits (1/32 pixel), which represent multiples of 8/256
//           exactly. vlak's work depends on the field on the avx2 and avx512 targets: rows whose
//           displacements vary by at most 47 columns within every 32 pixels run without gathers
//           (warp_avx2window.cc), the others gather. 1024x1024x3x127 measures the gather path,
//           1024x1024x3x127x16 a far, smooth field; vlak@avx2-generic and vlak@avx512-generic
//           gather always.
//   bytes:  read src, write dst (1 byte each per pixel and channel), read offsets (2 per pixel).
//   bound:  vlak and the C references are bit-exact (0); OpenCV within 1 LSB (its 15-bit weights
//           round where vlak.h's 8-bit blend floors).
#include <cmath>
#include <cstdio>
#include <tuple>
#include <vector>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/warp/warp.h"
#include "vlak/vlak.h"

#if defined(VLAK_LAB_HAVE_OPENCV)
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

// The plain C peer beside this file (*_peer.c), built by gcc and by clang (lab.cmake).
VLAK_LAB_CREF(warp_i8, void(const int8_t* src, const int16_t* offsets, int8_t* dst, size_t row0, size_t rows, size_t height, size_t width))

namespace vlak::lab {
namespace {

enum { kSrc, kOffsets };

struct Geometry {
  size_t height, width, channels;
  int reach;   // max |n|
  int jitter;  // -1: n uniform in -reach .. reach; else a smooth field plus -jitter .. jitter
};
Geometry Geo(const Shape& s) {
  return {s.dims[0], s.dims[1], s.dims[2], s.dims.size() > 3 ? static_cast<int>(s.dims[3]) : 16,
          s.dims.size() > 4 ? static_cast<int>(s.dims[4]) : -1};
}

// A smooth displacement of amplitude a (<= 127) at pixel (y, x): a triangle wave along y + x with
// a period of 2048 pixels, so n changes by at most a / 512 columns per pixel (8 columns over 32
// pixels at a = 127): a flow field moving far but coherently.
int SmoothShift(int a, size_t y, size_t x) {
  const int t = static_cast<int>((y + x) / 4 % 512);  // 0 .. 511
  const int tri = t < 256 ? t - 128 : 383 - t;    // -128 .. 127 .. -128
  return a * tri / 128;
}

void MakeProblem(Problem* p) {
  const Geometry g = Geo(p->shape);
  const size_t plane = g.height * g.width, n = g.channels * plane;
  int8_t* src = p->AddInput("src", {g.channels, g.height, g.width}, DType::kI8).Data<int8_t>();
  // int16 offsets live in an f32-free tensor of twice the bytes (the lab has no i16 dtype): u8 x 2.
  uint8_t* raw = p->AddInput("offsets", {g.height, g.width, 2}, DType::kU8).Data<uint8_t>();
  auto* offsets = reinterpret_cast<int16_t*>(raw);
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<int8_t>(next() & 0xFF);
  for (size_t i = 0; i < plane; ++i) {
    const int whole =
        g.jitter < 0 ? static_cast<int>(next() % static_cast<uint32_t>(2 * g.reach + 1)) - g.reach
                     : SmoothShift(g.reach - g.jitter, i / g.width, i % g.width) +
                           static_cast<int>(next() % static_cast<uint32_t>(2 * g.jitter + 1)) - g.jitter;
    const int frac = static_cast<int>(next() % 16) * 8;
    offsets[i] = static_cast<int16_t>(whole * 256 + frac);
  }
  std::vector<int8_t> out(n);
  WarpReferenceI8(g.channels, g.height, g.width, src, offsets, out.data());
  std::vector<double>& ref = p->AddOutput("dst", {g.channels, g.height, g.width}, DType::kI8);
  for (size_t i = 0; i < n; ++i) ref[i] = out[i];
}

const int16_t* Offsets(const Problem& p) { return reinterpret_cast<const int16_t*>(p.In(kOffsets).Data<uint8_t>()); }

#if defined(VLAK_LAB_HAVE_OPENCV)
// cv::remap INTER_LINEAR with the horizontal map x = w - o / 256, y = h, converted once to
// OpenCV's fixed-point maps (CV_16SC2 + CV_16UC1, not timed). remap has no CV_8S: the input is
// biased to uint8 once (not timed), the border value is the bias (int8 0), and the output is
// un-biased in the timed run (one xor pass over dst, ~3 % of the run).
Prepared OpencvWarp(const Problem& p, Outputs& out, int threads, std::string* err) {
  Prepared pr;
  const Geometry g = Geo(p.shape);
  const int h = static_cast<int>(g.height), w = static_cast<int>(g.width);
  cv::Mat map_x(h, w, CV_32FC1), map_y(h, w, CV_32FC1);
  const int16_t* off = Offsets(p);
  for (int r = 0; r < h; ++r) {
    for (int c = 0; c < w; ++c) {
      map_x.at<float>(r, c) = static_cast<float>(c) - static_cast<float>(off[static_cast<size_t>(r) * g.width + c]) / 256.0f;
      map_y.at<float>(r, c) = static_cast<float>(r);
    }
  }
  auto map1 = std::make_shared<cv::Mat>(), map2 = std::make_shared<cv::Mat>();
  try {
    cv::convertMaps(map_x, map_y, *map1, *map2, CV_16SC2, false);
  } catch (const cv::Exception& e) {
    *err = e.what();
    return pr;
  }
  const size_t n = g.channels * g.height * g.width;
  auto biased = std::make_shared<std::vector<uint8_t>>(n);
  const int8_t* src = p.In(kSrc).Data<int8_t>();
  for (size_t i = 0; i < n; ++i) (*biased)[i] = static_cast<uint8_t>(src[i]) ^ 0x80;
  pr.select = [threads] { cv::setNumThreads(threads); };
  pr.run = [g, h, w, n, map1, map2, biased, &out] {
    auto* dst = reinterpret_cast<uint8_t*>(out[0].Data<int8_t>());
    const size_t plane = g.height * g.width;
    for (size_t c = 0; c < g.channels; ++c) {
      const cv::Mat in(h, w, CV_8UC1, biased->data() + c * plane);
      cv::Mat o(h, w, CV_8UC1, dst + c * plane);
      cv::remap(in, o, *map1, *map2, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(128));
    }
    for (size_t i = 0; i < n; ++i) dst[i] ^= 0x80;
    return true;
  };
  return pr;
}
#endif

}  // namespace

std::vector<OpDef> LabOps_warp() {
  OpDef op = NewOp("warp", "HEIGHTxWIDTHxCHANNELS (AI-Benchmark's order, e.g. 1024x1024x3; planar CHW tensors)", "width",
                   "2 bytes/pixel/channel (read src, write dst) + 2/pixel (int16 offsets)");
  op.check_shape = ShapeRule({3, 4, 5},
                             "warp shapes are HEIGHTxWIDTHxCHANNELS[xREACH[xJITTER]] (e.g. 1024x1024x3; 1024x1024x3x127: "
                             "displacements uniform in +-127 columns; 1024x1024x3x127x16: a smooth field of amplitude "
                             "127 - 16 plus +-16 per pixel; JITTER <= REACH <= 127)",
                             [](const std::vector<size_t>& dims) {
                               return dims.size() == 3 || (dims[3] <= 127 && (dims.size() == 4 || dims[4] <= dims[3]));
                             });
  op.bytes_per_run = [](const Shape& s) {
    const Geometry g = Geo(s);
    return static_cast<double>(g.height * g.width) * (2.0 * static_cast<double>(g.channels) + 2.0);
  };
  op.elements = [](const Shape& s) { return s.dims[0] * s.dims[1] * s.dims[2]; };  // pixels x channels
  op.make_problem = MakeProblem;
  op.accuracy = Int8Accuracy;
  op.bound_text = [](double b) { return b == 0 ? std::string("exact") : std::string("abs<=1 LSB"); };
  op.baselines = {"c-gcc", "c-clang"};

  op.AddImpls(VlakTargetImpls("vlak_warp_i8", 0.0, Available,
                              [](const Problem& p, Outputs& out) {
                                const Geometry g = Geo(p.shape);
                                return vlak_warp_i8(g.channels, g.height, g.width, p.In(kSrc).Data<int8_t>(),
                                                    Offsets(p), out[0].Data<int8_t>()) == VLAK_OK;
                              }));
  // The avx2 and avx512 targets' generic (gather) kernels beside the window specialisation.
  for (const auto& [name, target, text] :
       {std::tuple{"vlak@avx2-generic", VLAK_TARGET_AVX2, "vlak_warp_i8 forced to avx2's generic kernel (window kernel off)"},
        std::tuple{"vlak@avx512-generic", VLAK_TARGET_AVX512,
                   "vlak_warp_i8 forced to avx512's generic kernel (window kernel off)"}}) {
    if (!vlak_target_compiled(target)) continue;
    op.impls.push_back(VlakImpl(
        name, target, text, 0.0,
        [] {
          return WarpAvx2WindowEnabled()
                     ? std::string()
                     : std::string("the window kernel is off here (CPU or VLAK_AVX2_WINDOW=0): vlak@avx2 and @avx512 gather");
        },
        [](const Problem& p, Outputs& out) {
          const Geometry g = Geo(p.shape);
          const bool was = SetWarpAvx2Window(false);
          const bool ok = vlak_warp_i8(g.channels, g.height, g.width, p.In(kSrc).Data<int8_t>(), Offsets(p),
                                       out[0].Data<int8_t>()) == VLAK_OK;
          SetWarpAvx2Window(was);
          return ok;
        }));
  }
  for (const char* cc : {"gcc", "clang"}) {
    ImplDef d = CrefImpl(cc, "src/ops/warp/warp_peer.c", Cref_warp_i8(cc), [](auto* k, const Problem& p, Outputs& out, int threads) {
      const Geometry g = Geo(p.shape);
      return ParallelOk(threads, g.channels * g.height, [&](size_t r0, size_t r1) {
        k(p.In(kSrc).Data<int8_t>() + r0 * g.width, Offsets(p), out[0].Data<int8_t>() + r0 * g.width, r0,
                  r1 - r0, g.height, g.width);
        return true;
      });
    });
    d.bound = 0.0;
    op.impls.push_back(std::move(d));
  }
  ImplDef cv = LibraryImpl("opencv",
                           "cv::remap INTER_LINEAR, horizontal map, u8 with a 128 bias (no CV_8S); 15-bit weights, "
                           "rounded: within 1 LSB of vlak.h's floor",
                           [] { return OpencvMissing(); });
  cv.bound = 1.0;
#if defined(VLAK_LAB_HAVE_OPENCV)
  cv.prepare = OpencvWarp;
#else
  cv.prepare = [](const Problem&, Outputs&, int, std::string* err) {
    *err = OpencvMissing();
    return Prepared{};
  };
#endif
  op.impls.push_back(std::move(cv));
  return {op};
}

}  // namespace vlak::lab
