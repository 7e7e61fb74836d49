"""attention against a float64 NumPy attention written from vlak.h's definition (vlak.h's bound),
layouts (BNSH and transposed BSNH views give the same bits), GQA/MQA, both causal conventions,
windows, broadcast bias with -inf, lse, fully masked rows and errors."""
import numpy as np
import pytest

import vlak

U = 2.0**-24


def reference(q, k, v, causal=False, window=0, bias=None, scale=None):
    """float64 attention: o (B, H, S, Dv), lse (B, H, S), M (B, H, S), sum_j p |v| (B, H, S, Dv)."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    b_, h_, s_, d_ = q.shape
    hkv, skv = k.shape[1], k.shape[2]
    scale = 1 / np.sqrt(d_) if scale is None else scale
    k = np.repeat(k, h_ // hkv, axis=1)
    v = np.repeat(v, h_ // hkv, axis=1)
    logits = scale * q @ np.swapaxes(k, -1, -2)
    mag = np.abs(scale) * np.abs(q) @ np.abs(np.swapaxes(k, -1, -2))
    i = np.arange(s_)[:, None]
    j = np.arange(skv)[None, :]
    see = np.ones((s_, skv), bool)
    if causal:
        limit = i + skv - s_ if causal == "bottom_right" else i
        see = j <= limit
        if window:
            see &= j >= limit - window + 1
    if bias is not None:
        bb = np.broadcast_to(bias, logits.shape).astype(np.float64)
        logits = logits + bb
        mag = mag + np.where(np.isneginf(bb), 0, np.abs(bb))
    logits = np.where(see, logits, -np.inf)
    m = logits.max(axis=-1, keepdims=True)
    dead = ~np.isfinite(m)
    e = np.exp(logits - np.where(dead, 0, m))
    l = e.sum(axis=-1, keepdims=True)
    p = np.where(l > 0, e / np.where(l > 0, l, 1), 0)
    o = p @ v
    pabs = p @ np.abs(v)
    lse = np.where(l[..., 0] > 0, (m + np.log(np.where(l > 0, l, 1)))[..., 0], -np.inf)
    mvals = np.where(see, mag, 0).max(axis=-1)
    return o, lse, mvals, pabs


def check(q, k, v, **kw):
    o, lse = vlak.attention(q, k, v, return_lse=True, **kw)
    o64, lse64, m, pabs = reference(q, k, v, **kw)
    d, skv = q.shape[-1], k.shape[-2]
    bound = (1e-5 + 2 * (d + 2) * U * m[..., None] + 2 * skv * U) * pabs
    assert (np.abs(o - o64) <= bound).all(), np.max(np.abs(o - o64) - bound)
    fin = np.isfinite(lse64)
    assert (lse[~fin] == lse64[~fin]).all()
    assert (np.abs(lse[fin] - lse64[fin]) <= 1e-5 * (1 + np.abs(lse64[fin])) + 2 * (d + 2) * U * m[fin]).all()
    return o, lse


def make(rng, b, h, hkv, s, skv, d, dv, sd=1.0):
    q = (sd * rng.normal(size=(b, h, s, d))).astype(np.float32)
    k = rng.normal(size=(b, hkv, skv, d)).astype(np.float32)
    v = rng.normal(size=(b, hkv, skv, dv)).astype(np.float32)
    return q, k, v


@pytest.mark.parametrize("s,skv,d,dv", [(1, 1, 16, 16), (7, 65, 32, 24), (64, 64, 64, 64), (33, 130, 80, 48)])
def test_attention_within_bound(target, rng, s, skv, d, dv):
    check(*make(rng, 2, 2, 2, s, skv, d, dv, sd=2.0))


@pytest.mark.parametrize("causal", ["bottom_right", "top_left"])
@pytest.mark.parametrize("window", [0, 1, 7])
def test_attention_causal_windows(target, rng, causal, window):
    for s, skv in [(40, 40), (9, 70), (70, 9)]:
        check(*make(rng, 1, 3, 3, s, skv, 16, 16), causal=causal, window=window)


def test_attention_gqa_mqa_and_layouts(rng):
    for hkv in (2, 1):
        q, k, v = make(rng, 2, 8, hkv, 5, 37, 32, 16)
        o, _ = check(q, k, v, causal="bottom_right")
        # BSNH arrays seen as BNSH (transposed views): used in place, the same bits
        qt, kt, vt = (np.ascontiguousarray(x.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3) for x in (q, k, v))
        np.testing.assert_array_equal(vlak.attention(qt, kt, vt, causal="bottom_right"), o)
        # a KV cache larger than kv_len: a slice of it
        cache = np.zeros((2, hkv, 50, 32), np.float32)
        cache[:, :, :37] = k
        vcache = np.zeros((2, hkv, 50, 16), np.float32)
        vcache[:, :, :37] = v
        np.testing.assert_array_equal(vlak.attention(q, cache[:, :, :37], vcache[:, :, :37], causal="bottom_right"), o)


def test_attention_bias_masks_and_lse(rng):
    q, k, v = make(rng, 2, 2, 2, 6, 20, 16, 8)
    bias = rng.normal(size=(6, 20)).astype(np.float32)
    bias[rng.random(bias.shape) < 0.2] = -np.inf
    bias[2] = -np.inf  # a fully masked row
    o, lse = check(q, k, v, bias=bias, scale=0.5)
    assert (o[:, :, 2] == 0).all() and (lse[:, :, 2] == -np.inf).all()
    # per-(batch, head) bias of full shape
    check(q, k, v, bias=rng.normal(size=(2, 2, 6, 20)).astype(np.float32))


def test_attention_special_values_and_errors(rng):
    q, k, v = make(rng, 1, 1, 1, 8, 8, 16, 16)
    q[0, 0, 2, 3] = np.nan
    k[0, 0, 5, 0] = np.nan
    o = vlak.attention(q, k, v, causal="top_left")
    rows_nan = np.isnan(o[0, 0]).any(axis=-1)
    assert list(rows_nan) == [False, False, True, False, False, True, True, True]
    with pytest.raises(ValueError, match="causal"):
        vlak.attention(q, k, v, causal=True)
    with pytest.raises(ValueError):
        vlak.attention(q, k, v, window=3)
    with pytest.raises(ValueError, match="divide"):
        vlak.attention(np.zeros((1, 3, 2, 4), np.float32), np.zeros((1, 2, 2, 4), np.float32),
                       np.zeros((1, 2, 2, 4), np.float32))
    with pytest.raises(ValueError, match="4-D"):
        vlak.attention(q[0], k[0], v[0])
    with pytest.raises(TypeError):
        vlak.attention(q.astype(np.float64), k, v)


# ---- cases for the tests across operators (python/tests/op_cases.py) -----------------------------
def thread_cases(rng):
    q, k, v = make(rng, 1, 4, 2, 40, 60, 32, 32)
    # Large enough for vlak to split over threads.
    q2, k2, v2 = make(rng, 2, 8, 8, 256, 256, 64, 64)
    return {
        "attention": lambda: vlak.attention(q, k, v, causal="bottom_right"),
        "attention_large": lambda: vlak.attention(q2, k2, v2, causal="top_left"),
    }


def test_attention_kv_lens_is_a_key_padding_mask(target, rng):
    """kv_lens = a 0 / -inf bias per batch row's keys (float64), and the padded keys are not read."""
    b, h, s, skv, d = 3, 4, 6, 40, 16
    q, k, v = make(rng, b, h, 2, s, skv, d, 8)
    lens = np.array([40, 17, 0])
    bias = np.where(np.arange(skv)[None, :] < lens[:, None], 0.0, -np.inf).astype(np.float32)[:, None, None, :]
    o64, lse64, m, pabs = reference(q, k, v, bias=bias)
    k[1, :, 17:] = np.nan  # padded: never read
    o, lse = vlak.attention(q, k, v, return_lse=True, kv_lens=lens)
    bound = (1e-5 + 2 * (d + 2) * U * m[..., None] + 2 * skv * U) * pabs
    assert (np.abs(o - o64) <= bound).all()
    assert (o[2] == 0).all() and (lse[2] == -np.inf).all()
    assert np.allclose(lse[:2], lse64[:2], rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError):
        vlak.attention(q, k, v, kv_lens=[40, 41, 0])
    with pytest.raises(ValueError):
        vlak.attention(q, k, v, kv_lens=[40, 1])
