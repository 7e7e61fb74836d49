"""softmax_i8 against float64 softmax with vlak.h's bound (within 1 step, below 1 with lut=True),
extremes, the same bits on every target and layout, errors."""
import numpy as np
import pytest

import vlak
from int_arrays import rand_i8


def softmax_i8_check(x, y, scale, lut):
    zp = -128 if x.dtype == np.int8 else 0
    z = scale * x.astype(np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    err = np.abs((y.astype(np.float64) - zp) - np.minimum(256 * p, 255))
    if lut:
        assert (err < 1).all(), err.max()
    else:
        assert (err <= 1).all(), err.max()


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("cols", [1, 2, 3, 15, 16, 17, 63, 64, 65, 255, 1000])
@pytest.mark.parametrize("scale", [1 / 255, 1 / 16, 0.25, 1.0])
@pytest.mark.parametrize("lut", [False, True])
def test_softmax_i8_within_bound(target, rng, dtype, cols, scale, lut):
    x = rand_i8(rng, (3, 5, cols), dtype)
    y = vlak.softmax_i8(x, scale, lut=lut)
    assert y.dtype == dtype and y.shape == x.shape
    softmax_i8_check(x, y, scale, lut)


def test_softmax_i8_extremes(target):
    for dtype in (np.int8, np.uint8):
        info = np.iinfo(dtype)
        x = np.full((4, 33), info.min, dtype)
        x[1, 5] = info.max  # one dominant logit
        x[2] = info.max
        for lut in (False, True):
            y = vlak.softmax_i8(x, 0.5, lut=lut)
            softmax_i8_check(x, y, 0.5, lut)
            assert y[1, 5] == info.max


def test_softmax_i8_tflite_same_bits_every_target_and_layout(rng):
    x = rand_i8(rng, (6, 4, 40))
    want = vlak.softmax_i8(x, 0.1)
    for t in vlak.info()["targets_supported"]:
        vlak.set_target(t)
        np.testing.assert_array_equal(vlak.softmax_i8(x, 0.1), want)
    # Strided rows in place (a leading-axis step and a column window), and a copy for the rest.
    big = rand_i8(rng, (12, 4, 50))
    v = big[::2, :, 5:45]
    np.testing.assert_array_equal(vlak.softmax_i8(v, 0.1), vlak.softmax_i8(np.ascontiguousarray(v), 0.1))
    t = np.ascontiguousarray(x.transpose(2, 1, 0)).transpose(2, 1, 0)  # last axis not contiguous
    np.testing.assert_array_equal(vlak.softmax_i8(t, 0.1), want)
    # out: in place, strided, and non-rows.
    xc = x.copy()
    assert vlak.softmax_i8(xc, 0.1, out=xc) is xc
    np.testing.assert_array_equal(xc, want)
    o = np.zeros((6, 4, 80), np.int8)
    vlak.softmax_i8(x, 0.1, out=o[:, :, ::2])
    np.testing.assert_array_equal(o[:, :, ::2], want)
    assert (o[:, :, 1::2] == 0).all()
    o2 = np.zeros((6, 4, 60), np.int8)
    vlak.softmax_i8(x, 0.1, out=o2[:, :, 10:50])
    np.testing.assert_array_equal(o2[:, :, 10:50], want)
    # out overlapping x other than exactly: read from a copy.
    buf = np.concatenate([x.reshape(-1), np.zeros(1, np.int8)])
    vlak.softmax_i8(buf[:-1].reshape(x.shape), 0.1, out=buf[1:].reshape(x.shape))
    np.testing.assert_array_equal(buf[1:].reshape(x.shape), want)


def test_softmax_i8_errors():
    x = np.zeros((2, 8), np.int8)
    with pytest.raises(TypeError):
        vlak.softmax_i8(x.astype(np.int16), 0.1)
    with pytest.raises(TypeError):
        vlak.softmax_i8(np.zeros((2, 8), np.float32), 0.1)
    with pytest.raises(TypeError):
        vlak.softmax_i8(x, 0.1, out=np.zeros((2, 8), np.uint8))
    with pytest.raises(ValueError, match="invalid argument"):
        vlak.softmax_i8(x, 0.0)
    with pytest.raises(ValueError, match="invalid argument"):
        vlak.softmax_i8(x, float("nan"))
    with pytest.raises(ValueError, match="invalid argument"):
        vlak.softmax_i8(x, 2.0**-27)
    with pytest.raises(ValueError):
        vlak.softmax_i8(np.zeros((), np.int8), 0.1)
    with pytest.raises(ValueError, match="out has shape"):
        vlak.softmax_i8(x, 0.1, out=np.zeros((2, 7), np.int8))
    assert vlak.softmax_i8(np.zeros((0, 8), np.int8), 0.1).shape == (0, 8)


def test_softmax_i8_empty():
    assert vlak.softmax_i8(np.zeros((3, 0), np.uint8), 0.1).shape == (3, 0)


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    q = rng.integers(-128, 128, size=(3, 67, 1031)).astype(np.int8)
    return {
        "softmax_i8": lambda: vlak.softmax_i8(q, 0.07),
        "softmax_i8_uint8_lut": lambda: vlak.softmax_i8(q.view(np.uint8), 0.07, lut=True),
    }
