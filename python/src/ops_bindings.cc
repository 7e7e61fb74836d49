// The operators: each converts its NumPy arguments to the C API's (array_rows.h), releases the
// GIL around the kernel and raises the status text on failure. Docstrings state the accuracy
// bound the C API documents (include/vlak/vlak.h) and that tests/test_*.py check.
#include <cstring>
#include <utility>

#include "bindings.h"
#include "fastcall.h"

namespace vlak::python {
namespace {

// Runs fn() without the GIL, then the copy back of a temporary output; raises on failure.
template <class Fn>
void RunRows(const char* fn, const RowIO& io, Fn kernel) {
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = kernel();
    if (s == VLAK_OK) io.CopyBack();
  }
  Check(fn, s);
}

unsigned SoftmaxExpFlag(const std::string& exp) {
  if (exp == "accurate") return VLAK_SOFTMAX_EXP_ACCURATE;
  if (exp == "fast") return VLAK_SOFTMAX_EXP_FAST;
  if (exp == "precise") return VLAK_SOFTMAX_EXP_PRECISE;
  Raise("softmax", VLAK_ERROR_INVALID_ARGUMENT, "exp must be 'accurate', 'fast' or 'precise', not '" + exp + "'");
}

py::object Softmax(py::handle x_obj, int axis, bool log, bool safe, const std::string& exp, py::handle out) {
  const char* fn = log ? "log_softmax" : "softmax";
  const unsigned flags = (log ? VLAK_SOFTMAX_LOG : 0u) | (safe ? VLAK_SOFTMAX_SAFE : 0u) | SoftmaxExpFlag(exp);
  py::array x = F32Array(fn, "x", x_obj);
  if (x.ndim() == 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "x is 0-dimensional (softmax needs an axis)");
  RowIO io = PrepareRows(fn, x, out, NormAxis(fn, axis, x.ndim()));
  RunRows(fn, io, [&] {
    return vlak_softmax_f32(io.x.rows, io.x.cols, io.x.F32(), io.x.stride, io.y.F32(), io.y.stride, flags);
  });
  return io.result;
}

vlak_exp_variant ExpVariant(const std::string& v) {
  for (int i = VLAK_EXP_SCHRAUDOLPH; i <= VLAK_EXP_PRECISE; ++i) {
    if (v == vlak_exp_variant_name(static_cast<vlak_exp_variant>(i))) return static_cast<vlak_exp_variant>(i);
  }
  Raise("exp", VLAK_ERROR_INVALID_ARGUMENT,
        "variant must be one of schraudolph, bittrick_p3, bittrick_p5, cephes, accurate, precise; not '" + v + "'");
}

py::object Exp(py::handle x_obj, const std::string& variant, py::handle out) {
  const vlak_exp_variant v = ExpVariant(variant);
  py::array x = F32Array("exp", "x", x_obj);
  // A 0-d array is one element: run it as shape (1,) through views, return 0-d.
  const bool scalar = x.ndim() == 0;
  py::object out_view = py::reinterpret_borrow<py::object>(out);
  if (scalar) {
    x = x.reshape({1});
    if (!out.is_none()) out_view = OutArray("exp", out, {}, "x has").reshape({1});
  }
  RowIO io = PrepareRows("exp", x, out_view, static_cast<size_t>(x.ndim() - 1));
  RunRows("exp", io, [&]() -> vlak_status {
    const Rows& a = io.x;
    const Rows& b = io.y;
    if (a.stride == a.cols && b.stride == b.cols) return vlak_exp_f32(a.rows * a.cols, a.F32(), b.F32(), v);
    for (size_t r = 0; r < a.rows; ++r) {
      const vlak_status s = vlak_exp_f32(a.cols, a.F32() + r * a.stride, b.F32() + r * b.stride, v);
      if (s != VLAK_OK) return s;
    }
    return VLAK_OK;
  });
  if (!scalar) return io.result;
  if (!out.is_none()) return py::reinterpret_borrow<py::object>(out);
  return io.result.cast<py::array>().reshape(std::vector<py::ssize_t>{});
}

}  // namespace

// An activation given by name ("silu") or by its vlak_activation value (an int).
vlak_activation ActivationOp(const char* fn, PyObject* v) {
  static const char* const kNames[] = {"sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"};
  constexpr int kCount = static_cast<int>(sizeof kNames / sizeof kNames[0]);
  if (PyLong_Check(v)) {
    const long k = PyLong_AsLong(v);
    if (k == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (k < 0 || k >= kCount) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "op " + std::to_string(k) + " is not 0..5");
    return static_cast<vlak_activation>(k);
  }
  if (!PyUnicode_Check(v)) throw py::type_error(std::string("vlak.") + fn + ": op must be a str or an int");
  const char* name = PyUnicode_AsUTF8(v);
  if (name == nullptr) throw py::error_already_set();
  for (int k = 0; k < kCount; ++k) {
    if (std::strcmp(name, kNames[k]) == 0) return static_cast<vlak_activation>(k);
  }
  Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
        std::string("op must be one of sigmoid, tanh, gelu, gelu_tanh, silu, softplus; not '") + name + "'");
}

// The accuracy tier by name: "accurate" (the default) or "fast", OR-ed into op (vlak.h).
vlak_activation WithTier(const char* fn, vlak_activation op, const std::string& accuracy) {
  if (accuracy == "accurate") return op;
  if (accuracy == "fast") return op | VLAK_ACT_FAST;
  Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "accuracy must be 'accurate' or 'fast'; not '" + accuracy + "'");
}

