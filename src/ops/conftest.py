"""The operators' Python tests (<op>/<op>_test.py) share python/tests' helpers and fixtures. pytest
loads this file before them: it puts python/tests first on sys.path, so they import its modules by
name as the files there do, and imports its fixtures here, where pytest looks for them."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python" / "tests"))

from vlak_fixtures import restore_globals, rng, target, torch  # noqa: E402,F401
