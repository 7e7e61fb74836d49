"""add_layernorm and add_rmsnorm: the same bits as the plain norm of x + r (their definition in
vlak.h), within the norms' bounds of float64 written from the definitions, the residual stream,
in place, layouts and errors."""
import numpy as np
import pytest

import vlak


def layernorm64(s, gamma, beta, eps):
    s = np.asarray(s, dtype=np.float64)
    mean = s.mean(axis=-1, keepdims=True)
    xhat = (s - mean) / np.sqrt(((s - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    return xhat * gamma.astype(np.float64) + beta.astype(np.float64), xhat


def rmsnorm64(s, gamma, eps):
    s = np.asarray(s, dtype=np.float64)
    xhat = s / np.sqrt((s * s).mean(axis=-1, keepdims=True) + eps)
    return xhat * gamma.astype(np.float64), xhat


@pytest.mark.parametrize("cols", [1, 7, 16, 17, 384, 576, 1021])
def test_add_norms_are_the_norm_of_the_sum(target, rng, cols):
    x = rng.normal(0.5, 2.0, size=(2, 3, cols)).astype(np.float32)
    r = rng.normal(0.0, 1.0, size=(2, 3, cols)).astype(np.float32)
    gamma = rng.normal(1.0, 0.3, cols).astype(np.float32)
    beta = rng.normal(0.0, 0.3, cols).astype(np.float32)
    s = x + r
    y, got_s = vlak.add_layernorm(x, r, gamma, beta, eps=1e-5, return_sum=True)
    assert np.array_equal(got_s.view(np.uint32), s.view(np.uint32))
    assert np.array_equal(y.view(np.uint32), vlak.layernorm(s, gamma, beta, eps=1e-5).view(np.uint32))
    y64, xhat = layernorm64(s, gamma, beta, 1e-5)
    assert (np.abs(y - y64) <= 1e-5 * (np.abs(gamma) * (1 + np.abs(xhat)) + np.abs(beta))).all()
    q = vlak.add_rmsnorm(x, r, gamma, eps=1e-6)
    assert np.array_equal(q.view(np.uint32), vlak.rmsnorm(s, gamma, eps=1e-6).view(np.uint32))
    q64, xhat = rmsnorm64(s, gamma, 1e-6)
    assert (np.abs(q - q64) <= 1e-5 * np.abs(gamma) * (1 + np.abs(xhat))).all()


def test_add_norms_in_place_and_strided(target, rng):
    x = rng.normal(size=(4, 65)).astype(np.float32)
    r = rng.normal(size=(4, 65)).astype(np.float32)
    want = vlak.add_rmsnorm(x, r)
    xa = x.copy()
    assert vlak.add_rmsnorm(xa, r, out=xa) is not None
    assert np.array_equal(xa, want)
    ra = r.copy()
    vlak.add_layernorm(x, ra, out=ra)
    assert np.array_equal(ra, vlak.layernorm(x + r))
    # A strided r (every other column of a wider array) and a transposed x.
    wide = rng.normal(size=(65, 8)).astype(np.float32)
    xt = wide[:, :4].T
    rs = np.repeat(r, 2, axis=1)[:, ::2]
    assert np.array_equal(vlak.add_rmsnorm(xt, rs), vlak.rmsnorm(np.ascontiguousarray(xt) + r))


def test_add_norms_special_values(target):
    x = np.ones((3, 8), np.float32)
    r = np.zeros((3, 8), np.float32)
    x[0, 1], r[0, 1] = np.inf, -np.inf
    x[1, 2] = np.nan
    y, s = vlak.add_layernorm(x, r, return_sum=True)
    assert np.isnan(s[0, 1]) and np.isnan(y[:2]).all()
    assert np.isnan(vlak.add_rmsnorm(x, r)[:2]).all()


def test_add_norms_errors():
    x = np.ones((2, 8), np.float32)
    with pytest.raises(ValueError):
        vlak.add_layernorm(x, np.ones((2, 7), np.float32))
    with pytest.raises(ValueError):
        vlak.add_rmsnorm(x, x, eps=-1.0)
    with pytest.raises(ValueError):
        vlak.add_rmsnorm(x, x, gamma=np.ones(7, np.float32))
    with pytest.raises(TypeError):
        vlak.add_layernorm(x, x.astype(np.float64))
