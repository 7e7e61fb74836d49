#!/usr/bin/env python3
"""Regenerates the all-MiniLM-L6-v2 references in tests/models/minilm/ from sentences.json there.

  tokens.json            Hugging Face's token ids (the `tokenizers` package on the model's
                         tokenizer.json; truncation at sentence-transformers' max_seq_length, 256, no
                         padding) for every sentence, and for tokenizer_cases (hard cases for the
                         tokenizer alone: truncation, long words, controls, scripts, random Unicode)
  embeddings_f64.bin     float64 sentence embeddings, little-endian, sentences x 384: this script's
                         NumPy forward pass of the same weights in float64 (BERT encoder, 6 layers,
                         post-LN eps 1e-12, GELU erf, mean pooling over the mask, L2 normalised)
  embeddings_torch.bin   float32 embeddings from PyTorch 2.x + transformers (BertModel in float32,
                         the same pooling), batches of 16 padded to their longest sentence
  embeddings.json        what the .bin files hold, the versions, and float64 vs PyTorch figures

Needs the model (scripts/models install minilm) and a venv with tokenizers, numpy, torch and
transformers, apart from build/venv so that make test never needs PyTorch:
  scripts/models peers          # build/venv-peers, the pinned versions
  build/venv-peers/bin/python scripts/minilm-reference.py [--check]
--check recomputes everything and compares with the stored files instead of writing them.
"""
import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DATA = os.path.join(ROOT, "tests", "models", "minilm")
LAYERS, HEADS, HIDDEN, EPS = 6, 12, 384, 1e-12
TORCH_BATCH = 16


def model_dir():
    return subprocess.check_output([os.path.join(ROOT, "scripts", "models"), "path", "minilm"], text=True).strip()


