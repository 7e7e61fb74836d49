"""The peer-comparison tools (python/tools) where their peers are missing: they are not part of
`make test` (PyTorch 2.x and onnxruntime come from PyPI), so here only their refusal is checked,
with both peers made unimportable by stand-in packages that raise ImportError."""
import os
import subprocess
import sys

import vlak

TOOLS = os.path.join(os.path.dirname(__file__), "..", "tools")


def run_without(tmp_path, blocked, tool, *args):
    for name in blocked:
        pkg = tmp_path / name
        pkg.mkdir()
        (pkg / "__init__.py").write_text(f"raise ImportError('{name} blocked by the test')\n")
    vlak_dir = os.path.dirname(os.path.dirname(os.path.abspath(vlak.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), vlak_dir]), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, os.path.join(TOOLS, tool), *args], env=env, capture_output=True,
                          text=True, timeout=120)


def test_activations_without_torch_or_onnxruntime(tmp_path):
    r = run_without(tmp_path, ["torch", "onnxruntime"], "activations.py", "--sizes", "64")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "torch: missing (torch blocked by the test" in r.stdout
    assert "onnxruntime: missing (onnxruntime blocked by the test" in r.stdout
    assert "no peer to compare against" in r.stderr
    assert "ratio" not in r.stdout  # no table without a peer
