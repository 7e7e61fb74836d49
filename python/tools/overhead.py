"""Python call overhead of vlak.softmax against the C call.

For each shape, alternates batches of (a) the C call timed inside C++ (vlak._vlak._time_c_softmax:
vlak_softmax_f32 in a C loop), (b) vlak.softmax(x, out=y) and (c) the allocating vlak.softmax(x),
each from a Python loop, and reports the medians per call of the wall-clock time and of the calling
thread's CPU time (time.thread_time; a loaded machine's waiting for a core is not in it), and the
differences. Run at 1 kernel thread, so the calling thread does all the work. Usage:

    PYTHONPATH=build/host/python /usr/bin/python3 python/tools/overhead.py [--rounds 41] [--shapes 1x1024,...]
"""
import argparse
import statistics
import time

import numpy as np

import vlak
from vlak import _vlak


def per_call(fn, reps):
    c0, t0 = time.thread_time(), time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps, (time.thread_time() - c0) / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--shapes", default="1x1024,1x65536,1x262144,64x65536")
    ap.add_argument("--batch-ms", type=float, default=20.0)
    args = ap.parse_args()
    vlak.set_num_threads(1)
    print(f"vlak {vlak.__version__}, target {vlak.get_target()}, 1 thread, {args.rounds} interleaved rounds; medians per call")
    head = f"{'shape':>9} {'clock':>5} {'C call':>11} {'out=':>11} {'alloc':>11} {'out= - C':>11} {'alloc - C':>11} {'out=/C':>7} {'alloc/C':>7}"
    print(head)
    for text in args.shapes.split(","):
        rows, cols = (int(v) for v in text.split("x"))
        x = np.random.default_rng(1).uniform(-10, 10, size=(rows, cols)).astype(np.float32)
        y = np.empty_like(x)
        wall0, _ = _vlak._time_c_softmax(x, y, 3)
        reps = max(1, int(args.batch_ms * 1e-3 / max(wall0, 1e-7)))
        runs = {"C": [], "out": [], "alloc": []}
        for _ in range(args.rounds):
            runs["C"].append(_vlak._time_c_softmax(x, y, reps))
            runs["out"].append(per_call(lambda: vlak.softmax(x, out=y), reps))
            runs["alloc"].append(per_call(lambda: vlak.softmax(x), reps))
        for k, clock in enumerate(("wall", "cpu")):
            c, o, a = (statistics.median(r[k] for r in runs[n]) for n in ("C", "out", "alloc"))
            us = lambda s: f"{s * 1e6:9.3f}us"
            print(f"{text:>9} {clock:>5} {us(c)} {us(o)} {us(a)} {us(o - c)} {us(a - c)} {o / c:7.3f} {a / c:7.3f}")


if __name__ == "__main__":
    main()