def load_weights(path):
    """The safetensors file read with NumPy alone: 8-byte header length, JSON, raw little-endian data."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    base = 8 + n
    w = {}
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] != "F32":
            continue
        b, e = t["data_offsets"]
        w[name] = np.frombuffer(raw, dtype="<f4", count=(e - b) // 4, offset=base + b).reshape(t["shape"]).astype(np.float64)
    return w


_erf = np.frompyfunc(math.erf, 1, 1)


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS) * g + b


def forward_f64(w, ids):
    """One sentence (no padding), float64 throughout: the embedding, L2-normalised."""
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + \
        w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    d = HIDDEN // HEADS
    for i in range(LAYERS):
        p = "encoder.layer.%d." % i

        def lin(name, v):
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = lin("attention.self.query", x).reshape(n, HEADS, d).transpose(1, 0, 2)
        k = lin("attention.self.key", x).reshape(n, HEADS, d).transpose(1, 0, 2)
        v = lin("attention.self.value", x).reshape(n, HEADS, d).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, HIDDEN)
        x = layer_norm(lin("attention.output.dense", ctx) + x, w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"])
        h = lin("intermediate.dense", x)
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)).astype(np.float64))
        x = layer_norm(lin("output.dense", h) + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    e = x.mean(0)
    return e / np.linalg.norm(e)


def forward_torch(mdir, batches):
    import torch
    import transformers
    model = transformers.AutoModel.from_pretrained(mdir, dtype=torch.float32).eval()
    out = []
    with torch.inference_mode():
        for ids_list in batches:
            L = max(len(i) for i in ids_list)
            ids = torch.zeros((len(ids_list), L), dtype=torch.long)
            mask = torch.zeros((len(ids_list), L), dtype=torch.long)
            for r, i in enumerate(ids_list):
                ids[r, :len(i)] = torch.tensor(i)
                mask[r, :len(i)] = 1
            h = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
            m = mask.unsqueeze(-1).to(h.dtype)
            e = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(e, p=2, dim=1).numpy())
    versions = {"torch": torch.__version__, "transformers": transformers.__version__}
    return np.concatenate(out).astype(np.float32), versions


def tokenizer_cases():
    """Hard cases for the tokenizer alone (ids only), fixed by a seeded generator."""
    cases = [
        "",
        "   ",
        " ".join(["token"] * 300),  # truncated to 256
        "a" * 100,
        "a" * 101,
        "x" * 150 + " after",
        "[CLS] and [SEP] typed as text, and [UNK] too",  # special tokens written in the text
        "glued[MASK]tokens [mask] lower [MASK [PAD][PAD]end",
        "Ctrl\x00chars\x01\x07\x1b and DEL\x7f, C1\x85\x9f, bidi\u202e\u200f, BOM\ufeff, repl\ufffd.",
        "\u00a0nbsp\u2003em\u3000ideographic\u2028line\u2029para space",
        "Combining: e\u0301 a\u0308 n\u0303 (decomposed) vs \u00e9 \u00e4 \u00f1; Z\u0336a\u0337l\u0338g\u0335o",
        "Greek final sigma \u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3 and \u1e9e \u00df \u0130 \u0131 \u01c5",
        "CJK ext: \u3400\u4dbf \U00020000\U0002a6d6 compat \uf900\ufa6d, kana \u30ab\u30bf\u30ab\u30ca, hangul \ud55c\uae00",
        "Punct: \u00a1\u00bf\u2010\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u3001\u3002\uff01\uff1f \u00a7\u00b6 $+<=>^`|~",
        "Math \u2211\u222b\u221a\u221e \u2264\u2265 and symbols \u00a9\u00ae\u2122 \u20ac\u00a3\u00a5",
        "Emoji with ZWJ \U0001f468\u200d\U0001f469\u200d\U0001f467 and flags \U0001f1eb\U0001f1f7 and keycap 1\ufe0f\u20e3",
        "Thai \u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 Devanagari \u0915\u094d\u0937 Tamil \u0ba4\u0bae\u0bbf\u0bb4\u0bcd",
        "Unassigned \U000e0080 private \ue000 noncharacter \ufdd0 tag \U000e0041 variation \ufe0f",
        "##prefix ## and # hashes",
        "unaffable unbelievable running jumped happily",
    ]
    rng = random.Random(20261129)
    pools = [(0x20, 0x7E), (0xA0, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x300, 0x36F), (0x2000, 0x206F),
             (0x3000, 0x30FF), (0x4E00, 0x4E80), (0xAC00, 0xAD00), (0xFF00, 0xFFEF), (0x1F300, 0x1F64F), (0x0, 0x1F)]
    for _ in range(200):
        n = rng.randint(1, 40)
        s = []
        for _ in range(n):
            lo, hi = rng.choice(pools)
            c = rng.randint(lo, hi)
            s.append(chr(c) if not 0xD800 <= c <= 0xDFFF else " ")
            if rng.random() < 0.2:
                s.append(" ")
        cases.append("".join(s))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the stored files instead of writing")
    ap.add_argument("--no-torch", action="store_true", help="leave the PyTorch embeddings as they are")
    args = ap.parse_args()
    import tokenizers
    mdir = model_dir()
    tok = tokenizers.Tokenizer.from_file(os.path.join(mdir, "tokenizer.json"))
    max_len = json.load(open(os.path.join(mdir, "sentence_bert_config.json")))["max_seq_length"]
    tok.no_padding()
    tok.enable_truncation(max_len)
    sentences = json.load(open(os.path.join(DATA, "sentences.json"), encoding="utf-8"))
    ids = [tok.encode(s).ids for s in sentences]
    lengths = [len(i) for i in ids]
    print("%d sentences, %d to %d tokens" % (len(ids), min(lengths), max(lengths)))
    cases = tokenizer_cases()
    tokens = {
        "about": "Hugging Face tokenizers %s on all-MiniLM-L6-v2's tokenizer.json, truncation at %d, no padding "
                 "(scripts/minilm-reference.py)" % (tokenizers.__version__, max_len),
        "max_length": max_len,
        "sentences": [{"text": s, "ids": i} for s, i in zip(sentences, ids)],
        "tokenizer_cases": [{"text": s, "ids": tok.encode(s).ids} for s in cases],
    }

    w = load_weights(os.path.join(mdir, "model.safetensors"))
    f64 = np.stack([forward_f64(w, i) for i in ids])
    batches = [ids[i:i + TORCH_BATCH] for i in range(0, len(ids), TORCH_BATCH)]
    torch_path = os.path.join(DATA, "embeddings_torch.bin")
    if args.no_torch:
        pt = np.fromfile(torch_path, dtype="<f4").reshape(len(ids), HIDDEN)
        versions = json.load(open(os.path.join(DATA, "embeddings.json")))["torch_versions"]
    else:
        pt, versions = forward_torch(mdir, batches)
    diff = np.abs(f64 - pt.astype(np.float64))
    cos = (f64 * pt.astype(np.float64)).sum(1) / np.linalg.norm(pt.astype(np.float64), axis=1)
    figures = {"max_abs_diff": float(diff.max()), "min_cosine": float(cos.min()),
               "worst_sentence": int(diff.max(1).argmax())}
    print("float64 vs PyTorch: max |diff| %.3g, min cosine %.12f (sentence %d)" %
          (figures["max_abs_diff"], figures["min_cosine"], figures["worst_sentence"]))
    meta = {
        "about": "all-MiniLM-L6-v2 sentence embeddings of sentences.json (scripts/minilm-reference.py)",
        "sentences": len(ids),
        "dim": HIDDEN,
        "embeddings_f64.bin": "float64 little-endian [sentences][dim]: NumPy float64 forward pass, unpadded",
        "embeddings_torch.bin": "float32 little-endian [sentences][dim]: PyTorch float32, batches of %d padded "
                                "to their longest" % TORCH_BATCH,
        "torch_versions": versions,
        "float64_vs_torch": figures,
    }
    outputs = {
        "tokens.json": (json.dumps(tokens, ensure_ascii=False, indent=0) + "\n").encode(),
        "embeddings_f64.bin": f64.astype("<f8").tobytes(),
        "embeddings_torch.bin": pt.astype("<f4").tobytes(),
        "embeddings.json": (json.dumps(meta, indent=1) + "\n").encode(),
    }
    if args.check:
        bad = 0
        for name, data in outputs.items():
            with open(os.path.join(DATA, name), "rb") as f:
                old = f.read()
            if name.endswith(".bin"):
                a = np.frombuffer(old, dtype="<f8" if "f64" in name else "<f4")
                b = np.frombuffer(data, dtype=a.dtype)
                same = a.shape == b.shape and np.abs(a - b).max() <= (1e-12 if "f64" in name else 1e-6)
            else:
                same = old == data
            print("%-22s %s" % (name, "same" if same else "DIFFERS"))
            bad += not same
        sys.exit(1 if bad else 0)
    for name, data in outputs.items():
        with open(os.path.join(DATA, name), "wb") as f:
            f.write(data)
        print("wrote", os.path.relpath(os.path.join(DATA, name), ROOT), len(data), "bytes")


if __name__ == "__main__":
    main()
