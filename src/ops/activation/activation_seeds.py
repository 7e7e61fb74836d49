"""Seeds of activation_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput
(threads, n, op, in_place, nulls, then FillFloats' bytes).

tests/fuzz/make_seeds.py writes them to corpus/activation/ beside this file."""
from make_seeds import LENGTHS, MODES, fill, specials_for, u8, u16


def generate():
    seeds = []
    for i, n in enumerate(LENGTHS):
        for op in (i % 6, (i + 3) % 6):  # two functions per length, each function at every lane boundary
            k = i * 6 + op
            in_place = 0 if k % 3 == 0 else 200
            seeds.append(u8(k % 2) + u16(n) + u8(op) + u8(in_place) + u8(0)
                         + fill(MODES[k % 8], k + 1, specials_for(n, k)))
    # The tails, wide scales, an unknown op and NULL pointers.
    seeds.append(u8(0) + u16(1000) + u8(2) + u8(200) + u8(0) + fill(0x02, 91))  # gelu on +-30
    seeds.append(u8(0) + u16(1000) + u8(5) + u8(200) + u8(0) + fill(0x22, 92))  # softplus about -300
    seeds.append(u8(0) + u16(16) + u8(250) + u8(200) + u8(0) + fill(0, 93))
    seeds.append(u8(0) + u16(16) + u8(4) + u8(200) + u8(1) + fill(0, 94))
    seeds.append(u8(0) + u16(16) + u8(4) + u8(200) + u8(2) + fill(0, 95))
    return seeds
