import numpy as np
import pytest

import vlak

# Relative error bounds on normal-range results (vlak.h's table; ULP bounds as 2^-23 per ULP).
BOUNDS = {
    "schraudolph": 2.99e-2,
    "bittrick_p3": 6.2e-4,
    "bittrick_p5": 6.3e-6,
    "cephes": 4.08 * 2.0**-23,
    "accurate": 2 * 2.0**-23,
    "precise": 2.0**-23,
}


@pytest.mark.parametrize("variant", list(BOUNDS))
def test_exp_within_bound(target, rng, variant):
    x = np.concatenate([rng.uniform(-87.0, 88.5, 100003), np.linspace(-87, 88.5, 4099)]).astype(np.float32)
    y = vlak.exp(x, variant=variant)
    ref = np.exp(x.astype(np.float64))
    rel = np.abs(y - ref) / ref
    assert rel.max() <= BOUNDS[variant], f"{variant}: max rel {rel.max():.3g}"


@pytest.mark.parametrize("variant", list(BOUNDS))
def test_exp_special_values(target, variant):
    x = np.array([-np.inf, np.nan, 100.0, -200.0, 0.0], np.float32)
    y = vlak.exp(x, variant=variant)
    assert y[0] == 0 and not np.signbit(y[0])
    assert np.isnan(y[1])
    assert y[2] == np.inf
    assert y[3] == 0
    assert abs(y[4] - 1) <= BOUNDS[variant]


def test_exp_precise_keeps_denormals():
    x = np.array([-100.0, -95.0], np.float32)
    ref = np.exp(x.astype(np.float64))
    y = vlak.exp(x, variant="precise")
    assert (y > 0).all()
    assert (np.abs(y - ref) <= np.finfo(np.float32).smallest_subnormal).all()


def test_exp_bit_identical_across_targets(rng):
    x = rng.uniform(-90, 90, 10007).astype(np.float32)
    results = []
    for t in vlak.info()["targets_supported"]:
        vlak.set_target(t)
        results.append(vlak.exp(x, variant="accurate"))
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


def test_exp_shapes_and_errors():
    assert vlak.exp(np.zeros((0,), np.float32)).shape == (0,)
    s = vlak.exp(np.float32(0.0))
    assert s.shape == () and s == 1
    out = np.zeros((), np.float32)
    assert vlak.exp(np.zeros((), np.float32), out=out) is out and out == 1
    x = np.zeros((2, 3, 4), np.float32)
    assert vlak.exp(x).shape == (2, 3, 4)
    with pytest.raises(ValueError, match="variant must be"):
        vlak.exp(x, variant="fastest")
    with pytest.raises(TypeError):
        vlak.exp(x.astype(np.float16))
    with pytest.raises(ValueError, match="out has shape"):
        vlak.exp(x, out=np.zeros((2, 3), np.float32))
