"""float64 references written from the operators' definitions (independent of vlak's C++
references), and the error bounds include/vlak/vlak.h states."""
import numpy as np


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


def layernorm64(x, gamma, beta, eps):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (x - mean) * rstd
    g = 1.0 if gamma is None else gamma.astype(np.float64)
    b = 0.0 if beta is None else beta.astype(np.float64)
    return xhat * g + b, mean[..., 0], rstd[..., 0], xhat


def rmsnorm64(x, gamma, eps):
    x = np.asarray(x, dtype=np.float64)
    xhat = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
    g = 1.0 if gamma is None else gamma.astype(np.float64)
    return xhat * g, xhat


@np.errstate(invalid="ignore")
def rope64(x, cos, sin, interleaved):
    """x (P, ..., d), tables (P, >= d/2): y_a = x_a c - x_b s, y_b = x_a s + x_b c. Also returns the
    bound's scale |x_a c| + |x_b s| per output."""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    shape = (x.shape[0],) + (1,) * (x.ndim - 2) + (d // 2,)
    c = cos[:, : d // 2].astype(np.float64).reshape(shape)
    s = sin[:, : d // 2].astype(np.float64).reshape(shape)
    if interleaved:
        xa, xb = x[..., 0::2], x[..., 1::2]
    else:
        xa, xb = x[..., : d // 2], x[..., d // 2 :]
    ya, yb = xa * c - xb * s, xa * s + xb * c
    sa, sb = np.abs(xa * c) + np.abs(xb * s), np.abs(xa * s) + np.abs(xb * c)
    y, scale = np.empty_like(x), np.empty_like(x)
    if interleaved:
        y[..., 0::2], y[..., 1::2], scale[..., 0::2], scale[..., 1::2] = ya, yb, sa, sb
    else:
        y[..., : d // 2], y[..., d // 2 :], scale[..., : d // 2], scale[..., d // 2 :] = ya, yb, sa, sb
    return y, scale


def matmul_bound(a, b):
    """vlak.h: |C - C64| <= 2 k 2^-24 sum_k |A| |B|."""
    k = a.shape[1]
    return 2 * k * 2.0**-24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
