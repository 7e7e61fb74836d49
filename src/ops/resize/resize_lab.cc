// resize u8 (Terapines AI-Benchmark's bilinear 2x Resize): the lab's view of it.
//   shapes:  CxHxW (output 2H x 2W: AI-Benchmark's 3x512x512 -> 1024x1024) or CxHxWxOHxOW. Planar
//            [C][H][W] bytes in, [C][OH][OW] out, dense. The lab runs the u8 form (OpenCV resizes
//            no int8); vlak_resize_bilinear_i8 is the same kernel on signed lanes.
//   inputs:  src, uniform bytes from a fixed seed.
//   bytes:   read src once, write dst once: C (H W + OH OW).
//   mapping and bound: vlak's row and the C reference (AI-Benchmark's loop, 2x only) run the
//            ASYMMETRIC mapping (src = dst in/out) and must equal vlak.h's definition exactly
//            (ResizeBilinearReferenceU8). "vlak-halfpixel" runs VLAK_RESIZE_HALF_PIXEL, exact
//            against that mapping's reference. The libraries round differently, so they are
//            checked within +-1 LSB against the reference of their own mapping: OpenCV's
//            INTER_LINEAR is half-pixel with 11-bit weights; XNNPACK's TensorFlow legacy mode is
//            asymmetric with 11-bit weights. ImplDef::bound encodes both: LSB tolerance, plus
//            kHalfPixel when the implementation's mapping is half-pixel. +-1 LSB holds where the
//            positions are exact in Q7 (2x: multiples of 1/4 pixel); at other ratios vlak.h's Q7
//            positions are floored to 1/128 pixel while the libraries keep 11 bits, and the
//            libraries' rows fail that bound (measured at 3x512x512x768x640: OpenCV 4 LSB,
//            XNNPACK 3 LSB from the Q7 definition), so the suites run those rows at 2x only.
//   layouts: the planes are CHW. XNNPACK's operator is NHWC: it gets the C planes as a batch of C
//            single-channel images (N = C, channels = 1, pixel stride 1), which is the same bytes
//            and the same arithmetic, no transposition. OpenCV gets one CV_8UC1 Mat per plane.
//   threads: vlak threads itself over output rows; the C reference gets blocks of output rows of
//            the channel-major stack; OpenCV cv::setNumThreads (its parallel_for inside one plane,
//            planes one after the other); XNNPACK a pthreadpool.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "lab/baselines.h"
#include "lab/ops.h"
#include "ops/resize/resize.h"
#include "vlak/vlak.h"

#if defined(VLAK_LAB_HAVE_XNNPACK)
#include <pthreadpool.h>
#include <xnnpack.h>
#endif
#if defined(VLAK_LAB_HAVE_OPENCV)
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

// The plain C peer beside this file (resize_peer.c: AI-Benchmark's 2x loop), built by gcc and by clang
// (lab.cmake).
VLAK_LAB_CREF(resize2x_u8, void(const uint8_t* src, uint8_t* dst, size_t in_h, size_t in_w, size_t row_begin,
                                size_t row_end))

