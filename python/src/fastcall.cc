#include "fastcall.h"

#include <climits>
#include <cstdio>
#include <cstdlib>

namespace vlak::python {

FastParams::FastParams(const char* fn, std::initializer_list<const char*> names, int required)
    : fn_(fn), required_(required) {
  for (const char* n : names) {
    if (n_ == kMax) {  // a binding with more parameters than kMax: fail at import, not later
      std::fprintf(stderr, "vlak: %s() has more than %d parameters (FastParams::kMax)\n", fn, kMax);
      std::abort();
    }
    text_[n_] = n;
    names_[n_++] = PyUnicode_InternFromString(n);  // kept for the life of the process
  }
}

bool MatchArgs(const FastParams& p, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** values) {
  nargs = PyVectorcall_NARGS(nargs);
  for (int i = 0; i < p.count(); ++i) values[i] = nullptr;
  if (nargs > p.count()) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", p.fn(), p.count(), nargs);
    return false;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) values[i] = args[i];
  const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, j);
    int k = 0;
    while (k < p.count() && p.name(k) != key) ++k;
    if (k == p.count()) {  // not interned the same way: compare the text
      k = 0;
      while (k < p.count() && PyUnicode_Compare(p.name(k), key) != 0) ++k;
      if (PyErr_Occurred()) return false;
    }
    if (k == p.count()) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", p.fn(), key);
      return false;
    }
    if (values[k] != nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", p.fn(), p.name_text(k));
      return false;
    }
    values[k] = args[nargs + j];
  }
  for (int i = 0; i < p.required(); ++i) {
    if (values[i] == nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", p.fn(), p.name_text(i), i + 1);
      return false;
    }
  }
  return true;
}

namespace py = pybind11;

int IntArg(PyObject* v, int dflt) {
  const long long r = LongArg(v, dflt);
  if (r < INT_MIN || r > INT_MAX) throw py::value_error("integer argument out of range");
  return static_cast<int>(r);
}

long long LongArg(PyObject* v, long long dflt) {
  if (v == nullptr) return dflt;
  const long long r = PyLong_AsLongLong(v);
  if (r == -1 && PyErr_Occurred()) throw py::error_already_set();
  return r;
}

size_t UnsignedArg(const char* fn, const char* name, PyObject* v) {
  const long long r = LongArg(v, 0);
  if (r < 0) throw py::type_error(std::string("vlak.") + fn + ": " + name + " must be an int >= 0");
  return static_cast<size_t>(r);
}

bool BoolArg(PyObject* v, bool dflt) {
  if (v == nullptr) return dflt;
  const int r = PyObject_IsTrue(v);
  if (r < 0) throw py::error_already_set();
  return r != 0;
}

double FloatArg(PyObject* v, double dflt) {
  if (v == nullptr) return dflt;
  const double r = PyFloat_AsDouble(v);
  if (r == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return r;
}

std::string StrArg(const char* fn, const char* name, PyObject* v, const char* dflt) {
  if (v == nullptr) return dflt;
  if (!PyUnicode_Check(v)) throw py::type_error(std::string("vlak.") + fn + ": " + name + " must be a str");
  Py_ssize_t n = 0;
  const char* c = PyUnicode_AsUTF8AndSize(v, &n);
  if (c == nullptr) throw py::error_already_set();
  return std::string(c, static_cast<size_t>(n));
}

std::optional<std::string> OptStrArg(const char* fn, const char* name, PyObject* v) {
  if (v == nullptr || v == Py_None) return std::nullopt;
  if (!PyUnicode_Check(v)) throw py::type_error(std::string("vlak.") + fn + ": " + name + " must be a str or None");
  return StrArg(fn, name, v, "");
}

void AddFunctions(py::module_& m, PyMethodDef* methods) {
  if (PyModule_AddFunctions(m.ptr(), methods) != 0) throw py::error_already_set();
}

}  // namespace vlak::python