namespace {

py::object Activation(py::handle x_obj, vlak_activation op, py::handle out) {
  const char* fn = "activation";
  py::array x = F32Array(fn, "x", x_obj);
  // A 0-d array is one element: run it as shape (1,) through views, return 0-d (as exp).
  const bool scalar = x.ndim() == 0;
  py::object out_view = py::reinterpret_borrow<py::object>(out);
  if (scalar) {
    x = x.reshape({1});
    if (!out.is_none()) out_view = OutArray(fn, out, {}, "x has").reshape({1});
  }
  RowIO io = PrepareRows(fn, x, out_view, static_cast<size_t>(x.ndim() - 1));
  RunRows(fn, io, [&]() -> vlak_status {
    const Rows& a = io.x;
    const Rows& b = io.y;
    if (a.stride == a.cols && b.stride == b.cols) return vlak_activation_f32(a.rows * a.cols, a.F32(), b.F32(), op);
    for (size_t r = 0; r < a.rows; ++r) {
      const vlak_status s = vlak_activation_f32(a.cols, a.F32() + r * a.stride, b.F32() + r * b.stride, op);
      if (s != VLAK_OK) return s;
    }
    return VLAK_OK;
  });
  if (!scalar) return io.result;
  if (!out.is_none()) return py::reinterpret_borrow<py::object>(out);
  return io.result.cast<py::array>().reshape(std::vector<py::ssize_t>{});
}

py::object Glu(py::handle gate_obj, py::handle up_obj, vlak_activation op, py::handle out) {
  const char* fn = "glu";
  py::array g = F32Array(fn, "gate", gate_obj);
  py::array u = F32Array(fn, "up", up_obj);
  const std::vector<ptrdiff_t> gshape(g.shape(), g.shape() + g.ndim()), ushape(u.shape(), u.shape() + u.ndim());
  if (gshape != ushape) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "up has shape " + ShapeText(ushape) + ", gate has " + ShapeText(gshape));
  }
  const bool scalar = g.ndim() == 0;
  py::object out_view = py::reinterpret_borrow<py::object>(out);
  if (scalar) {
    g = g.reshape({1});
    u = u.reshape({1});
    if (!out.is_none()) out_view = OutArray(fn, out, {}, "gate has").reshape({1});
  }
  RowIO io = PrepareRows(fn, g, out_view, static_cast<size_t>(g.ndim() - 1));
  // up as rows of the same shape: passed as is unless it overlaps y other than exactly (y == up
  // with the same stride is what the C API allows), else a dense copy.
  const Layout lu = LayoutOf(u);
  Rows ru;
  bool u_rows = AsRows(lu, &ru);
  if (u_rows && !out_view.is_none() && !io.copy_back && MayOverlap(lu, LayoutOf(io.result.cast<py::array>()))) {
    u_rows = ru.data == io.y.data && ru.stride == io.y.stride;
  }
  py::object keep_u;
  if (!u_rows) {
    py::array_t<float> c = NewArray(lu.shape);
    const Layout lc = LayoutOf(c);
    {
      py::gil_scoped_release release;
      CopyStrided(lu, lc);
    }
    AsRows(lc, &ru);
    keep_u = std::move(c);
  }
  RunRows(fn, io, [&] {
    return vlak_glu_f32(io.x.rows, io.x.cols, io.x.F32(), io.x.stride, ru.F32(), ru.stride, io.y.F32(), io.y.stride,
                        op);
  });
  if (!scalar) return io.result;
  if (!out.is_none()) return py::reinterpret_borrow<py::object>(out);
  return io.result.cast<py::array>().reshape(std::vector<py::ssize_t>{});
}

// Leading shape (all but the last axis) of x, for mean / rstd.
std::vector<ptrdiff_t> Leading(const py::array& x) { return std::vector<ptrdiff_t>(x.shape(), x.shape() + x.ndim() - 1); }

py::object Layernorm(py::handle x_obj, py::handle gamma, py::handle beta, float eps, py::handle out, bool return_stats) {
  const char* fn = "layernorm";
  py::array x = F32Array(fn, "x", x_obj);
  if (x.ndim() == 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "x is 0-dimensional");
  RowIO io = PrepareRows(fn, x, out, static_cast<size_t>(x.ndim() - 1));
  const Layout ly = LayoutOf(io.result.cast<py::array>());
  py::object kg, kb;
  const float* g = VectorParam(fn, "gamma", gamma, io.x.cols, &ly, &kg);
  const float* b = VectorParam(fn, "beta", beta, io.x.cols, &ly, &kb);
  py::array_t<float> mean, rstd;
  if (return_stats) {
    mean = NewArray(Leading(x));
    rstd = NewArray(Leading(x));
  }
  float* pm = return_stats ? mean.mutable_data() : nullptr;
  float* pr = return_stats ? rstd.mutable_data() : nullptr;
  RunRows(fn, io, [&] {
    return vlak_layernorm_f32(io.x.rows, io.x.cols, io.x.F32(), io.x.stride, g, b, eps, io.y.F32(), io.y.stride, pm, pr);
  });
  if (!return_stats) return io.result;
  return py::make_tuple(io.result, mean, rstd);
}

// A float32 array of exactly `shape`, C-contiguous (a copy when not) and not overlapping `avoid`.
const float* DenseParam(const char* fn, const char* name, py::handle obj, const std::vector<ptrdiff_t>& shape,
                        const Layout& avoid, py::object* keep) {
  py::array a = F32Array(fn, name, obj);
  const std::vector<ptrdiff_t> got(a.shape(), a.shape() + a.ndim());
  if (got != shape) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, std::string(name) + " has shape " + ShapeText(got) + ", expected " + ShapeText(shape));
  }
  const Layout l = LayoutOf(a);
  Rows r;
  if (AsRows(l, &r) && r.stride == r.cols && !MayOverlap(l, avoid)) {
    *keep = a;
    return r.F32();
  }
  py::array_t<float> c = NewArray(shape);
  CopyStrided(l, LayoutOf(c));
  *keep = c;
  return c.data();
}

py::object LayernormBackward(py::handle dy_obj, py::handle x_obj, py::handle mean_obj, py::handle rstd_obj,
                             py::handle gamma, py::handle out) {
  const char* fn = "layernorm_backward";
  py::array dy = F32Array(fn, "dy", dy_obj);
  py::array x = F32Array(fn, "x", x_obj);
  if (x.ndim() == 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "x is 0-dimensional");
  const std::vector<ptrdiff_t> shape(x.shape(), x.shape() + x.ndim());
  const std::vector<ptrdiff_t> dshape(dy.shape(), dy.shape() + dy.ndim());
  if (dshape != shape) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "dy has shape " + ShapeText(dshape) + ", x has " + ShapeText(shape));
  }
  // dx: out, or new. dy, x and dx share one row stride in the C API; otherwise all go dense.
  py::array dx = out.is_none() ? py::array(NewArray(shape)) : OutArray(fn, out, shape, "x has");
  const Layout ldx = LayoutOf(dx), ldy = LayoutOf(dy), lx = LayoutOf(x);
  Rows rdx, rdy, rx;
  const bool dx_rows = AsRows(ldx, &rdx);
  bool dy_rows = AsRows(ldy, &rdy), x_rows = AsRows(lx, &rx);
  const auto same = [&](const Layout& l, const Rows& r) { return r.data == rdx.data && MayOverlap(l, ldx) && r.stride == rdx.stride; };
  // dx == dy or dx == x exactly is allowed; any other overlap reads a copy.
  if (dy_rows && MayOverlap(ldy, ldx) && !(dx_rows && same(ldy, rdy))) dy_rows = false;
  if (x_rows && MayOverlap(lx, ldx) && !(dx_rows && same(lx, rx))) x_rows = false;
  const bool direct = dx_rows && dy_rows && x_rows && rdy.stride == rdx.stride && rx.stride == rdx.stride;
  py::object kdy, kx, kdx;
  Layout tmp;
  if (!direct) {
    // Dense copies; dx through a dense temporary when out is not dense.
    py::array_t<float> cdy = NewArray(shape), cx = NewArray(shape);
    CopyStrided(ldy, LayoutOf(cdy));
    CopyStrided(lx, LayoutOf(cx));
    AsRows(LayoutOf(cdy), &rdy);
    AsRows(LayoutOf(cx), &rx);
    kdy = cdy;
    kx = cx;
    if (!(dx_rows && rdx.stride == rdx.cols)) {
      py::array_t<float> t = NewArray(shape);
      tmp = LayoutOf(t);
      AsRows(tmp, &rdx);
      kdx = t;
    }
  }
  const size_t cols = rx.cols;
  py::object km, kr, kg;
  const float* mean = DenseParam(fn, "mean", mean_obj, Leading(x), ldx, &km);
  const float* rstd = DenseParam(fn, "rstd", rstd_obj, Leading(x), ldx, &kr);
  const float* g = VectorParam(fn, "gamma", gamma, cols, &ldx, &kg);
  py::array_t<float> dgamma = NewArray({static_cast<ptrdiff_t>(cols)});
  py::array_t<float> dbeta = NewArray({static_cast<ptrdiff_t>(cols)});
  float* pdg = dgamma.mutable_data();
  float* pdb = dbeta.mutable_data();
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = vlak_layernorm_backward_f32(rx.rows, cols, rdy.F32(), rx.F32(), rx.stride, g, mean, rstd, rdx.F32(), pdg, pdb);
    if (s == VLAK_OK && kdx) CopyStrided(tmp, ldx);
  }
  Check(fn, s);
  return py::make_tuple(dx, dgamma, dbeta);
}

