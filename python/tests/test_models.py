"""vlak.models.MiniLM: the embeddings of tests/models/minilm/ (PyTorch's, stored), the shapes of
its results, and its errors. Needs the model (scripts/models install minilm, run by bootstrap)."""
import json
import os

import numpy as np
import pytest

import vlak
import vlak.models

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "tests", "models", "minilm")


@pytest.fixture(scope="module")
def model():
    return vlak.models.MiniLM()


def test_minilm_matches_pytorch(model):
    with open(os.path.join(DATA, "tokens.json"), encoding="utf-8") as f:
        sentences = [s["text"] for s in json.load(f)["sentences"]][:16]
    torch = np.fromfile(os.path.join(DATA, "embeddings_torch.bin"), dtype="<f4").reshape(-1, 384)[:16]
    e = model.encode(sentences)
    assert e.shape == (16, 384) and e.dtype == np.float32
    assert np.abs(e - torch).max() <= 1e-5
    cos = (e * torch).sum(1) / np.linalg.norm(e, axis=1) / np.linalg.norm(torch, axis=1)
    assert cos.min() >= 0.999999
    # one sentence as a str: a 1-D result, the same bits as in the batch (padding changes nothing)
    np.testing.assert_array_equal(model.encode(sentences[3]), e[3])
    assert model.tokenize("Hello world!") == [101, 7592, 2088, 999, 102]
    assert model.dim == 384
    prof = model.profile(reset=True)
    assert prof["matmul"] > 0 and set(prof) >= {"matmul", "attention", "add+layernorm"}


def test_minilm_errors(tmp_path, model):
    with pytest.raises(FileNotFoundError, match="no model"):
        vlak.models.MiniLM(str(tmp_path))
    (tmp_path / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}")
    with pytest.raises(ValueError, match="config.json"):
        vlak.models.MiniLM(str(tmp_path))
    with pytest.raises(TypeError):
        model.encode(["fine", 3])
    assert model.encode([]).shape == (0, 384)
