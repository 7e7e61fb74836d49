"""softmax and log_softmax against float64 (vlak.h's bounds), their special values, errors, and
against PyTorch when it is installed. The float64 references are written from vlak.h's definitions,
independently of vlak's C++ ones."""
import numpy as np
import pytest

import vlak


def softmax64(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax64(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def assert_softmax_bound(y, x, axis=-1, base=1e-6):
    """vlak.h: rel <= base + 6e-8 |x - max| where ref >= 1e-30, else abs <= 1e-30."""
    ref = softmax64(x, axis)
    x64 = np.asarray(x, dtype=np.float64)
    dist = np.abs(x64 - x64.max(axis=axis, keepdims=True))
    err = np.abs(y.astype(np.float64) - ref)
    big = ref >= 1e-30
    bound = np.where(big, (base + 6e-8 * dist) * ref, 1e-30)
    bad = ~(err <= bound)
    assert not bad.any(), f"{bad.sum()} outside the bound, worst rel {np.max(err[big] / ref[big]):.3g}"


def assert_log_softmax_bound(y, x, axis=-1):
    ref = log_softmax64(x, axis)
    err = np.abs(y.astype(np.float64) - ref)
    assert (err <= 1e-5 * np.maximum(1.0, np.abs(ref))).all(), f"max err {err.max():.3g}"


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


def test_axis_result_layout(rng):
    x = rng.uniform(-5, 5, size=(3, 4, 5)).astype(np.float32)
    y = vlak.softmax(x, axis=1)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-6)
    assert y.strides[1] == 4  # the axis is innermost in the new array's memory
    out = np.zeros_like(x)
    assert vlak.softmax(x, axis=1, out=out) is out
    np.testing.assert_array_equal(out, y)


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


# ---- against PyTorch (CPU) -----------------------------------------------------------------------
def _special_rows():
    inf, nan = np.inf, np.nan
    return np.array(
        [
            [1.0, nan, 2.0, 3.0],
            [1.0, inf, 2.0, inf],
            [-inf, -inf, -inf, -inf],
            [-inf, 0.0, -inf, 0.0],
            [1e30, -1e30, 0.0, 5.0],
            [-3.0, -1.0, 2.0, 0.5],
        ],
        dtype=np.float32,
    )


# Row 1 holds +inf: the one place vlak and PyTorch differ by design. PyTorch computes
# inf - inf = NaN for the whole row; vlak.h defines the +inf entries to share the mass (softmax
# 1/2 each, log-softmax log(1/2)), the limit of the row as those entries grow.
PLUS_INF_ROW = 1


def _special_rows_against(torch_fn, vlak_fn):
    """vlak_fn and torch_fn over _special_rows(): their results y and t, the rows where they must
    agree (all but PLUS_INF_ROW), and NaN in the same places of those rows."""
    x = _special_rows()
    t = torch_fn(x)
    y = vlak_fn(x)
    same = np.arange(len(x)) != PLUS_INF_ROW
    np.testing.assert_array_equal(np.isnan(y[same]), np.isnan(t[same]))
    return y, t, same


def test_softmax_special_values_match_torch(target, torch):
    y, t, same = _special_rows_against(lambda x: torch.softmax(torch.from_numpy(x), dim=-1).numpy(), vlak.softmax)
    ok = same[:, None] & ~np.isnan(t)
    np.testing.assert_allclose(y[ok], t[ok], rtol=2e-6, atol=1e-30)
    assert np.isnan(t[PLUS_INF_ROW]).all()
    np.testing.assert_array_equal(y[PLUS_INF_ROW], [0, 0.5, 0, 0.5])


def test_log_softmax_special_values_match_torch(target, torch):
    y, t, same = _special_rows_against(lambda x: torch.log_softmax(torch.from_numpy(x), dim=-1).numpy(),
                                       vlak.log_softmax)
    np.testing.assert_array_equal(y[np.isinf(t) & same[:, None]], t[np.isinf(t) & same[:, None]])
    ok = np.isfinite(t) & same[:, None]
    np.testing.assert_allclose(y[ok], t[ok], rtol=1e-5, atol=1e-5)
    assert np.isnan(t[PLUS_INF_ROW]).all()
    assert (y[PLUS_INF_ROW][[0, 2]] == -np.inf).all()
    np.testing.assert_allclose(y[PLUS_INF_ROW][[1, 3]], np.log(0.5), rtol=1e-6)


def test_softmax_matches_torch(rng, torch):
    x = rng.normal(0, 4, size=(33, 1027)).astype(np.float32)
    for dim in (0, 1):
        t = torch.softmax(torch.from_numpy(x), dim=dim).numpy()
        np.testing.assert_allclose(vlak.softmax(x, axis=dim), t, rtol=5e-6, atol=1e-30)


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    x = rng.normal(0, 3, size=(67, 1031)).astype(np.float32)
    # Large enough for vlak to split the rows over threads (small calls run on the caller alone).
    big = rng.normal(0, 3, size=(1823, 781)).astype(np.float32)
    return {
        "softmax": lambda: vlak.softmax(x),
        "softmax_log": lambda: vlak.softmax(x, log=True),
        "softmax_large": lambda: vlak.softmax(big),
    }


LAYOUT_CASES = {"softmax": vlak.softmax, "log_softmax": vlak.log_softmax}
