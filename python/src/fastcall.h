// Keyword-argument matching for the operators' METH_FASTCALL | METH_KEYWORDS entry points.
//
// Why not pybind11's dispatcher: for a call with keywords (vlak.softmax(x, out=y)) it copies the
// keyword dict and looks every parameter name up as a freshly made string, about 0.35 us per
// call, more than the whole 1 x 1024 softmax kernel (0.24 us). Here the parameter names are
// interned once and a keyword is matched by pointer (CPython interns identifier keywords), so a
// call costs its argument conversions only. Errors are the usual TypeErrors.
#pragma once

#include <Python.h>

#include <initializer_list>

namespace vlak::python {

// The parameters of one function: names (interned on first use) and how many are required.
class FastParams {
 public:
  static constexpr int kMax = 12;
  FastParams(const char* fn, std::initializer_list<const char*> names, int required);
  const char* fn() const { return fn_; }
  int count() const { return n_; }
  int required() const { return required_; }
  PyObject* name(int i) const { return names_[i]; }
  const char* name_text(int i) const { return text_[i]; }

 private:
  const char* fn_;
  int n_ = 0;
  int required_;
  PyObject* names_[kMax] = {};
  const char* text_[kMax] = {};
};

// Fills values[i] (borrowed; nullptr when not given) for each parameter from a vectorcall's
// arguments. False with a TypeError set for too many, unknown, repeated or missing arguments.
bool MatchArgs(const FastParams& p, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** values);

}  // namespace vlak::python
