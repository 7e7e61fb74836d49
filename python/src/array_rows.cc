#include "array_rows.h"

#include <cstdint>
#include <cstring>

namespace vlak::python {

size_t Layout::Size() const {
  size_t n = 1;
  for (ptrdiff_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

Layout LayoutOf(const pybind11::array& a) {
  Layout l;
  l.data = static_cast<char*>(const_cast<void*>(a.data()));
  const ptrdiff_t nd = a.ndim();
  l.shape.assign(a.shape(), a.shape() + nd);
  l.strides.assign(a.strides(), a.strides() + nd);
  return l;
}

Layout MoveAxisLast(const Layout& l, size_t axis) {
  Layout m;
  m.data = l.data;
  for (size_t i = 0; i < l.shape.size(); ++i) {
    if (i == axis) continue;
    m.shape.push_back(l.shape[i]);
    m.strides.push_back(l.strides[i]);
  }
  m.shape.push_back(l.shape[axis]);
  m.strides.push_back(l.strides[axis]);
  return m;
}

bool AsRows(const Layout& l, Rows* r) {
  const size_t nd = l.shape.size();
  if (nd == 0) return false;
  r->data = l.data;
  r->cols = static_cast<size_t>(l.shape[nd - 1]);
  r->rows = 1;
  for (size_t i = 0; i + 1 < nd; ++i) r->rows *= static_cast<size_t>(l.shape[i]);
  r->stride = r->cols;
  if (r->rows == 0 || r->cols == 0) return true;  // nothing is read or written
  if (reinterpret_cast<uintptr_t>(l.data) % alignof(float) != 0) return false;
  if (r->cols > 1 && l.strides[nd - 1] != static_cast<ptrdiff_t>(sizeof(float))) return false;
  // Leading axes, innermost first, skipping length-1 ones (their stride is never used).
  ptrdiff_t expect = -1;  // the stride the next outer axis must have to continue the row sequence
  for (size_t i = nd - 1; i-- > 0;) {
    if (l.shape[i] == 1) continue;
    const ptrdiff_t s = l.strides[i];
    if (expect < 0) {  // the innermost real leading axis sets the row stride
      if (s <= 0 || s % static_cast<ptrdiff_t>(sizeof(float)) != 0) return false;
      r->stride = static_cast<size_t>(s) / sizeof(float);
      if (r->stride < r->cols) return false;
    } else if (s != expect) {
      return false;
    }
    expect = s * l.shape[i];
  }
  return true;
}

namespace {
// [lo, hi) of the bytes an array's elements occupy.
void Span(const Layout& l, uintptr_t* lo, uintptr_t* hi) {
  ptrdiff_t min_off = 0, max_off = 0;
  for (size_t i = 0; i < l.shape.size(); ++i) {
    const ptrdiff_t ext = (l.shape[i] - 1) * l.strides[i];
    if (ext < 0) min_off += ext; else max_off += ext;
  }
  *lo = reinterpret_cast<uintptr_t>(l.data) + min_off;
  *hi = reinterpret_cast<uintptr_t>(l.data) + max_off + sizeof(float);
}

void CopyAxis(const Layout& src, const Layout& dst, size_t axis, const char* s, char* d) {
  const ptrdiff_t n = src.shape[axis];
  const ptrdiff_t ss = src.strides[axis], ds = dst.strides[axis];
  if (axis + 1 == src.shape.size()) {
    if (ss == static_cast<ptrdiff_t>(sizeof(float)) && ds == static_cast<ptrdiff_t>(sizeof(float))) {
      std::memcpy(d, s, static_cast<size_t>(n) * sizeof(float));
      return;
    }
    for (ptrdiff_t i = 0; i < n; ++i) std::memcpy(d + i * ds, s + i * ss, sizeof(float));
    return;
  }
  for (ptrdiff_t i = 0; i < n; ++i) CopyAxis(src, dst, axis + 1, s + i * ss, d + i * ds);
}
}  // namespace

bool MayOverlap(const Layout& a, const Layout& b) {
  if (a.Size() == 0 || b.Size() == 0) return false;
  uintptr_t alo, ahi, blo, bhi;
  Span(a, &alo, &ahi);
  Span(b, &blo, &bhi);
  return alo < bhi && blo < ahi;
}

void CopyStrided(const Layout& src, const Layout& dst) {
  if (src.Size() == 0) return;
  if (src.shape.empty()) {
    std::memcpy(dst.data, src.data, sizeof(float));
    return;
  }
  CopyAxis(src, dst, 0, src.data, dst.data);
}

}  // namespace vlak::python
