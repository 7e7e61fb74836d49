#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (corpus/<target>/seed-* beside <target>_fuzz.cc).

Each target's seeds come from generate() in its <target>_seeds.py beside <target>_fuzz.cc
(src/ops/<op>/), found by that name; this file holds the encoders they share. Each seed
is a byte string in the decode order of its target's LLVMFuzzerTestOneInput: sizes around every
vector length (8 and 16 float lanes, strips of up to 4 vectors), dense and gapped strides, in-place
calls, every flag, the overflowing stride, NULL pointers, and data with the special values of
fuzz_util.h's SpecialFloat (+-0, +-inf, NaN payloads, denormals, FLT_MAX, -FLT_MAX) at the ends and
in the middle of rows. Run it after changing a decoder; past findings (regression-*, domain-*) are
kept as they are.
"""
import importlib.util
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LENGTHS = [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1025]


def u8(v):
    return bytes([v & 0xFF])


def u16(v):
    return struct.pack("<H", v)


def fill(mode, seed, specials=()):
    """FillFloats: mode byte, 4-byte seed, count, then (position, special index) pairs."""
    out = u8(mode) + struct.pack("<I", seed) + u8(len(specials))
    for pos, k in specials:
        out += u16(pos) + u8(k)
    return out


def specials_for(n, i):
    """Up to 15 special values: first/last element, the middle, and a lane boundary."""
    if n == 0:
        return []
    spots = sorted({0, n - 1, n // 2, min(n - 1, 8), min(n - 1, 16)})
    return [(p & 0xFFFF, (i + j) % 20) for j, p in enumerate(spots)]


# Distribution modes (fuzz_util.h): low 3 bits scale, bits 4-5 offset, 0xC0 raw bits.
MODES = [0x00, 0x01, 0x02, 0x10, 0x20, 0x05, 0x07, 0xC0]


def corpus_dir(seeds_file):
    """(target, corpus/<target>) of src/.../<target>_seeds.py, beside the target's <target>_fuzz.cc."""
    d, f = os.path.split(seeds_file)
    target = f[:-len("_seeds.py")]
    if not os.path.exists(os.path.join(d, target + "_fuzz.cc")):
        raise SystemExit(f"make_seeds.py: {seeds_file} has no {target}_fuzz.cc beside it")
    return target, os.path.join(d, "corpus", target)


def write(seeds_file, seeds):
    target, d = corpus_dir(seeds_file)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith("seed-"):
            os.remove(os.path.join(d, f))
    for i, s in enumerate(seeds):
        with open(os.path.join(d, "seed-%03d" % i), "wb") as f:
            f.write(s)
    print(target, len(seeds))


def rows_target(extra_fn, max_cols=2100):
    """The row operators' header: threads, rows, cols, x_stride, in_place[, y_stride], then
    extra_fn(i, cols, rows)'s bytes; one seed per length of LENGTHS up to max_cols, and invalid shapes."""
    seeds = []
    for i, n in enumerate(LENGTHS):
        if n > max_cols:
            continue
        rows = 1 + i % 4
        gap = (i % 3) * 3
        in_place = i % 5 == 0
        s = u8(i % 2) + u16(rows) + u16(n) + u8((gap & 7) | 8 if gap else 0) + u8(0 if in_place else 200)
        if not in_place:
            s += u8(0)
        s += extra_fn(i, n, rows)
        seeds.append(s)
    # Invalid shapes: stride < cols, overflowing stride, NULL pointers.
    seeds.append(u8(0) + u16(3) + u16(40) + u8(205) + u8(200) + u8(0) + extra_fn(1, 40, 3))
    seeds.append(u8(0) + u16(3) + u16(40) + u8(230) + u8(200) + u8(0) + extra_fn(2, 40, 3))
    return seeds


def eps_byte(i):
    return u8(i % 8)


def byte_data(dist, seed):
    """The int8 targets' data: a distribution byte and a 4-byte seed."""
    return u8(dist) + struct.pack("<I", seed)


def seeds_files():
    """Every <target>_seeds.py under src/, in path order."""
    src = os.path.normpath(os.path.join(HERE, "..", "..", "src"))
    found = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith("_seeds.py")]
    return found


def load(seeds_file):
    spec = importlib.util.spec_from_file_location(os.path.basename(seeds_file)[:-len(".py")], seeds_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    # The seed files import their encoders from this module: the one running, not a second copy.
    sys.modules.setdefault("make_seeds", sys.modules[__name__])
    sys.dont_write_bytecode = True  # no __pycache__ beside the operators' sources
    for path in seeds_files():
        write(path, load(path).generate())
