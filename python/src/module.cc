// `import vlak`: the module's entry point, its exceptions and the process-wide controls
// (target, threads, info). The operators are in ops_bindings.cc, int_ops_bindings.cc,
// quant_bindings.cc and matmul_packed_bindings.cc.
#include <pybind11/stl.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

#include "bindings.h"

namespace vlak::python {

void Raise(const char* fn, vlak_status status, const std::string& detail) {
  std::string msg = std::string("vlak.") + fn + ": " + vlak_status_string(status);
  if (!detail.empty()) msg += ": " + detail;
  if (status == VLAK_ERROR_TARGET_UNAVAILABLE) throw std::runtime_error(msg);
  throw py::value_error(msg);
}

py::array F32Array(const char* fn, const char* name, py::handle obj) {
  // A NumPy scalar (x.sum(), np.float32(1)) is taken as the 0-d array it stands for.
  static py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
  if (!py::isinstance<py::array>(obj) && std::strcmp(name, "out") != 0 && py::isinstance(obj, generic)) {
    return F32Array(fn, name, py::array::ensure(obj));
  }
  if (!py::isinstance<py::array>(obj)) {
    throw py::type_error(std::string("vlak.") + fn + ": " + name + " must be a numpy.ndarray of float32, not " +
                         std::string(py::str(obj.get_type().attr("__name__"))));
  }
  auto a = py::reinterpret_borrow<py::array>(obj);
  const py::dtype dt = a.dtype();
  const char order = dt.byteorder();
  // NPY_FLOAT = 11; '<' is native here (x86-64 and RISC-V are little-endian).
  if (dt.num() != 11 || !(order == '=' || order == '|' || order == '<')) {
    throw py::type_error(std::string("vlak.") + fn + ": " + name + " must be float32, not " +
                         std::string(py::str(dt)) + " (convert with .astype(numpy.float32))");
  }
  return a;
}

std::string ShapeText(const std::vector<ptrdiff_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

py::array OutArray(const char* fn, py::handle obj, const std::vector<ptrdiff_t>& shape, const char* what) {
  py::array a = F32Array(fn, "out", obj);
  if (!a.writeable()) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "out is read-only");
  const std::vector<ptrdiff_t> got(a.shape(), a.shape() + a.ndim());
  if (got != shape) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "out has shape " + ShapeText(got) + ", " + what + " " + ShapeText(shape));
  }
  return a;
}

py::array_t<float> NewArray(const std::vector<ptrdiff_t>& shape) {
  return py::array_t<float>(std::vector<py::ssize_t>(shape.begin(), shape.end()));
}

Rows RowsOrCopy(const Layout& l, py::object* keep) {
  Rows r;
  if (AsRows(l, &r)) return r;
  py::array_t<float> c = NewArray(l.shape);
  const Layout lc = LayoutOf(c);
  {
    py::gil_scoped_release release;
    CopyStrided(l, lc);
  }
  AsRows(lc, &r);
  *keep = std::move(c);
  return r;
}

const float* VectorParam(const char* fn, const char* name, py::handle obj, size_t n, const Layout* out,
                         py::object* keep) {
  if (obj.is_none()) return nullptr;
  py::array a = F32Array(fn, name, obj);
  if (a.ndim() != 1 || static_cast<size_t>(a.shape(0)) != n) {
    const std::vector<ptrdiff_t> got(a.shape(), a.shape() + a.ndim());
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          std::string(name) + " has shape " + ShapeText(got) + ", expected (" + std::to_string(n) + ",)");
  }
  const Layout l = LayoutOf(a);
  Rows r;
  // One row of n: contiguous. A parameter the output overlaps is read from a copy.
  if (AsRows(l, &r) && (out == nullptr || !MayOverlap(l, *out))) {
    *keep = a;
    return r.F32();
  }
  py::array_t<float> c = NewArray(l.shape);
  CopyStrided(l, LayoutOf(c));
  *keep = c;
  return c.data();
}

size_t NormAxis(const char* fn, int axis, size_t ndim) {
  const long nd = static_cast<long>(ndim);
  if (axis < -nd || axis >= nd) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          "axis " + std::to_string(axis) + " is out of bounds for an array of dimension " + std::to_string(ndim));
  }
  return static_cast<size_t>(axis < 0 ? axis + nd : axis);
}

