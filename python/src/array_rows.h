// How a float32 NumPy array maps onto the C API's row-major arguments.
//
// The C entry points take rows x cols matrices whose rows are contiguous (unit element stride)
// and equally spaced (a row stride in elements, >= cols). A NumPy array is passed through without
// a copy when its layout, with the operator's axis moved last, is of that form: the last axis has
// stride 4 bytes (or length 1), and the other axes, dropping those of length 1, nest into one
// equally spaced sequence of rows (each axis' stride = the next inner one's stride x its length).
// That covers C-contiguous arrays, slices along any leading axis with a step (x[::2]), column
// windows (x[:, 16:48]) and views with the reduced axis moved last when it is contiguous.
// Anything else (negative strides, a non-unit stride along the axis, misaligned data, leading
// axes that do not nest) goes through a contiguous copy: the result is the same either way.
#pragma once

#include <pybind11/numpy.h>

#include <cstddef>
#include <vector>

namespace vlak::python {

// An array's geometry: byte strides, as NumPy keeps them.
struct Layout {
  char* data = nullptr;
  std::vector<ptrdiff_t> shape;
  std::vector<ptrdiff_t> strides;  // bytes
  size_t Size() const;
};

Layout LayoutOf(const pybind11::array& a);

// The same array with axis `axis` (already normalised to 0..ndim-1) moved to the end, the other
// axes keeping their order (numpy.moveaxis(a, axis, -1)).
Layout MoveAxisLast(const Layout& l, size_t axis);

// rows x cols with the row stride in elements; rows = product of all but the last axis.
struct Rows {
  char* data = nullptr;
  size_t rows = 0;
  size_t cols = 0;
  size_t stride = 0;
  float* F32() const { return reinterpret_cast<float*>(data); }
};

// True (and *r) when the layout is rows of contiguous floats equally spaced, as above. An array of
// 0 elements is always expressible. Needs 4-byte aligned data.
bool AsRows(const Layout& l, Rows* r);

// Whether the byte ranges two arrays span intersect (conservative: spans, not elements).
bool MayOverlap(const Layout& a, const Layout& b);

// Copies src into dst element by element (same shape, any strides; float32). No GIL needed.
void CopyStrided(const Layout& src, const Layout& dst);

}  // namespace vlak::python
