"""Seeds of warp_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/warp/ beside this file."""
from make_seeds import LENGTHS, byte_data, u16, u8


def generate():
    seeds = []
    for i, w in enumerate(LENGTHS + [1500]):
        seeds.append(u8(i % 2) + u16(1 + i % 3) + u16(1 + i % 4) + u16(w) + u8(0) + u8(0) +
                     byte_data([0, 100, 200, 150][i % 4], i + 1))
    seeds.append(u8(0) + u16(2) + u16(2) + u16(8) + u8(0xEE) + u8(0) + byte_data(0, 1))  # overflow
    seeds.append(u8(0) + u16(2) + u16(2) + u16(8) + u8(0) + u8(2) + byte_data(0, 1))  # NULL offsets
    return seeds
