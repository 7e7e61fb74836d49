"""Seeds of rope_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/rope/ beside this file."""
from make_seeds import MODES, fill, specials_for, u16, u8


def generate():
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
