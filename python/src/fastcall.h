// The operators' entry points: plain CPython METH_FASTCALL | METH_KEYWORDS functions, with their
// keyword-argument matching, argument conversions and error translation.
//
// Why not pybind11's dispatcher: for a call with keywords (vlak.softmax(x, out=y)) it copies the
// keyword dict and looks every parameter name up as a freshly made string, about 0.35 us per
// call, more than the whole 1 x 1024 softmax kernel (0.24 us). Here the parameter names are
// interned once and a keyword is matched by pointer (CPython interns identifier keywords), so a
// call costs its argument conversions only. Errors are the usual TypeErrors.
//
// An entry point, with its docstring in the method table:
//
//   VLAK_ENTRY(SoftmaxEntry) {
//     static const FastParams p("softmax", {"x", "axis", ...}, 1);
//     return Entry(p, args, nargs, kwnames, [](PyObject** v) { return Softmax(v[0], IntArg(v[1], -1), ...); });
//   }
//   PyMethodDef kMethods[] = {VLAK_METHOD("softmax", SoftmaxEntry, kDocSoftmax), ..., {nullptr, nullptr, 0, nullptr}};
//   AddFunctions(m, kMethods);
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <exception>
#include <initializer_list>
#include <new>
#include <optional>
#include <string>

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

// Argument conversions: v is a value MatchArgs filled, nullptr (not given) gives dflt. A value
// of the wrong type raises (pybind11::error_already_set with Python's TypeError, or a TypeError
// naming the argument).
int IntArg(PyObject* v, int dflt);  // ValueError outside int's range
long long LongArg(PyObject* v, long long dflt);
// A size_t parameter: an int >= 0, else TypeError "vlak.<fn>: <name> must be an int >= 0".
size_t UnsignedArg(const char* fn, const char* name, PyObject* v);
bool BoolArg(PyObject* v, bool dflt);  // any object, by its truth
double FloatArg(PyObject* v, double dflt);
std::string StrArg(const char* fn, const char* name, PyObject* v, const char* dflt);
// A str, or None / not given (nullopt).
std::optional<std::string> OptStrArg(const char* fn, const char* name, PyObject* v);
// An optional object parameter: None when not given.
inline pybind11::handle Obj(PyObject* v) { return v != nullptr ? pybind11::handle(v) : pybind11::handle(Py_None); }

// One METH_FASTCALL | METH_KEYWORDS entry point: match the arguments, run body(values) (which
// returns a pybind11::object), turn a C++ exception into the Python error it stands for.
template <class Body>
PyObject* Entry(const FastParams& params, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, Body body) {
  PyObject* v[FastParams::kMax];
  if (!MatchArgs(params, args, nargs, kwnames, v)) return nullptr;
  try {
    return body(v).release().ptr();
  } catch (pybind11::error_already_set& e) {
    e.restore();
  } catch (const pybind11::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

#define VLAK_ENTRY(name) PyObject* name(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)

#define VLAK_METHOD(pyname, fn, doc) \
  { pyname, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn)), METH_FASTCALL | METH_KEYWORDS, doc }

// Adds a method table (ending in a null entry, kept for the life of the process) to the module.
void AddFunctions(pybind11::module_& m, PyMethodDef* methods);

}  // namespace vlak::python
