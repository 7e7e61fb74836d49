"""resize_bilinear bit for bit against a NumPy oracle written from vlak.h's integer definition
(Q7 positions and weights), layouts, errors."""
import numpy as np
import pytest

import vlak
from int_arrays import SHAPES, rand_i8


def q7_positions(n_out, n_in, half_pixel):
    o = np.arange(n_out, dtype=np.int64)
    if half_pixel:
        p = np.maximum(0, ((2 * o + 1) * n_in * 64) // n_out - 64)
    else:
        p = (o * n_in * 128) // n_out
    i0 = p >> 7
    i1 = np.minimum(i0 + 1, n_in - 1)
    w1 = p & 127
    return i0, i1, 128 - w1, w1


def resize_ref(x, out_h, out_w, half_pixel):
    s = x.astype(np.int64)
    _, in_h, in_w = s.shape
    x0, x1, wx0, wx1 = q7_positions(out_w, in_w, half_pixel)
    y0, y1, wy0, wy1 = q7_positions(out_h, in_h, half_pixel)
    rows0, rows1 = s[:, y0, :], s[:, y1, :]
    top = (rows0[:, :, x0] * wx0 + rows0[:, :, x1] * wx1) >> 7
    bot = (rows1[:, :, x0] * wx0 + rows1[:, :, x1] * wx1) >> 7
    return ((top * wy0[:, None] + bot * wy1[:, None]) >> 7).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("out_hw", [(1, 1), (5, 3), (14, 18), (7, 33)])
@pytest.mark.parametrize("half_pixel", [False, True])
def test_resize_bit_exact(target, rng, dtype, shape, out_hw, half_pixel):
    x = rand_i8(rng, shape, dtype)
    y = vlak.resize_bilinear(x, *out_hw, half_pixel=half_pixel)
    assert y.dtype == dtype and y.shape == (shape[0],) + out_hw
    np.testing.assert_array_equal(y, resize_ref(x, *out_hw, half_pixel))


def test_resize_2d_strided_out(rng):
    x = rand_i8(rng, (9, 12))
    want = resize_ref(x[None], 18, 24, False)[0]
    np.testing.assert_array_equal(vlak.resize_bilinear(x, 18, 24), want)
    # Non-contiguous input and output.
    big = rand_i8(rng, (18, 24))
    np.testing.assert_array_equal(vlak.resize_bilinear(big[::2, ::2], 18, 24), resize_ref(big[None, ::2, ::2], 18, 24, False)[0])
    out = np.zeros((18, 48), np.int8)
    r = vlak.resize_bilinear(x, 18, 24, out=out[:, ::2])
    np.testing.assert_array_equal(out[:, ::2], want)
    assert (out[:, 1::2] == 0).all() and r.base is not None
    # Upscaling by 2 (Terapines AI-Benchmark): even outputs copy the input.
    np.testing.assert_array_equal(vlak.resize_bilinear(x, 18, 24)[::2, ::2], x)
    np.testing.assert_array_equal(vlak.resize_bilinear(x, 9, 12), x)


def test_resize_errors():
    x = np.zeros((2, 4, 4), np.int8)
    with pytest.raises(TypeError):
        vlak.resize_bilinear(x.astype(np.int16), 2, 2)
    with pytest.raises(TypeError):
        vlak.resize_bilinear([[1, 2]], 2, 2)
    with pytest.raises(TypeError):
        vlak.resize_bilinear(x, 2, 2, out=np.zeros((2, 2, 2), np.uint8))
    with pytest.raises(ValueError, match="invalid argument"):
        vlak.resize_bilinear(np.zeros((2, 0, 4), np.int8), 2, 2)
    with pytest.raises(ValueError):
        vlak.resize_bilinear(x, -1, 2)
    with pytest.raises(ValueError):
        vlak.resize_bilinear(np.zeros(4, np.int8), 2, 2)
    with pytest.raises(ValueError, match="out has shape"):
        vlak.resize_bilinear(x, 2, 2, out=np.zeros((2, 2, 3), np.int8))
    assert vlak.resize_bilinear(x, 0, 3).shape == (2, 0, 3)


def test_resize_empty():
    assert vlak.resize_bilinear(np.zeros((0, 3, 4), np.uint8), 5, 6).shape == (0, 5, 6)


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    q = rng.integers(-128, 128, size=(3, 67, 1031)).astype(np.int8)
    qu = q.view(np.uint8)
    return {
        "resize_bilinear": lambda: vlak.resize_bilinear(q, 130, 517),
        "resize_bilinear_uint8_half_pixel": lambda: vlak.resize_bilinear(qu, 31, 2000, half_pixel=True),
    }
