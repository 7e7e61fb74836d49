"""Seeds of softmax_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/softmax/ beside this file."""
from make_seeds import MODES, fill, rows_target, specials_for, u16, u8


def generate():
    def extra(i, n, rows):
        flags = [0x00, 0x01, 0x02, 0x03, 0x10, 0x11, 0x20, 0x21, 0x30][i % 9]
        return u8(flags) + u8(0) + fill(MODES[i % 8], i + 1, specials_for(n * rows, i))
    s = rows_target(extra)
    s.append(u8(0) + u16(2) + u16(64) + u8(0) + u8(200) + u8(0) + u8(0xFF) + u8(3) + u8(0) + fill(0, 1))  # unknown flag
    s.append(u8(0) + u16(2) + u16(64) + u8(0) + u8(200) + u8(0) + u8(0) + u8(1) + fill(0, 1))  # NULL x
    return s
