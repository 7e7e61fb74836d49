"""rope and rope_tables against float64 (vlak.h's bound, the same bits on every target), layouts, in
place, special values and errors. The float64 references are written from vlak.h's definitions,
independently of vlak's C++ ones."""
import numpy as np
import pytest

import vlak


@np.errstate(invalid="ignore")
def rope64(x, cos, sin, interleaved):
    """x (P, ..., d), tables (P, >= d/2): y_a = x_a c - x_b s, y_b = x_a s + x_b c. Also returns the
    bound's scale |x_a c| + |x_b s| per output."""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    shape = (x.shape[0],) + (1,) * (x.ndim - 2) + (d // 2,)
    c = cos[:, : d // 2].astype(np.float64).reshape(shape)
    s = sin[:, : d // 2].astype(np.float64).reshape(shape)
    if interleaved:
        xa, xb = x[..., 0::2], x[..., 1::2]
    else:
        xa, xb = x[..., : d // 2], x[..., d // 2 :]
    ya, yb = xa * c - xb * s, xa * s + xb * c
    sa, sb = np.abs(xa * c) + np.abs(xb * s), np.abs(xa * s) + np.abs(xb * c)
    y, scale = np.empty_like(x), np.empty_like(x)
    if interleaved:
        y[..., 0::2], y[..., 1::2], scale[..., 0::2], scale[..., 1::2] = ya, yb, sa, sb
    else:
        y[..., : d // 2], y[..., d // 2 :], scale[..., : d // 2], scale[..., d // 2 :] = ya, yb, sa, sb
    return y, scale


def test_rope_tables_definition():
    cos, sin = vlak.rope_tables(37, 64, base=10000.0)
    assert cos.shape == sin.shape == (37, 32) and cos.dtype == np.float32
    p = np.arange(37, dtype=np.float64)[:, None]
    ang = p * 10000.0 ** (-2 * np.arange(32, dtype=np.float64) / 64)
    np.testing.assert_array_equal(cos, np.cos(ang).astype(np.float32))
    np.testing.assert_array_equal(sin, np.sin(ang).astype(np.float32))
    with pytest.raises(ValueError, match="even"):
        vlak.rope_tables(4, 7)
    with pytest.raises(ValueError, match="invalid argument"):
        vlak.rope_tables(4, 8, base=-1.0)


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("dim", [2, 6, 64, 130])
def test_rope_within_bound(target, rng, interleaved, dim):
    x = rng.normal(0, 2, size=(9, 2, 3, dim)).astype(np.float32)
    cos, sin = vlak.rope_tables(9, dim)
    y = vlak.rope(x, cos, sin, interleaved=interleaved)
    y64, scale = rope64(x, cos, sin, interleaved)
    assert (np.abs(y - y64) <= 2.0**-23 * scale).all()
    # bit-identical on every target
    vlak.set_target("scalar")
    np.testing.assert_array_equal(vlak.rope(x, cos, sin, interleaved=interleaved), y)


def test_rope_layouts_and_in_place(rng):
    x = rng.normal(0, 2, size=(6, 4, 32)).astype(np.float32)
    cos, sin = vlak.rope_tables(6, 32)
    want = vlak.rope(x, cos, sin)
    # Hugging Face's (positions, head_dim) tables: the first half is what is used
    np.testing.assert_array_equal(vlak.rope(x, np.concatenate([cos, cos], 1), np.concatenate([sin, sin], 1)), want)
    # strided x and out (copied through), in place
    big = np.zeros((6, 8, 32), np.float32)
    big[:, ::2] = x
    np.testing.assert_array_equal(vlak.rope(big[:, ::2], cos, sin), want)
    z = x.copy()
    assert vlak.rope(z, cos, sin, out=z) is z
    np.testing.assert_array_equal(z, want)
    vlak.rope(big[:, ::2], cos, sin, out=big[:, ::2])
    np.testing.assert_array_equal(big[:, ::2], want)
    assert (big[:, 1::2] == 0).all()
    # tables of different strides
    np.testing.assert_array_equal(vlak.rope(x, np.asfortranarray(cos), sin), want)
    with pytest.raises(ValueError, match="even"):
        vlak.rope(np.zeros((2, 3), np.float32), cos[:2], sin[:2])
    with pytest.raises(ValueError, match="cos has shape"):
        vlak.rope(x, cos[:5], sin)
    with pytest.raises(ValueError, match="at least 2-D"):
        vlak.rope(np.zeros(4, np.float32), cos, sin)


def test_rope_special_values():
    x = np.array([[[np.nan, 1.0, np.inf, 2.0]]], np.float32)
    cos, sin = vlak.rope_tables(1, 4)
    y = vlak.rope(x, cos, sin)
    y64, _ = rope64(x, cos, sin, False)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(y64))


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    x = rng.normal(0, 3, size=(67, 1, 1030)).astype(np.float32)
    cos, sin = vlak.rope_tables(67, 1030)
    return {"rope": lambda: vlak.rope(x, cos, sin)}


def _rope_positions_first(x, out=None):
    """rope over any layout's shape: positions along the first axis, tables made to fit."""
    return vlak.rope(x, *vlak.rope_tables(x.shape[0], x.shape[-1]), out=out)


LAYOUT_CASES = {"rope": _rope_positions_first}
