"""Each operator's cases for the tests across operators here (threads, parallel runners, layouts),
taken from its own tests, src/ops/<op>/<op>_test.py, so that adding an operator touches no file in
python/tests. A test file may define

  thread_cases(rng) -> {name: call}: calls whose results must be the same bits for any thread
      count, either parallel runner, and from concurrent Python threads (one of them large
      enough for vlak to split over threads where the operator splits);
  LAYOUT_CASES = {name: fn}: fn(x, out=None) on a float32 array of 2 or 3 axes, the last of even
      length, whose bits must not depend on the layout of x or out (in place included).

The files are imported rather than reached through pytest hooks: the cases stay plain module
attributes, and python/tests alone still runs every operator's. Each is imported under the name
pytest gives it (its file name, its folder first on sys.path), so it loads once when pytest
collects src/ops too."""
import importlib
import pathlib
import sys

OPS_DIR = pathlib.Path(__file__).resolve().parents[2] / "src" / "ops"


def _load():
    modules = []
    for path in sorted(OPS_DIR.glob("*/*_test.py")):
        if str(path.parent) not in sys.path:
            sys.path.insert(0, str(path.parent))
        modules.append(importlib.import_module(path.stem))
    return modules


MODULES = _load()


def _merge(parts):
    merged = {}
    for part in parts:
        twice = merged.keys() & part.keys()
        assert not twice, f"cases named twice: {sorted(twice)}"
        merged.update(part)
    return merged


def thread_cases(rng):
    return _merge(m.thread_cases(rng) for m in MODULES if hasattr(m, "thread_cases"))


def layout_cases():
    return _merge(m.LAYOUT_CASES for m in MODULES if hasattr(m, "LAYOUT_CASES"))
