"""Parallel runners: vlak's pool and the process's GNU OpenMP (libgomp, PyTorch's) give the same
bits; "auto" follows what is loaded; "openmp" without a libgomp is an error."""
import ctypes
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import vlak
from test_threads import _cases


def _libgomp_loaded():
    with open("/proc/self/maps") as f:
        return any(os.path.basename(line.split()[-1]).startswith("libgomp") for line in f if "/" in line)


def _load_libgomp():
    """Makes a libgomp loaded in this process (torch's if torch is imported, else the system's);
    skips when there is none to load."""
    if not _libgomp_loaded():
        try:
            ctypes.CDLL("libgomp.so.1")
        except OSError:
            pytest.skip("no libgomp.so.1 on this system")


def test_kinds_and_errors():
    vlak.set_parallel_runner("vlak")
    assert vlak.get_parallel_runner() == "vlak"
    assert vlak._vlak._parallel_runner_library() is None
    vlak.set_parallel_runner("auto")
    assert vlak.get_parallel_runner() == ("openmp" if _libgomp_loaded() else "vlak")
    vlak.set_parallel_runner()  # "auto" is the default argument
    with pytest.raises(ValueError, match="unknown kind"):
        vlak.set_parallel_runner("tbb")
    with pytest.raises(TypeError):
        vlak.set_parallel_runner(1)


def test_results_identical_with_each_runner(rng):
    _load_libgomp()
    cases = _cases(rng)
    vlak.set_parallel_runner("vlak")
    vlak.set_num_threads(1)
    want = {name: f() for name, f in cases.items()}
    for runner in ("vlak", "openmp"):
        vlak.set_parallel_runner(runner)
        assert vlak.get_parallel_runner() == runner
        for n in (1, 2, 3, 8):
            vlak.set_num_threads(n)
            for name, f in cases.items():
                np.testing.assert_array_equal(f(), want[name], err_msg=f"{name}, runner {runner}, {n} threads")


def test_openmp_runner_from_python_threads(rng):
    """Each Python thread that calls vlak starts its own libgomp team: concurrent calls are right."""
    _load_libgomp()
    x = rng.normal(0, 3, size=(1823, 781)).astype(np.float32)
    vlak.set_parallel_runner("vlak")
    vlak.set_num_threads(1)
    want = vlak.softmax(x)
    vlak.set_parallel_runner("openmp")
    vlak.set_num_threads(2)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: vlak.softmax(x), range(16)))
    for r in results:
        np.testing.assert_array_equal(r, want)


def _run(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=120)


def test_auto_at_import_and_after_loading_libgomp():
    """In a fresh interpreter: vlak alone (the module links no OpenMP runtime) starts on its pool,
    'openmp' is an error, and 'auto' switches once a libgomp is loaded."""
    r = _run(
        """
        import ctypes, os
        def loaded():
            with open("/proc/self/maps") as f:
                return any(os.path.basename(l.split()[-1]).startswith("libgomp") for l in f if "/" in l)
        import vlak
        if loaded():
            print("SKIP something imported with vlak loads libgomp")
            raise SystemExit
        assert vlak.get_parallel_runner() == "vlak", vlak.get_parallel_runner()
        try:
            vlak.set_parallel_runner("openmp")
            raise AssertionError("no error")
        except RuntimeError as e:
            assert "libgomp" in str(e), e
        assert vlak.get_parallel_runner() == "vlak"
        ctypes.CDLL("libgomp.so.1")
        vlak.set_parallel_runner("auto")
        assert vlak.get_parallel_runner() == "openmp"
        assert os.path.basename(vlak._vlak._parallel_runner_library()).startswith("libgomp")
        print("OK")
        """
    )
    assert r.returncode == 0, r.stderr
    if r.stdout.startswith("SKIP"):
        pytest.skip(r.stdout.strip())
    assert r.stdout.strip() == "OK", r.stdout + r.stderr


def test_openmp_runner_with_torch():
    """Beside PyTorch: 'auto' picks the libgomp torch runs on, and vlak's results interleaved with
    torch's operators are the bits vlak's own pool gives."""
    pytest.importorskip("torch", reason="PyTorch not installed (apt install python3-torch)")
    r = _run(
        """
        import os
        import numpy as np
        import vlak
        import torch  # after vlak: "auto" must be asked again
        assert vlak.get_parallel_runner() == "vlak"
        vlak.set_parallel_runner("auto")
        assert vlak.get_parallel_runner() == "openmp"
        lib = vlak._vlak._parallel_runner_library()
        with open("/proc/self/maps") as f:
            assert any(l.split()[-1] == os.path.realpath(lib) or l.split()[-1] == lib for l in f), lib
        rng = np.random.default_rng(5)
        x = rng.normal(0, 3, size=(1823, 781)).astype(np.float32)
        a = rng.normal(size=(256, 512)).astype(np.float32)
        b = rng.normal(size=(512, 256)).astype(np.float32)
        vlak.set_parallel_runner("vlak")
        vlak.set_num_threads(2)
        want = vlak.softmax(x), vlak.matmul(a, b)
        vlak.set_parallel_runner("openmp")
        torch.set_num_threads(2)
        t = torch.from_numpy(x)
        for _ in range(5):
            torch.softmax(t, -1)
            got = vlak.softmax(x), vlak.matmul(a, b)
            torch.mm(torch.from_numpy(a), torch.from_numpy(b))
            for g, w in zip(got, want):
                assert np.array_equal(g, w)
        print("OK", lib)
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("OK"), r.stdout + r.stderr
