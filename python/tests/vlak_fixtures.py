"""Fixtures every Python test shares (python/tests and src/ops/<op>/<op>_test.py; each folder's
conftest.py imports them): every test runs on each target this CPU supports, and leaves the
process-wide target, thread count and parallel runner as it found them."""
import numpy as np
import pytest

import vlak

TARGETS = vlak.info()["targets_supported"]


@pytest.fixture(autouse=True)
def restore_globals():
    target, threads, runner = vlak.get_target(), vlak.get_num_threads(), vlak.get_parallel_runner()
    yield
    vlak.set_target(target)
    vlak.set_num_threads(threads)
    vlak.set_parallel_runner(runner)


@pytest.fixture(params=TARGETS)
def target(request):
    """Runs the test once per supported target (scalar, avx2, avx512 on x86-64)."""
    vlak.set_target(request.param)
    return request.param


@pytest.fixture
def rng():
    return np.random.default_rng(13)


@pytest.fixture(scope="session")
def torch():
    """PyTorch, for the tests against it: they skip where it is not installed."""
    return pytest.importorskip("torch", reason="PyTorch not installed (apt install python3-torch)")
