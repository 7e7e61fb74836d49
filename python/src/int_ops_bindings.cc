// The integer operators (int8 / uint8 images and quantised softmax): NumPy arrays to the C API's
// dense planes or strided rows, the GIL released around the kernel, the status text raised on
// failure. Each is a fast-call entry point (fastcall.h), as the float operators are.
//
// Dtypes are never converted: a wrong dtype is a TypeError (an int8 image silently cast from
// int64 would wrap). Inputs that are not C-contiguous go through a contiguous copy; an `out` that
// is not C-contiguous, or that may share memory with an input, is written through a temporary and
// copied into (numpy.copyto) after the kernel.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.h"
#include "fastcall.h"

namespace vlak::python {
namespace {

// NumPy type numbers (numpy/ndarraytypes.h): NPY_BYTE, NPY_UBYTE, NPY_SHORT.
constexpr int kI8 = 1, kU8 = 2, kI16 = 3;

const char* TypeName(int num) { return num == kI8 ? "int8" : num == kU8 ? "uint8" : "int16"; }

std::vector<ptrdiff_t> ShapeOf(const py::array& a) { return std::vector<ptrdiff_t>(a.shape(), a.shape() + a.ndim()); }

// `obj` as an ndarray of one of the dtypes `nums` (native order), else TypeError.
py::array IntArray(const char* fn, const char* name, py::handle obj, std::initializer_list<int> nums) {
  std::string want;
  for (int n : nums) want += std::string(want.empty() ? "" : " or ") + TypeName(n);
  if (!py::isinstance<py::array>(obj)) {
    throw py::type_error(std::string("vlak.") + fn + ": " + name + " must be a numpy.ndarray of " + want + ", not " +
                         std::string(py::str(obj.get_type().attr("__name__"))));
  }
  auto a = py::reinterpret_borrow<py::array>(obj);
  const py::dtype dt = a.dtype();
  const char order = dt.byteorder();
  bool ok = order == '=' || order == '|' || order == '<';
  bool match = false;
  for (int n : nums) match = match || dt.num() == n;
  if (!ok || !match) {
    throw py::type_error(std::string("vlak.") + fn + ": " + name + " must be " + want + ", not " +
                         std::string(py::str(dt)));
  }
  return a;
}

bool Dense(const py::array& a) {
  return (a.flags() & py::array::c_style) && (a.flags() & 0x0100 /* NPY_ARRAY_ALIGNED */);
}
py::array Contiguous(const py::array& a) {
  if (Dense(a)) return a;
  return py::module_::import("numpy").attr("ascontiguousarray")(a).cast<py::array>();
}
// Byte spans intersect (conservative: MayOverlap counts each element as 4 bytes, so a false
// "maybe" only costs a temporary).
bool MayShare(const py::array& a, const py::array& b) { return MayOverlap(LayoutOf(a), LayoutOf(b)); }

// The output: a new C-contiguous array of `dtype` and `shape`, or `out` (dtype, shape and
// writeability checked). *dst is what the kernel writes: out itself when it is dense and shares
// no memory with `inputs`, else a temporary to copy into out afterwards (*copy_back).
struct Output {
  py::array result, dst;
  bool copy_back = false;
  void Finish() const {
    if (copy_back) py::module_::import("numpy").attr("copyto")(result, dst);
  }
};
Output MakeOutput(const char* fn, py::handle out, const py::dtype& dtype, const std::vector<ptrdiff_t>& shape,
                  const std::vector<py::array>& inputs) {
  Output o;
  const std::vector<py::ssize_t> sh(shape.begin(), shape.end());
  if (out.is_none()) {
    o.result = o.dst = py::array(dtype, sh);
    return o;
  }
  py::array a = IntArray(fn, "out", out, {dtype.num()});
  if (!a.writeable()) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "out is read-only");
  if (ShapeOf(a) != shape) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "out has shape " + ShapeText(ShapeOf(a)) + ", expected " + ShapeText(shape));
  }
  o.result = a;
  bool direct = Dense(a);
  for (const py::array& in : inputs) direct = direct && !MayShare(a, in);
  if (direct) {
    o.dst = a;
  } else {
    o.dst = py::array(dtype, sh);
    o.copy_back = true;
  }
  return o;
}

