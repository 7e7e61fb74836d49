"""Seeds of softmax_i8_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/softmax_i8/ beside this file."""
from make_seeds import LENGTHS, byte_data, u16, u8


def generate():
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
