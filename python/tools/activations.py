"""vlak.activation and vlak.glu against PyTorch 2.x and onnxruntime (MLAS), at one thread.

Every implementation of one case (a function at one size) runs in this one process on the same
float32 arrays, its output written into a preallocated array (torch's out= forms, onnxruntime's
IOBinding, vlak's out=), so that no peer pays for allocating and faulting in a fresh 64 MB output
at 16M floats. Their samples are interleaved (vlak, torch, ort, vlak, torch, ort, ...), so other
jobs on the machine reach all alike. A sample is the calling thread's CPU time (time.thread_time:
a loaded machine's waiting for a core is not in it) of enough back-to-back calls to last a few
milliseconds, divided by their number; each call is what a Python caller pays, its dispatch
included. vlak runs in both accuracy tiers, the default (within 2 ULP; glu 3) and
accuracy="fast" (within 4 ULP; glu 5). Each peer is compared at equal accuracy: with the cheaper of the
two tiers whose largest relative error against the float64 formula, on this case's data, is no
larger than the peer's (the default when neither is), and the row names that tier. The table gives
the medians per call and the ratio peer / vlak (above 1: vlak is faster) against vlak's goals:
1.2x PyTorch and 1.2x onnxruntime, and for glu 1.3x vlak's own two calls (vlak.activation into y,
then numpy y *= up).

Peers, per function (torch with torch.set_num_threads(1); onnxruntime with intra- and inter-op
threads 1, one-node models built in memory with the onnx package's helper):
  sigmoid    torch.sigmoid               ort Sigmoid (MlasComputeLogistic)
  tanh       torch.tanh                  ort Tanh (MlasComputeTanh)
  gelu       F.gelu(approximate='none')  ort Gelu-20 (MlasComputeErf), com.microsoft Gelu (the same kernel)
  gelu_tanh  F.gelu(approximate='tanh')  ort Gelu-20 approximate=tanh (MlasComputeTanh), com.microsoft FastGelu
  silu       F.silu                      ort com.microsoft QuickGelu alpha=1 (x * sigmoid(x)), Sigmoid then Mul
  softplus   F.softplus                  ort Softplus (ORT's own element-wise loop, not an MLAS kernel)
  glu-<fn>   torch act(gate) into y, then y *= up; ort the function's node, then Mul; vlak's two calls
Not part of `make test`: PyTorch >= 2.0 and onnxruntime come from PyPI, e.g.

    python3 -m venv build/peer-venv && build/peer-venv/bin/pip install torch onnxruntime onnx numpy
    TORCH_PYTHON=build/peer-venv/bin/python scripts/bench activations [--sizes 4096,16M] [--samples 15]

Either peer may be missing (its rows are left out, and the header says so); with neither the tool
exits with status 2.
"""
import argparse
import contextlib
import math
import os
import statistics
import sys
import time

import numpy as np

import vlak

FUNCTIONS = ["sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"]
GLU_FUNCTIONS = ["silu", "gelu", "gelu_tanh"]  # SwiGLU and the two GeGLUs
GOALS = {"torch": 1.2, "ort": 1.2, "vlak-2call": 1.3}
TIERS = {"vlak": "accurate", "vlak-fast": "fast"}  # row name -> accuracy= argument
TARGET_SAMPLE_S = 0.004  # a sample's length: thread_time's and the call loop's overhead well below it


def import_torch():
    """(torch, None) or (None, why not)."""
    try:
        import torch
    except ImportError as e:
        return None, f"torch: missing ({e}; pip install torch >= 2.0 in a virtual environment, see the docstring)"
    major = int(torch.__version__.split(".")[0])
    if major < 2:
        return None, f"torch: {torch.__version__} is too old (this compares against PyTorch 2.x)"
    return torch, None


