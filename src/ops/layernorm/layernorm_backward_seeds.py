"""Seeds of layernorm_backward_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/layernorm_backward/ beside this file."""
from make_seeds import LENGTHS, MODES, fill, specials_for, u16, u8


def generate():
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