py::object Rmsnorm(py::handle x_obj, py::handle gamma, float eps, py::handle out) {
  const char* fn = "rmsnorm";
  py::array x = F32Array(fn, "x", x_obj);
  if (x.ndim() == 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "x is 0-dimensional");
  RowIO io = PrepareRows(fn, x, out, static_cast<size_t>(x.ndim() - 1));
  const Layout ly = LayoutOf(io.result.cast<py::array>());
  py::object kg;
  const float* g = VectorParam(fn, "gamma", gamma, io.x.cols, &ly, &kg);
  RunRows(fn, io, [&] { return vlak_rmsnorm_f32(io.x.rows, io.x.cols, io.x.F32(), io.x.stride, g, eps, io.y.F32(), io.y.stride); });
  return io.result;
}

// add_layernorm / add_rmsnorm: y = norm(x + r) over the last axis, and the sum when asked for.
py::object AddNorm(const char* fn, bool layer, py::handle x_obj, py::handle r_obj, py::handle gamma, py::handle beta,
                   float eps, py::handle out, bool return_sum) {
  py::array x = F32Array(fn, "x", x_obj);
  py::array r = F32Array(fn, "r", r_obj);
  if (x.ndim() == 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "x is 0-dimensional");
  const std::vector<ptrdiff_t> shape(x.shape(), x.shape() + x.ndim());
  if (std::vector<ptrdiff_t>(r.shape(), r.shape() + r.ndim()) != shape) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          "r has shape " + ShapeText(std::vector<ptrdiff_t>(r.shape(), r.shape() + r.ndim())) + ", x " + ShapeText(shape));
  }
  RowIO io = PrepareRows(fn, x, out, static_cast<size_t>(x.ndim() - 1));
  const Layout ly = LayoutOf(io.result.cast<py::array>());
  // r as rows; through a copy when it is not rows, or overlaps y other than exactly (y = r is allowed).
  py::object keep_r;
  const Layout lr = LayoutOf(r);
  Rows rr;
  if (!AsRows(lr, &rr) || (MayOverlap(lr, ly) && !(rr.data == io.y.data && rr.stride == io.y.stride))) {
    py::array_t<float> copy = NewArray(shape);
    CopyStrided(lr, LayoutOf(copy));
    AsRows(LayoutOf(copy), &rr);
    keep_r = copy;
  }
  py::object kg, kb;
  const float* g = VectorParam(fn, "gamma", gamma, io.x.cols, &ly, &kg);
  const float* b = layer ? VectorParam(fn, "beta", beta, io.x.cols, &ly, &kb) : nullptr;
  py::array_t<float> sum;
  float* ps = nullptr;
  if (return_sum) {
    sum = NewArray(shape);
    ps = sum.mutable_data();
  }
  RunRows(fn, io, [&] {
    return layer ? vlak_add_layernorm_f32(io.x.rows, io.x.cols, io.x.F32(), io.x.stride, rr.F32(), rr.stride, g, b, eps,
                                          io.y.F32(), io.y.stride, ps, io.x.cols)
                 : vlak_add_rmsnorm_f32(io.x.rows, io.x.cols, io.x.F32(), io.x.stride, rr.F32(), rr.stride, g, eps,
                                        io.y.F32(), io.y.stride, ps, io.x.cols);
  });
  if (return_sum) return py::make_tuple(io.result, sum);
  return io.result;
}

// cos or sin table: (positions, >= head_dim / 2), rows contiguous.
py::array RopeTable(const char* name, py::handle obj, size_t positions, size_t half) {
  py::array t = F32Array("rope", name, obj);
  if (t.ndim() != 2 || static_cast<size_t>(t.shape(0)) != positions || static_cast<size_t>(t.shape(1)) < half) {
    const std::vector<ptrdiff_t> got(t.shape(), t.shape() + t.ndim());
    Raise("rope", VLAK_ERROR_INVALID_ARGUMENT,
          std::string(name) + " has shape " + ShapeText(got) + ", expected (" + std::to_string(positions) + ", >= " +
              std::to_string(half) + ") for x's positions and head_dim / 2");
  }
  return t;
}

py::object Rope(py::handle x_obj, py::handle cos_obj, py::handle sin_obj, bool interleaved, py::handle out) {
  const char* fn = "rope";
  py::array x = F32Array(fn, "x", x_obj);
  if (x.ndim() < 2) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "x must be (positions, ..., head_dim), at least 2-D");
  const size_t nd = static_cast<size_t>(x.ndim());
  const size_t positions = static_cast<size_t>(x.shape(0));
  const size_t head_dim = static_cast<size_t>(x.shape(nd - 1));
  if (head_dim % 2 != 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "head_dim (x's last axis) must be even, not " + std::to_string(head_dim));
  py::array ct = RopeTable("cos", cos_obj, positions, head_dim / 2);
  py::array st = RopeTable("sin", sin_obj, positions, head_dim / 2);
  RowIO io = PrepareRows(fn, x, out, nd - 1);
  // The C API wants x and y dense: [positions][rows][head_dim].
  if (io.x.stride != io.x.cols) {
    py::array_t<float> c = NewArray(std::vector<ptrdiff_t>(x.shape(), x.shape() + nd));
    CopyStrided(LayoutOf(x), LayoutOf(c));
    AsRows(LayoutOf(c), &io.x);
    io.keep_x = c;
  }
  if (io.y.stride != io.y.cols) {
    py::array_t<float> t = NewArray(std::vector<ptrdiff_t>(x.shape(), x.shape() + nd));
    io.out_layout = LayoutOf(io.result.cast<py::array>());
    io.tmp_layout = LayoutOf(t);
    AsRows(io.tmp_layout, &io.y);
    io.keep_y = t;
    io.copy_back = true;
  }
  // Tables: one shared row stride, and not overlapping the output.
  const Layout ly = LayoutOf(io.result.cast<py::array>());
  Layout lc = LayoutOf(ct), ls = LayoutOf(st);
  lc.shape[1] = ls.shape[1] = static_cast<ptrdiff_t>(head_dim / 2);  // the entries used
  Rows rc, rs;
  py::object kc, ks;
  if (!(AsRows(lc, &rc) && AsRows(ls, &rs) && rc.stride == rs.stride && !MayOverlap(lc, ly) && !MayOverlap(ls, ly))) {
    py::array_t<float> c = NewArray(lc.shape), s = NewArray(ls.shape);
    CopyStrided(lc, LayoutOf(c));
    CopyStrided(ls, LayoutOf(s));
    AsRows(LayoutOf(c), &rc);
    AsRows(LayoutOf(s), &rs);
    kc = c;
    ks = s;
  }
  const size_t rows_per_position = positions == 0 ? 0 : io.x.rows / positions;
  const unsigned flags = interleaved ? VLAK_ROPE_INTERLEAVED : VLAK_ROPE_HALVES;
  RunRows(fn, io, [&] {
    return vlak_rope_f32(positions, rows_per_position, head_dim, io.x.F32(), rc.F32(), rs.F32(), rc.stride, io.y.F32(), flags);
  });
  return io.result;
}

