#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (corpus/<target>/seed-* beside <target>_fuzz.cc).

Each seed is a byte string in the decode order of its target's LLVMFuzzerTestOneInput: sizes around
every vector length (8 and 16 float lanes, strips of up to 4 vectors), dense and gapped strides,
in-place calls, every flag, the overflowing stride, NULL pointers, and data with the special values
of fuzz_util.h's SpecialFloat (+-0, +-inf, NaN payloads, denormals, FLT_MAX, -FLT_MAX) at the ends
and in the middle of rows. Run it after changing a decoder; past findings (regression-*, domain-*)
are kept as they are.
"""
import os
import struct

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


def corpus_dir(target):
    """corpus/<target> next to the target's source, src/ops/<op>/<target>_fuzz.cc or src/math/."""
    src = os.path.join(HERE, "..", "..", "src")
    for root, _, files in os.walk(src):
        if target + "_fuzz.cc" in files:
            return os.path.join(root, "corpus", target)
    raise SystemExit(f"make_seeds.py: no {target}_fuzz.cc under src/")


def write(target, seeds):
    d = corpus_dir(target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith("seed-"):
            os.remove(os.path.join(d, f))
    for i, s in enumerate(seeds):
        with open(os.path.join(d, "seed-%03d" % i), "wb") as f:
            f.write(s)
    print(target, len(seeds))


def rows_target(extra_fn, max_cols=2100):
    """softmax / layernorm / rmsnorm: threads, rows, cols, x_stride, in_place[, y_stride], extra."""
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


def softmax_seeds():
    def extra(i, n, rows):
        flags = [0x00, 0x01, 0x02, 0x03, 0x10, 0x11, 0x20, 0x21, 0x30][i % 9]
        return u8(flags) + u8(0) + fill(MODES[i % 8], i + 1, specials_for(n * rows, i))
    s = rows_target(extra)
    s.append(u8(0) + u16(2) + u16(64) + u8(0) + u8(200) + u8(0) + u8(0xFF) + u8(3) + u8(0) + fill(0, 1))  # unknown flag
    s.append(u8(0) + u16(2) + u16(64) + u8(0) + u8(200) + u8(0) + u8(0) + u8(1) + fill(0, 1))  # NULL x
    return s


def eps_byte(i):
    return u8(i % 8)


def layernorm_seeds():
    def extra(i, n, rows):
        return eps_byte(i) + u8(i % 16) + u8(0) + fill(MODES[i % 8], i + 1, specials_for(n * rows, i)) + \
            fill(0, i + 7) + fill(0x01, i + 9)
    return rows_target(extra)


def rmsnorm_seeds():
    def extra(i, n, rows):
        return eps_byte(i) + u8(i % 2) + u8(0) + fill(MODES[i % 8], i + 1, specials_for(n * rows, i)) + fill(0, i + 7)
    return rows_target(extra)


def layernorm_backward_seeds():
    seeds = []
    for i, n in enumerate(LENGTHS):
        rows = 1 + i % 5
        opt = [0x07, 0x00, 0x03, 0x05, 0x77][i % 5]
        s = u8(i % 2) + u16(rows) + u16(n) + u8(0 if i % 3 else 9) + u8(opt) + u8(i % 3) + u8(0)
        s += fill(MODES[i % 8], i + 1, specials_for(n * rows, i)) + fill(0, i + 3) + fill(0, i + 5)
        s += fill(0x10, i + 11) + fill(0x00, i + 13)
        seeds.append(s)
    seeds.append(u8(0) + u16(3) + u16(40) + u8(0) + u8(7) + u8(0) + u8(4) + fill(0, 1))  # NULL rstd
    return seeds


def exp_seeds():
    seeds = []
    for i, n in enumerate(LENGTHS + [4000]):
        for variant in range(6):
            if (i + variant) % 3:
                continue
            seeds.append(u16(n) + u8(variant) + u8(0 if i % 4 == 0 else 200) + u8(0) +
                         fill([0x00, 0x02, 0x03, 0xC0, 0x20][i % 5], i + variant, specials_for(n, i)))
    # Every special value through every variant, and the domain edges.
    for variant in range(6):
        seeds.append(u16(20) + u8(variant) + u8(200) + u8(0) + fill(0, 1, [(k, k) for k in range(15)]))
        seeds.append(u16(20) + u8(variant) + u8(200) + u8(0) + fill(0, 1, [(k, 5 + k) for k in range(15)]))
    seeds.append(u16(8) + u8(0xFF) + u8(200) + u8(0) + fill(0, 1))  # unknown variant
    return seeds


def rope_seeds():
    seeds = []
    dims = [2, 4, 6, 8, 14, 16, 18, 30, 32, 34, 62, 64, 66, 126, 128, 130, 256]
    for i, d in enumerate(dims):
        s = u8(i % 2) + u16(1 + i % 4) + u16(1 + i % 3) + u16(d) + u8(i % 4) + u8(i % 2) + u8(0 if i % 4 else 200)
        s += u8(0) + fill(MODES[i % 8], i + 1, specials_for(d, i)) + fill(0, i + 3) + fill(0, i + 5)
        seeds.append(s)
    seeds.append(u8(0) + u16(2) + u16(2) + u16(15) + u8(0) + u8(0) + u8(200) + u8(0))  # odd head_dim
    seeds.append(u8(0) + u16(3) + u16(2) + u16(16) + u8(239) + u8(0) + u8(200) + u8(0))  # overflowing table
    seeds.append(u8(0) + u16(1) + u16(2) + u16(16) + u8(239) + u8(0) + u8(200) + u8(0) + fill(0, 1))  # 1 position
    return seeds


def rope_tables_seeds():
    seeds = []
    for i, d in enumerate([2, 4, 8, 16, 64, 128, 256, 15, 0]):
        for b in range(10):
            if (i + b) % 3 == 0:
                seeds.append(u16(1 + 37 * i) + u16(d) + u8(b) + u8(i % 4) + u8(0))
    seeds.append(u16(5) + u16(16) + u8(0) + u8(239) + u8(0))
    return seeds


def matmul_seeds():
    seeds = []
    shapes = [(1, 1, 1), (3, 5, 7), (6, 16, 9), (7, 17, 33), (6, 64, 64), (13, 65, 1), (2, 200, 130),
              (40, 15, 31), (1, 128, 0), (5, 3, 0), (12, 48, 100), (6, 8, 8), (7, 9, 16),
              # k 128-130: a long k on a small C (the fuzz target maps it to 4090-12294)
              (1, 3, 128), (4, 16, 128)]
    for i, (m, n, k) in enumerate(shapes):
        for flags in range(4):
            s = u8(i % 2) + u16(m) + u16(n) + u16(k) + u8(flags) + u8(0) + u8(9 if i % 3 == 1 else 0) + u8(0) + u8(0)
            s += fill(MODES[(i + flags) % 8], i + 1, specials_for(m * k, i)) + fill(0, i + 2) + fill(0, i + 3)
            seeds.append(s)
    seeds.append(u8(0) + u16(3) + u16(4) + u16(5) + u8(0xFA) + u8(0) * 4)  # unknown flag
    seeds.append(u8(0) + u16(3) + u16(4) + u16(5) + u8(0) + u8(230) + u8(0) + u8(0) + u8(0))  # overflowing lda
    seeds.append(u8(0) + u16(3) + u16(4) + u16(5) + u8(0) + u8(0) + u8(0) + u8(0) + u8(3))  # NULL c
    return seeds


def byte_data(dist, seed):
    """The int8 targets' data: a distribution byte and a 4-byte seed."""
    return u8(dist) + struct.pack("<I", seed)


def softmax_i8_seeds():
    seeds = []
    for i, n in enumerate(LENGTHS + [4000]):
        for form in (0, 1):
            rows = 1 + (i + form) % 4
            in_place = i % 5 == 0
            s = u8(form) + u8(i % 2) + u16(rows) + u16(n) + u8(0 if i % 3 else 9) + u8(0 if in_place else 200)
            if not in_place:
                s += u8(0)
            s += u8(i % 16) + u8((i + form) % 2) + u8(0) + byte_data([0, 130, 200][i % 3], i + 1)
            seeds.append(s)
    seeds.append(u8(0) + u8(0) + u16(2) + u16(8) + u8(0) + u8(200) + u8(0) + u8(9) + u8(0) + u8(0))  # scale 0
    seeds.append(u8(1) + u8(0) + u16(2) + u16(8) + u8(0) + u8(200) + u8(0) + u8(0) + u8(0xFB) + u8(0))  # bad flag
    seeds.append(u8(1) + u8(0) + u16(3) + u16(8) + u8(230) + u8(200) + u8(0) + u8(0) + u8(0) + u8(0))  # overflow
    return seeds


def resize_seeds():
    seeds = []
    dims = [(1, 1), (1, 7), (2, 16), (3, 17), (5, 31), (4, 32), (2, 33), (6, 63), (3, 64), (2, 65), (7, 127),
            (2, 129), (3, 255), (1, 257)]
    for i, (h, w) in enumerate(dims):
        for form in (0, 1):
            two_x = (i + form) % 3 != 2
            s = u8(form) + u8(i % 2) + u16(1 + i % 3) + u16(h) + u16(w) + u8(0)
            s += u8(0 if two_x else 200)
            if not two_x:
                s += u16(1 + (3 * h) // 2) + u16(max(1, (5 * w) // 7))
            s += u8((i + form) % 2) + u8(0) + byte_data([0, 140, 200][i % 3], i + 1)
            seeds.append(s)
    seeds.append(u8(0) + u8(0) + u16(1) + u16(4) + u16(4) + u8(0xEE) + u8(0) + u8(0) + u8(0))  # in_h >= 2^31
    seeds.append(u8(1) + u8(0) + u16(2) + u16(0) + u16(4) + u8(0) + u8(0) + u8(0) + u8(0))  # in_h == 0
    return seeds


def warp_seeds():
    seeds = []
    for i, w in enumerate(LENGTHS + [1500]):
        seeds.append(u8(i % 2) + u16(1 + i % 3) + u16(1 + i % 4) + u16(w) + u8(0) + u8(0) +
                     byte_data([0, 100, 200, 150][i % 4], i + 1))
    seeds.append(u8(0) + u16(2) + u16(2) + u16(8) + u8(0xEE) + u8(0) + byte_data(0, 1))  # overflow
    seeds.append(u8(0) + u16(2) + u16(2) + u16(8) + u8(0) + u8(2) + byte_data(0, 1))  # NULL offsets
    return seeds


def correlation_seeds():
    seeds = []
    for i, w in enumerate(LENGTHS[:22]):
        for flags in (0, 1):
            d = [1, 5, 9, 12, w + 1][i % 5] if w + 1 <= 12 or i % 5 != 4 else 12
            seeds.append(u8(i % 2) + u16(d) + u16([1, 3, 58, 0, 70][i % 5]) + u16(1 + i % 3) + u16(w) +
                         u8([0, 7, 10, 15, 31][i % 5]) + u8(flags) + u8(0) + u8(0) + byte_data([0, 130, 200][i % 3], i))
    seeds.append(u8(0) + u16(2) + u16(3) + u16(2) + u16(8) + u8(245) + u8(0) + u8(0) + u8(0))  # shift > 31
    seeds.append(u8(0) + u16(2) + u16(3) + u16(2) + u16(8) + u8(3) + u8(0) + u8(0xEE) + u8(0))  # overflow
    return seeds


if __name__ == "__main__":
    write("softmax", softmax_seeds())
    write("exp", exp_seeds())
    write("layernorm", layernorm_seeds())
    write("layernorm_backward", layernorm_backward_seeds())
    write("rmsnorm", rmsnorm_seeds())
    write("rope", rope_seeds())
    write("rope_tables", rope_tables_seeds())
    write("matmul", matmul_seeds())
    write("softmax_i8", softmax_i8_seeds())
    write("resize_bilinear", resize_seeds())
    write("warp", warp_seeds())
    write("correlation", correlation_seeds())