namespace vlak::lab {
namespace {

constexpr double kHalfPixel = 1000;  // added to ImplDef::bound: the implementation maps half-pixel

struct Geometry {
  size_t c, h, w, oh, ow;
};
Geometry Geo(const Shape& s) {
  const auto& d = s.dims;
  if (d.size() == 5) return {d[0], d[1], d[2], d[3], d[4]};
  return {d[0], d[1], d[2], 2 * d[1], 2 * d[2]};
}
Geometry Geo(const Problem& p) { return Geo(p.shape); }

// The half-pixel reference, kept beside Problem::ref (which holds the asymmetric one) for the
// implementations that map that way; keyed by the problem it belongs to.
struct HalfPixelRef {
  const Problem* problem = nullptr;
  std::vector<uint8_t> ref;
};
HalfPixelRef& HalfRef() {
  static HalfPixelRef r;
  return r;
}

void MakeProblem(Problem* p) {
  const Geometry g = Geo(*p);
  uint8_t* src = p->AddInput("src", {g.c, g.h, g.w}, DType::kU8).Data<uint8_t>();
  std::mt19937 rng(4);
  for (size_t i = 0; i < g.c * g.h * g.w; ++i) src[i] = static_cast<uint8_t>(rng() >> 24);
  std::vector<double>& ref = p->AddOutput("dst", {g.c, g.oh, g.ow}, DType::kU8);
  std::vector<uint8_t> exact(ref.size());
  ResizeBilinearReferenceU8(g.c, g.h, g.w, src, g.oh, g.ow, exact.data(), false);
  std::copy(exact.begin(), exact.end(), ref.begin());
}

// Max |dst - reference| in LSB against the reference of the implementation's mapping.
Accuracy ResizeAccuracy(const Problem& p, const Outputs& out, double bound) {
  Accuracy a;
  const bool half = !std::isnan(bound) && bound >= kHalfPixel;
  const uint8_t* y = out[0].Data<uint8_t>();
  const size_t n = p.ref[0].size();
  std::vector<double> half_ref;
  if (half) {
    HalfPixelRef& hr = HalfRef();
    if (hr.problem != &p || hr.ref.size() != n) {
      const Geometry g = Geo(p);
      hr.ref.assign(n, 0);
      ResizeBilinearReferenceU8(g.c, g.h, g.w, p.In(0).Data<uint8_t>(), g.oh, g.ow, hr.ref.data(), true);
      hr.problem = &p;
    }
  }
  double sig = 0, noise = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = half ? HalfRef().ref[i] : p.ref[0][i];
    const double d = std::fabs(static_cast<double>(y[i]) - r);
    a.max_abs = std::fmax(a.max_abs, d);
    if (r >= 1) a.max_rel = std::fmax(a.max_rel, d / r);
    sig += r * r;
    noise += d * d;
  }
  a.snr_db = noise == 0 ? INFINITY : 10.0 * std::log10(sig / noise);
  if (!std::isnan(bound)) a.bound_ok = a.max_abs <= (half ? bound - kHalfPixel : bound) ? 1 : 0;
  return a;
}

std::string BoundText(double b) {
  const bool half = b >= kHalfPixel;
  const double lsb = half ? b - kHalfPixel : b;
  char buf[64];
  if (lsb == 0) {
    std::snprintf(buf, sizeof buf, "exact (%s)", half ? "half-pixel" : "asymmetric");
  } else {
    std::snprintf(buf, sizeof buf, "+-%.0f LSB (%s)", lsb, half ? "half-pixel" : "asymmetric");
  }
  return buf;
}

bool RunVlak(const Problem& p, Outputs& out, unsigned flags) {
  const Geometry g = Geo(p);
  return vlak_resize_bilinear_u8(g.c, g.h, g.w, p.In(0).Data<uint8_t>(), g.oh, g.ow, out[0].Data<uint8_t>(), flags) ==
         VLAK_OK;
}

ImplDef CrefImplResize(const std::string& cc) {
  ImplDef d = CrefImpl(cc, "src/ops/resize/resize_peer.c (AI-Benchmark's 2x loop)", Cref_resize2x_u8(cc),
                       [](auto* f, const Problem& p, Outputs& out, int threads) {
                         const Geometry g = Geo(p);
                         if (g.oh != 2 * g.h || g.ow != 2 * g.w) return false;  // 2x only
                         const uint8_t* src = p.In(0).Data<uint8_t>();
                         uint8_t* dst = out[0].Data<uint8_t>();
                         return ParallelOk(threads, g.c * g.oh, [&](size_t r0, size_t r1) {
                           f(src, dst, g.h, g.w, r0, r1);
                           return true;
                         });
                       });
  d.bound = 0;
  return d;
}

ImplDef OpencvImpl() {
  ImplDef d = PlainImpl("opencv", "library",
                        "OpenCV cv::resize INTER_LINEAR (half-pixel, 11-bit weights), one CV_8UC1 Mat per plane, "
                        "cv::setNumThreads",
                        OpencvMissing, [](const Problem& p, Outputs& out, int threads) {
#if defined(VLAK_LAB_HAVE_OPENCV)
                          const Geometry g = Geo(p);
                          cv::setNumThreads(threads);
                          const uint8_t* src = p.In(0).Data<uint8_t>();
                          uint8_t* dst = out[0].Data<uint8_t>();
                          for (size_t c = 0; c < g.c; ++c) {
                            const cv::Mat in(static_cast<int>(g.h), static_cast<int>(g.w), CV_8UC1,
                                             const_cast<uint8_t*>(src + c * g.h * g.w));
                            cv::Mat o(static_cast<int>(g.oh), static_cast<int>(g.ow), CV_8UC1, dst + c * g.oh * g.ow);
                            cv::resize(in, o, o.size(), 0, 0, cv::INTER_LINEAR);
                            if (o.data != dst + c * g.oh * g.ow) return false;  // must write in place
                          }
                          return true;
#else
                          (void)p, (void)out, (void)threads;
                          return false;
#endif
                        });
  d.bound = kHalfPixel + 1;
  return d;
}

ImplDef XnnpackResizeImpl() {
  ImplDef d = XnnpackRow(
      "XNNPACK xnn_create_resize_bilinear2d_nhwc_u8, TensorFlow legacy mode (asymmetric, 11-bit weights); the C "
      "planes as a batch of C one-channel NHWC images; pthreadpool threads",
      VLAK_LAB_XNNPACK_PREPARE([](const Problem& p, Outputs& out, int threads, std::string* err) {
        pthreadpool_t pool = XnnPool(threads);
        const Geometry g = Geo(p);
        return XnnpackPrepare(
            "resize_bilinear2d_nhwc_u8", pool, err,
            [](xnn_operator_t* op) {
              return xnn_create_resize_bilinear2d_nhwc_u8(1, 1, 1, XNN_FLAG_TENSORFLOW_LEGACY_MODE, op);
            },
            [&](xnn_operator_t op) {
              return xnn_setup_resize_bilinear2d_nhwc_u8(op, g.c, g.h, g.w, g.oh, g.ow, p.In(0).Data<uint8_t>(),
                                                         out[0].Data<uint8_t>(), pool);
            });
      }));
  d.bound = 1;
  return d;
}

}  // namespace