py::object RopeTables(py::ssize_t positions, py::ssize_t head_dim, double base) {
  if (positions < 0 || head_dim < 0) Raise("rope_tables", VLAK_ERROR_INVALID_ARGUMENT, "positions and head_dim must be >= 0");
  if (head_dim % 2 != 0) Raise("rope_tables", VLAK_ERROR_INVALID_ARGUMENT, "head_dim must be even, not " + std::to_string(head_dim));
  const ptrdiff_t half = head_dim / 2;
  py::array_t<float> c = NewArray({positions, half}), s = NewArray({positions, half});
  float* pc = c.mutable_data();
  float* ps = s.mutable_data();
  vlak_status st;
  {
    py::gil_scoped_release release;
    st = vlak_rope_tables_f32(static_cast<size_t>(positions), static_cast<size_t>(head_dim), base, pc, ps,
                              static_cast<size_t>(half));
  }
  Check("rope_tables", st);
  return py::make_tuple(c, s);
}

// A 2-D operand as rows; the transposed view when that is rows instead (*transposed set).
Rows MatrixOperand(const Layout& l, bool allow_transposed, bool* transposed, py::object* keep) {
  Rows r;
  *transposed = false;
  if (AsRows(l, &r)) return r;
  if (allow_transposed) {
    Layout t = l;
    std::swap(t.shape[0], t.shape[1]);
    std::swap(t.strides[0], t.strides[1]);
    if (AsRows(t, &r)) {
      *transposed = true;
      return r;
    }
  }
  return RowsOrCopy(l, keep);
}

py::object Matmul(py::handle a_obj, py::handle b_obj, bool trans_b, py::handle out, bool accumulate, py::handle bias,
                  PyObject* act, const std::string& accuracy) {
  const char* fn = "matmul";
  py::array a = F32Array(fn, "a", a_obj);
  py::array b = F32Array(fn, "b", b_obj);
  if (a.ndim() != 2 || b.ndim() != 2) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "a and b must be 2-D (got " + std::to_string(a.ndim()) + "-D and " +
                                               std::to_string(b.ndim()) + "-D)");
  }
  const ptrdiff_t m = a.shape(0), k = a.shape(1);
  const ptrdiff_t bk = trans_b ? b.shape(1) : b.shape(0), n = trans_b ? b.shape(0) : b.shape(1);
  if (bk != k) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          "a is " + ShapeText({m, k}) + " but b is " + ShapeText({b.shape(0), b.shape(1)}) +
              (trans_b ? " (trans_b: b must be (n, k))" : " (b must be (k, n))"));
  }
  if (accumulate && out.is_none()) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "accumulate=True needs out=");
  py::array c = out.is_none() ? py::array(NewArray({m, n})) : OutArray(fn, out, {m, n}, "a @ b is");
  const Layout lc = LayoutOf(c);
  // C must not overlap A or B: an overlapped input is read from a copy.
  Layout la = LayoutOf(a), lb = LayoutOf(b);
  py::object ka, kb, kc;
  Rows ra, rb, rc;
  bool a_t = false, b_t = false;
  const auto forced_copy = [](const Layout& l, py::object* keep) {
    py::array_t<float> cp = NewArray(l.shape);
    CopyStrided(l, LayoutOf(cp));
    Rows r;
    AsRows(LayoutOf(cp), &r);
    *keep = cp;
    return r;
  };
  ra = MayOverlap(la, lc) ? forced_copy(la, &ka) : MatrixOperand(la, false, &a_t, &ka);
  rb = MayOverlap(lb, lc) ? forced_copy(lb, &kb) : MatrixOperand(lb, true, &b_t, &kb);
  const bool c_rows = AsRows(lc, &rc);
  Layout tmp;
  if (!c_rows) {
    py::array_t<float> t = NewArray({m, n});
    tmp = LayoutOf(t);
    if (accumulate) CopyStrided(lc, tmp);
    AsRows(tmp, &rc);
    kc = t;
  }
  // b's rows are k x n (no TRANS_B) or n x k (TRANS_B); a transposed view flips which.
  const bool flag_t = trans_b != b_t;
  const unsigned flags = (flag_t ? VLAK_MATMUL_TRANS_B : 0u) | (accumulate ? VLAK_MATMUL_ACCUMULATE : 0u);
  // The epilogue: bias (n floats, read from a copy when it overlaps out) and activation.
  py::object kbias;
  vlak_matmul_epilogue ep{};
  ep.bias = VectorParam(fn, "bias", bias, static_cast<size_t>(n), &lc, &kbias);
  if (act != nullptr && act != Py_None) {
    ep.flags = VLAK_EPILOGUE_ACTIVATION;
    ep.activation = WithTier(fn, ActivationOp(fn, act), accuracy);
  } else if (accuracy != "accurate" && accuracy != "fast") {
    WithTier(fn, VLAK_ACT_SIGMOID, accuracy);  // raises
  }
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = vlak_matmul_ex_f32(static_cast<size_t>(m), static_cast<size_t>(n), static_cast<size_t>(k), ra.F32(), ra.stride,
                           rb.F32(), rb.stride, rc.F32(), rc.stride, flags, &ep);
    if (s == VLAK_OK && !c_rows) CopyStrided(tmp, lc);
  }
  Check(fn, s);
  return c;
}

