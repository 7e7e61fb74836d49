"""rmsnorm against float64 (vlak.h's bound), its special values and errors. The float64 references
are written from vlak.h's definitions, independently of vlak's C++ ones."""
import numpy as np
import pytest

import vlak
from norm_errors import check_gamma_and_eps_errors


def rmsnorm64(x, gamma, eps):
    """float64 from the definition: y and x-hat."""
    x = np.asarray(x, dtype=np.float64)
    xhat = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
    g = 1.0 if gamma is None else gamma.astype(np.float64)
    return xhat * g, xhat


COLS = [1, 2, 3, 15, 16, 17, 63, 64, 65, 97, 1021, 4096]


@pytest.mark.parametrize("cols", COLS)
def test_rmsnorm_within_bound(target, rng, cols):
    x = rng.normal(0.0, 3.0, size=(5, cols)).astype(np.float32)
    gamma = rng.normal(1.0, 0.5, cols).astype(np.float32)
    for g in (None, gamma):
        y = vlak.rmsnorm(x, g, eps=1e-6)
        y64, xhat = rmsnorm64(x, g, 1e-6)
        ga = 1.0 if g is None else np.abs(g.astype(np.float64))
        assert (np.abs(y - y64) <= 1e-5 * ga * (1 + np.abs(xhat))).all()


def test_rmsnorm_special_values(target):
    x = np.ones((3, 8), np.float32)
    x[0, 1] = np.nan
    x[1, 2] = np.inf
    x[2] = 0
    y = vlak.rmsnorm(x, eps=0.0)
    assert np.isnan(y).all()
    assert (vlak.rmsnorm(x[2:], eps=1e-6) == 0).all()


def test_rmsnorm_errors():
    x = np.zeros((2, 4), np.float32)
    check_gamma_and_eps_errors(vlak.rmsnorm, x)
    # strided gamma (copied)
    g = np.arange(8, dtype=np.float32)[::2]
    np.testing.assert_array_equal(vlak.rmsnorm(x + 1, g), vlak.rmsnorm(x + 1, g.copy()))


def test_rmsnorm_out_overlapping_gamma():
    m = np.ones((2, 40), np.float32)
    g = m[0]
    want = vlak.rmsnorm(m, gamma=g.copy())
    vlak.rmsnorm(m, gamma=g, out=m)
    np.testing.assert_array_equal(m, want)


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    x = rng.normal(0, 3, size=(67, 1031)).astype(np.float32)
    g = rng.normal(1, 0.5, 1031).astype(np.float32)
    return {"rmsnorm": lambda: vlak.rmsnorm(x, g)}


LAYOUT_CASES = {"rmsnorm": vlak.rmsnorm}
