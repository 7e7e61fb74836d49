"""Seeds of add_norm_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/add_norm/ beside this file."""
from make_seeds import LENGTHS, MODES, eps_byte, fill, specials_for, u8, u16


def stride(gap):
    """Stride's byte (fuzz_util.h): dense, or cols + gap for gap 1..7."""
    return u8((gap & 7) | 8 if gap else 0)


def generate():
    seeds = []
    for i, n in enumerate(LENGTHS):
        rows = 1 + i % 4
        layout = i % 6  # 0 none, 1 y = x, 2 y = r, 3 sum = x, 4 sum = r, 5 y = x and sum = r
        s = u8(i % 2) + u8(i // 2 % 2) + u16(rows) + u16(n) + u8(layout) + stride(i % 3) + stride(i % 2 * 5)
        if layout not in (1, 2, 5):
            s += stride(i % 4)  # y_stride
        if layout not in (3, 4, 5):
            s += u8(i % 3 != 0)  # sum asked for
            if i % 3 != 0:
                s += stride(i % 5)
        s += eps_byte(i) + u8(i % 2) + u8(i // 3 % 2) + u8(0)
        s += fill(MODES[i % 8], i + 1, specials_for(n * rows, i)) + fill(MODES[(i + 3) % 8], i + 2)
        s += fill(0, i + 7) + fill(0, i + 9)
        seeds.append(s)
    # Invalid: a stride < cols, an overflowing stride, NULL y (y on x with another stride is not
    # expressible here: the unit tests have it).
    head = u8(0) + u8(0) + u16(3) + u16(40) + u8(0)
    seeds.append(head + u8(205) + stride(0) + stride(0) + u8(0) + eps_byte(1) + u8(1) + u8(1) + u8(0))
    seeds.append(head + stride(0) + u8(230) + stride(0) + u8(0) + eps_byte(1) + u8(1) + u8(1) + u8(0))
    seeds.append(head + stride(0) + stride(0) + stride(0) + u8(1) + stride(0) + eps_byte(1) + u8(0) + u8(0) + u8(2))
    return seeds