// A 4-D float32 operand of attention as a base pointer and element strides: in place when its
// strides are non-negative whole elements and its last axis is contiguous, else a C-contiguous copy.
const float* AttentionOperand(const char* fn, const char* name, py::array a, size_t strides[3], py::object* keep) {
  if (a.ndim() != 4) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          std::string(name) + " must be 4-D (batch, heads, seq, dim), got " + std::to_string(a.ndim()) + "-D");
  }
  bool in_place = true;
  for (int i = 0; i < 4; ++i) {
    const ptrdiff_t st = a.strides(i);
    if (st < 0 || st % static_cast<ptrdiff_t>(sizeof(float)) != 0) in_place = false;
  }
  if (a.shape(3) > 1 && a.strides(3) != static_cast<ptrdiff_t>(sizeof(float))) in_place = false;
  if (!in_place) {
    py::array_t<float> c = NewArray({a.shape(0), a.shape(1), a.shape(2), a.shape(3)});
    CopyStrided(LayoutOf(a), LayoutOf(c));
    a = c;
  }
  for (int i = 0; i < 3; ++i) strides[i] = static_cast<size_t>(a.strides(i)) / sizeof(float);
  *keep = a;
  return static_cast<const float*>(a.data());
}

unsigned AttentionCausal(py::handle causal) {
  if (causal.is_none() || (PyBool_Check(causal.ptr()) && causal.ptr() == Py_False)) return 0;
  if (PyUnicode_Check(causal.ptr())) {
    const std::string c = causal.cast<std::string>();
    if (c == "bottom_right") return VLAK_ATTENTION_CAUSAL;
    if (c == "top_left") return VLAK_ATTENTION_CAUSAL_TOP_LEFT;
  }
  Raise("attention", VLAK_ERROR_INVALID_ARGUMENT,
        "causal must be False, 'bottom_right' (a KV-cache step: the last query sees every key) or 'top_left' "
        "(PyTorch's is_causal: query i sees keys 0..i)");
}

py::object Attention(py::handle q_obj, py::handle k_obj, py::handle v_obj, py::handle causal, long long window,
                     py::handle bias_obj, py::handle scale_obj, bool return_lse, py::handle kv_lens_obj) {
  const char* fn = "attention";
  vlak_attention_params p{};
  p.flags = AttentionCausal(causal);
  if (window < 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "window must be >= 0");
  p.window = static_cast<size_t>(window);
  p.scale = scale_obj.is_none() ? 0.0f : static_cast<float>(scale_obj.cast<double>());
  if (!scale_obj.is_none() && p.scale == 0.0f) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "scale must not be 0");
  py::array q = F32Array(fn, "q", q_obj), k = F32Array(fn, "k", k_obj), v = F32Array(fn, "v", v_obj);
  py::object kq, kk, kv, kb;
  const float* pq = AttentionOperand(fn, "q", q, p.q_strides, &kq);
  const float* pk = AttentionOperand(fn, "k", k, p.k_strides, &kk);
  const float* pv = AttentionOperand(fn, "v", v, p.v_strides, &kv);
  p.batch = static_cast<size_t>(q.shape(0));
  p.q_heads = static_cast<size_t>(q.shape(1));
  p.q_len = static_cast<size_t>(q.shape(2));
  p.head_dim = static_cast<size_t>(q.shape(3));
  p.kv_heads = static_cast<size_t>(k.shape(1));
  p.kv_len = static_cast<size_t>(k.shape(2));
  p.value_dim = static_cast<size_t>(v.shape(3));
  if (k.shape(0) != q.shape(0) || k.shape(3) != q.shape(3) || v.shape(0) != k.shape(0) || v.shape(1) != k.shape(1) ||
      v.shape(2) != k.shape(2)) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          "shapes do not match: q " + ShapeText({q.shape(0), q.shape(1), q.shape(2), q.shape(3)}) + ", k " +
              ShapeText({k.shape(0), k.shape(1), k.shape(2), k.shape(3)}) + ", v " +
              ShapeText({v.shape(0), v.shape(1), v.shape(2), v.shape(3)}) +
              " (expected k (B, Hkv, S_kv, D) and v (B, Hkv, S_kv, Dv) for q (B, H, S, D))");
  }
  if (p.kv_heads == 0 || p.q_heads % p.kv_heads != 0) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "k's heads must divide q's heads");
  }
  if (!bias_obj.is_none()) {
    py::array b = F32Array(fn, "bias", bias_obj);
    const std::vector<ptrdiff_t> shape{q.shape(0), q.shape(1), q.shape(2), k.shape(2)};
    py::object bc;
    try {
      bc = py::module_::import("numpy").attr("broadcast_to")(b, py::make_tuple(shape[0], shape[1], shape[2], shape[3]));
    } catch (py::error_already_set&) {
      Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
            "bias does not broadcast to (B, H, S, S_kv) = " + ShapeText(shape));
    }
    p.bias = AttentionOperand(fn, "bias", bc.cast<py::array>(), p.bias_strides, &kb);
  }
  // kv_lens: one key count per batch row (a padded batch), as size_t.
  std::vector<size_t> kv_lens;
  if (!kv_lens_obj.is_none()) {
    py::array_t<long long, py::array::c_style | py::array::forcecast> lens =
        py::module_::import("numpy").attr("asarray")(kv_lens_obj, "int64");
    if (lens.ndim() != 1 || lens.shape(0) != q.shape(0)) {
      Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "kv_lens must be 1-D with one entry per batch row (" +
                                                 std::to_string(q.shape(0)) + ")");
    }
    for (py::ssize_t b = 0; b < lens.shape(0); ++b) {
      const long long n = lens.at(b);
      if (n < 0 || n > k.shape(2)) {
        Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "kv_lens[" + std::to_string(b) + "] = " + std::to_string(n) +
                                                   " is outside 0..S_kv (" + std::to_string(k.shape(2)) + ")");
      }
      kv_lens.push_back(static_cast<size_t>(n));
    }
    p.kv_lens = kv_lens.data();
  }
  py::array_t<float> o = NewArray({q.shape(0), q.shape(1), q.shape(2), v.shape(3)});
  py::array_t<float> lse;
  if (return_lse) {
    lse = NewArray({q.shape(0), q.shape(1), q.shape(2)});
    p.lse = lse.mutable_data();
  }
  const size_t dv = p.value_dim;
  p.o_strides[2] = dv;
  p.o_strides[1] = p.q_len * dv;
  p.o_strides[0] = p.q_heads * p.q_len * dv;
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = vlak_attention_f32(&p, pq, pk, pv, o.mutable_data());
  }
  Check(fn, s);
  if (!return_lse) return o;
  return py::make_tuple(o, lse);
}

// ---- entry points -------------------------------------------------------------------------
// Docstrings: the signature, then the contract and the accuracy bound (include/vlak/vlak.h).
constexpr const char* kDocSoftmax = R"doc(softmax(x: ndarray[float32], axis: int = -1, log: bool = False, safe: bool = False, exp: str = "accurate", out: ndarray[float32] | None = None) -> ndarray[float32]

Softmax along one axis (the last by default): y = exp(x - max) / sum(exp(x - max)).

