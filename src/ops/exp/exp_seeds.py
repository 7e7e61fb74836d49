"""Seeds of exp_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/exp/ beside this file."""
from make_seeds import LENGTHS, fill, specials_for, u16, u8


def generate():
    seeds = []
    for i, n in enumerate(LENGTHS + [4000]):
        for variant in range(6):
            if (i + variant) % 3:
                continue
            seeds.append(u16(n) + u8(variant) + u8(0 if i % 4 == 0 else 200) + u8(0) +
                         fill([0x00, 0x02, 0x03, 0xC0, 0x20][i % 5], i + variant, specials_for(n, i)))
    # Every special value through every variant, and the domain edges.
    for variant in range(6):
        seeds.append(u16(20) + u8(variant) + u8(200) + u8(0) + fill(0, 1, [(k, k) for k in range(15)]))
        seeds.append(u16(20) + u8(variant) + u8(200) + u8(0) + fill(0, 1, [(k, 5 + k) for k in range(15)]))
    seeds.append(u16(8) + u8(0xFF) + u8(200) + u8(0) + fill(0, 1))  # unknown variant
    return seeds