def import_ort():
    """(onnxruntime, onnx helper module, None) or (None, None, why not)."""
    try:
        import onnxruntime as ort
    except ImportError as e:
        return None, None, f"onnxruntime: missing ({e}; pip install onnxruntime onnx)"
    try:
        import onnx
        from onnx import helper
    except ImportError as e:
        return None, None, f"onnxruntime: its models need the onnx package to be built in memory, missing ({e}; pip install onnx)"
    return ort, (onnx, helper), None


def parse_size(s):
    s = s.strip().upper()
    scale = {"K": 1024, "M": 1024 * 1024}.get(s[-1:], 1)
    return int(s[:-1] if scale > 1 else s) * scale


def size_text(n):
    return f"{n // (1024 * 1024)}M" if n % (1024 * 1024) == 0 else (f"{n // 1024}K" if n % 1024 == 0 else str(n))


# ---- peers -------------------------------------------------------------------------------------

def torch_activation(torch, fn, x, y):
    """A call writing fn(x) into y (torch tensors sharing the numpy arrays)."""
    nn = torch._C._nn  # the out= forms of torch.nn.functional's gelu, silu, softplus
    if fn == "sigmoid":
        return lambda: torch.sigmoid(x, out=y)
    if fn == "tanh":
        return lambda: torch.tanh(x, out=y)
    if fn == "gelu":
        return lambda: nn.gelu(x, approximate="none", out=y)
    if fn == "gelu_tanh":
        return lambda: nn.gelu(x, approximate="tanh", out=y)
    if fn == "silu":
        return lambda: nn.silu(x, out=y)
    if fn == "softplus":
        return lambda: nn.softplus(x, 1, 20, out=y)
    raise ValueError(fn)


def ort_nodes(fn):
    """[(label, [(op, domain, attrs)])]: onnxruntime's ways of computing fn, one node chain each."""
    ms = "com.microsoft"
    return {
        "sigmoid": [("Sigmoid", [("Sigmoid", "", {})])],
        "tanh": [("Tanh", [("Tanh", "", {})])],
        "gelu": [("Gelu-20", [("Gelu", "", {"approximate": "none"})]), ("ms.Gelu", [("Gelu", ms, {})])],
        "gelu_tanh": [("Gelu-20 tanh", [("Gelu", "", {"approximate": "tanh"})]), ("ms.FastGelu", [("FastGelu", ms, {})])],
        "silu": [("ms.QuickGelu a=1", [("QuickGelu", ms, {"alpha": 1.0})]), ("Sigmoid,Mul", [("Sigmoid", "", {}), ("Mul", "", {})])],
        "softplus": [("Softplus", [("Softplus", "", {})])],
    }[fn]