x: float32 ndarray, any shape and strides. log=True: log-softmax, y = x - max - log(sum(exp(x - max))).
safe=True: a slice that is all -inf gives zeros (-inf with log) instead of NaN.
exp: "accurate" (<= 2 ULP exp, the default), "precise" (<= 1 ULP) or "fast" (bit-trick exp, 6.3e-6).
out: float32 array of x's shape to write into (may be x itself). Returns out, or a new array
(with the axis innermost in memory when axis is not the last).

Accuracy against float64: |y - y64| <= (1e-6 + 6e-8 |x - max|) y64 for exp="accurate" and
"precise" (1.3e-5 + 6e-8 |x - max| for "fast"), or <= 1e-30 where y64 < 1e-30; log-softmax:
|y - y64| <= 1e-5 max(1, |y64|).
Special values: a NaN makes its slice NaN; +inf entries share the mass equally, the rest get 0;
a slice of only -inf is NaN (as torch.softmax), or zeros with safe=True.
Rows run on vlak.get_num_threads() threads with the GIL released.
TypeError: x or out not a float32 ndarray. ValueError: bad axis, out of another shape or
read-only, unknown exp.)doc";

constexpr const char* kDocLogSoftmax = R"doc(log_softmax(x: ndarray[float32], axis: int = -1, safe: bool = False, exp: str = "accurate", out: ndarray[float32] | None = None) -> ndarray[float32]

softmax(x, axis, log=True, ...): y = x - max - log(sum(exp(x - max))), |y - y64| <= 1e-5 max(1, |y64|).)doc";

constexpr const char* kDocExp = R"doc(exp(x: ndarray[float32], variant: str = "accurate", out: ndarray[float32] | None = None) -> ndarray[float32]

Element-wise exp of a float32 array of any shape: y = exp(x).

variant (cheapest first; max error against float64 measured on every float of [-87.3, 88.7]):
  "schraudolph" 3.0e-2 relative, "bittrick_p3" 6.2e-4, "bittrick_p5" 6.3e-6,
  "cephes" 4.08 ULP, "accurate" 1.52 ULP (<= 2; results below about -87.3 may flush to 0),
  "precise" 0.88 ULP (<= 1, on every float, denormal results kept).
Every variant: exp(-inf) = +0, exp(NaN) = NaN, +inf on overflow, +0 on underflow (the denormal
for "precise"). Bit-identical on every target. out: float32 array of x's shape (may be x).
TypeError: not float32 ndarrays. ValueError: unknown variant, out of another shape.)doc";

constexpr const char* kDocActivation = R"doc(activation(x: ndarray[float32], op: str | int, out: ndarray[float32] | None = None, accuracy: str = "accurate") -> ndarray[float32]

Element-wise activation of a float32 array of any shape: y = act(x).

op: "sigmoid" (1 / (1 + exp(-x))), "tanh", "gelu" (x Phi(x), the erf form), "gelu_tanh"
(0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), "silu" (x sigmoid(x)), "softplus"
(log(1 + exp(x))), or its value 0..5 (vlak_activation).

Accuracy against float64, over every finite float: <= 2 ULP of the float nearest the float64
value (measured at most 1.34 ULP on every float); below FLT_MIN within 2^-149. accuracy="fast"
(VLAK_ACT_FAST): <= 4 ULP, 4 x 2^-149 below FLT_MIN, cheaper sigmoid, tanh, gelu and silu (the
others as accurate). The same bits on every target and thread count. NaN gives the same NaN; +-inf give the limits (sigmoid 0 / 1, tanh -1 / 1, gelu,
gelu_tanh and silu -0 / inf, softplus 0 / inf).
TypeError: not float32 ndarrays. ValueError: unknown op or accuracy, out of another shape.)doc";

constexpr const char* kDocGlu = R"doc(glu(gate: ndarray[float32], up: ndarray[float32], op: str | int, out: ndarray[float32] | None = None, accuracy: str = "accurate") -> ndarray[float32]

Gated linear unit: y = act(gate) * up element by element (SwiGLU with op="silu", GeGLU with
"gelu" or "gelu_tanh"); gate and up of the same shape, op as for vlak.activation.

Accuracy: <= 3 ULP of act64(gate) * up (plus |up| 2^-149 where act(gate) is below FLT_MIN);
accuracy="fast": <= 5 ULP (plus |up| 4 x 2^-149).
out may be gate or up (in place).
TypeError: not float32 ndarrays. ValueError: unknown op, shapes that differ.)doc";

constexpr const char* kDocLayernorm = R"doc(layernorm(x: ndarray[float32], gamma: ndarray[float32] | None = None, beta: ndarray[float32] | None = None, eps: float = 1e-5, out: ndarray[float32] | None = None, return_stats: bool = False) -> ndarray[float32] | tuple[ndarray, ndarray, ndarray]

Layer normalisation over the last axis (biased variance, as torch.nn.functional.layer_norm):
mean = sum(x) / n, var = sum((x - mean)^2) / n, rstd = 1 / sqrt(var + eps),
y = (x - mean) * rstd * gamma + beta.

gamma, beta: float32 (n,) or None (1 and 0). out: float32 array of x's shape (may be x).
return_stats=True returns (y, mean, rstd), mean and rstd of shape x.shape[:-1].
Accuracy against float64: |y - y64| <= 1e-5 (|gamma| (1 + |xhat64|) + |beta|); mean and rstd
within 1e-6 relative; also for rows with a large common offset (variance about a shift).
Special values: a NaN or inf in a row makes that row's y, mean and rstd NaN; a constant row
with eps=0 gives rstd=inf and y=NaN (as PyTorch).
ValueError: eps negative or NaN, gamma/beta/out of the wrong shape. TypeError: not float32.)doc";

constexpr const char* kDocLayernormBackward = R"doc(layernorm_backward(dy: ndarray[float32], x: ndarray[float32], mean: ndarray[float32], rstd: ndarray[float32], gamma: ndarray[float32] | None = None, out: ndarray[float32] | None = None) -> tuple[ndarray, ndarray, ndarray]

Gradient of layernorm given dy, x and the forward's mean and rstd (return_stats=True).
With xhat = (x - mean) * rstd and g = dy * gamma (over the last axis, n entries):
  dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), dgamma = sum over rows of dy * xhat,
  dbeta = sum over rows of dy.
Returns (dx, dgamma, dbeta); dx is written into out when given (out may be dy or x).
Accuracy: dx within 1e-5 times its row's largest term, max rstd (|g| + |mean(g)| + |xhat mean(g xhat)|);
dgamma, dbeta within 1e-5 * sum over rows of |term64| of their column (dgamma plus 2^-150 * sum
over rows of |dy|: xhat below FLT_MIN is a float subnormal). dgamma/dbeta are the same
bits for the same thread count (per-thread partial sums in a fixed order).)doc";

constexpr const char* kDocRmsnorm = R"doc(rmsnorm(x: ndarray[float32], gamma: ndarray[float32] | None = None, eps: float = 1e-6, out: ndarray[float32] | None = None) -> ndarray[float32]