RowIO PrepareRows(const char* fn, const py::array& x, py::handle out, size_t axis) {
  RowIO io;
  const Layout lx = MoveAxisLast(LayoutOf(x), axis);
  const size_t nd = lx.shape.size();
  Layout ly;
  if (out.is_none()) {
    // A new array with the axis innermost; returned as a view in x's axis order.
    py::array_t<float> buf = NewArray(lx.shape);
    ly = LayoutOf(buf);
    if (axis + 1 == nd) {
      io.result = buf;
    } else {
      std::vector<py::ssize_t> shape(x.shape(), x.shape() + nd), strides(nd);
      for (size_t i = 0, j = 0; i < nd; ++i) {
        if (i == axis) continue;
        strides[i] = ly.strides[j++];
      }
      strides[axis] = ly.strides[nd - 1];
      io.result = py::array(py::dtype::of<float>(), shape, strides, buf.data(), buf);
    }
  } else {
    py::array o = OutArray(fn, out, std::vector<ptrdiff_t>(x.shape(), x.shape() + nd), "x has");
    ly = MoveAxisLast(LayoutOf(o), axis);
    io.result = o;
  }
  const bool y_rows = AsRows(ly, &io.y);
  // x == y with equal strides is what the C API allows; any other overlap reads a copy of x.
  bool x_rows = AsRows(lx, &io.x);
  if (x_rows && !out.is_none() && MayOverlap(lx, ly)) {
    x_rows = y_rows && io.x.data == io.y.data && io.x.stride == io.y.stride;
  }
  if (!x_rows) {
    py::array_t<float> c = NewArray(lx.shape);
    const Layout lc = LayoutOf(c);
    {
      py::gil_scoped_release release;
      CopyStrided(lx, lc);
    }
    AsRows(lc, &io.x);
    io.keep_x = std::move(c);
  }
  if (!y_rows) {
    py::array_t<float> t = NewArray(ly.shape);
    io.tmp_layout = LayoutOf(t);
    AsRows(io.tmp_layout, &io.y);
    io.out_layout = ly;
    io.keep_y = std::move(t);
    io.copy_back = true;
  }
  return io;
}

namespace {

const char* BestTargetName() {
  for (int t = VLAK_TARGET_RVV; t >= VLAK_TARGET_SCALAR; --t) {
    if (vlak_target_supported(static_cast<vlak_target>(t))) return vlak_target_name(static_cast<vlak_target>(t));
  }
  return "scalar";
}

vlak_target TargetByName(const std::string& name) {
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    if (name == vlak_target_name(static_cast<vlak_target>(t))) return static_cast<vlak_target>(t);
  }
  Raise("set_target", VLAK_ERROR_INVALID_ARGUMENT,
        "unknown target '" + name + "' (valid: scalar, avx2, avx512, rvv, or None for the best)");
}

}  // namespace

