"""quantize / dequantize / matmul_q: GGUF blocks decoded here from their definition (ggml-common.h)
in NumPy float64, ggml's quantizers restated in float32 NumPy, the product's bounds of vlak.h, and
the errors."""
import numpy as np
import pytest

import vlak

BLOCK = {"q8_0": 34, "q4_0": 18, "q4_1": 20}


def dequant64(q, qtype, k):
    """The blocks' values in float64 (q4_1's q*d + m rounded once to float32, as ggml's floats)."""
    rows = q.shape[0]
    b = q.reshape(rows, k // 32, BLOCK[qtype])
    d = b[:, :, 0:2].copy().view(np.float16).astype(np.float64)
    if qtype == "q8_0":
        vals = b[:, :, 2:].view(np.int8).astype(np.float64) * d
    else:
        qs = b[:, :, 4:] if qtype == "q4_1" else b[:, :, 2:]
        nib = np.concatenate([qs & 15, qs >> 4], axis=-1).astype(np.float64)
        if qtype == "q4_0":
            vals = (nib - 8) * d
        else:
            m = b[:, :, 2:4].copy().view(np.float16).astype(np.float64)
            vals = (nib * d + m).astype(np.float32).astype(np.float64)
    return vals.reshape(rows, k)


def scale64(q, qtype, k):
    """|q d| + |m| per value: the scale vlak.h's quantized-activations bound sums (S)."""
    rows = q.shape[0]
    b = q.reshape(rows, k // 32, BLOCK[qtype])
    d = np.abs(b[:, :, 0:2].copy().view(np.float16).astype(np.float64))
    if qtype == "q8_0":
        return (np.abs(b[:, :, 2:].view(np.int8).astype(np.float64)) * d).reshape(rows, k)
    qs = b[:, :, 4:] if qtype == "q4_1" else b[:, :, 2:]
    nib = np.concatenate([qs & 15, qs >> 4], axis=-1).astype(np.float64)
    if qtype == "q4_0":
        return (np.abs(nib - 8) * d).reshape(rows, k)
    m = np.abs(b[:, :, 2:4].copy().view(np.float16).astype(np.float64))
    return (nib * d + m).reshape(rows, k)


def quant_q8_0_ref(x):
    """ggml's quantize_row_q8_0_ref in float32 NumPy: (d bits, q)."""
    xb = x.reshape(-1, 32)
    amax = np.abs(xb).max(axis=1)
    d = (amax / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore"):
        idv = np.where(d != 0, np.float32(1) / d, np.float32(0)).astype(np.float32)
    v = (xb * idv[:, None]).astype(np.float32)
    q = np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))  # roundf: ties away from zero
    return d.astype(np.float16), q.astype(np.int8)


@pytest.mark.parametrize("qtype", ["q8_0", "q4_0", "q4_1"])
@pytest.mark.parametrize("k", [32, 96, 576])
def test_dequantize_is_the_block_definition(target, rng, qtype, k):
    x = rng.normal(0, 1, size=(5, k)).astype(np.float32)
    q = vlak.quantize(x, qtype)
    assert q.shape == (5, vlak.qtype_row_bytes(qtype, k)) and q.dtype == np.uint8
    y = vlak.dequantize(q, qtype, k)
    assert np.array_equal(y.astype(np.float64), dequant64(q, qtype, k))
    # Quantization error: at most half a step (q4_1 and q4_0: a step is d; plus the fp16 rounding).
    d = np.abs(q.reshape(5, k // 32, BLOCK[qtype])[:, :, 0:2].copy().view(np.float16).astype(np.float64))
    step = np.repeat(d.reshape(5, k // 32), 32, axis=1)
    assert (np.abs(y - x) <= step * (0.5 if qtype == "q8_0" else 1.0) + np.abs(x) * 2e-3 + 1e-6).all()


def test_quantize_q8_0_is_ggmls(target, rng):
    x = (rng.normal(0, 1, size=(3, 256)) * np.repeat(2.0 ** rng.integers(-8, 8, size=(3, 8)), 32, axis=1)).astype(np.float32)
    x[0, :32] = np.arange(32, dtype=np.float32) - 15.5  # ties
    q = vlak.quantize(x, "q8_0").reshape(3, 8, 34)
    d, qs = quant_q8_0_ref(x)
    assert np.array_equal(q[:, :, 0:2].copy().view(np.float16).reshape(-1), d)
    assert np.array_equal(q[:, :, 2:].view(np.int8).reshape(-1, 32), qs)


@pytest.mark.parametrize("qtype", ["q8_0", "q4_0", "q4_1"])
@pytest.mark.parametrize("m,n,k", [(1, 7, 64), (3, 33, 96), (1, 576, 576), (17, 40, 128)])
def test_matmul_q_within_bound(target, rng, qtype, m, n, k):
    a = rng.uniform(-1, 1, size=(m, k)).astype(np.float32)
    w = vlak.quantize(rng.normal(0, 1, size=(n, k)).astype(np.float32), qtype)
    w64 = dequant64(w, qtype, k)
    c = vlak.matmul_q(a, w, qtype)
    c64 = a.astype(np.float64) @ w64.T
    assert (np.abs(c - c64) <= 2 * k * 2.0**-24 * (np.abs(a).astype(np.float64) @ np.abs(w64).T) + 1e-30).all()
    # Quantized activations: the activation's rounding, then the arithmetic's.
    cq = vlak.matmul_q(a, w, qtype, quantize_a=True)
    d, qa = quant_q8_0_ref(a.reshape(-1))
    at = (qa.astype(np.float64) * d.astype(np.float64)[:, None]).reshape(m, k)
    err = np.abs(a - at) @ np.abs(w64).T
    assert (np.abs(cq - c64) <= err + 2 * k * 2.0**-24 * (np.abs(at) @ scale64(w, qtype, k).T)).all()


def test_matmul_q_same_for_every_thread_count(restore_globals, rng):
    a = rng.normal(size=(4, 256)).astype(np.float32)
    w = vlak.quantize(rng.normal(size=(300, 256)).astype(np.float32), "q4_1")
    for quantize_a in (False, True):
        vlak.set_num_threads(1)
        want = vlak.matmul_q(a, w, "q4_1", quantize_a=quantize_a)
        for t in (2, 3):
            vlak.set_num_threads(t)
            assert np.array_equal(vlak.matmul_q(a, w, "q4_1", quantize_a=quantize_a).view(np.uint32), want.view(np.uint32))


def test_matmul_q_epilogue(target, rng):
    a = rng.normal(size=(3, 64)).astype(np.float32)
    w = vlak.quantize(rng.normal(size=(9, 64)).astype(np.float32), "q4_1")
    bias = rng.normal(size=9).astype(np.float32)
    for quantize_a in (False, True):
        p = vlak.matmul_q(a, w, "q4_1", quantize_a=quantize_a)
        want = vlak.activation((p + bias).astype(np.float32), "silu")
        got = vlak.matmul_q(a, w, "q4_1", quantize_a=quantize_a, bias=bias, activation="silu")
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    with pytest.raises(ValueError):
        vlak.matmul_q(a, w, "q4_1", bias=bias[:5])
    with pytest.raises(ValueError):
        vlak.matmul_q(a, w, "q4_1", activation="relu")


def test_errors():
    x = np.ones((2, 64), np.float32)
    with pytest.raises(ValueError):
        vlak.quantize(x, "q5_0")
    with pytest.raises(ValueError):
        vlak.quantize(np.ones((2, 48), np.float32), "q8_0")
    with pytest.raises(TypeError):
        vlak.quantize(x.astype(np.float64), "q8_0")
    bad = x.copy()
    bad[1, 3] = np.nan
    with pytest.raises(ValueError):
        vlak.quantize(bad, "q4_0")
    q = vlak.quantize(x, "q8_0")
    with pytest.raises(ValueError):
        vlak.dequantize(q, "q4_0", 64)
    with pytest.raises(TypeError):
        vlak.matmul_q(x, q.astype(np.int16), "q8_0")
    assert vlak.qtype_row_bytes("q4_1", 33) == 0


@pytest.mark.parametrize("qtype", ["q8_0", "q4_0", "q4_1"])
@pytest.mark.parametrize("m,n,k", [(1, 7, 64), (3, 33, 96), (20, 40, 128)])
def test_pack_q(target, rng, qtype, m, n, k):
    """pack_q's product: matmul_q's bits with exact weights; with quantized activations the same
    bound as matmul_q (the x16 kernel sums in another order); the epilogue; refused elsewhere."""
    a = rng.uniform(-1, 1, size=(m, k)).astype(np.float32)
    w = vlak.quantize(rng.normal(0, 1, size=(n, k)).astype(np.float32), qtype)
    p = vlak.pack_q(w, qtype, k)
    assert (p.n, p.k, p.qtype) == (n, k, qtype)
    assert np.array_equal(p.matmul(a).view(np.uint32), vlak.matmul_q(a, w, qtype).view(np.uint32))
    w64 = dequant64(w, qtype, k)
    c64 = a.astype(np.float64) @ w64.T
    d, qa = quant_q8_0_ref(a.reshape(-1))
    at = (qa.astype(np.float64) * d.astype(np.float64)[:, None]).reshape(m, k)
    err = np.abs(a - at) @ np.abs(w64).T
    cq = p.matmul(a, quantize_a=True)
    assert (np.abs(cq - c64) <= err + 2 * k * 2.0**-24 * (np.abs(at) @ scale64(w, qtype, k).T)).all()
    bias = rng.normal(size=n).astype(np.float32)
    want = vlak.activation((cq + bias).astype(np.float32), "gelu")
    got = p.matmul(a, quantize_a=True, bias=bias, activation="gelu")
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    with pytest.raises(ValueError):
        p.matmul(a[:, :32])
    with pytest.raises(ValueError):
        vlak.pack_q(w, qtype, k + 32)