size_t SizeArg(const char* fn, const char* name, py::ssize_t v) {
  if (v < 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, std::string(name) + " is negative (" + std::to_string(v) + ")");
  return static_cast<size_t>(v);
}

// [channels][h][w], or [h][w] as one channel.
void Planes(const char* fn, const char* name, const py::array& x, size_t* c, size_t* h, size_t* w) {
  if (x.ndim() == 3) {
    *c = x.shape(0), *h = x.shape(1), *w = x.shape(2);
  } else if (x.ndim() == 2) {
    *c = 1, *h = x.shape(0), *w = x.shape(1);
  } else {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          std::string(name) + " has shape " + ShapeText(ShapeOf(x)) + ", expected [channels][height][width] or [height][width]");
  }
}

template <class Fn>
void Run(const char* fn, Fn kernel) {
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = kernel();
  }
  Check(fn, s);
}

py::object ResizeBilinear(py::handle x_obj, py::ssize_t out_h_arg, py::ssize_t out_w_arg, bool half_pixel,
                          py::handle out) {
  const char* fn = "resize_bilinear";
  py::array x = IntArray(fn, "x", x_obj, {kI8, kU8});
  size_t c, h, w;
  Planes(fn, "x", x, &c, &h, &w);
  const size_t oh = SizeArg(fn, "out_h", out_h_arg), ow = SizeArg(fn, "out_w", out_w_arg);
  std::vector<ptrdiff_t> shape{static_cast<ptrdiff_t>(oh), static_cast<ptrdiff_t>(ow)};
  if (x.ndim() == 3) shape.insert(shape.begin(), static_cast<ptrdiff_t>(c));
  x = Contiguous(x);
  Output o = MakeOutput(fn, out, x.dtype(), shape, {x});
  const unsigned flags = half_pixel ? VLAK_RESIZE_HALF_PIXEL : VLAK_RESIZE_ASYMMETRIC;
  const void* src = x.data();
  void* dst = o.dst.mutable_data();
  const bool u8 = x.dtype().num() == kU8;
  Run(fn, [&] {
    return u8 ? vlak_resize_bilinear_u8(c, h, w, static_cast<const uint8_t*>(src), oh, ow, static_cast<uint8_t*>(dst), flags)
              : vlak_resize_bilinear_i8(c, h, w, static_cast<const int8_t*>(src), oh, ow, static_cast<int8_t*>(dst), flags);
  });
  o.Finish();
  return o.result;
}

py::object Warp(py::handle x_obj, py::handle off_obj, py::handle out) {
  const char* fn = "warp";
  py::array x = IntArray(fn, "x", x_obj, {kI8});
  py::array off = IntArray(fn, "offsets", off_obj, {kI16});
  size_t c, h, w;
  Planes(fn, "x", x, &c, &h, &w);
  const std::vector<ptrdiff_t> want{static_cast<ptrdiff_t>(h), static_cast<ptrdiff_t>(w)};
  if (ShapeOf(off) != want) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "offsets has shape " + ShapeText(ShapeOf(off)) + ", expected " + ShapeText(want));
  }
  x = Contiguous(x);
  off = Contiguous(off);
  Output o = MakeOutput(fn, out, x.dtype(), ShapeOf(x), {x, off});
  const auto* src = static_cast<const int8_t*>(x.data());
  const auto* po = static_cast<const int16_t*>(off.data());
  auto* dst = static_cast<int8_t*>(o.dst.mutable_data());
  Run(fn, [&] { return vlak_warp_i8(c, h, w, src, po, dst); });
  o.Finish();
  return o.result;
}

