"""vlak beside PyTorch: what a torch operator just before a vlak call costs the vlak call.

For each case, vlak is timed (a) alone (vlak calls back to back) and (b) right after a PyTorch
operator on a tensor of the same kind (torch.softmax, F.layer_norm, torch.mm), at the same thread
count (torch.set_num_threads(T), vlak.set_num_threads(T)), with each parallel runner (vlak's pool,
and "openmp": the libgomp torch runs on). Only the vlak call is timed; (a) and (b) samples are
interleaved, so other jobs on the machine reach both alike; the table shows their medians and the
ratio (b)/(a). With two runtimes, torch's OpenMP workers still spin after its operator (libgomp
spins GOMP_SPINCOUNT iterations before it sleeps) while vlak's pool wakes on the same cores;
with the "openmp" runner vlak's work goes to those same workers. Usage:

    PYTHONPATH=build/host/python /usr/bin/python3 python/tools/coexist.py [--threads 1,2,all] [--samples 41]

--check OP:SHAPE --max-ratio R (with one --threads value) is the CTest python.coexist: exit 1
unless the median ratio with the "auto" runner is at most R in one of --attempts tries.
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
    sys.exit("coexist.py needs PyTorch (apt install python3-torch)")

CASES = ["softmax:1823x781", "softmax:512x2048", "layernorm:1151x8192", "matmul:256x512x256"]


def make_case(spec, rng):
    """(vlak call, torch call) for 'op:shape'; the torch call works on its own tensors."""
    op, shape = spec.split(":")
    dims = [int(v) for v in shape.split("x")]
    if op == "softmax":
        x = rng.normal(0, 3, size=dims).astype(np.float32)
        y = np.empty_like(x)
        t = torch.from_numpy(x.copy())
        return (lambda: vlak.softmax(x, out=y)), (lambda: torch.softmax(t, -1))
    if op == "layernorm":
        x = rng.normal(0, 3, size=dims).astype(np.float32)
        g = rng.normal(1, 0.2, dims[-1]).astype(np.float32)
        b = rng.normal(0, 0.2, dims[-1]).astype(np.float32)
        t, tg, tb = torch.from_numpy(x.copy()), torch.from_numpy(g), torch.from_numpy(b)
        return (lambda: vlak.layernorm(x, g, b)), (lambda: F.layer_norm(t, (dims[-1],), tg, tb))
    if op == "matmul":
        m, n, k = dims
        a = rng.normal(size=(m, k)).astype(np.float32)
        bm = rng.normal(size=(k, n)).astype(np.float32)
        ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(bm.copy())
        return (lambda: vlak.matmul(a, bm)), (lambda: torch.mm(ta, tb))
    raise SystemExit(f"unknown case {spec} (ops: softmax, layernorm, matmul)")


def measure(vlak_fn, torch_fn, samples):
    """Medians (seconds) of vlak alone and vlak right after torch_fn, interleaved samples."""
    for _ in range(5):
        vlak_fn()
        torch_fn()
    alone, after = [], []
    clock = time.perf_counter
    for _ in range(samples):
        vlak_fn()  # the previous vlak call: "alone" follows vlak, not torch
        t0 = clock()
        vlak_fn()
        alone.append(clock() - t0)
        torch_fn()
        t0 = clock()
        vlak_fn()
        after.append(clock() - t0)
    return statistics.median(alone), statistics.median(after)


def thread_counts(text):
    out = []
    for t in text.split(","):
        n = len(os.sched_getaffinity(0)) if t == "all" else int(t)
        if n not in out:
            out.append(n)
    return out


def set_threads(n):
    torch.set_num_threads(n)
    vlak.set_num_threads(n)


def check(args):
    (threads,) = thread_counts(args.threads)
    set_threads(threads)
    vlak.set_parallel_runner("auto")
    vlak_fn, torch_fn = make_case(args.check, np.random.default_rng(3))
    ratios = []
    for attempt in range(1, args.attempts + 1):
        alone, after = measure(vlak_fn, torch_fn, args.samples)
        ratios.append(after / alone)
        print(f"{args.check} at {threads} threads, runner {vlak.get_parallel_runner()}, try {attempt}: "
              f"alone {alone * 1e3:.3f} ms, after torch {after * 1e3:.3f} ms, ratio {after / alone:.3f}")
        if after / alone <= args.max_ratio:
            return 0
    print(f"FAIL: vlak after a torch operator took {min(ratios):.3f}x or more of vlak alone "
          f"(limit {args.max_ratio}) in {args.attempts} tries")
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2,all")
    ap.add_argument("--samples", type=int, default=41)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--check", help="OP:SHAPE: pass/fail on one case (the CTest)")
    ap.add_argument("--max-ratio", type=float, default=1.15)
    ap.add_argument("--attempts", type=int, default=3)
    args = ap.parse_args()
    if args.check:
        return check(args)

    runners = ["vlak"]
    vlak.set_parallel_runner("auto")
    if vlak.get_parallel_runner() == "openmp":
        runners.append("openmp")
    print(f"vlak {vlak.__version__} (target {vlak.get_target()}) beside PyTorch {torch.__version__}; "
          f"{len(os.sched_getaffinity(0))} CPUs, load {os.getloadavg()[0]:.2f}; medians of {args.samples} interleaved samples")
    print(f"{'case':<22} {'T':>2} {'runner':<7} {'vlak alone':>11} {'after torch':>12} {'ratio':>6}")
    rng = np.random.default_rng(3)
    cases = [(spec, make_case(spec, rng)) for spec in args.cases.split(",")]
    for threads in thread_counts(args.threads):
        set_threads(threads)
        for spec, (vlak_fn, torch_fn) in cases:
            for runner in runners:
                vlak.set_parallel_runner(runner)
                alone, after = measure(vlak_fn, torch_fn, args.samples)
                print(f"{spec:<22} {threads:>2} {runner:<7} {alone * 1e3:>8.3f} ms {after * 1e3:>9.3f} ms {after / alone:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