def ort_session(ort, onnx_mod, chain, glu, n):
    """An InferenceSession of the chain (Mul's second input is x itself, silu's x * sigmoid(x)),
    times `up` when glu; one thread."""
    onnx, helper = onnx_mod
    f32 = onnx.TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("x", f32, [n])]
    if glu:
        inputs.append(helper.make_tensor_value_info("up", f32, [n]))
    nodes, prev = [], "x"
    for i, (op, domain, attrs) in enumerate(chain):
        out = f"t{i}"
        ins = [prev, "x"] if op == "Mul" else [prev]
        nodes.append(helper.make_node(op, ins, [out], domain=domain, **attrs))
        prev = out
    if glu:
        nodes.append(helper.make_node("Mul", [prev, "up"], ["y"]))
    else:
        nodes[-1].output[0] = "y"
    graph = helper.make_graph(nodes, "act", inputs, [helper.make_tensor_value_info("y", f32, [n])])
    domains = {d for _, d, _ in chain if d}
    opsets = [helper.make_opsetid("", 20)] + [helper.make_opsetid(d, 1) for d in sorted(domains)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=9)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def ort_call(ort, sess, arrays, y):
    """A call writing the session's output into y through an IOBinding (no output allocation)."""
    io = sess.io_binding()
    for name, a in arrays.items():
        io.bind_cpu_input(name, a)
    io.bind_output("y", "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    return lambda: sess.run_with_iobinding(io)


# ---- accuracy ----------------------------------------------------------------------------------

REF_ELEMENTS = 65536  # the float64 reference on the first this many elements (gelu's erfc is math.erfc per element)


def reference(fn, x):
    """fn(x) in float64 (vlak.h's formulas), independent of every implementation measured."""
    x = x.astype(np.float64)
    if fn == "sigmoid":
        return 1.0 / (1.0 + np.exp(-x))
    if fn == "tanh":
        return np.tanh(x)
    if fn == "gelu":
        return 0.5 * x * np.frompyfunc(math.erfc, 1, 1)(-x / math.sqrt(2.0)).astype(np.float64)
    if fn == "gelu_tanh":
        # 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)): no cancellation where tanh(u) is near -1
        return x / (1.0 + np.exp(-2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    if fn == "silu":
        return x / (1.0 + np.exp(-x))
    if fn == "softplus":
        return np.logaddexp(0.0, x)
    raise ValueError(fn)


def max_rel(y, ref):
    """max |y - ref| / |ref| (|ref| below FLT_MIN counted as FLT_MIN): the error where the value is
    tiny (sigmoid's and gelu's negative tails) shows, as vlak.h's ULP bound sees it."""
    y = y[: ref.size].astype(np.float64)
    return float(np.max(np.abs(y - ref) / np.maximum(np.abs(ref), np.finfo(np.float32).tiny)))


# ---- timing ------------------------------------------------------------------------------------

def per_call_repeats(f):
    """Calls per sample: enough for TARGET_SAMPLE_S of CPU time."""
    t0 = time.thread_time()
    f()
    t = max(time.thread_time() - t0, 1e-6)
    return max(1, int(TARGET_SAMPLE_S / t))


def interleaved(calls, samples):
    """{name: [seconds per call]}: samples of each call in turn."""
    for f in calls.values():  # warm-up: caches, ORT's arena, torch's dispatch
        f()
        f()
    reps = {name: per_call_repeats(f) for name, f in calls.items()}
    out = {name: [] for name in calls}
    for _ in range(samples):
        for name, f in calls.items():
            r = reps[name]
            t0 = time.thread_time()
            for _ in range(r):
                f()
            out[name].append((time.thread_time() - t0) / r)
    return out


def us(s):
    return f"{s * 1e6:10.1f}us" if s < 1e-2 else f"{s * 1e3:10.2f}ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="4096,16M", help="elements per call, e.g. 4096,16M")
    ap.add_argument("--samples", type=int, default=15, help="interleaved samples per implementation")
    ap.add_argument("--functions", default=",".join(FUNCTIONS), help="activations to run")
    ap.add_argument("--glu", default=",".join(GLU_FUNCTIONS), help="glu functions to run ('' for none)")
    args = ap.parse_args()
    torch, torch_why = import_torch()
    ort, onnx_mod, ort_why = import_ort()
    missing = [w for w in (torch_why, ort_why) if w]
    for w in missing:
        print(w)
    if torch is None and ort is None:
        print("activations.py: no peer to compare against (needs PyTorch >= 2.0 or onnxruntime)", file=sys.stderr)
        return 2
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    vlak.set_num_threads(1)
    head = [f"vlak target {vlak.get_target()}"]
    if torch is not None:
        torch.set_num_threads(1)
        head.append(f"torch {torch.__version__} (cpu capability {torch.backends.cpu.get_cpu_capability()})")
    if ort is not None:
        head.append(f"onnxruntime {ort.__version__}")
    print(", ".join(head) + f"; 1 thread, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    print("per-call medians of thread CPU time; ratio = peer / vlak (> 1: vlak faster), vlak in the cheaper")
    print("tier (column 'tier') whose max rel is no larger than the peer's; goal: 1.2x PyTorch and onnxruntime")
    print("max rel: max |y - y64| / |y64| over the first 64K elements, y64 the float64 formula (that vlak")
    print("tier's in parentheses); max abs: the peer's max |y - y64| there")
    print(f"{'case':22} {'peer':24} {'peer med':>12} {'tier':>8} {'vlak med':>12} {'ratio':>7} {'goal':>5}  {'max rel':>8} "
          f"{'(vlak)':>9} {'max abs':>8}")
    rng = np.random.default_rng(1)
    cases = [(fn, False) for fn in args.functions.split(",") if fn] + [(fn, True) for fn in args.glu.split(",") if fn]
    short = []
    for n in sizes:
        x = rng.uniform(-10, 10, n).astype(np.float32)  # the lab's range (XNNPACK's tanh and gelu tests)
        up = rng.uniform(-2, 2, n).astype(np.float32)
        for fn, glu in cases:
            ys = {}

            def out(name):
                ys[name] = np.empty(n, np.float32)
                return ys[name]

            calls = {}
            for tier, accuracy in TIERS.items():
                yv = out(tier)
                if glu:
                    calls[tier] = lambda y=yv, a=accuracy: vlak.glu(x, up, fn, out=y, accuracy=a)
                else:
                    calls[tier] = lambda y=yv, a=accuracy: vlak.activation(x, fn, out=y, accuracy=a)
            if glu:
                y2 = out("vlak-2call")

                def two_calls(y=y2):
                    vlak.activation(x, fn, out=y)
                    np.multiply(y, up, out=y)

                calls["vlak-2call"] = two_calls
            if torch is not None:
                tx, tu, ty = torch.from_numpy(x), torch.from_numpy(up), torch.from_numpy(out("torch"))
                act = torch_activation(torch, fn, tx, ty)
                if glu:
                    def torch_glu(act=act, ty=ty, tu=tu):
                        act()
                        ty.mul_(tu)

                    calls["torch"] = torch_glu
                else:
                    calls["torch"] = act
            if ort is not None:
                for label, chain in ort_nodes(fn):
                    name = "ort " + label
                    sess = ort_session(ort, onnx_mod, chain, glu, n)
                    calls[name] = ort_call(ort, sess, {"x": x, "up": up} if glu else {"x": x}, out(name))
            with torch.inference_mode() if torch is not None else contextlib.nullcontext():
                times = interleaved(calls, args.samples)
            m = min(n, REF_ELEMENTS)
            ref = reference(fn, x[:m]) * (up[:m].astype(np.float64) if glu else 1.0)
            tiers = {t: (statistics.median(times[t]), max_rel(ys[t], ref)) for t in TIERS}
            if np.array_equal(ys["vlak"], ys["vlak-fast"]):  # one kernel for both tiers (softplus)
                del tiers["vlak-fast"]
            case = f"{'glu-' if glu else ''}{fn} {size_text(n)}"
            for name, ts in times.items():
                if name in TIERS:
                    continue
                pm = statistics.median(ts)
                goal = GOALS["torch" if name == "torch" else "vlak-2call" if name == "vlak-2call" else "ort"]
                rel = max_rel(ys[name], ref)
                absdiff = float(np.max(np.abs(ys[name][:m].astype(np.float64) - ref)))
                # The cheapest tier at least as accurate as the peer here; the default if none is.
                fits = [t for t, (_, trel) in tiers.items() if trel <= rel] or ["vlak"]
                tier = min(fits, key=lambda t: tiers[t][0])
                vm, vrel = tiers[tier]
                ratio = pm / vm
                mark = "" if ratio >= goal else " <"
                if ratio < goal:
                    short.append(f"{case} vs {name}: {ratio:.2f}x ({TIERS[tier]}; goal {goal:g}x)")
                print(f"{case:22} {name:24} {us(pm)} {TIERS[tier]:>8} {us(vm)} {ratio:6.2f}x {goal:4g}x  {rel:8.1e} "
                      f"({vrel:7.1e}) {absdiff:8.1e}{mark}")
    print(f"short of the goal ({len(short)}): " + ("; ".join(short) if short else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