RMS normalisation over the last axis (Llama): y = x / sqrt(sum(x^2) / n + eps) * gamma.

gamma: float32 (n,) or None (1). out: float32 array of x's shape (may be x).
Accuracy against float64: |y - y64| <= 1e-5 |gamma| (1 + |xhat64|).
A NaN or inf in a row makes the row NaN; a zero row with eps=0 gives NaN (0 * inf).
ValueError: eps negative or NaN, gamma/out of the wrong shape. TypeError: not float32.)doc";

constexpr const char* kDocAddLayernorm = R"doc(add_layernorm(x: ndarray[float32], r: ndarray[float32], gamma: ndarray[float32] | None = None, beta: ndarray[float32] | None = None, eps: float = 1e-5, out: ndarray[float32] | None = None, return_sum: bool = False) -> ndarray[float32] | tuple[ndarray, ndarray]

Residual add + layer normalisation over the last axis, in one pass (onnxruntime's
SkipLayerNormalization): s = x + r in float32, y = layernorm(s, gamma, beta, eps), the same
bits as vlak.layernorm(x + r). return_sum=True returns (y, s): the residual stream.

r: float32 of x's shape. out: float32 array of x's shape (may be x or r).
Accuracy and special values: layernorm's, on s. ValueError: r, gamma, beta or out of the wrong
shape, eps negative or NaN. TypeError: not float32.)doc";

constexpr const char* kDocAddRmsnorm = R"doc(add_rmsnorm(x: ndarray[float32], r: ndarray[float32], gamma: ndarray[float32] | None = None, eps: float = 1e-6, out: ndarray[float32] | None = None, return_sum: bool = False) -> ndarray[float32] | tuple[ndarray, ndarray]

Residual add + RMS normalisation over the last axis, in one pass (llama.cpp's fused add + norm):
s = x + r in float32, y = rmsnorm(s, gamma, eps), the same bits as vlak.rmsnorm(x + r).
return_sum=True returns (y, s): the residual stream of a pre-norm model.

r: float32 of x's shape. out: float32 array of x's shape (may be x or r).
Accuracy and special values: rmsnorm's, on s. ValueError: r, gamma or out of the wrong shape,
eps negative or NaN. TypeError: not float32.)doc";

constexpr const char* kDocRope = R"doc(rope(x: ndarray[float32], cos: ndarray[float32], sin: ndarray[float32], interleaved: bool = False, out: ndarray[float32] | None = None) -> ndarray[float32]

Rotary position embedding of x, shape (positions, ..., head_dim) (positions outermost;
the axes between are rows of that position, e.g. batch x heads).

cos, sin: float32 (positions, >= head_dim / 2), entry [p, i] for the pair i at position p
(rope_tables makes them; a Hugging Face (positions, head_dim) table works too: its first half is
used). Pairs (i, i + d/2) (GPT-NeoX, Hugging Face Llama), or (2i, 2i + 1) with interleaved=True
(GPT-J, Meta's Llama):  y_a = x_a cos - x_b sin,  y_b = x_a sin + x_b cos.
Accuracy: each output within 2^-23 (|x_a cos| + |x_b sin|) of float64, bit-identical on every
target; NaN and inf propagate as IEEE arithmetic does. out: float32 of x's shape (may be x).
ValueError: head_dim odd, tables of the wrong shape. TypeError: not float32.)doc";

constexpr const char* kDocRopeTables = R"doc(rope_tables(positions: int, head_dim: int, base: float = 10000.0) -> tuple[ndarray[float32], ndarray[float32]]

RoPE tables (cos, sin), each float32 (positions, head_dim / 2):
cos[p, i] = cos(p * base^(-2i / head_dim)), sin likewise, computed in float64 and rounded once.
ValueError: head_dim odd, base not finite and > 0.)doc";

constexpr const char* kDocMatmul = R"doc(matmul(a: ndarray[float32], b: ndarray[float32], trans_b: bool = False, out: ndarray[float32] | None = None, accumulate: bool = False, bias: ndarray[float32] | None = None, activation: str | int | None = None, accuracy: str = "accurate") -> ndarray[float32]

C = A @ B for 2-D float32 arrays: a (m, k), b (k, n), or b (n, k) with trans_b=True (C = A @ B.T,
attention's Q K^T). accumulate=True adds into out (C += A @ B).
bias (n,) and activation (a name or value as for vlak.activation, with its accuracy tier) are
applied to each element once its product is complete (vlak_matmul_ex_f32): C = act(A @ B + bias),
the same bits as matmul, then + bias in float32, then vlak.activation. A Linear layer with weights
w (out, in) is matmul(x, w, trans_b=True, bias=b, activation="gelu").

Each element is one fused multiply-add chain in k order, the same bits on every target, VLEN and
thread count; |C - C64| <= 2 k 2^-24 sum_k |A| |B| (k + 1 terms and |C_old| with accumulate).
NaN and inf propagate. Strided views are used in place when their rows are contiguous; a
transposed view of b (b.T of a C-contiguous array) runs as the other layout without a copy.
out: float32 (m, n); when it overlaps a or b those are read from copies.
ValueError: shapes that do not chain, accumulate without out. TypeError: not float32.)doc";

constexpr const char* kDocAttention = R"doc(attention(q: ndarray[float32], k: ndarray[float32], v: ndarray[float32], causal: bool | str = False, window: int = 0, bias: ndarray[float32] | None = None, scale: float | None = None, return_lse: bool = False, kv_lens: ndarray[int] | None = None) -> ndarray[float32] | tuple[ndarray[float32], ndarray[float32]]

