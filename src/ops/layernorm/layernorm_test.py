"""layernorm and layernorm_backward against float64 (vlak.h's bounds), their special values, errors,
and against PyTorch when it is installed. The float64 references are written from vlak.h's
definitions, independently of vlak's C++ ones."""
import numpy as np
import pytest

import vlak
from norm_errors import check_gamma_and_eps_errors


def layernorm64(x, gamma, beta, eps):
    """float64 from the definition: y, mean, rstd and x-hat."""
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (x - mean) * rstd
    g = 1.0 if gamma is None else gamma.astype(np.float64)
    b = 0.0 if beta is None else beta.astype(np.float64)
    return xhat * g + b, mean[..., 0], rstd[..., 0], xhat


COLS = [1, 2, 3, 15, 16, 17, 63, 64, 65, 97, 1021, 4096]


@pytest.mark.parametrize("cols", COLS)
@pytest.mark.parametrize("params", ["none", "gamma", "both"])
def test_layernorm_within_bound(target, rng, cols, params):
    x = rng.normal(0.0, 1.0, size=(3, 4, cols)).astype(np.float32)
    gamma = rng.normal(1.0, 0.5, cols).astype(np.float32) if params != "none" else None
    beta = rng.normal(0.0, 2.0, cols).astype(np.float32) if params == "both" else None
    y, mean, rstd = vlak.layernorm(x, gamma, beta, eps=1e-5, return_stats=True)
    assert mean.shape == rstd.shape == (3, 4)
    y64, m64, r64, xhat = layernorm64(x, gamma, beta, 1e-5)
    g = np.abs(gamma.astype(np.float64)) if gamma is not None else 1.0
    b = np.abs(beta.astype(np.float64)) if beta is not None else 0.0
    assert (np.abs(y - y64) <= 1e-5 * (g * (1 + np.abs(xhat)) + b)).all()
    assert (np.abs(mean - m64) <= 1e-6 * (np.abs(m64) + 1 / r64)).all()
    assert (np.abs(rstd - r64) <= 1e-6 * r64).all()
    np.testing.assert_array_equal(vlak.layernorm(x, gamma, beta), y)


def test_layernorm_large_offset(target, rng):
    # A large common offset: the variance must not come from E[x^2] - E[x]^2.
    x = (1e4 + rng.normal(0, 1e-1, size=(8, 1000))).astype(np.float32)
    y = vlak.layernorm(x)
    y64, _, _, xhat = layernorm64(x, None, None, 1e-5)
    assert (np.abs(y - y64) <= 1e-5 * (1 + np.abs(xhat))).all()


def test_layernorm_special_values(target):
    x = np.ones((3, 8), np.float32)
    x[0, 3] = np.nan
    x[1, 5] = np.inf
    y, mean, rstd = vlak.layernorm(x, return_stats=True)
    assert np.isnan(y[:2]).all() and np.isnan(mean[:2]).all() and np.isnan(rstd[:2]).all()
    # constant row: var 0; with eps=0 rstd is inf and y NaN (as PyTorch)
    assert (y[2] == 0).all()
    y0, _, r0 = vlak.layernorm(x[2:], eps=0.0, return_stats=True)
    assert r0[0] == np.inf and np.isnan(y0).all()


def test_layernorm_errors():
    x = np.zeros((2, 4), np.float32)
    check_gamma_and_eps_errors(vlak.layernorm, x)


