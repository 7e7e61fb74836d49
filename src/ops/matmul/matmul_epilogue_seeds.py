"""Seeds of matmul_epilogue_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/matmul_epilogue/ beside this file."""
from make_seeds import MODES, fill, specials_for, u16, u8


def generate():
    seeds = []
    shapes = [(1, 1, 1), (3, 5, 7), (6, 16, 9), (7, 17, 33), (17, 64, 20), (2, 129, 0), (20, 70, 65), (16, 33, 64)]
    for i, (m, n, k) in enumerate(shapes):
        for act in [0, 1, 2, 3, 4, 5, 0x80 | 0, 0x80 | 4]:
            ep = [3, 1, 2, 0xFF][(i + act) % 4]  # bias+act, bias, act, NULL epilogue
            s = u8(i % 2) + u16(m) + u16(n) + u16(k) + u8((i + act) & 3) + u8(ep) + u8(act)
            s += u16(i % 3) + u16(0) + u16(1)
            s += fill(MODES[(i + act) % 8], i + 1, specials_for(m * k, i)) + fill(0, i + 2) + fill(0, i + 3)
            s += fill(MODES[act % 8], i + 4, specials_for(n, i + act))
            seeds.append(s)
    seeds.append(u8(0) + u16(3) + u16(4) + u16(5) + u8(0) + u8(0xFE) + u8(2))  # unknown epilogue flag
    seeds.append(u8(0) + u16(3) + u16(4) + u16(5) + u8(0) + u8(3) + u8(6))  # not an op
    seeds.append(u8(0) + u16(0) + u16(4) + u16(5) + u8(0) + u8(3) + u8(7))  # not an op, empty call
    return seeds
