"""matmul against float64 (vlak.h's bound, the same bits for every layout of b and on every target),
out= and accumulate, layouts, special values and errors. The float64 references are written from
vlak.h's definitions, independently of vlak's C++ ones."""
import numpy as np
import pytest

import vlak


def matmul_bound(a, b):
    """vlak.h: |C - C64| <= 2 k 2^-24 sum_k |A| |B|."""
    k = a.shape[1]
    return 2 * k * 2.0**-24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


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


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    a = rng.normal(size=(70, 90)).astype(np.float32)
    b = rng.normal(size=(90, 50)).astype(np.float32)
    # Large enough for vlak to split the work over threads (small calls run on the caller alone).
    a2 = rng.normal(size=(256, 512)).astype(np.float32)
    b2 = rng.normal(size=(512, 256)).astype(np.float32)
    return {"matmul": lambda: vlak.matmul(a, b), "matmul_large": lambda: vlak.matmul(a2, b2)}


@pytest.mark.parametrize("activation", [None, "gelu", "silu", "tanh", 3])
def test_matmul_epilogue_is_the_composition(target, rng, activation):
    """bias and activation (vlak_matmul_ex_f32): the same bits as matmul, + bias in float32, then
    vlak.activation; and within the bound of the float64 Linear layer."""
    x = rng.normal(size=(19, 40)).astype(np.float32)
    w = rng.normal(size=(33, 40)).astype(np.float32)  # (out, in), as a Linear layer stores it
    bias = rng.normal(size=33).astype(np.float32)
    y = vlak.matmul(x, w, trans_b=True, bias=bias, activation=activation)
    want = vlak.matmul(x, w, trans_b=True) + bias
    if activation is not None:
        want = vlak.activation(want, activation)
    np.testing.assert_array_equal(y, want)
    if activation == "gelu":
        from math import erf
        x64 = x.astype(np.float64) @ w.astype(np.float64).T + bias
        y64 = 0.5 * x64 * (1 + np.vectorize(erf)(x64 / np.sqrt(2)))
        e = 1.13 * (matmul_bound(x, w.T) + 2.0**-24 * np.abs(x64)) + 2 * 2.0**-23 * np.abs(y64) + 2.0**-149
        assert (np.abs(y - y64) <= e).all()
    fast = vlak.matmul(x, w, trans_b=True, bias=bias, activation="silu", accuracy="fast")
    np.testing.assert_array_equal(fast, vlak.activation(vlak.matmul(x, w, trans_b=True) + bias, "silu",
                                                         accuracy="fast"))


def test_matmul_epilogue_errors():
    a = np.ones((3, 4), np.float32)
    b = np.ones((4, 5), np.float32)
    with pytest.raises(ValueError):
        vlak.matmul(a, b, bias=np.ones(4, np.float32))  # bias must have n entries
    with pytest.raises(ValueError):
        vlak.matmul(a, b, activation="relu")
    with pytest.raises(ValueError):
        vlak.matmul(a, b, activation="gelu", accuracy="rough")
    out = np.zeros((3, 5), np.float32)
    # bias overlapping out is read from a copy: the result is as if it did not overlap
    big = np.arange(20, dtype=np.float32).reshape(4, 5)
    want = vlak.matmul(a, b, bias=big[1].copy())
    vlak.matmul(a, b, out=big[1:], bias=big[1])
    np.testing.assert_array_equal(big[1:], want)
    assert out.sum() == 0
