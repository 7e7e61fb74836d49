"""Seeds of resize_bilinear_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/resize_bilinear/ beside this file."""
from make_seeds import byte_data, u16, u8


def generate():
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