py::object Correlation(py::handle a_obj, py::handle b_obj, py::ssize_t disp_arg, py::ssize_t shift_arg, bool wrap16,
                       py::handle out) {
  const char* fn = "correlation";
  py::array a = IntArray(fn, "a", a_obj, {kI8});
  py::array b = IntArray(fn, "b", b_obj, {kI8});
  size_t c, h, w;
  Planes(fn, "a", a, &c, &h, &w);
  if (ShapeOf(b) != ShapeOf(a)) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "b has shape " + ShapeText(ShapeOf(b)) + ", a has " + ShapeText(ShapeOf(a)));
  }
  const size_t d = SizeArg(fn, "displacements", disp_arg);
  const size_t shift = SizeArg(fn, "shift", shift_arg);
  if (shift > 31) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "shift " + std::to_string(shift) + " > 31");
  a = Contiguous(a);
  b = Contiguous(b);
  const std::vector<ptrdiff_t> shape{static_cast<ptrdiff_t>(d), static_cast<ptrdiff_t>(h), static_cast<ptrdiff_t>(w)};
  Output o = MakeOutput(fn, out, a.dtype(), shape, {a, b});
  const auto* pa = static_cast<const int8_t*>(a.data());
  const auto* pb = static_cast<const int8_t*>(b.data());
  auto* dst = static_cast<int8_t*>(o.dst.mutable_data());
  const unsigned flags = wrap16 ? VLAK_CORRELATION_WRAP16 : 0u;
  Run(fn, [&] { return vlak_correlation_i8(d, c, h, w, pa, pb, static_cast<unsigned>(shift), dst, flags); });
  o.Finish();
  return o.result;
}

// A 1-byte array as rows x cols (last axis), rows equally spaced: the last axis contiguous (or of
// length 1) and the leading axes, dropping those of length 1, nesting into one stride.
bool ByteRows(const py::array& a, size_t* rows, size_t* cols, size_t* stride) {
  const py::ssize_t nd = a.ndim();
  *cols = static_cast<size_t>(a.shape(nd - 1));
  *rows = 1;
  for (py::ssize_t i = 0; i + 1 < nd; ++i) *rows *= static_cast<size_t>(a.shape(i));
  if (*rows == 0 || *cols == 0) {
    *stride = *cols;
    return true;
  }
  if (*cols > 1 && a.strides(nd - 1) != 1) return false;
  // Innermost leading axis of length > 1 sets the stride; each outer one must be length x inner.
  ptrdiff_t s = -1, need = -1;
  for (py::ssize_t i = nd - 2; i >= 0; --i) {
    if (a.shape(i) == 1) continue;
    const ptrdiff_t st = a.strides(i);
    if (s < 0) {
      if (st < static_cast<ptrdiff_t>(*cols)) return false;
      s = st;
    } else if (st != need) {
      return false;
    }
    need = st * a.shape(i);
  }
  *stride = s < 0 ? *cols : static_cast<size_t>(s);
  return true;
}

