"""Seeds of quant_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/quant/ beside this file."""
import struct

from make_seeds import MODES, fill, specials_for, u16, u8


def u32(v):
    return struct.pack("<I", v)


def generate():
    seeds = []
    # quantize / dequantize: (op, type byte, k/32, rows)
    for op in (0, 1):
        for i, (tb, kb, rows) in enumerate([(0, 1, 1), (1, 2, 3), (2, 9, 2), (0, 20, 6), (2, 3, 0), (251, 1, 1)]):
            s = u8(i % 2) + u8(op) + u8(tb) + u16(kb) + u8(0) + u8(0) + u16(rows) + u8(0) + u8(0)
            s += fill(MODES[i % 8], i + 1, specials_for(rows * kb * 32, i) if op == 0 and i % 3 == 2 else [])
            s += u32(i + 7)
            seeds.append(s)
    # matmul: (type byte, k/32, m, n, flags, raw scale share)
    shapes = [(0, 1, 1, 1, 0, 0), (1, 2, 1, 7, 1, 0), (2, 3, 3, 9, 0, 2), (0, 4, 16, 5, 1, 0), (1, 9, 17, 4, 0, 1),
              (2, 18, 1, 33, 1, 3), (0, 2, 2, 40, 0, 0), (2, 1, 20, 3, 1, 0), (1, 0, 3, 3, 0, 0)]
    for i, (tb, kb, m, n, flags, raw) in enumerate(shapes):
        s = u8(i % 2) + u8(2) + u8(tb) + u16(kb) + u8(0) + u8(0) + u16(m) + u16(n) + u8(flags) + u8(i & 1) + u8(0) + u8(0)
        s += fill(MODES[i % 8], i + 3, specials_for(m * kb * 32, i) if i % 4 == 3 else []) + u32(i + 11) + u8(raw)
        seeds.append(s)
    seeds.append(u8(0) + u8(2) + u8(0) + u16(2) + u8(0) + u8(0) + u16(2) + u16(3) + u8(0xF3) + u8(0) * 4)  # bad flag
    seeds.append(u8(0) + u8(2) + u8(0) + u16(2) + u8(0) + u8(3) + u16(2) + u16(3) + u8(0) + u8(0) * 4)  # NULL c
    return seeds
