"""vlak.attention against PyTorch 2.x's scaled_dot_product_attention (its CPU flash kernel).

Both run in this one process on the same float32 arrays (torch.from_numpy shares them), at the same
thread count (torch.set_num_threads(T), vlak.set_num_threads(T)); their samples are interleaved
(torch, vlak, torch, vlak, ...), so other jobs on the machine reach both alike. The table gives
each one's median and fastest sample and the ratio torch / vlak of the medians (above 1: vlak is
faster). At one thread the samples are the calling thread's CPU time (time.thread_time: a loaded
machine's waiting for a core is not in it), at more the wall-clock time. Default shapes: the
attention issue's, with the heads cut by 4 for a 2-core machine (--full: as the issue gives them).
Not part of `make test`: it needs PyTorch >= 2.0, which Debian does not package (python3-torch is
1.13, without scaled_dot_product_attention), e.g. from PyPI in a virtual environment:

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch numpy
    TORCH_PYTHON=/tmp/torchenv/bin/python scripts/bench sdpa [--threads 1,2] [--samples 15]

or directly: PYTHONPATH=build/host/python /tmp/torchenv/bin/python python/tools/sdpa.py
Shapes: B:Hq:Hkv:Sq:Skv:D[:causal], e.g. 1:8:8:1024:1024:128:causal (causal: PyTorch's is_causal,
vlak's causal="top_left"; with Sq == Skv the same as bottom-right).
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

import vlak

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - the tool needs torch
    sys.exit("sdpa.py needs PyTorch >= 2.0 (e.g. pip install torch in a virtual environment)")

if not hasattr(F, "scaled_dot_product_attention"):
    sys.exit(f"sdpa.py needs PyTorch >= 2.0 (scaled_dot_product_attention); this is {torch.__version__}")

# The shapes: 32 heads x 1024 x 128, the same causal, 8 heads x 2048 x 64, and a decode
# step (1 query, 4096 keys, 32 query heads over 8 kv heads, d 128).
FULL = ["1:32:32:1024:1024:128", "1:32:32:1024:1024:128:causal", "1:8:8:2048:2048:64", "1:32:8:1:4096:128"]
SCALED = ["1:8:8:1024:1024:128", "1:8:8:1024:1024:128:causal", "1:2:2:2048:2048:64", "1:32:8:1:4096:128"]


def parse(spec):
    parts = spec.split(":")
    b, hq, hkv, sq, skv, d = (int(v) for v in parts[:6])
    causal = len(parts) > 6 and parts[6] == "causal"
    return b, hq, hkv, sq, skv, d, causal


def make_case(spec, rng):
    b, hq, hkv, sq, skv, d, causal = parse(spec)
    q = rng.uniform(-1, 1, (b, hq, sq, d)).astype(np.float32)
    k = rng.uniform(-1, 1, (b, hkv, skv, d)).astype(np.float32)
    v = rng.uniform(-1, 1, (b, hkv, skv, d)).astype(np.float32)
    tq, tk, tv = torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v)
    kw = {"is_causal": causal}
    if hkv != hq:
        try:  # PyTorch 2.5+: grouped-query attention without copies
            F.scaled_dot_product_attention(tq[:, :, :1], tk[:, :, :1], tv[:, :, :1], enable_gqa=True)
            kw["enable_gqa"] = True
        except TypeError:
            tk = tk.repeat_interleave(hq // hkv, dim=1)
            tv = tv.repeat_interleave(hq // hkv, dim=1)

    def run_torch():
        return F.scaled_dot_product_attention(tq, tk, tv, **kw)

    def run_vlak():
        return vlak.attention(q, k, v, causal="top_left" if causal else False)

    flops = 4.0 * b * hq * d * (sq * (sq + 1) / 2 if causal and sq == skv else sq * skv)
    return run_torch, run_vlak, flops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,all", help="thread counts, e.g. 1,2 or 1,all")
    ap.add_argument("--samples", type=int, default=15, help="interleaved samples per implementation")
    ap.add_argument("--shapes", default=None, help="comma-separated B:Hq:Hkv:Sq:Skv:D[:causal]")
    ap.add_argument("--full", action="store_true", help="the issue's shapes, not cut for 2 cores")
    args = ap.parse_args()
    shapes = args.shapes.split(",") if args.shapes else (FULL if args.full else SCALED)
    threads = [os.cpu_count() if t == "all" else int(t) for t in args.threads.split(",")]
    rng = np.random.default_rng(1)
    print(f"torch {torch.__version__} (cpu capability {torch.backends.cpu.get_cpu_capability()}), "
          f"vlak target {vlak.get_target()}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    print(f"{'shape B:Hq:Hkv:Sq:Skv:D':34} {'T':>2} {'torch med':>10} {'min':>9} {'vlak med':>10} {'min':>9} "
          f"{'GFLOP/s':>8} {'torch/vlak':>10} {'max|diff|':>9}")
    with torch.inference_mode():
        for spec in shapes:
            run_torch, run_vlak, flops = make_case(spec, rng)
            diff = float(np.max(np.abs(run_torch().numpy() - run_vlak())))
            for t in threads:
                torch.set_num_threads(t)
                vlak.set_num_threads(t)
                clock = time.thread_time if t == 1 else time.perf_counter
                for f in (run_torch, run_vlak, run_torch, run_vlak):  # warm-up
                    f()
                ts, vs = [], []
                for _ in range(args.samples):
                    for f, out in ((run_torch, ts), (run_vlak, vs)):
                        t0 = clock()
                        f()
                        out.append((clock() - t0) * 1e3)
                tm, vm = statistics.median(ts), statistics.median(vs)
                print(f"{spec:34} {t:>2} {tm:8.2f}ms {min(ts):7.2f}ms {vm:8.2f}ms {min(vs):7.2f}ms "
                      f"{flops / vm / 1e6:8.1f} {tm / vm:9.2f}x {diff:9.1e}")


if __name__ == "__main__":
    main()