@pytest.mark.parametrize("cols", [1, 3, 17, 64, 1000])
def test_layernorm_backward_within_bound(target, rng, cols):
    rows = 7
    x = rng.normal(2.0, 3.0, size=(rows, cols)).astype(np.float32)
    dy = rng.normal(0.0, 1.0, size=(rows, cols)).astype(np.float32)
    gamma = rng.normal(1.0, 0.5, cols).astype(np.float32)
    _, mean, rstd = vlak.layernorm(x, return_stats=True)
    dx, dgamma, dbeta = vlak.layernorm_backward(dy, x, mean, rstd, gamma)
    # float64 from the definition, with the forward's (float32) mean and rstd
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    m64, r64 = mean.astype(np.float64)[:, None], rstd.astype(np.float64)[:, None]
    xhat = (x64 - m64) * r64
    g = dy64 * gamma.astype(np.float64)
    mg = g.mean(axis=1, keepdims=True)
    mgx = (g * xhat).mean(axis=1, keepdims=True)
    dx64 = r64 * (g - mg - xhat * mgx)
    scale = (r64 * (np.abs(g) + np.abs(mg) + np.abs(xhat * mgx))).max(axis=1, keepdims=True)
    assert (np.abs(dx - dx64) <= 1e-5 * scale).all()
    tg, tb = dy64 * xhat, dy64
    assert (np.abs(dgamma - tg.sum(0)) <= 1e-5 * np.abs(tg).sum(0)).all()
    assert (np.abs(dbeta - tb.sum(0)) <= 1e-5 * np.abs(tb).sum(0)).all()
    # in place into dy, and into x
    d2 = dy.copy()
    r = vlak.layernorm_backward(d2, x, mean, rstd, gamma, out=d2)
    assert r[0] is d2
    np.testing.assert_array_equal(d2, dx)
    x2 = x.copy()
    vlak.layernorm_backward(dy, x2, mean, rstd, gamma, out=x2)
    np.testing.assert_array_equal(x2, dx)
    # strided dy (different stride from x): copied, same bits
    big = np.zeros((rows, cols + 5), np.float32)
    big[:, :cols] = dy
    np.testing.assert_array_equal(vlak.layernorm_backward(big[:, :cols], x, mean, rstd, gamma)[0], dx)


def test_layernorm_backward_errors():
    x = np.zeros((2, 4), np.float32)
    m = np.zeros(2, np.float32)
    with pytest.raises(ValueError, match="dy has shape"):
        vlak.layernorm_backward(np.zeros((2, 3), np.float32), x, m, m)
    with pytest.raises(ValueError, match="mean has shape"):
        vlak.layernorm_backward(x, x, np.zeros(3, np.float32), m)


# ---- against PyTorch (CPU) -----------------------------------------------------------------------
# Not cols=1: there var = 0 and x - mean = 0 exactly, but PyTorch's float32 x - mean leaves
# residues that rstd = 1/sqrt(eps) amplifies to ~3e-5 (vlak gives beta exactly, as float64 does).
@pytest.mark.parametrize("cols", [2, 7, 64, 1000])
def test_layer_norm_matches_torch(target, rng, torch, cols):
    x = rng.normal(3.0, 2.0, size=(9, cols)).astype(np.float32)
    g = rng.normal(1.0, 0.5, cols).astype(np.float32)
    b = rng.normal(0.0, 2.0, cols).astype(np.float32)
    y = vlak.layernorm(x, g, b, eps=1e-5)
    t = torch.nn.functional.layer_norm(torch.from_numpy(x), (cols,), torch.from_numpy(g), torch.from_numpy(b), 1e-5).numpy()
    # Both within their rounding of the float64 value: |vlak - torch| <= vlak's bound + torch's
    # float32 error, taken as the same bound again.
    _, _, _, xhat = layernorm64(x, g, b, 1e-5)
    bound = 1e-5 * (np.abs(g) * (1 + np.abs(xhat)) + np.abs(b))
    assert (np.abs(y - t) <= 2 * bound).all()


def test_layer_norm_special_values_match_torch(torch):
    x = np.ones((3, 8), np.float32)
    x[0, 3], x[1, 5] = np.nan, np.inf
    y = vlak.layernorm(x)
    t = torch.nn.functional.layer_norm(torch.from_numpy(x), (8,), eps=1e-5).numpy()
    np.testing.assert_array_equal(np.isnan(y), np.isnan(t))
    np.testing.assert_array_equal(y[2], t[2])
    y0 = vlak.layernorm(x[2:], eps=0.0)
    t0 = torch.nn.functional.layer_norm(torch.from_numpy(x[2:].copy()), (8,), eps=0.0).numpy()
    np.testing.assert_array_equal(np.isnan(y0), np.isnan(t0))


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    x = rng.normal(0, 3, size=(67, 1031)).astype(np.float32)
    g = rng.normal(1, 0.5, 1031).astype(np.float32)
    # Large enough for vlak to split the rows over threads (small calls run on the caller alone).
    big = rng.normal(0, 3, size=(1823, 781)).astype(np.float32)
    gamma = rng.normal(1, 0.5, 781).astype(np.float32)
    return {
        "layernorm": lambda: vlak.layernorm(x, g, g, return_stats=True)[0],
        "layernorm_large": lambda: vlak.layernorm(big, gamma, gamma),
    }


LAYOUT_CASES = {"layernorm": vlak.layernorm}
