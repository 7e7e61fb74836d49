"""correlation bit for bit against a NumPy oracle written from vlak.h's integer definition (both
the saturating and the int16-wrapping sums), extremes, layouts, errors."""
import numpy as np
import pytest

import vlak
from int_arrays import SHAPES, int8_wrap, rand_i8


def correlation_ref(a, b, displacements, shift, wrap16):
    c, h, w = a.shape
    out = np.zeros((displacements, h, w), np.int8)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    for d in range(min(displacements, w)):
        s = (a64[:, :, d:] * b64[:, :, : w - d]).sum(axis=0)
        if wrap16:
            s16 = ((s & 0xFFFF) ^ 0x8000) - 0x8000
            out[d, :, d:] = int8_wrap(s16 >> shift)
        else:
            out[d, :, d:] = np.clip(s >> shift, -128, 127)
    return out


# 9 channels of int8 products can leave int16: the wrap16 and saturating modes then differ.
@pytest.mark.parametrize("shape", SHAPES + [(9, 5, 7)])
@pytest.mark.parametrize("displacements", [0, 1, 4, 40])
@pytest.mark.parametrize("shift", [0, 3, 8, 31])
@pytest.mark.parametrize("wrap16", [False, True])
def test_correlation_bit_exact(target, rng, shape, displacements, shift, wrap16):
    a, b = rand_i8(rng, shape), rand_i8(rng, shape)
    y = vlak.correlation(a, b, displacements, shift, wrap16=wrap16)
    assert y.dtype == np.int8 and y.shape == (displacements,) + shape[1:]
    np.testing.assert_array_equal(y, correlation_ref(a, b, displacements, shift, wrap16))


def test_correlation_extremes_and_layouts(rng):
    # -128 * -128 * 9 channels overflows int16: saturating and wrapping modes differ.
    a = np.full((9, 3, 5), -128, np.int8)
    for wrap16 in (False, True):
        for shift in (0, 7, 15):
            np.testing.assert_array_equal(
                vlak.correlation(a, a, 3, shift, wrap16=wrap16), correlation_ref(a, a, 3, shift, wrap16)
            )
    big = rand_i8(rng, (3, 6, 20))
    a2, b2 = big[:, :, ::2], big[::-1, :, 1::2]
    np.testing.assert_array_equal(vlak.correlation(a2, b2, 4, 2), correlation_ref(a2, b2, 4, 2, False))
    np.testing.assert_array_equal(vlak.correlation(a2[0], b2[0], 2, 1), correlation_ref(a2[:1], b2[:1], 2, 1, False))
    out = np.full((4, 6, 10), 7, np.int8)
    assert vlak.correlation(a2, b2, 4, 2, out=out) is out
    np.testing.assert_array_equal(out, correlation_ref(a2, b2, 4, 2, False))


def test_correlation_errors():
    a = np.zeros((2, 3, 4), np.int8)
    with pytest.raises(TypeError):
        vlak.correlation(a, a.astype(np.uint8), 1, 0)
    with pytest.raises(ValueError, match="b has shape"):
        vlak.correlation(a, a[:, :, :3], 1, 0)
    with pytest.raises(ValueError):
        vlak.correlation(a, a, 1, 32)
    with pytest.raises(ValueError):
        vlak.correlation(a, a, 1, -1)
    with pytest.raises(ValueError):
        vlak.correlation(a, a, -1, 0)
    with pytest.raises(ValueError, match="out has shape"):
        vlak.correlation(a, a, 2, 0, out=np.zeros((1, 3, 4), np.int8))


def test_correlation_empty():
    # No channels: sums of 0, out all zeros (a and b hold nothing).
    z = np.zeros((0, 3, 4), np.int8)
    out = np.full((2, 3, 4), 5, np.int8)
    vlak.correlation(z, z, 2, 0, out=out)
    assert (out == 0).all()
    assert vlak.correlation(z, z, 0, 0).shape == (0, 3, 4)


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    q = rng.integers(-128, 128, size=(3, 67, 1031)).astype(np.int8)
    return {"correlation": lambda: vlak.correlation(q, q[::-1], 9, 6)}