py::object SoftmaxI8(py::handle x_obj, double input_scale, bool lut, py::handle out) {
  const char* fn = "softmax_i8";
  py::array x = IntArray(fn, "x", x_obj, {kI8, kU8});
  if (x.ndim() == 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "x is 0-dimensional (softmax needs an axis)");
  size_t rows, cols, xs;
  if (!ByteRows(x, &rows, &cols, &xs)) {
    x = py::module_::import("numpy").attr("ascontiguousarray")(x).cast<py::array>();
    ByteRows(x, &rows, &cols, &xs);
  }
  const std::vector<ptrdiff_t> shape = ShapeOf(x);
  const std::vector<py::ssize_t> sh(shape.begin(), shape.end());
  py::array result, dst;
  bool copy_back = false;
  size_t ys = cols;
  if (out.is_none()) {
    result = dst = py::array(x.dtype(), sh);
  } else {
    py::array o = IntArray(fn, "out", out, {x.dtype().num()});
    if (!o.writeable()) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "out is read-only");
    if (ShapeOf(o) != shape) {
      Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "out has shape " + ShapeText(ShapeOf(o)) + ", x has " + ShapeText(shape));
    }
    result = o;
    size_t r2, c2;
    if (ByteRows(o, &r2, &c2, &ys)) {
      dst = o;
      // x == out exactly (same rows) is allowed in place; any other overlap reads a copy of x.
      if (MayShare(o, x) && !(o.data() == x.data() && ys == xs)) {
        x = py::array(x.dtype(), sh);
        py::module_::import("numpy").attr("copyto")(x, py::reinterpret_borrow<py::object>(x_obj));
        xs = cols;
      }
    } else {
      dst = py::array(x.dtype(), sh);
      ys = cols;
      copy_back = true;
    }
  }
  const float scale = static_cast<float>(input_scale);
  const unsigned flags = lut ? VLAK_SOFTMAX_I8_LUT : VLAK_SOFTMAX_I8_TFLITE;
  const void* px = x.data();
  void* py_ = dst.mutable_data();
  const bool u8 = x.dtype().num() == kU8;
  Run(fn, [&] {
    return u8 ? vlak_softmax_u8(rows, cols, static_cast<const uint8_t*>(px), xs, scale, static_cast<uint8_t*>(py_), ys, flags)
              : vlak_softmax_i8(rows, cols, static_cast<const int8_t*>(px), xs, scale, static_cast<int8_t*>(py_), ys, flags);
  });
  if (copy_back) py::module_::import("numpy").attr("copyto")(result, dst);
  return result;
}

constexpr const char* kDocResize = R"doc(resize_bilinear(x: ndarray[int8 | uint8], out_h: int, out_w: int, half_pixel: bool = False, out: ndarray | None = None) -> ndarray[int8 | uint8]

Bilinear resize of each channel plane of x (int8 or uint8, [channels][h][w], or [h][w] as one
channel) to out_h x out_w, returning an array of x's dtype ([channels][out_h][out_w]).

Bit-exact integer definition (vlak_resize_bilinear_i8/_u8 in vlak.h): Q7 positions
px = floor(ox * in_w * 128 / out_w) (half_pixel=False, TensorFlow's legacy / Terapines AI-Benchmark mapping) or
px = max(0, floor((2 ox + 1) * in_w * 64 / out_w) - 64) (half_pixel=True: OpenCV INTER_LINEAR,
PyTorch align_corners=False); x0 = px >> 7, x1 = min(x0 + 1, in_w - 1), wx1 = px & 127,
wx0 = 128 - wx1 (rows alike); top/bottom = (s0 * w0 + s1 * w1) >> 7 along x, then the same along y
(flooring shifts). The same bits on every target and thread count; below 2 LSB from the real
bilinear value at the Q7 position.
ValueError: in_h or in_w == 0, negative sizes, out of the wrong shape. TypeError: not int8/uint8.)doc";

constexpr const char* kDocWarp = R"doc(warp(x: ndarray[int8], offsets: ndarray[int16], out: ndarray[int8] | None = None) -> ndarray[int8]

Horizontal warp of x (int8, [channels][h][w], or [h][w]) by offsets (int16, [h][w], 8.8 fixed
point, shared by all channels); returns int8 of x's shape.

Bit-exact integer definition (vlak_warp_i8 in vlak.h): o = offsets[h][w], n = o >> 8, f = the
low byte of o as a signed int8, r = w - n, l = r - 1, R = x[c][h][r], L = x[c][h][l] (0 outside
[0, width)), out = int8((R * 256 + (L - R) * f) >> 8) (bits 8..15 of the sum: AI-Benchmark's int16
wrap-around). The same bits on every target and thread count.
ValueError: offsets of the wrong shape, out of the wrong shape. TypeError: x not int8, offsets
not int16.)doc";

