"""vlak: vector-length-agnostic kernels for AI inference, over NumPy float32 arrays.

The float operators take float32 ndarrays (any shape and strides; the row-wise operators work on the
last axis, softmax on any), writes into ``out=`` when given, releases the GIL while the kernel
runs and raises TypeError (dtype) or ValueError (shape, arguments) with vlak's status text.
Accuracy bounds against float64 are in each docstring (and in include/vlak/vlak.h).
The integer operators (resize_bilinear, warp, correlation: int8 / uint8 images; softmax_i8:
quantised softmax) take their dtypes exactly (no conversion) and are bit-exact integer definitions.

Threads: set_num_threads sets how many; set_parallel_runner which ones. Beside PyTorch, vlak runs
its parallel work on the GNU OpenMP runtime (libgomp) torch's CPU operators use, so the two share
one set of worker threads: that is the default ("auto") when a libgomp is loaded at import. If
torch is imported after vlak, call vlak.set_parallel_runner("auto") again (or import torch first).
"""
# Every public name of the compiled module, so a new binding needs no line here (its types go in
# __init__.pyi, which type checkers read instead of this file).
from . import _vlak
from ._vlak import *  # noqa: F401,F403
from ._vlak import __version__  # noqa: F401

__all__ = [name for name in dir(_vlak) if not name.startswith("_")]
