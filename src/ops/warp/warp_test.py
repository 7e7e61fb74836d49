"""warp bit for bit against a NumPy oracle written from vlak.h's integer definition, extremes,
layouts, errors."""
import numpy as np
import pytest

import vlak
from int_arrays import SHAPES, int8_wrap, rand_i8


def warp_ref(x, offsets):
    c, h, w = x.shape
    o = offsets.astype(np.int64)
    n = o >> 8
    f = ((o & 0xFF) ^ 0x80) - 0x80
    r = np.arange(w)[None, :] - n
    l = r - 1
    rows = np.arange(h)[:, None]

    def tap(col):
        inside = (col >= 0) & (col < w)
        v = x.astype(np.int64)[:, rows, np.clip(col, 0, w - 1)]
        return np.where(inside[None], v, 0)

    R, L = tap(r), tap(l)
    return int8_wrap((R * 256 + (L - R) * f[None]) >> 8)


@pytest.mark.parametrize("shape", SHAPES + [(2, 3, 130)])
def test_warp_bit_exact(target, rng, shape):
    x = rand_i8(rng, shape)
    offsets = rng.integers(-32768, 32768, size=shape[1:]).astype(np.int16)
    # Small shifts, so taps land inside the row too.
    small = rng.integers(-3 * 256, 3 * 256, size=shape[1:]).astype(np.int16)
    for off in (offsets, small):
        if off.size >= 2:
            off.flat[0], off.flat[-1] = -32768, 32767
        np.testing.assert_array_equal(vlak.warp(x, off), warp_ref(x, off))


def test_warp_extremes_and_layouts(rng):
    x = np.full((2, 4, 8), -128, np.int8)
    x[1] = 127
    off = np.array([[0, 255, -256, 128, -128, 0x7F80, -1, 1]] * 4, np.int16)
    np.testing.assert_array_equal(vlak.warp(x, off), warp_ref(x, off))
    y = vlak.warp(x[0], off)  # 2-D: one channel
    np.testing.assert_array_equal(y, warp_ref(x[:1], off)[0])
    big = rand_i8(rng, (2, 4, 16))
    np.testing.assert_array_equal(vlak.warp(big[:, :, ::2], off), warp_ref(big[:, :, ::2], off))
    # out aliasing x goes through a temporary: the result is as if not aliased.
    want = warp_ref(big, np.zeros((4, 16), np.int16) + 300)
    vlak.warp(big, np.zeros((4, 16), np.int16) + 300, out=big)
    np.testing.assert_array_equal(big, want)


def test_warp_errors():
    x = np.zeros((2, 4, 8), np.int8)
    with pytest.raises(TypeError):
        vlak.warp(x.astype(np.uint8), np.zeros((4, 8), np.int16))
    with pytest.raises(TypeError):
        vlak.warp(x, np.zeros((4, 8), np.int32))
    with pytest.raises(ValueError, match="offsets has shape"):
        vlak.warp(x, np.zeros((4, 7), np.int16))
    with pytest.raises(ValueError, match="read-only"):
        o = np.zeros_like(x)
        o.flags.writeable = False
        vlak.warp(x, np.zeros((4, 8), np.int16), out=o)


def test_warp_empty():
    assert vlak.warp(np.zeros((2, 0, 4), np.int8), np.zeros((0, 4), np.int16)).shape == (2, 0, 4)


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    q = rng.integers(-128, 128, size=(3, 67, 1031)).astype(np.int8)
    off = rng.integers(-2000, 2000, size=(67, 1031)).astype(np.int16)
    return {"warp": lambda: vlak.warp(q, off)}
