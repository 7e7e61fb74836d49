"""Seeds of glu_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput
(threads, rows, cols, gate_stride, up_stride, where y is [, y_stride], op, nulls, gate's and up's
FillFloats bytes).

tests/fuzz/make_seeds.py writes them to corpus/glu/ beside this file."""
from make_seeds import LENGTHS, MODES, fill, specials_for, u8, u16


def generate():
    seeds = []
    for i, n in enumerate(LENGTHS):
        if n > 2100:
            continue
        rows = 1 + i % 4
        gap = (i % 3) * 3
        stride = u8((gap & 7) | 8 if gap else 0)
        place = [0, 50, 110, 120][i % 4]  # y on gate, on up, own, own
        s = u8(i % 2) + u16(rows) + u16(n) + stride + stride + u8(place)
        if place >= 104:
            s += u8(0)
        s += u8([4, 2, 3, 0][i % 4]) + u8(0)
        s += fill(MODES[i % 8], i + 1, specials_for(n * rows, i)) + fill(0x01, i + 7)
        seeds.append(s)
    # Invalid: stride < cols, overflowing stride, y on gate with another stride, NULL, unknown op.
    tail = fill(0, 5) + fill(0, 6)
    seeds.append(u8(0) + u16(3) + u16(40) + u8(205) + u8(0) + u8(120) + u8(0) + u8(4) + u8(0) + tail)
    seeds.append(u8(0) + u16(3) + u16(40) + u8(0) + u8(230) + u8(120) + u8(0) + u8(4) + u8(0) + tail)
    seeds.append(u8(0) + u16(3) + u16(40) + u8(0) + u8(0) + u8(100) + u8(4) + u8(0) + tail)
    seeds.append(u8(0) + u16(3) + u16(40) + u8(0) + u8(0) + u8(120) + u8(0) + u8(4) + u8(2) + tail)
    seeds.append(u8(0) + u16(3) + u16(40) + u8(0) + u8(0) + u8(120) + u8(0) + u8(250) + u8(0) + tail)
    return seeds
