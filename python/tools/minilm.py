"""all-MiniLM-L6-v2 sentence embeddings: vlak against onnxruntime (MLAS) and PyTorch 2.x, interleaved.

Every runtime does the whole job, from the same texts to L2-normalised embeddings: tokenising,
the encoder, mean pooling over the mask and normalising. onnxruntime and PyTorch get Hugging Face's
`tokenizers` on the model's tokenizer.json; vlak uses its own tokenizer. onnxruntime runs the ONNX
export of scripts/minilm-onnx.py with all graph optimisations on, intra-op threads = T. PyTorch runs
transformers' BertModel under inference_mode with torch.set_num_threads(T). vlak runs
vlak.models.MiniLM, when the module has it, with vlak.set_num_threads(T).

A batch x length shape means `batch` texts of exactly `length` tokens each, [CLS] and [SEP]
included. The words are drawn at random from the vocabulary's whole words, so each word is one
token. Samples are interleaved (ort, torch, vlak, ort, ...). Before each sample the runtime gets
--quiet seconds (default 0.25) with nothing running, then one untimed call, then the timed one:
- the pause lets the previous runtime's idle workers stop spinning. onnxruntime's spin for
  10-50 ms after a run (measured on a 2-vCPU Xeon: with a 10 ms pause, vlak's 1x16 at 2 threads
  took 11.1 ms after an onnxruntime call and 5.2 ms after a vlak one; with 50 ms, 5.3 and 5.4),
  and OpenMP's (PyTorch) up to its block time, 200 ms by default;
- the untimed call wakes the runtime's own pool and brings its weights back into the caches, so
  a sample is a call in a steady stream of calls, as a server makes them.
At one thread a sample is the calling thread's CPU time, at more threads wall-clock time, as in
sdpa.py. The table gives
the medians, sentences/s, and the ratios of the medians against vlak (above 1: vlak is faster).
The first call of each runtime is also checked against PyTorch: max |difference| of the
embeddings. Below each row, vlak's profile over its samples: the share of its time per operator
(vlak.models.MiniLM.profile).

Not part of `make test`. It needs the peers' venv and the ONNX file:
    scripts/models install && scripts/models peers
    build/venv-peers/bin/python scripts/minilm-onnx.py
    TORCH_PYTHON=build/venv-peers/bin/python scripts/bench minilm [--threads 1,all] [--samples 9]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SHAPES = ["1x16", "1x128", "8x128", "32x128"]


def model_dir():
    return subprocess.check_output([os.path.join(ROOT, "scripts", "models"), "path", "minilm"], text=True).strip()


def make_texts(vocab, batch, length, rng):
    """batch texts of exactly `length` tokens: length - 2 whole-word vocabulary entries."""
    return [" ".join(rng.choice(vocab) for _ in range(length - 2)) for _ in range(batch)]


def whole_words(mdir):
    words = []
    with open(os.path.join(mdir, "vocab.txt"), encoding="utf-8") as f:
        for line in f:
            w = line.rstrip("\n")
            if len(w) >= 3 and w.isascii() and w.isalpha() and w.islower():
                words.append(w)
    return words


def pooled(h, mask):
    e = (h * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    return e / np.linalg.norm(e, axis=1, keepdims=True)


class Ort:
    name = "ort"

    def __init__(self, mdir, onnx_path, tok):
        import onnxruntime as ort
        self.ort, self.path, self.tok, self.sessions = ort, onnx_path, tok, {}
        self.version = "onnxruntime " + ort.__version__

    def threads(self, t):
        if t not in self.sessions:
            o = self.ort.SessionOptions()
            o.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            o.intra_op_num_threads = t
            o.inter_op_num_threads = 1
            self.sessions[t] = self.ort.InferenceSession(self.path, o, providers=["CPUExecutionProvider"])
        self.sess = self.sessions[t]

    def __call__(self, texts):
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        h = self.sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        return pooled(h, mask)


class Torch:
    name = "torch"

    def __init__(self, mdir, tok):
        import torch
        import transformers
        self.torch, self.tok = torch, tok
        self.model = transformers.AutoModel.from_pretrained(mdir, dtype=torch.float32).eval()
        self.version = "torch %s (cpu capability %s)" % (torch.__version__, torch.backends.cpu.get_cpu_capability())

    def threads(self, t):
        self.torch.set_num_threads(t)

    def __call__(self, texts):
        torch = self.torch
        enc = self.tok.encode_batch(texts)
        ids = torch.tensor([e.ids for e in enc])
        mask = torch.tensor([e.attention_mask for e in enc])
        with torch.inference_mode():
            h = self.model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
            m = mask.unsqueeze(-1).to(h.dtype)
            e = (h * m).sum(1) / m.sum(1)
            return torch.nn.functional.normalize(e, p=2, dim=1).numpy()


class Vlak:
    name = "vlak"

    def __init__(self, mdir):
        import vlak
        self.vlak = vlak
        self.model = vlak.models.MiniLM(mdir)
        self.version = "vlak target %s" % vlak.get_target()

    def threads(self, t):
        self.vlak.set_num_threads(t)

    def __call__(self, texts):
        return np.asarray(self.model.encode(texts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,all", help="thread counts, e.g. 1,2 or 1,all")
    ap.add_argument("--samples", type=int, default=9, help="interleaved samples per runtime")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated BATCHxLENGTH")
    ap.add_argument("--runtimes", default="ort,torch,vlak", help="any of ort, torch, vlak")
    ap.add_argument("--onnx", default=os.path.join(ROOT, "build", "models", "all-MiniLM-L6-v2.onnx"))
    ap.add_argument("--quiet", type=float, default=0.25,
                    help="seconds with nothing running before each sample (other runtimes' spinning workers stop)")
    ap.add_argument("--json", help="also write the samples here")
    args = ap.parse_args()
    from tokenizers import Tokenizer
    mdir = model_dir()
    tok = Tokenizer.from_file(os.path.join(mdir, "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    runtimes = []
    for name in args.runtimes.split(","):
        try:
            if name == "ort":
                if not os.path.exists(args.onnx):
                    sys.exit("no %s: build/venv-peers/bin/python scripts/minilm-onnx.py writes it" % args.onnx)
                runtimes.append(Ort(mdir, args.onnx, tok))
            elif name == "torch":
                runtimes.append(Torch(mdir, tok))
            elif name == "vlak":
                runtimes.append(Vlak(mdir))
            else:
                sys.exit("unknown runtime " + name)
        except (ImportError, AttributeError) as e:
            print("%s left out: %s" % (name, e))
    if not runtimes:
        sys.exit("no runtime to run")
    threads = [os.cpu_count() if t == "all" else int(t) for t in args.threads.split(",")]
    print(", ".join(r.version for r in runtimes) + "; %d cpus, load %.2f" % (os.cpu_count(), os.getloadavg()[0]))
    words = whole_words(mdir)
    rng = random.Random(1)
    head = "%-8s %2s" % ("shape", "T") + "".join(" %10s %9s" % (r.name + " med", "sent/s") for r in runtimes)
    head += "".join(" %11s" % (r.name + "/vlak") for r in runtimes if r.name != "vlak" and any(
        x.name == "vlak" for x in runtimes)) + " %10s" % "max|diff|"
    print(head)
    records = []
    for spec in args.shapes.split(","):
        batch, length = (int(v) for v in spec.split("x"))
        texts = make_texts(words, batch, length, rng)
        assert all(len(e.ids) == length for e in tok.encode_batch(texts)), "texts not of %d tokens" % length
        outs = {}
        for r in runtimes:
            r.threads(threads[0])
            outs[r.name] = r(texts)
        base = outs.get("torch", next(iter(outs.values())))
        diff = max(float(np.abs(o - base).max()) for o in outs.values())
        for t in threads:
            clock = time.thread_time if t == 1 else time.perf_counter
            for r in runtimes:
                r.threads(t)
                r(texts)  # warm-up at this thread count
            samples = {r.name: [] for r in runtimes}
            vl = next((r for r in runtimes if r.name == "vlak"), None)
            if vl is not None:
                vl.model.profile(reset=True)
            for _ in range(args.samples):
                for r in runtimes:
                    time.sleep(args.quiet)
                    r(texts)
                    t0 = clock()
                    r(texts)
                    samples[r.name].append((clock() - t0) * 1e3)
            med = {k: statistics.median(v) for k, v in samples.items()}
            line = "%-8s %2d" % (spec, t) + "".join(" %8.2fms %9.1f" % (med[r.name], batch / med[r.name] * 1e3)
                                                    for r in runtimes)
            if "vlak" in med:
                line += "".join(" %10.2fx" % (med[r.name] / med["vlak"]) for r in runtimes if r.name != "vlak")
            print(line + " %10.1e" % diff, flush=True)
            rec = {"shape": spec, "threads": t, "samples_ms": samples, "median_ms": med, "max_abs_diff": diff}
            if vl is not None:
                # vlak's own profile over these samples: the share of its time per operator.
                prof = vl.model.profile(reset=True)
                total = sum(prof.values()) or 1.0
                rec["vlak_profile_s"] = prof
                print("%-11s vlak profile: " % "" + ", ".join("%s %.1f %%" % (k, 100 * v / total)
                                                                for k, v in prof.items() if v > 0), flush=True)
            records.append(rec)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runtimes": [r.version for r in runtimes], "records": records}, f, indent=1)


if __name__ == "__main__":
    main()
