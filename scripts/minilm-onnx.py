#!/usr/bin/env python3
"""Exports all-MiniLM-L6-v2 to ONNX for the onnxruntime baseline, and checks the export.

The graph runs from input_ids, attention_mask and token_type_ids (int64, [batch][seq], both axes
dynamic) to last_hidden_state ([batch][seq][384], float32). It is the BertModel of the model folder
(scripts/models path minilm), exported by torch.onnx, opset 17. Mean pooling and normalisation
stay outside the graph, as in PyTorch's row of the benchmark. The check runs every sentence of
tests/models/minilm/ through onnxruntime, with its graph optimisations on, in padded batches of 16,
pools them, and compares with embeddings_torch.bin and embeddings_f64.bin.

  build/venv-peers/bin/python scripts/minilm-onnx.py [OUT]   (default build/models/all-MiniLM-L6-v2.onnx)
The venv: scripts/models peers (torch, transformers, onnx, onnxruntime).
"""
import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DATA = os.path.join(ROOT, "tests", "models", "minilm")


def main():
    import onnxruntime as ort
    import torch
    import transformers
    mdir = subprocess.check_output([os.path.join(ROOT, "scripts", "models"), "path", "minilm"], text=True).strip()
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "models", "all-MiniLM-L6-v2.onnx")
    model = transformers.AutoModel.from_pretrained(mdir, dtype=torch.float32).eval()

    class Encoder(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state

    ids = torch.ones((2, 16), dtype=torch.long)
    mask = torch.ones((2, 16), dtype=torch.long)
    mask[1, 10:] = 0
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "seq"} for n in names}
    axes["last_hidden_state"] = {0: "batch", 1: "seq"}
    with torch.inference_mode():
        torch.onnx.export(Encoder(model), (ids, mask, torch.zeros_like(ids)), out, input_names=names,
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)
    print("wrote", out, os.path.getsize(out), "bytes")

    tokens = json.load(open(os.path.join(DATA, "tokens.json"), encoding="utf-8"))
    all_ids = [s["ids"] for s in tokens["sentences"]]
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(out, opts, providers=["CPUExecutionProvider"])
    emb = []
    for i in range(0, len(all_ids), 16):
        batch = all_ids[i:i + 16]
        L = max(len(x) for x in batch)
        a = np.zeros((len(batch), L), dtype=np.int64)
        m = np.zeros((len(batch), L), dtype=np.int64)
        for r, x in enumerate(batch):
            a[r, :len(x)] = x
            m[r, :len(x)] = 1
        h = sess.run(None, {"input_ids": a, "attention_mask": m, "token_type_ids": np.zeros_like(a)})[0]
        e = (h * m[..., None]).sum(1) / m.sum(1, keepdims=True)
        emb.append(e / np.linalg.norm(e, axis=1, keepdims=True))
    emb = np.concatenate(emb).astype(np.float64)
    n = len(all_ids)
    for name, dtype in (("embeddings_torch.bin", "<f4"), ("embeddings_f64.bin", "<f8")):
        ref = np.fromfile(os.path.join(DATA, name), dtype=dtype).reshape(n, -1).astype(np.float64)
        cos = (emb * ref).sum(1) / np.linalg.norm(ref, axis=1)
        print("onnxruntime %s vs %-20s max |diff| %.3g, min cosine %.12f" %
              (ort.__version__, name, np.abs(emb - ref).max(), cos.min()))


if __name__ == "__main__":
    main()
