#!/usr/bin/env python3
"""vlak's C API (libvlak.so through ctypes) against PyTorch's CPU kernels, at several thread counts,
each alone and interleaved in one process: the many-core comparison a Python user sees.

Usage: torch_compare.py LIBVLAK [--threads 1,4,8,16] [--reps 31] [--quick]

For each case and thread count T it prints the median time of
  vlak alone, torch alone (torch.set_num_threads(T), vlak_set_num_threads(T)),
  vlak interleaved with the torch op (one after the other, the same T for both),
and the ratios vlak / torch and vlak interleaved / vlak alone. Needs only NumPy-free PyTorch and
the shared library: the machine it runs on may have nothing else installed.
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

import torch

F = ctypes.POINTER(ctypes.c_float)
S = ctypes.c_size_t


def load(path):
    lib = ctypes.CDLL(path)
    lib.vlak_set_num_threads.argtypes = [ctypes.c_int]
    lib.vlak_get_num_threads.restype = ctypes.c_int
    lib.vlak_softmax_f32.argtypes = [S, S, F, S, F, S, ctypes.c_uint]
    lib.vlak_layernorm_f32.argtypes = [S, S, F, S, F, F, ctypes.c_float, F, S, F, F]
    lib.vlak_rmsnorm_f32.argtypes = [S, S, F, S, F, ctypes.c_float, F, S]
    lib.vlak_matmul_f32.argtypes = [S, S, S, F, S, F, S, F, S, ctypes.c_uint]
    lib.vlak_rope_f32.argtypes = [S, S, S, F, F, F, S, F, ctypes.c_uint]
    for fn in ("vlak_softmax_f32", "vlak_layernorm_f32", "vlak_rmsnorm_f32", "vlak_matmul_f32", "vlak_rope_f32"):
        getattr(lib, fn).restype = ctypes.c_int
    return lib


def ptr(t):
    return ctypes.cast(t.data_ptr(), F)


def cases(lib, quick):
    """(name, vlak call, torch call) with their tensors bound."""
    out = []

    def softmax(r, c):
        x = torch.randn(r, c)
        y = torch.empty(r, c)
        out.append((f"softmax {r}x{c}", lambda: lib.vlak_softmax_f32(r, c, ptr(x), c, ptr(y), c, 0),
                    lambda: torch.softmax(x, dim=1)))

    def layernorm(r, c):
        x, g, b = torch.randn(r, c), torch.randn(c), torch.randn(c)
        y = torch.empty(r, c)
        out.append((f"layernorm {r}x{c}",
                    lambda: lib.vlak_layernorm_f32(r, c, ptr(x), c, ptr(g), ptr(b), 1e-5, ptr(y), c, None, None),
                    lambda: torch.nn.functional.layer_norm(x, (c,), g, b, 1e-5)))

    def rmsnorm(r, c):
        x, g = torch.randn(r, c), torch.randn(c)
        y = torch.empty(r, c)
        # torch.nn.functional.rms_norm exists from PyTorch 2.4; the formula otherwise.
        if hasattr(torch.nn.functional, "rms_norm"):
            ref = lambda: torch.nn.functional.rms_norm(x, (c,), g, 1e-6)
        else:
            ref = lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * g
        out.append((f"rmsnorm {r}x{c}", lambda: lib.vlak_rmsnorm_f32(r, c, ptr(x), c, ptr(g), 1e-6, ptr(y), c), ref))

    def matmul(m, n, k):
        a, b = torch.randn(m, k), torch.randn(k, n)
        c = torch.empty(m, n)
        out.append((f"matmul {m}x{n}x{k}", lambda: lib.vlak_matmul_f32(m, n, k, ptr(a), k, ptr(b), n, ptr(c), n, 0),
                    lambda: torch.mm(a, b, out=c)))

    def rope(p, rows, d):
        x = torch.randn(p, rows, d)
        y = torch.empty(p, rows, d)
        cos, sin = torch.randn(p, d // 2), torch.randn(p, d // 2)
        c2, s2 = torch.cat([cos, cos], -1)[:, None, :], torch.cat([sin, sin], -1)[:, None, :]

        def ref():
            x1, x2 = x[..., : d // 2], x[..., d // 2:]
            return x * c2 + torch.cat([-x2, x1], -1) * s2

        out.append((f"rope {p}x{rows}x{d}",
                    lambda: lib.vlak_rope_f32(p, rows, d, ptr(x), ptr(cos), ptr(sin), d // 2, ptr(y), 0), ref))

    softmax(1823, 781)
    softmax(512, 2048)
    layernorm(1151, 8192)
    rmsnorm(1151, 8192)
    matmul(256, 512, 256)
    matmul(1024, 1024, 1024)
    if not quick:
        rope(512, 128, 1024)
        matmul(2048, 2048, 2048)
    return out


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--threads", default="1,4,8,16")
    ap.add_argument("--reps", type=int, default=31)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    lib = load(args.lib)
    cpus = len(os.sched_getaffinity(0))
    threads = [int(t) for t in args.threads.split(",") if int(t) <= cpus] or [1]
    print(f"# torch {torch.__version__}, {cpus} CPUs in the affinity mask, python {sys.version.split()[0]}")
    print("# case | T | vlak alone | torch alone | torch / vlak | vlak interleaved | interleaved / alone")
    for name, v, t in cases(lib, args.quick):
        for n in threads:
            lib.vlak_set_num_threads(n)
            torch.set_num_threads(n)
            for _ in range(3):
                v(), t()
            va, ta, vi = [], [], []
            for _ in range(args.reps):  # interleaved rounds: a change of load hits every column
                t0 = time.perf_counter(); v(); va.append(time.perf_counter() - t0)
                t0 = time.perf_counter(); t(); ta.append(time.perf_counter() - t0)
                # vlak right after torch: torch's threads are still awake (spinning) when vlak starts
                t(); t0 = time.perf_counter(); v(); vi.append(time.perf_counter() - t0)
            a, b, c = statistics.median(va), statistics.median(ta), statistics.median(vi)
            print(f"{name} | {n} | {a * 1e6:.1f} us | {b * 1e6:.1f} us | {b / a:.2f} | {c * 1e6:.1f} us | {c / a:.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
