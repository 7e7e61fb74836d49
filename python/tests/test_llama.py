"""vlak.models.Llama with SmolLM2-135M-Instruct: llama.cpp's greedy tokens on the short prompt of
tests/models/smollm2/generate.json (the C++ test, src/models/llama_test.cc, runs them all), the
text API and the errors. Needs the model (scripts/models install smollm2, run by bootstrap)."""
import json
import os

import pytest

import vlak.models

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


@pytest.fixture(scope="module")
def model():
    return vlak.models.Llama()


def test_llama_follows_llama_cpp(model):
    with open(os.path.join(ROOT, "tests", "models", "smollm2", "generate.json"), encoding="utf-8") as f:
        case = json.load(f)["cases"][0]  # "Once upon a time": no near-tie in its first 16 steps
    assert model.tokenize(case["prompt"]) == case["prompt_ids"]
    ids = model.generate_ids(case["prompt_ids"], 16)
    assert ids == case["tokens"][:16]
    text = model.generate(case["prompt"], 16)
    assert text == model.decode(case["tokens"][:16])
    st = model.stats()
    assert st["prompt_tokens"] == len(case["prompt_ids"]) and st["generated"] == 16 and st["decode_s"] > 0
    assert model.vocab_size == 49152 and model.layers == 30


def test_llama_chat(model):
    assert "Paris" in vlak.models.Llama(mode="auto").generate("What is the capital of France?", 16, chat=True)
    assert "Paris" in model.generate("What is the capital of France?", 32, chat=True)


def test_llama_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model"):
        vlak.models.Llama(str(tmp_path / "missing.gguf"))
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file at all")
    with pytest.raises(ValueError, match="vlak.models.Llama"):
        vlak.models.Llama(str(bad))
    with pytest.raises(ValueError, match="mode"):
        vlak.models.Llama(mode="fast")
