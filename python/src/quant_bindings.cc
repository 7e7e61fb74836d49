// Quantized weights (GGUF's q8_0, q4_0, q4_1 blocks): quantize, dequantize, matmul_q, pack_q, as
// fast-call entry points (fastcall.h); pack_q's PackedQ is a pybind11 class. Blocks are uint8
// arrays of shape (rows, row_bytes); float inputs must be float32 (never converted), and go
// through a C-contiguous copy when they are not contiguous.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.h"
#include "fastcall.h"

namespace vlak::python {
namespace {

vlak_qtype QType(const char* fn, const std::string& name) {
  if (name == "q8_0") return VLAK_Q8_0;
  if (name == "q4_0") return VLAK_Q4_0;
  if (name == "q4_1") return VLAK_Q4_1;
  Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "qtype must be 'q8_0', 'q4_0' or 'q4_1', not '" + name + "'");
}

py::array_t<float, py::array::c_style> F32Matrix(const char* fn, const char* name, py::handle obj) {
  py::array a = F32Array(fn, name, obj);
  if (a.ndim() == 1) a = a.reshape({static_cast<py::ssize_t>(1), a.shape(0)});
  if (a.ndim() != 2) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, std::string(name) + " must be 1-D or 2-D");
  return py::array_t<float, py::array::c_style>::ensure(a);
}

py::array_t<uint8_t, py::array::c_style> BlockRows(const char* fn, py::handle obj, size_t row_bytes) {
  if (!py::isinstance<py::array>(obj) || py::reinterpret_borrow<py::array>(obj).dtype().num() != 2) {
    throw py::type_error(std::string("vlak.") + fn + ": the blocks must be a numpy.ndarray of uint8");
  }
  auto a = py::reinterpret_borrow<py::array>(obj);
  if (a.ndim() == 1) a = a.reshape({static_cast<py::ssize_t>(1), a.shape(0)});
  if (a.ndim() != 2 || static_cast<size_t>(a.shape(1)) != row_bytes) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
          "the blocks must have shape (rows, " + std::to_string(row_bytes) + ") for this qtype and k");
  }
  return py::array_t<uint8_t, py::array::c_style>::ensure(a);
}

size_t RowBytes(const char* fn, vlak_qtype t, size_t k) {
  const size_t rb = vlak_qtype_row_bytes(t, k);
  if (rb == 0 && k != 0) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "k must be a multiple of 32");
  return rb;
}

py::object Quantize(py::handle x_obj, const std::string& qtype) {
  const char* fn = "quantize";
  const vlak_qtype t = QType(fn, qtype);
  auto x = F32Matrix(fn, "x", x_obj);
  const size_t rows = x.shape(0), k = x.shape(1), rb = RowBytes(fn, t, k);
  py::array_t<uint8_t> q({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(rb)});
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = vlak_quantize_f32(t, rows, k, x.data(), k, q.mutable_data(), rb);
  }
  Check(fn, s);
  return q;
}

py::object Dequantize(py::handle q_obj, const std::string& qtype, size_t k) {
  const char* fn = "dequantize";
  const vlak_qtype t = QType(fn, qtype);
  const size_t rb = RowBytes(fn, t, k);
  auto q = BlockRows(fn, q_obj, rb);
  const size_t rows = q.shape(0);
  py::array_t<float> y = NewArray({static_cast<ptrdiff_t>(rows), static_cast<ptrdiff_t>(k)});
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = vlak_dequantize_f32(t, rows, k, q.data(), rb, y.mutable_data(), k);
  }
  Check(fn, s);
  return y;
}

// The epilogue's activation by name (vlak.activation's names), or None.
int ActivationByName(const char* fn, const std::optional<std::string>& name) {
  if (!name) return -1;
  static const char* const kNames[] = {"sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"};
  for (int k = 0; k < 6; ++k) {
    if (*name == kNames[k]) return k;
  }
  Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
        "activation must be one of sigmoid, tanh, gelu, gelu_tanh, silu, softplus; not '" + *name + "'");
}

// W repacked by vlak.pack_q (vlak_matmul_q_pack): its bytes (header and all), n, k and type.
struct PackedQ {
  std::vector<uint8_t> data;
  size_t n = 0, k = 0;
  std::string qtype;
};

