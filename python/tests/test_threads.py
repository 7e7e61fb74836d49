"""Threads: the kernels' own row threads give the same bits for any count, and Python threads
calling into vlak concurrently (the GIL released) get the single-thread results."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import op_cases
import vlak


def test_set_num_threads():
    vlak.set_num_threads(3)
    assert vlak.get_num_threads() == 3 and vlak.info()["num_threads"] == 3
    vlak.set_num_threads(0)
    assert vlak.get_num_threads() >= 1
    with pytest.raises(ValueError, match="invalid argument"):
        vlak.set_num_threads(-1)


def test_set_target():
    supported = vlak.info()["targets_supported"]
    for t in supported:
        vlak.set_target(t)
        assert vlak.get_target() == t == vlak.info()["target"]
    vlak.set_target(None)
    assert vlak.get_target() == supported[-1]
    with pytest.raises(ValueError, match="unknown target"):
        vlak.set_target("sse2")
    for t in ("avx2", "avx512", "rvv"):
        if t not in supported:
            with pytest.raises(ValueError, match="target unavailable"):
                vlak.set_target(t)


def _cases(rng):
    """Every operator's thread cases (op_cases.py) and exp's, which has no operator folder."""
    x = rng.normal(0, 3, size=(67, 1031)).astype(np.float32)
    return {"exp": lambda: vlak.exp(x), **op_cases.thread_cases(rng)}


def test_thread_count_does_not_change_results(rng):
    cases = _cases(rng)
    vlak.set_num_threads(1)
    want = {name: f() for name, f in cases.items()}
    for n in (2, 3, 8):
        vlak.set_num_threads(n)
        for name, f in cases.items():
            np.testing.assert_array_equal(f(), want[name], err_msg=f"{name}, {n} threads")


def test_python_threads_concurrently(rng):
    names, calls = zip(*_cases(rng).items())
    vlak.set_num_threads(1)
    want = [f() for f in calls]
    vlak.set_num_threads(2)
    errors = []

    def worker(i):
        for rep in range(20):
            j = (i + rep) % len(calls)
            if not np.array_equal(calls[j](), want[j]):
                errors.append((i, names[j]))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    assert not errors


def _largest_gap_during(fn):
    """Runs fn on a thread; returns (fn's own duration, the main thread's largest gap between
    loop iterations while fn ran)."""
    spans = []

    def work():
        t0 = time.perf_counter()
        fn()
        spans.append(time.perf_counter() - t0)

    worker = threading.Thread(target=work)
    gaps = []
    last = time.perf_counter()  # before start(): start() itself waits for the GIL
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    return spans[0], max(gaps, default=0.0)


def test_gil_released(rng):
    """While a thread is inside a long kernel, the main thread keeps running Python: its largest
    gap between loop iterations stays well below the kernel's duration (holding the GIL, one gap
    spans the whole kernel). On a loaded machine a gap can also come from waiting for a core, so
    it is tried up to 3 times: a held GIL fails every time."""
    a = rng.normal(size=(1536, 1536)).astype(np.float32)
    vlak.set_num_threads(1)
    results = []
    for _ in range(3):
        span, gap = _largest_gap_during(lambda: vlak.matmul(a, a))
        results.append((span, gap))
        if gap < span / 2:
            return
    pytest.fail(f"main thread blocked while the kernel ran: (kernel s, largest gap s) = {results}")


def test_gil_released_integer(rng):
    """The same for an integer operator (correlation, whose kernel is long at this size)."""
    a = rng.integers(-128, 128, size=(32, 512, 1024)).astype(np.int8)
    vlak.set_num_threads(1)
    results = []
    for _ in range(3):
        span, gap = _largest_gap_during(lambda: vlak.correlation(a, a, 96, 8))
        results.append((span, gap))
        if gap < span / 2:
            return
    pytest.fail(f"main thread blocked while the kernel ran: (kernel s, largest gap s) = {results}")
