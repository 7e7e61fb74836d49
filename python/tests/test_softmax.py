import numpy as np
import pytest

import vlak
from refs import assert_log_softmax_bound, assert_softmax_bound

COLS = [1, 2, 3, 7, 15, 16, 17, 31, 33, 65, 100, 257, 1000, 4099]


@pytest.mark.parametrize("cols", COLS)
def test_softmax_within_bound(target, rng, cols):
    x = rng.uniform(-50, 50, size=(3, cols)).astype(np.float32)
    assert_softmax_bound(vlak.softmax(x), x)
    assert_softmax_bound(vlak.softmax(x, exp="precise"), x)
    assert_softmax_bound(vlak.softmax(x, exp="fast"), x, base=2 * 6.3e-6)
    assert_log_softmax_bound(vlak.softmax(x, log=True), x)
    assert_log_softmax_bound(vlak.log_softmax(x), x)


def test_softmax_rows_sum_to_one_large(target, rng):
    x = rng.normal(0, 5, size=(64, 65537)).astype(np.float32)
    y = vlak.softmax(x)
    assert_softmax_bound(y, x)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_softmax_any_axis(rng, axis):
    x = rng.uniform(-10, 10, size=(5, 6, 7)).astype(np.float32)
    y = vlak.softmax(x, axis=axis)
    assert y.shape == x.shape and y.dtype == np.float32
    assert_softmax_bound(y, x, axis=axis)
    assert_log_softmax_bound(vlak.softmax(x, axis=axis, log=True), x, axis=axis)


def test_softmax_special_values(target):
    inf, nan = np.inf, np.nan
    x = np.array(
        [
            [1.0, nan, 2.0, 3.0],  # a NaN: the whole row NaN
            [1.0, inf, 2.0, inf],  # +inf: the infinities share the mass
            [-inf, -inf, -inf, -inf],  # all -inf: NaN, or zeros with safe
            [-inf, 0.0, -inf, 0.0],  # some -inf: they get 0
        ],
        dtype=np.float32,
    )
    y = vlak.softmax(x)
    assert np.isnan(y[0]).all()
    np.testing.assert_array_equal(y[1], [0, 0.5, 0, 0.5])
    assert np.isnan(y[2]).all()
    np.testing.assert_array_equal(y[3], [0, 0.5, 0, 0.5])
    ys = vlak.softmax(x, safe=True)
    np.testing.assert_array_equal(ys[2], [0, 0, 0, 0])
    yl = vlak.softmax(x, log=True, safe=True)
    assert (yl[2] == -inf).all()
    np.testing.assert_allclose(yl[1], [-inf, np.log(0.5), -inf, np.log(0.5)], rtol=1e-6)
    assert np.isnan(vlak.log_softmax(x)[2]).all()


def test_softmax_empty_and_single():
    assert vlak.softmax(np.zeros((0, 5), np.float32)).shape == (0, 5)
    assert vlak.softmax(np.zeros((3, 0), np.float32)).shape == (3, 0)
    np.testing.assert_array_equal(vlak.softmax(np.array([7.0], np.float32)), [1.0])


def test_softmax_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match="float32"):
        vlak.softmax(x.astype(np.float64))
    with pytest.raises(TypeError, match="ndarray"):
        vlak.softmax([[1.0, 2.0]])
    with pytest.raises(TypeError, match="float32"):
        vlak.softmax(x.astype(">f4"))  # big-endian float32
    with pytest.raises(ValueError, match="invalid argument: out has shape"):
        vlak.softmax(x, out=np.zeros((3, 2), np.float32))
    with pytest.raises(TypeError, match="float32"):
        vlak.softmax(x, out=np.zeros((2, 3), np.float64))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        vlak.softmax(x, axis=2)
    with pytest.raises(ValueError, match="exp must be"):
        vlak.softmax(x, exp="sloppy")
    with pytest.raises(ValueError, match="0-dimensional"):
        vlak.softmax(np.float32(1.0))
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        vlak.softmax(x, out=ro)


def test_argument_matching():
    x = np.zeros((2, 3), np.float32)
    y = np.empty_like(x)
    # positional and keyword forms agree
    np.testing.assert_array_equal(vlak.softmax(x, -1, False, False, "accurate", y), vlak.softmax(x=x, axis=-1))
    with pytest.raises(TypeError, match="unexpected keyword argument 'dim'"):
        vlak.softmax(x, dim=-1)
    with pytest.raises(TypeError, match="multiple values for argument 'axis'"):
        vlak.softmax(x, -1, axis=0)
    with pytest.raises(TypeError, match="missing required argument 'x'"):
        vlak.softmax()
    with pytest.raises(TypeError, match="at most 6 positional"):
        vlak.softmax(x, -1, False, False, "accurate", y, 1)
    with pytest.raises(TypeError, match="exp must be a str"):
        vlak.softmax(x, exp=1)
    with pytest.raises(TypeError):
        vlak.softmax(x, axis=1.5)
    with pytest.raises(TypeError, match="missing required argument 'b'"):
        vlak.matmul(x)