// activation(a @ W.T + bias) for a (m, k): the product `run(m, a, c, flags, epilogue)` (W's n rows
// of k values) after the shared checks of a, bias and activation.
template <class Run>
py::object ProductQ(const char* fn, py::handle a_obj, size_t n, size_t k, bool quantize_a, py::handle bias_obj,
                    const std::optional<std::string>& activation, Run&& run) {
  auto a = F32Matrix(fn, "a", a_obj);
  const size_t m = a.shape(0);
  if (static_cast<size_t>(a.shape(1)) != k) {
    Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "a must have " + std::to_string(k) + " columns, not " + std::to_string(a.shape(1)));
  }
  const int act = ActivationByName(fn, activation);
  py::array_t<float, py::array::c_style> bias;
  if (!bias_obj.is_none()) {
    bias = py::array_t<float, py::array::c_style>::ensure(F32Array(fn, "bias", bias_obj));
    if (bias.ndim() != 1 || static_cast<size_t>(bias.shape(0)) != n) {
      Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "bias must have shape (" + std::to_string(n) + ",)");
    }
  }
  const vlak_matmul_epilogue e{bias_obj.is_none() ? nullptr : bias.data(), act >= 0 ? VLAK_EPILOGUE_ACTIVATION : 0u,
                               static_cast<vlak_activation>(act >= 0 ? act : 0)};
  py::array_t<float> c = NewArray({static_cast<ptrdiff_t>(m), static_cast<ptrdiff_t>(n)});
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = run(m, a.data(), c.mutable_data(), quantize_a ? VLAK_MATMUL_Q_QUANTIZE_A : 0u, &e);
  }
  Check(fn, s);
  return c;
}

py::object MatmulQ(py::handle a_obj, py::handle w_obj, const std::string& qtype, bool quantize_a, py::handle bias_obj,
                   const std::optional<std::string>& activation) {
  const char* fn = "matmul_q";
  const vlak_qtype t = QType(fn, qtype);
  auto a = F32Matrix(fn, "a", a_obj);
  const size_t k = a.shape(1), rb = RowBytes(fn, t, k);
  auto w = BlockRows(fn, w_obj, rb);
  const size_t n = w.shape(0);
  return ProductQ(fn, a, n, k, quantize_a, bias_obj, activation,
                  [&](size_t m, const float* ap, float* cp, unsigned flags, const vlak_matmul_epilogue* e) {
                    return vlak_matmul_q_f32(m, n, k, ap, k, t, w.data(), rb, cp, n, flags, e);
                  });
}

PackedQ PackQ(py::handle w_obj, const std::string& qtype, size_t k) {
  const char* fn = "pack_q";
  const vlak_qtype t = QType(fn, qtype);
  const size_t rb = RowBytes(fn, t, k);
  auto w = BlockRows(fn, w_obj, rb);
  PackedQ p;
  p.n = w.shape(0), p.k = k, p.qtype = qtype;
  p.data.resize(vlak_matmul_q_packed_size(t, p.n, k));
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = vlak_matmul_q_pack(t, p.n, k, w.data(), rb, p.data.data(), p.data.size());
  }
  Check(fn, s);
  return p;
}

constexpr const char* kDocQtypeRowBytes = R"doc(qtype_row_bytes(qtype: str, k: int) -> int

Bytes of one row of k values in blocks of qtype ('q8_0', 'q4_0', 'q4_1'); 0 when k is not a multiple of 32.)doc";

constexpr const char* kDocQuantize = R"doc(quantize(x: ndarray[float32], qtype: str) -> ndarray[uint8]

Rows of x (1-D or 2-D, k a multiple of 32) as GGUF blocks of qtype ('q8_0', 'q4_0', 'q4_1'), shape (rows, row_bytes): the bytes of ggml's quantize_row_*_ref. A NaN or inf in x raises ValueError.)doc";

constexpr const char* kDocDequantize = R"doc(dequantize(q: ndarray[uint8], qtype: str, k: int) -> ndarray[float32]

Blocks (rows, row_bytes) as float32 (rows, k): the floats of ggml's dequantize_row_*.)doc";

constexpr const char* kDocPackQ = R"doc(pack_q(w: ndarray[uint8], qtype: str, k: int) -> PackedQ

W (n, row_bytes) blocks of qtype repacked once for the active target (vlak_matmul_q_pack; 16 rows interleaved on AVX-512 VNNI). A PackedQ made for one target is refused by another (vlak.set_target): pack again.)doc";

