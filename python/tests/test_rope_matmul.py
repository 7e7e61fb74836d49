import numpy as np
import pytest

import vlak
from refs import matmul_bound, rope64


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


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (3, 5, 7), (17, 33, 65), (64, 48, 200), (5, 7, 0)])
def test_matmul_within_bound(target, rng, m, n, k):
    a = rng.normal(size=(m, k)).astype(np.float32)
    b = rng.normal(size=(k, n)).astype(np.float32)
    c = vlak.matmul(a, b)
    c64 = a.astype(np.float64) @ b.astype(np.float64)
    assert (np.abs(c - c64) <= matmul_bound(a, b)).all()
    # b (n, k) with trans_b, and b.T views: the same bits (one k-ordered chain per element)
    bt = np.ascontiguousarray(b.T)
    np.testing.assert_array_equal(vlak.matmul(a, bt, trans_b=True), c)
    np.testing.assert_array_equal(vlak.matmul(a, bt.T), c)
    np.testing.assert_array_equal(vlak.matmul(a, b.T, trans_b=True), c)
    # same bits on the scalar target
    vlak.set_target("scalar")
    np.testing.assert_array_equal(vlak.matmul(a, b), c)


def test_matmul_out_accumulate_and_layouts(rng):
    a = rng.normal(size=(20, 30)).astype(np.float32)
    b = rng.normal(size=(30, 10)).astype(np.float32)
    c = vlak.matmul(a, b)
    out = np.ones((20, 10), np.float32)
    assert vlak.matmul(a, b, out=out, accumulate=True) is out
    c64 = 1.0 + a.astype(np.float64) @ b.astype(np.float64)
    assert (np.abs(out - c64) <= matmul_bound(a, b) + 2 * 31 * 2.0**-24).all()
    # strided out (a column window), transposed out (copied through), strided a
    big = np.full((20, 16), -1.0, np.float32)
    vlak.matmul(a, b, out=big[:, 3:13])
    np.testing.assert_array_equal(big[:, 3:13], c)
    assert (big[:, :3] == -1).all() and (big[:, 13:] == -1).all()
    ot = np.zeros((10, 20), np.float32).T
    vlak.matmul(a, b, out=ot)
    np.testing.assert_array_equal(ot, c)
    np.testing.assert_array_equal(vlak.matmul(np.asfortranarray(a), b), c)
    # out overlapping an input: read from a copy
    sq = rng.normal(size=(8, 8)).astype(np.float32)
    want = vlak.matmul(sq, sq)
    vlak.matmul(sq, sq, out=sq)
    np.testing.assert_array_equal(sq, want)


def test_matmul_special_and_errors():
    a = np.array([[np.nan, 1.0], [1.0, 1.0]], np.float32)
    b = np.array([[1.0, 2.0], [np.inf, 0.0]], np.float32)
    c = vlak.matmul(a, b)
    assert np.isnan(c[0]).all() and c[1, 0] == np.inf
    with pytest.raises(ValueError, match="a is"):
        vlak.matmul(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="2-D"):
        vlak.matmul(np.zeros(3, np.float32), np.zeros((3, 1), np.float32))
    with pytest.raises(ValueError, match="accumulate"):
        vlak.matmul(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32), accumulate=True)
    with pytest.raises(TypeError):
        vlak.matmul(np.zeros((2, 2)), np.zeros((2, 2), np.float32))
