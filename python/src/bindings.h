// Shared pieces of the vlak Python module: argument checks that raise the Python exceptions the
// module documents, and the row-wise operand preparation every row operator uses.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "array_rows.h"
#include "vlak/vlak.h"

namespace vlak::python {

namespace py = pybind11;

// Raises for a failed status: "vlak.<fn>: <vlak_status_string>[: detail]". A target that
// cannot run is a RuntimeError; every other status (null, invalid argument, overflow) a
// ValueError, since the module only passes what the caller gave it.
[[noreturn]] void Raise(const char* fn, vlak_status status, const std::string& detail = "");
inline void Check(const char* fn, vlak_status status) {
  if (status != VLAK_OK) Raise(fn, status);
}

// `obj` as a float32 ndarray (native byte order), else TypeError naming the argument.
py::array F32Array(const char* fn, const char* name, py::handle obj);
// A writeable float32 ndarray of exactly `shape`, else TypeError / ValueError.
py::array OutArray(const char* fn, py::handle obj, const std::vector<ptrdiff_t>& shape, const char* what);
// "(2, 3)"
std::string ShapeText(const std::vector<ptrdiff_t>& shape);
// A new C-contiguous float32 array.
py::array_t<float> NewArray(const std::vector<ptrdiff_t>& shape);
// The array as rows, through a C-contiguous copy (kept alive in *keep) when AsRows says no.
Rows RowsOrCopy(const Layout& l, py::object* keep);
// A 1-D float32 parameter (gamma, beta) of n entries, contiguous (copied if not); null if None.
const float* VectorParam(const char* fn, const char* name, py::handle obj, size_t n, const Layout* out,
                         py::object* keep);

// Input x and output y of a row-wise operator over `axis` (normalised), y of x's shape.
// y is `out` when given (copied into after the kernel when its layout is not rows), or a new
// array laid out with the axis innermost. x is passed as is unless it is not rows or overlaps
// y other than exactly (then a contiguous copy).
struct RowIO {
  Rows x, y;
  py::object result;   // what the call returns
  py::object keep_x;   // a copy of x, when one was needed
  py::object keep_y;   // the temporary y, when out's layout is not rows
  Layout out_layout;   // out (axis last), the copy-back destination
  Layout tmp_layout;   // the temporary, axis last
  bool copy_back = false;
  // Called with the GIL released, after a successful kernel.
  void CopyBack() const {
    if (copy_back) CopyStrided(tmp_layout, out_layout);
  }
};
// Normalises axis against ndim (ValueError when out of range).
size_t NormAxis(const char* fn, int axis, size_t ndim);
RowIO PrepareRows(const char* fn, const py::array& x, py::handle out, size_t axis);

void BindInfo(py::module_& m);
void BindOps(py::module_& m);
void BindIntOps(py::module_& m);
void BindQuant(py::module_& m);  // quant_bindings.cc: quantize, dequantize, matmul_q
void BindModels(py::module_& m);  // models_bindings.cc: vlak.models
void BindLlama(py::module_& models);  // llama_bindings.cc: vlak.models.Llama
void BindMatmulPacked(py::module_& m);  // matmul_packed_bindings.cc: vlak.pack_b, vlak.PackedB
// An activation given by name ("silu") or by its vlak_activation value (an int); the accuracy
// tier by name ("accurate", "fast") OR-ed into it (ops_bindings.cc).
vlak_activation ActivationOp(const char* fn, PyObject* v);
vlak_activation WithTier(const char* fn, vlak_activation op, const std::string& accuracy);
void BindRunner(py::module_& m);  // runner.cc: set_parallel_runner, and sets "auto"

}  // namespace vlak::python
