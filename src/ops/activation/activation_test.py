"""vlak.activation and vlak.glu against float64 (vlak.h's bounds: 2 ULP, glu 3; accuracy="fast"
4 and 5), their special
values, in place, and errors. The float64 references are written from vlak.h's definitions (numpy
and math.erfc), independently of vlak's C++ ones."""
import math

import numpy as np
import pytest

import vlak

OPS = ["sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"]
FLT_MIN = np.float64(np.finfo(np.float32).tiny)


def sigmoid64(v):
    e = np.exp(-np.abs(v))
    return np.where(v >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def act64(op, x):
    x = np.asarray(x, dtype=np.float64)
    if op == "sigmoid":
        return sigmoid64(x)
    if op == "tanh":
        return np.tanh(x)
    if op == "gelu":
        return 0.5 * x * np.array([math.erfc(-v / math.sqrt(2.0)) for v in x.ravel()]).reshape(x.shape)
    if op == "gelu_tanh":
        return x * sigmoid64(2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3))
    if op == "silu":
        return x * sigmoid64(x)
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def ulps(y, ref):
    """vlak.h's measure: ULPs of the float nearest ref; below FLT_MIN in units of 2^-149."""
    nearest = np.abs(ref.astype(np.float32).astype(np.float64))
    ulp = np.where(np.abs(ref) < FLT_MIN, 2.0**-149, np.ldexp(1.0, np.frexp(nearest)[1] - 24))
    return np.abs(y.astype(np.float64) - ref) / ulp


@pytest.mark.parametrize("op", OPS)
def test_activation_within_bound(target, rng, op):
    x = np.concatenate([rng.normal(0, 4, 3000), rng.uniform(-110, 25, 2000)]).astype(np.float32)
    y = vlak.activation(x, op)
    assert y.dtype == np.float32 and y.shape == x.shape
    assert ulps(y, act64(op, x)).max() <= 2.0
    # by value, in place, and into out: the same bits
    np.testing.assert_array_equal(vlak.activation(x, OPS.index(op)), y)
    z = x.copy()
    assert vlak.activation(z, op, out=z) is z
    np.testing.assert_array_equal(z, y)


@pytest.mark.parametrize("op", OPS)
def test_glu_within_bound(target, rng, op):
    g = rng.normal(0, 3, size=(7, 129)).astype(np.float32)
    u = rng.normal(1, 2, size=(7, 129)).astype(np.float32)
    y = vlak.glu(g, u, op)
    assert ulps(y, act64(op, g) * u).max() <= 3.0
    a = g.copy()
    vlak.glu(a, u, op, out=a)  # y on gate
    np.testing.assert_array_equal(a, y)
    b = u.copy()
    vlak.glu(g, b, op, out=b)  # y on up
    np.testing.assert_array_equal(b, y)
    np.testing.assert_array_equal(vlak.glu(g[:, 1:], u[:, 1:], op), y[:, 1:])  # strided rows


@pytest.mark.parametrize("op", OPS)
def test_fast_tier_within_bound(target, rng, op):
    x = np.concatenate([rng.normal(0, 4, 3000), rng.uniform(-110, 25, 2000)]).astype(np.float32)
    y = vlak.activation(x, op, accuracy="fast")
    assert ulps(y, act64(op, x)).max() <= 4.0
    s = np.array([-np.inf, np.inf, -0.0, 0.0], np.float32)  # the special values of the accurate tier
    np.testing.assert_array_equal(vlak.activation(s, op, accuracy="fast").view(np.uint32), vlak.activation(s, op).view(np.uint32))
    np.testing.assert_array_equal(vlak.activation(x, op, None, "fast"), y)  # positional
    np.testing.assert_array_equal(vlak.activation(x, op, accuracy="accurate"), vlak.activation(x, op))
    z = x.copy()
    assert vlak.activation(z, op, out=z, accuracy="fast") is z
    np.testing.assert_array_equal(z, y)
    nan = vlak.activation(np.array([np.nan], np.float32), op, accuracy="fast")
    assert np.isnan(nan[0])
    g = rng.normal(0, 3, size=(5, 67)).astype(np.float32)
    u = rng.normal(1, 2, size=(5, 67)).astype(np.float32)
    assert ulps(vlak.glu(g, u, op, accuracy="fast"), act64(op, g) * u).max() <= 5.0


def test_fast_tier_errors():
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="accuracy must be"):
        vlak.activation(x, "silu", accuracy="faster")
    with pytest.raises(ValueError, match="accuracy must be"):
        vlak.glu(x, x, "silu", accuracy="")
    with pytest.raises(ValueError, match="not 0..5"):
        vlak.activation(x, 0x104)  # the tier goes by name, not in op


def test_activation_special_values(target):
    x = np.array([-np.inf, np.inf, -0.0, 0.0, np.nan], np.float32)
    want = {
        "sigmoid": [0.0, 1.0, 0.5, 0.5],
        "tanh": [-1.0, 1.0, -0.0, 0.0],
        "gelu": [-0.0, np.inf, -0.0, 0.0],
        "gelu_tanh": [-0.0, np.inf, -0.0, 0.0],
        "silu": [-0.0, np.inf, -0.0, 0.0],
        "softplus": [0.0, np.inf, math.log(2.0), math.log(2.0)],
    }
    for op, w in want.items():
        y = vlak.activation(x, op)
        np.testing.assert_array_equal(y[:4].view(np.uint32), np.array(w, np.float32).view(np.uint32), err_msg=op)
        assert y[4].view(np.uint32) == x[4].view(np.uint32), op  # the same NaN


def test_activation_scalar_and_empty():
    assert vlak.activation(np.float32(0.0), "sigmoid") == np.float32(0.5)
    assert vlak.activation(np.float32(0.0), "sigmoid").shape == ()
    assert vlak.activation(np.zeros((0, 3), np.float32), "tanh").shape == (0, 3)
    assert vlak.glu(np.float32(2.0), np.float32(3.0), "silu").shape == ()


def test_activation_errors():
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="op must be one of"):
        vlak.activation(x, "relu")
    with pytest.raises(ValueError, match="not 0..5"):
        vlak.activation(x, 6)
    with pytest.raises(TypeError, match="op must be a str or an int"):
        vlak.activation(x, 1.0)
    with pytest.raises(TypeError, match="float32"):
        vlak.activation(x.astype(np.float64), "tanh")
    with pytest.raises(ValueError, match="up has shape"):
        vlak.glu(x, np.zeros(5, np.float32), "silu")
    with pytest.raises(TypeError):
        vlak.activation(x)


def thread_cases(rng):
    x = rng.normal(0, 3, size=(40, 1031)).astype(np.float32)
    u = rng.normal(1, 1, size=(40, 1031)).astype(np.float32)
    return {"activation": lambda: vlak.activation(x, "gelu"), "glu": lambda: vlak.glu(x, u, "silu")}


LAYOUT_CASES = {
    "activation": lambda x, out=None: vlak.activation(x, "silu", out=out),
    "glu": lambda x, out=None: vlak.glu(x, x[..., ::-1], "gelu_tanh", out=out),
}