void BindInfo(py::module_& m) {
  py::options options;
  options.disable_function_signatures();
  m.def(
      "info",
      [] {
        py::dict d;
        const vlak_target t = vlak_active_target();
        d["version"] = vlak_version();
        d["target"] = vlak_target_name(t);
        py::list compiled, supported;
        for (int i = VLAK_TARGET_SCALAR; i <= VLAK_TARGET_RVV; ++i) {
          const auto ti = static_cast<vlak_target>(i);
          if (vlak_target_compiled(ti)) compiled.append(vlak_target_name(ti));
          if (vlak_target_supported(ti)) supported.append(vlak_target_name(ti));
        }
        d["targets_compiled"] = compiled;
        d["targets_supported"] = supported;
        d["lanes"] = vlak_target_lanes(t, 0, 4);
        py::dict by_lmul;
        for (int k = 0; k <= 3; ++k) by_lmul[py::int_(1 << k)] = vlak_target_lanes(t, k, 4);
        d["lanes_by_lmul"] = by_lmul;
        // Vector register width in bits (RVV: VLEN); None for the scalar target.
        if (t == VLAK_TARGET_SCALAR) {
          d["vlen"] = py::none();
        } else {
          d["vlen"] = vlak_target_lanes(t, 0, 1) * 8;
        }
        d["num_threads"] = vlak_get_num_threads();
        const vlak_status e = vlak_target_error();
        if (e == VLAK_OK) {
          d["target_error"] = py::none();
        } else {
          d["target_error"] = vlak_status_string(e);
        }
        return d;
      },
      R"doc(info() -> dict

What this build and CPU offer and what kernels run on.

Returns a dict: ``version``; ``target`` (the active one: "scalar", "avx2", "avx512" or "rvv");
``targets_compiled`` and ``targets_supported`` (lists of names); ``lanes`` (float32 lanes in one
vector register) and ``lanes_by_lmul`` ({1, 2, 4, 8} register groups -> lanes); ``vlen`` (vector
register width in bits, RVV's VLEN; None on the scalar target); ``num_threads``; ``target_error``
(why the VLAK_TARGET environment variable could not be honoured, else None).)doc");

  m.def(
      "set_target",
      [](py::object name) {
        const std::string n = name.is_none() ? std::string(BestTargetName()) : name.cast<std::string>();
        const vlak_target t = TargetByName(n);
        const vlak_status s = vlak_set_target(t);
        if (s != VLAK_OK) {  // a bad argument here, not a failed kernel: ValueError
          throw py::value_error(std::string("vlak.set_target: ") + vlak_status_string(s) + ": '" + n +
                                "' is not compiled in or this CPU lacks it");
        }
      },
      py::arg("target"),
      R"doc(set_target(target: str | None) -> None

Forces the compute target: "scalar", "avx2", "avx512", "rvv", or None for the best one
this CPU runs. Process-wide (as vlak_set_target); calls already running keep theirs.
ValueError for an unknown name or a target this build or CPU cannot run.)doc");

  m.def("get_target", [] { return std::string(vlak_target_name(vlak_active_target())); },
        "get_target() -> str\n\nThe name of the target kernels run on.");

  m.def(
      "set_num_threads",
      [](int n) { Check("set_num_threads", vlak_set_num_threads(n)); }, py::arg("n"),
      R"doc(set_num_threads(n: int) -> None

Threads the row and tile loops use: n >= 1 sets it, 0 returns to the default (VLAK_NUM_THREADS,
else OMP_NUM_THREADS, else the CPUs this process may run on). Process-wide, whichever runner runs
them (set_parallel_runner). ValueError for n < 0.)doc");

  m.def("get_num_threads", [] { return vlak_get_num_threads(); }, "get_num_threads() -> int\n\nThe thread count kernels will use.");

  // For python/tools/overhead.py: the C call's own time, reps calls of vlak_softmax_f32 on a
  // C-contiguous 2-D x into y timed in C++ (no Python between them). Returns seconds per call
  // (wall clock, and this thread's CPU time, which a loaded machine's waiting does not inflate).
  m.def(
      "_time_c_softmax",
      [](py::array_t<float, py::array::c_style> x, py::array_t<float, py::array::c_style> y, int reps) {
        if (x.ndim() != 2 || y.ndim() != 2 || x.shape(0) != y.shape(0) || x.shape(1) != y.shape(1) || reps < 1) {
          Raise("_time_c_softmax", VLAK_ERROR_INVALID_ARGUMENT, "2-D x and y of one shape, reps >= 1");
        }
        const size_t rows = static_cast<size_t>(x.shape(0)), cols = static_cast<size_t>(x.shape(1));
        const float* px = x.data();
        float* py_ = y.mutable_data();
        const auto cpu = [] {
          timespec ts;
          clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
          return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
        };
        py::gil_scoped_release release;
        const double c0 = cpu();
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < reps; ++i) vlak_softmax_f32(rows, cols, px, cols, py_, cols, 0);
        const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
        const double c1 = cpu();
        return std::make_pair(dt.count() / reps, (c1 - c0) / reps);
      },
      py::arg("x"), py::arg("y"), py::arg("reps"));
}

}  // namespace vlak::python

// Binding style: every operator function is a CPython vectorcall function through fastcall.h
// (pybind11's dispatcher costs more than a small kernel). The classes with state (PackedB,
// PackedQ, vlak.models) are pybind11 classes: pybind11 ties the C++ object to its Python object,
// where the C API would need a hand-written type, and their methods do weight-sized work. The
// process-wide controls (info, set_target, threads, runner) are pybind11 functions: they are set
// once, not called per kernel.
PYBIND11_MODULE(_vlak, m) {
  m.doc() = "vlak: vector-length-agnostic kernels for AI inference, over NumPy float32 arrays.";
  m.attr("__version__") = vlak_version();
  vlak::python::BindInfo(m);
  vlak::python::BindOps(m);
  vlak::python::BindIntOps(m);
  vlak::python::BindQuant(m);
  vlak::python::BindRunner(m);
  vlak::python::BindModels(m);
  vlak::python::BindMatmulPacked(m);
}