std::vector<OpDef> LabOps_resize() {
  OpDef op = NewOp("resize", "CxHxW (2x: AI-Benchmark's 3x512x512) or CxHxWxOHxOW", "w",
                   "C (H W + OH OW) bytes (read src, write dst)");
  op.check_shape = ShapeRule({3, 5}, "resize shapes are CxHxW (output 2H x 2W, e.g. 3x512x512) or CxHxWxOHxOW");
  op.bytes_per_run = [](const Shape& s) {
    const Geometry g = Geo(s);
    return static_cast<double>(g.c) * static_cast<double>(g.h * g.w + g.oh * g.ow);
  };
  op.elements = [](const Shape& s) { return s.dims[0] * s.dims[1] * s.dims[2]; };  // input pixels, as for 2x
  op.make_problem = MakeProblem;
  op.accuracy = ResizeAccuracy;
  op.bound_text = BoundText;
  op.baselines = {"c-clang", "c-gcc", "opencv", "xnnpack"};

  op.AddImpls(VlakTargetImpls("vlak_resize_bilinear_u8 (asymmetric)", 0, Available,
                              [](const Problem& p, Outputs& out) { return RunVlak(p, out, VLAK_RESIZE_ASYMMETRIC); }));
  op.impls.push_back(VlakImpl("vlak-halfpixel", -1, "vlak_resize_bilinear_u8 VLAK_RESIZE_HALF_PIXEL (OpenCV's mapping)",
                              kHalfPixel, Available,
                              [](const Problem& p, Outputs& out) { return RunVlak(p, out, VLAK_RESIZE_HALF_PIXEL); }));
  for (const char* cc : {"gcc", "clang"}) op.impls.push_back(CrefImplResize(cc));
  op.impls.push_back(OpencvImpl());
  op.impls.push_back(XnnpackResizeImpl());
  return {op};
}

}  // namespace vlak::lab