Fused scaled-dot-product attention on (batch, heads, seq, dim) arrays (BNSH; any strides: a
transposed view of a (batch, seq, heads, dim) array runs in place):
o = softmax(scale * q @ k^T + bias) @ v per (batch, head), q (B, H, S, D), k (B, Hkv, S_kv, D),
v (B, Hkv, S_kv, Dv); Hkv divides H (grouped-query / multi-query: query head h reads kv head
h // (H // Hkv)). scale: None means 1 / sqrt(D).
causal: False, "bottom_right" (query i sees keys j <= i + S_kv - S: a KV-cache step) or
"top_left" (j <= i: PyTorch's is_causal). window > 0 (with causal): only the last `window` keys
up to the causal limit. bias: broadcastable to (B, H, S, S_kv), added to the scaled logits; -inf
masks. return_lse=True also returns log(sum(exp(logits))) per row, (B, H, S).
kv_lens: one key count per batch row, each <= S_kv (a padded batch): batch row b sees only keys
j < kv_lens[b], and its causal limits take kv_lens[b] for S_kv; the padded keys are not computed.
A row that sees no key gives o = 0 and lse = -inf. Returns new arrays.
Accuracy (u = 2^-24, M = the row's max of |scale| * sum_d |q_d k_jd| + |bias_j|): |o - o64| <= (1e-5 + 2 (D + 2) u M +
2 S_kv u) * sum_j p64_j |v_jd| + 2^-126 sum_j |v_jd|; |lse - lse64| <= 1e-5 (1 + |lse64|) + 2 (D + 2) u M.
ValueError: shapes that do not match, H not a multiple of Hkv, window without causal, kv_lens
of the wrong length or beyond S_kv. TypeError: not float32.)doc";

VLAK_ENTRY(SoftmaxEntry) {
  static const FastParams p("softmax", {"x", "axis", "log", "safe", "exp", "out"}, 1);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return Softmax(v[0], IntArg(v[1], -1), BoolArg(v[2], false), BoolArg(v[3], false),
                   StrArg("softmax", "exp", v[4], "accurate"), Obj(v[5]));
  });
}
VLAK_ENTRY(LogSoftmaxEntry) {
  static const FastParams p("log_softmax", {"x", "axis", "safe", "exp", "out"}, 1);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return Softmax(v[0], IntArg(v[1], -1), true, BoolArg(v[2], false), StrArg("log_softmax", "exp", v[3], "accurate"),
                   Obj(v[4]));
  });
}
VLAK_ENTRY(ExpEntry) {
  static const FastParams p("exp", {"x", "variant", "out"}, 1);
  return Entry(p, args, nargs, kwnames,
               [](PyObject** v) { return Exp(v[0], StrArg("exp", "variant", v[1], "accurate"), Obj(v[2])); });
}
VLAK_ENTRY(ActivationEntry) {
  static const FastParams p("activation", {"x", "op", "out", "accuracy"}, 2);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    const vlak_activation op = ActivationOp("activation", v[1]);
    return Activation(v[0], WithTier("activation", op, StrArg("activation", "accuracy", v[3], "accurate")), Obj(v[2]));
  });
}
VLAK_ENTRY(GluEntry) {
  static const FastParams p("glu", {"gate", "up", "op", "out", "accuracy"}, 3);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    const vlak_activation op = WithTier("glu", ActivationOp("glu", v[2]), StrArg("glu", "accuracy", v[4], "accurate"));
    return Glu(v[0], v[1], op, Obj(v[3]));
  });
}
VLAK_ENTRY(LayernormEntry) {
  static const FastParams p("layernorm", {"x", "gamma", "beta", "eps", "out", "return_stats"}, 1);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return Layernorm(v[0], Obj(v[1]), Obj(v[2]), static_cast<float>(FloatArg(v[3], 1e-5)), Obj(v[4]),
                     BoolArg(v[5], false));
  });
}
VLAK_ENTRY(LayernormBackwardEntry) {
  static const FastParams p("layernorm_backward", {"dy", "x", "mean", "rstd", "gamma", "out"}, 4);
  return Entry(p, args, nargs, kwnames,
               [](PyObject** v) { return LayernormBackward(v[0], v[1], v[2], v[3], Obj(v[4]), Obj(v[5])); });
}
VLAK_ENTRY(RmsnormEntry) {
  static const FastParams p("rmsnorm", {"x", "gamma", "eps", "out"}, 1);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return Rmsnorm(v[0], Obj(v[1]), static_cast<float>(FloatArg(v[2], 1e-6)), Obj(v[3]));
  });
}
VLAK_ENTRY(AddLayernormEntry) {
  static const FastParams p("add_layernorm", {"x", "r", "gamma", "beta", "eps", "out", "return_sum"}, 2);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return AddNorm("add_layernorm", true, v[0], v[1], Obj(v[2]), Obj(v[3]), static_cast<float>(FloatArg(v[4], 1e-5)),
                   Obj(v[5]), BoolArg(v[6], false));
  });
}
VLAK_ENTRY(AddRmsnormEntry) {
  static const FastParams p("add_rmsnorm", {"x", "r", "gamma", "eps", "out", "return_sum"}, 2);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return AddNorm("add_rmsnorm", false, v[0], v[1], Obj(v[2]), py::none(), static_cast<float>(FloatArg(v[3], 1e-6)),
                   Obj(v[4]), BoolArg(v[5], false));
  });
}
VLAK_ENTRY(RopeEntry) {
  static const FastParams p("rope", {"x", "cos", "sin", "interleaved", "out"}, 3);
  return Entry(p, args, nargs, kwnames,
               [](PyObject** v) { return Rope(v[0], v[1], v[2], BoolArg(v[3], false), Obj(v[4])); });
}
VLAK_ENTRY(RopeTablesEntry) {
  static const FastParams p("rope_tables", {"positions", "head_dim", "base"}, 2);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return RopeTables(static_cast<py::ssize_t>(LongArg(v[0], 0)), static_cast<py::ssize_t>(LongArg(v[1], 0)),
                      FloatArg(v[2], 10000.0));
  });
}
VLAK_ENTRY(MatmulEntry) {
  static const FastParams p("matmul", {"a", "b", "trans_b", "out", "accumulate", "bias", "activation", "accuracy"}, 2);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return Matmul(v[0], v[1], BoolArg(v[2], false), Obj(v[3]), BoolArg(v[4], false), Obj(v[5]), v[6],
                  StrArg("matmul", "accuracy", v[7], "accurate"));
  });
}

VLAK_ENTRY(AttentionEntry) {
  static const FastParams p("attention", {"q", "k", "v", "causal", "window", "bias", "scale", "return_lse", "kv_lens"},
                            3);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    return Attention(v[0], v[1], v[2], Obj(v[3]), LongArg(v[4], 0), Obj(v[5]), Obj(v[6]), BoolArg(v[7], false),
                     Obj(v[8]));
  });
}

PyMethodDef kMethods[] = {
    VLAK_METHOD("softmax", SoftmaxEntry, kDocSoftmax),
    VLAK_METHOD("log_softmax", LogSoftmaxEntry, kDocLogSoftmax),
    VLAK_METHOD("exp", ExpEntry, kDocExp),
    VLAK_METHOD("activation", ActivationEntry, kDocActivation),
    VLAK_METHOD("glu", GluEntry, kDocGlu),
    VLAK_METHOD("layernorm", LayernormEntry, kDocLayernorm),
    VLAK_METHOD("layernorm_backward", LayernormBackwardEntry, kDocLayernormBackward),
    VLAK_METHOD("add_layernorm", AddLayernormEntry, kDocAddLayernorm),
    VLAK_METHOD("add_rmsnorm", AddRmsnormEntry, kDocAddRmsnorm),
    VLAK_METHOD("rmsnorm", RmsnormEntry, kDocRmsnorm),
    VLAK_METHOD("rope", RopeEntry, kDocRope),
    VLAK_METHOD("rope_tables", RopeTablesEntry, kDocRopeTables),
    VLAK_METHOD("matmul", MatmulEntry, kDocMatmul),
    VLAK_METHOD("attention", AttentionEntry, kDocAttention),
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void BindOps(py::module_& m) { AddFunctions(m, kMethods); }

}  // namespace vlak::python