constexpr const char* kDocCorrelation = R"doc(correlation(a: ndarray[int8], b: ndarray[int8], displacements: int, shift: int, wrap16: bool = False, out: ndarray[int8] | None = None) -> ndarray[int8]

Optical-flow correlation of a and b (int8, [channels][h][w], or [h][w]); returns int8
[displacements][h][w].

Bit-exact integer definition (vlak_correlation_i8 in vlak.h):
out[d][i][j] = clamp((sum_k a[k][i][j] * b[k][i][j - d]) >> shift, -128, 127) for j >= d, 0 for
j < d; the sum in int32, the shift arithmetic (floor). wrap16=True is AI-Benchmark's arithmetic:
out = int8(int16(sum) >> shift). The same bits on every target and thread count.
ValueError: a and b of different shapes, negative displacements, shift outside 0..31, out of the
wrong shape. TypeError: not int8.)doc";

constexpr const char* kDocSoftmaxI8 = R"doc(softmax_i8(x: ndarray[int8 | uint8], input_scale: float, lut: bool = False, out: ndarray | None = None) -> ndarray[int8 | uint8]

Softmax over the last axis of quantised logits x (int8 or uint8; x stands for input_scale * x, any
zero point), TFLite's convention: the output (same dtype) stands for (y - zp) / 256 with zp = -128
(int8) or 0 (uint8).

lut=False: bit-exact with TFLite's reference int8/uint8 softmax (beta = 1, its constants derived
from input_scale as TFLite's Prepare does); the same bits on every target and thread count.
lut=True: float tables, not bit-exact with TFLite but |(y - zp) - min(256 p, 255)| < 1 where p is
the float64 softmax of input_scale * x (at most 1 LSB from the correctly rounded output).
Strided views whose rows are contiguous are used in place; out may be x itself.
ValueError: input_scale not finite or <= 2^-26, 0-d x, out of the wrong shape. TypeError: not
int8/uint8, or out of another dtype than x.)doc";

VLAK_ENTRY(ResizeBilinearEntry) {
  static const FastParams p("resize_bilinear", {"x", "out_h", "out_w", "half_pixel", "out"}, 3);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return ResizeBilinear(v[0], LongArg(v[1], 0), LongArg(v[2], 0), BoolArg(v[3], false), Obj(v[4]));
  });
}
VLAK_ENTRY(WarpEntry) {
  static const FastParams p("warp", {"x", "offsets", "out"}, 2);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) { return Warp(v[0], v[1], Obj(v[2])); });
}
VLAK_ENTRY(CorrelationEntry) {
  static const FastParams p("correlation", {"a", "b", "displacements", "shift", "wrap16", "out"}, 4);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return Correlation(v[0], v[1], LongArg(v[2], 0), LongArg(v[3], 0), BoolArg(v[4], false), Obj(v[5]));
  });
}
VLAK_ENTRY(SoftmaxI8Entry) {
  static const FastParams p("softmax_i8", {"x", "input_scale", "lut", "out"}, 2);
  return Entry(p, args, nargs, kwnames,
               [](PyObject** v) { return SoftmaxI8(v[0], FloatArg(v[1], 0.0), BoolArg(v[2], false), Obj(v[3])); });
}

PyMethodDef kMethods[] = {
    VLAK_METHOD("resize_bilinear", ResizeBilinearEntry, kDocResize),
    VLAK_METHOD("warp", WarpEntry, kDocWarp),
    VLAK_METHOD("correlation", CorrelationEntry, kDocCorrelation),
    VLAK_METHOD("softmax_i8", SoftmaxI8Entry, kDocSoftmaxI8),
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void BindIntOps(py::module_& m) { AddFunctions(m, kMethods); }

}  // namespace vlak::python
