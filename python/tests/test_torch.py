"""Against PyTorch (CPU), when it is importable: softmax / log_softmax special-value semantics
and layer_norm values within vlak's bounds."""
import numpy as np
import pytest

import vlak
from refs import layernorm64

torch = pytest.importorskip("torch", reason="PyTorch not installed (apt install python3-torch)")


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


def test_softmax_special_values_match_torch(target):
    x = _special_rows()
    t = torch.softmax(torch.from_numpy(x), dim=-1).numpy()
    y = vlak.softmax(x)
    same = np.arange(len(x)) != PLUS_INF_ROW
    np.testing.assert_array_equal(np.isnan(y[same]), np.isnan(t[same]))
    ok = same[:, None] & ~np.isnan(t)
    np.testing.assert_allclose(y[ok], t[ok], rtol=2e-6, atol=1e-30)
    assert np.isnan(t[PLUS_INF_ROW]).all()
    np.testing.assert_array_equal(y[PLUS_INF_ROW], [0, 0.5, 0, 0.5])


def test_log_softmax_special_values_match_torch(target):
    x = _special_rows()
    t = torch.log_softmax(torch.from_numpy(x), dim=-1).numpy()
    y = vlak.log_softmax(x)
    same = np.arange(len(x)) != PLUS_INF_ROW
    np.testing.assert_array_equal(np.isnan(y[same]), np.isnan(t[same]))
    np.testing.assert_array_equal(y[np.isinf(t) & same[:, None]], t[np.isinf(t) & same[:, None]])
    ok = np.isfinite(t) & same[:, None]
    np.testing.assert_allclose(y[ok], t[ok], rtol=1e-5, atol=1e-5)
    assert np.isnan(t[PLUS_INF_ROW]).all()
    assert (y[PLUS_INF_ROW][[0, 2]] == -np.inf).all()
    np.testing.assert_allclose(y[PLUS_INF_ROW][[1, 3]], np.log(0.5), rtol=1e-6)


def test_softmax_matches_torch(rng):
    x = rng.normal(0, 4, size=(33, 1027)).astype(np.float32)
    for dim in (0, 1):
        t = torch.softmax(torch.from_numpy(x), dim=dim).numpy()
        np.testing.assert_allclose(vlak.softmax(x, axis=dim), t, rtol=5e-6, atol=1e-30)


# Not cols=1: there var = 0 and x - mean = 0 exactly, but PyTorch's float32 x - mean leaves
# residues that rstd = 1/sqrt(eps) amplifies to ~3e-5 (vlak gives beta exactly, as float64 does).
@pytest.mark.parametrize("cols", [2, 7, 64, 1000])
def test_layer_norm_matches_torch(target, rng, cols):
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


def test_layer_norm_special_values_match_torch():
    x = np.ones((3, 8), np.float32)
    x[0, 3], x[1, 5] = np.nan, np.inf
    y = vlak.layernorm(x)
    t = torch.nn.functional.layer_norm(torch.from_numpy(x), (8,), eps=1e-5).numpy()
    np.testing.assert_array_equal(np.isnan(y), np.isnan(t))
    np.testing.assert_array_equal(y[2], t[2])
    y0 = vlak.layernorm(x[2:], eps=0.0)
    t0 = torch.nn.functional.layer_norm(torch.from_numpy(x[2:].copy()), (8,), eps=0.0).numpy()
    np.testing.assert_array_equal(np.isnan(y0), np.isnan(t0))