constexpr const char* kDocMatmulQ = R"doc(matmul_q(a: ndarray[float32], w: ndarray[uint8], qtype: str, quantize_a: bool = False, bias: ndarray[float32] | None = None, activation: str | None = None) -> ndarray[float32]

activation(a @ W.T + bias) for a (m, k) and W (n, row_bytes) blocks of qtype. Default: exact weights, |C - C64| <= 2k 2^-24 sum|a||w| against float64 of the dequantized W. quantize_a=True: ggml's arithmetic (a quantized per block of 32 to int8), the bound adds sum |w| |a - a_q| (include/vlak/vlak.h). bias (n,) and activation (vlak.activation's names) as vlak_matmul_ex_f32's epilogue.)doc";

VLAK_ENTRY(QtypeRowBytesEntry) {
  static const FastParams p("qtype_row_bytes", {"qtype", "k"}, 2);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    const char* fn = "qtype_row_bytes";
    return py::int_(vlak_qtype_row_bytes(QType(fn, StrArg(fn, "qtype", v[0], "")), UnsignedArg(fn, "k", v[1])));
  });
}
VLAK_ENTRY(QuantizeEntry) {
  static const FastParams p("quantize", {"x", "qtype"}, 2);
  return Entry(p, args, nargs, kwnames,
               [](PyObject** v) { return Quantize(v[0], StrArg("quantize", "qtype", v[1], "")); });
}
VLAK_ENTRY(DequantizeEntry) {
  static const FastParams p("dequantize", {"q", "qtype", "k"}, 3);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    const char* fn = "dequantize";
    return Dequantize(v[0], StrArg(fn, "qtype", v[1], ""), UnsignedArg(fn, "k", v[2]));
  });
}
VLAK_ENTRY(PackQEntry) {
  static const FastParams p("pack_q", {"w", "qtype", "k"}, 3);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    const char* fn = "pack_q";
    return py::cast(PackQ(v[0], StrArg(fn, "qtype", v[1], ""), UnsignedArg(fn, "k", v[2])));
  });
}
VLAK_ENTRY(MatmulQEntry) {
  static const FastParams p("matmul_q", {"a", "w", "qtype", "quantize_a", "bias", "activation"}, 3);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) {
    const char* fn = "matmul_q";
    return MatmulQ(v[0], v[1], StrArg(fn, "qtype", v[2], ""), BoolArg(v[3], false), Obj(v[4]),
                   OptStrArg(fn, "activation", v[5]));
  });
}

PyMethodDef kMethods[] = {
    VLAK_METHOD("qtype_row_bytes", QtypeRowBytesEntry, kDocQtypeRowBytes),
    VLAK_METHOD("quantize", QuantizeEntry, kDocQuantize),
    VLAK_METHOD("dequantize", DequantizeEntry, kDocDequantize),
    VLAK_METHOD("pack_q", PackQEntry, kDocPackQ),
    VLAK_METHOD("matmul_q", MatmulQEntry, kDocMatmulQ),
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void BindQuant(py::module_& m) {
  py::class_<PackedQ>(m, "PackedQ", "W packed by vlak.pack_q (opaque; n, k and qtype as attributes)")
      .def_readonly("n", &PackedQ::n)
      .def_readonly("k", &PackedQ::k)
      .def_readonly("qtype", &PackedQ::qtype)
      .def(
          "matmul",
          [](const PackedQ& self, py::handle a, bool quantize_a, py::handle bias,
             const std::optional<std::string>& activation) {
            return ProductQ("PackedQ.matmul", a, self.n, self.k, quantize_a, bias, activation,
                            [&](size_t m, const float* ap, float* cp, unsigned flags, const vlak_matmul_epilogue* e) {
                              return vlak_matmul_q_packed_f32(m, self.n, self.k, ap, self.k, self.data.data(), cp,
                                                              self.n, flags, e);
                            });
          },
          py::arg("a"), py::arg("quantize_a") = false, py::arg("bias") = py::none(), py::arg("activation") = py::none(),
          "matmul(a: ndarray[float32], quantize_a: bool = False, bias: ndarray[float32] | None = None, activation: "
          "str | None = None) -> ndarray[float32]\n\nvlak.matmul_q's product with this packed W "
          "(vlak_matmul_q_packed_f32): its bits with exact weights; with quantize_a=True its bound, and on "
          "AVX-512 VNNI a kernel of its own for the x16 layout.");
  AddFunctions(m, kMethods);  // after PackedQ: pack_q returns one
}

}  // namespace vlak::python
