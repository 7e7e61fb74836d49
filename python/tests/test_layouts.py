"""NumPy layouts: strided, transposed, negative-stride and misaligned arrays give the same
results as contiguous ones; out= writes only its own elements; aliasing x and out is safe. For
exp and every operator's LAYOUT_CASES (op_cases.py)."""
import numpy as np
import pytest

import op_cases
import vlak

SENTINEL = np.float32(-12345.0)
FUNCTIONS = {"exp": vlak.exp, **op_cases.layout_cases()}


def views(base):
    """Named views of a 3-D float32 array, each with a different layout."""
    return {
        "contiguous": base,
        "row_step": base[:, ::2, :],  # rows equally spaced, passed through
        "column_window": base[:, 1:5, 3:11],  # rows with gaps, passed through
        "transposed": base.transpose(1, 0, 2),  # leading axes do not nest: copied
        "negative": base[::-1, :, ::-1],  # negative strides: copied
        "inner_stride": base[:, :, ::2],  # non-unit stride along the axis: copied
        "fortran": np.asfortranarray(base),
    }


def misaligned(shape, rng):
    buf = np.zeros(int(np.prod(shape)) * 4 + 1, np.uint8)
    a = buf[1:].view(np.float32).reshape(shape)
    a[...] = rng.uniform(-5, 5, size=shape)
    assert not a.flags.aligned
    return a


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("name", list(views(np.zeros((4, 6, 16), np.float32)).keys()) + ["misaligned"])
def test_input_layouts(rng, name, function):
    fn = FUNCTIONS[function]
    base = rng.uniform(-20, 20, size=(4, 6, 16)).astype(np.float32)
    x = misaligned((4, 6, 16), rng) if name == "misaligned" else views(base)[name]
    xc = np.ascontiguousarray(x)
    before = x.copy()
    # The same bits as from the contiguous copy (whose values each operator's own tests check).
    np.testing.assert_array_equal(fn(x), fn(xc))
    np.testing.assert_array_equal(x, before)  # inputs are never written


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("name", ["row_step", "column_window", "transposed", "negative", "inner_stride"])
def test_out_layouts_write_only_their_elements(rng, name, function):
    fn = FUNCTIONS[function]
    x = rng.uniform(-20, 20, size=(4, 6, 16)).astype(np.float32)
    buf = np.full((8, 12, 32), SENTINEL, np.float32)
    # A view of buf with x's shape in the chosen layout.
    out = {
        "row_step": buf[:4, ::2, :16],
        "column_window": buf[:4, 2:8, 5:21],
        "transposed": buf[:6, :4, :16].transpose(1, 0, 2),
        "negative": buf[:4, :6, :16][::-1, :, ::-1],
        "inner_stride": buf[:4, :6, ::2],
    }[name]
    assert out.shape == x.shape
    r = fn(x, out=out)
    assert r is out
    np.testing.assert_array_equal(out, fn(x))
    mask = np.ones(buf.shape, bool)
    np.asarray(out)[...] = 0  # mark the view's elements through the view itself
    mask[buf == 0] = False
    assert (buf[mask] == SENTINEL).all(), "out= wrote outside its view"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_in_place_and_overlap(rng, function):
    fn = FUNCTIONS[function]
    x = rng.uniform(-20, 20, size=(5, 40)).astype(np.float32)
    want = fn(x)
    # Exactly the same memory: the C API's x == y.
    z = x.copy()
    assert fn(z, out=z) is z
    np.testing.assert_array_equal(z, want)
    # The same rows seen as a strided view, in place.
    big = np.zeros((10, 40), np.float32)
    big[::2] = x
    v = big[::2]
    fn(v, out=v)
    np.testing.assert_array_equal(big[::2], want)
    assert (big[1::2] == 0).all()
    # Partial overlap (out shifted by one element): must read x before writing.
    buf = np.zeros(5 * 40 + 1, np.float32)
    buf[:-1] = x.ravel()
    xs = buf[:-1].reshape(5, 40)
    ys = buf[1:].reshape(5, 40)
    fn(xs, out=ys)
    np.testing.assert_array_equal(ys, want)
