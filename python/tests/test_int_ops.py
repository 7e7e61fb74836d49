"""The integer operators against NumPy oracles written from vlak.h's integer definitions
(resize_bilinear, warp, correlation: bit-exact) and, for softmax_i8, against float64 softmax
with the documented bound."""
import numpy as np
import pytest

import vlak

SHAPES = [(1, 1, 1), (1, 3, 5), (2, 7, 9), (3, 16, 17), (1, 31, 2), (2, 1, 33)]


def int8_wrap(v):
    return (((v & 0xFF) ^ 0x80) - 0x80).astype(np.int8)


def rand_i8(rng, shape, dtype=np.int8):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    if x.size >= 2:  # the extremes always appear
        x.flat[0], x.flat[-1] = info.min, info.max
    return x


# ---- resize_bilinear -----------------------------------------------------------------------------
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


# ---- warp ----------------------------------------------------------------------------------------
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


# ---- correlation ---------------------------------------------------------------------------------
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


# ---- softmax_i8 ----------------------------------------------------------------------------------
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


def test_empty_sizes():
    # correlation with no channels: sums of 0, out all zeros (a and b hold nothing).
    z = np.zeros((0, 3, 4), np.int8)
    out = np.full((2, 3, 4), 5, np.int8)
    vlak.correlation(z, z, 2, 0, out=out)
    assert (out == 0).all()
    assert vlak.correlation(z, z, 0, 0).shape == (0, 3, 4)
    assert vlak.warp(np.zeros((2, 0, 4), np.int8), np.zeros((0, 4), np.int16)).shape == (2, 0, 4)
    assert vlak.resize_bilinear(np.zeros((0, 3, 4), np.uint8), 5, 6).shape == (0, 5, 6)
    assert vlak.softmax_i8(np.zeros((3, 0), np.uint8), 0.1).shape == (3, 0)
