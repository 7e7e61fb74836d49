"""Seeds of rope_tables_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/rope_tables/ beside this file."""
from make_seeds import u16, u8


def generate():
    seeds = []
    for i, d in enumerate([2, 4, 8, 16, 64, 128, 256, 15, 0]):
        for b in range(10):
            if (i + b) % 3 == 0:
                seeds.append(u16(1 + 37 * i) + u16(d) + u8(b) + u8(i % 4) + u8(0))
    seeds.append(u16(5) + u16(16) + u8(0) + u8(239) + u8(0))
    return seeds
