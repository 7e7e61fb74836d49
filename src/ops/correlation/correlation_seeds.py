"""Seeds of correlation_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/correlation/ beside this file."""
from make_seeds import LENGTHS, byte_data, u16, u8


def generate():
    seeds = []
    for i, w in enumerate(LENGTHS[:22]):
        for flags in (0, 1):
            d = [1, 5, 9, 12, w + 1][i % 5] if w + 1 <= 12 or i % 5 != 4 else 12
            seeds.append(u8(i % 2) + u16(d) + u16([1, 3, 58, 0, 70][i % 5]) + u16(1 + i % 3) + u16(w) +
                         u8([0, 7, 10, 15, 31][i % 5]) + u8(flags) + u8(0) + u8(0) + byte_data([0, 130, 200][i % 3], i))
    seeds.append(u8(0) + u16(2) + u16(3) + u16(2) + u16(8) + u8(245) + u8(0) + u8(0) + u8(0))  # shift > 31
    seeds.append(u8(0) + u16(2) + u16(3) + u16(2) + u16(8) + u8(3) + u8(0) + u8(0xEE) + u8(0))  # overflow
    return seeds
