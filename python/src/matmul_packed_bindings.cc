// vlak.pack_b and vlak.PackedB.matmul: B packed once (vlak_matmul_pack_b_f32) for many products
// (vlak_matmul_packed_f32), as a model's weights are. pack_b is a fast-call entry point
// (fastcall.h); PackedB, which owns the packed panels, a pybind11 class.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "fastcall.h"

namespace vlak::python {
namespace {

struct PackedB {
  std::vector<float> data;  // float storage: 4-byte aligned
  size_t k = 0, n = 0;
};

constexpr const char* kDocPackB = R"doc(pack_b(b: ndarray[float32], trans_b: bool = False) -> PackedB

B packed once for many products (vlak_matmul_pack_b_f32): b (k, n), or (n, k) with trans_b=True
(a Linear layer's (out, in) weights), in the active target's panel layout. PackedB.matmul(a) then
gives the bits of vlak.matmul(a, b, trans_b=...) without reading or packing b again. A PackedB
made for one target is refused by another (vlak.set_target): pack again.)doc";

constexpr const char* kDocPackedMatmul = R"doc(matmul(a: ndarray[float32], out: ndarray[float32] | None = None, accumulate: bool = False, bias: ndarray[float32] | None = None, activation: str | int | None = None, accuracy: str = "accurate") -> ndarray[float32]

C = act(a @ B + bias) with this packed B (vlak_matmul_packed_f32): the same bits as vlak.matmul
with the same arguments and the unpacked b.)doc";

PackedB PackB(py::handle b_obj, bool trans_b) {
  const char* fn = "pack_b";
  py::array b = F32Array(fn, "b", b_obj);
  if (b.ndim() != 2) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "b must be 2-D");
  py::object kb;
  Rows rb = RowsOrCopy(LayoutOf(b), &kb);
  PackedB p;
  p.k = static_cast<size_t>(trans_b ? b.shape(1) : b.shape(0));
  p.n = static_cast<size_t>(trans_b ? b.shape(0) : b.shape(1));
  const size_t bytes = vlak_matmul_packed_size_f32(p.k, p.n);
  if (bytes == 0) Check(fn, VLAK_ERROR_OVERFLOW);
  p.data.assign((bytes + sizeof(float) - 1) / sizeof(float), 0.0f);
  vlak_status s;
  {
    py::gil_scoped_release release;
    s = vlak_matmul_pack_b_f32(p.k, p.n, rb.F32(), rb.stride, trans_b ? VLAK_MATMUL_TRANS_B : 0u, p.data.data(), bytes);
  }
  Check(fn, s);
  return p;
}

VLAK_ENTRY(PackBEntry) {
  static const FastParams p("pack_b", {"b", "trans_b"}, 1);
  return Entry(p, args, nargs, kwnames, [](PyObject** v) { return py::cast(PackB(v[0], BoolArg(v[1], false))); });
}

PyMethodDef kMethods[] = {
    VLAK_METHOD("pack_b", PackBEntry, kDocPackB),
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void BindMatmulPacked(py::module_& m) {
  py::class_<PackedB>(m, "PackedB", "B packed by vlak.pack_b (opaque; k and n as attributes)")
      .def_readonly("k", &PackedB::k)
      .def_readonly("n", &PackedB::n)
      .def(
          "matmul",
          [](const PackedB& self, py::handle a_obj, py::handle out, bool accumulate, py::handle bias, py::handle act,
             const std::string& accuracy) -> py::object {
            const char* fn = "PackedB.matmul";
            py::array a = F32Array(fn, "a", a_obj);
            if (a.ndim() != 2) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "a must be 2-D");
            const ptrdiff_t m = a.shape(0), k = a.shape(1), n = static_cast<ptrdiff_t>(self.n);
            if (static_cast<size_t>(k) != self.k) {
              Raise(fn, VLAK_ERROR_INVALID_ARGUMENT,
                    "a is " + ShapeText({m, k}) + " but B was packed with k = " + std::to_string(self.k));
            }
            if (accumulate && out.is_none()) Raise(fn, VLAK_ERROR_INVALID_ARGUMENT, "accumulate=True needs out=");
            py::array c = out.is_none() ? py::array(NewArray({m, n})) : OutArray(fn, out, {m, n}, "a @ B is");
            const Layout lc = LayoutOf(c);
            py::object ka, kc, kbias;
            Layout la = LayoutOf(a);
            Rows ra = RowsOrCopy(la, &ka);
            Rows rc;
            const bool c_rows = AsRows(lc, &rc);
            Layout tmp;
            if (!c_rows) {
              py::array_t<float> t = NewArray({m, n});
              tmp = LayoutOf(t);
              if (accumulate) CopyStrided(lc, tmp);
              AsRows(tmp, &rc);
              kc = t;
            }
            vlak_matmul_epilogue ep{};
            ep.bias = VectorParam(fn, "bias", bias, static_cast<size_t>(n), &lc, &kbias);
            if (!act.is_none()) {
              ep.flags = VLAK_EPILOGUE_ACTIVATION;
              ep.activation = WithTier(fn, ActivationOp(fn, act.ptr()), accuracy);
            }
            vlak_status s;
            {
              py::gil_scoped_release release;
              s = vlak_matmul_packed_f32(static_cast<size_t>(m), static_cast<size_t>(n), static_cast<size_t>(k),
                                         ra.F32(), ra.stride, self.data.data(), rc.F32(), rc.stride,
                                         accumulate ? VLAK_MATMUL_ACCUMULATE : 0u, &ep);
              if (s == VLAK_OK && !c_rows) CopyStrided(tmp, lc);
            }
            Check(fn, s);
            return c;
          },
          py::arg("a"), py::arg("out") = py::none(), py::arg("accumulate") = false, py::arg("bias") = py::none(),
          py::arg("activation") = py::none(), py::arg("accuracy") = "accurate", kDocPackedMatmul);
  AddFunctions(m, kMethods);  // after PackedB: pack_b returns one
}

}  // namespace vlak::python
