"""Seeds of matmul_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/matmul/ beside this file."""
from make_seeds import MODES, fill, specials_for, u16, u8


def generate():
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
