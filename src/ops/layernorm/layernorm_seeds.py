"""Seeds of layernorm_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/layernorm/ beside this file."""
from make_seeds import MODES, eps_byte, fill, rows_target, specials_for, u8


def generate():
    def extra(i, n, rows):
        return eps_byte(i) + u8(i % 16) + u8(0) + fill(MODES[i % 8], i + 1, specials_for(n * rows, i)) + \
            fill(0, i + 7) + fill(0x01, i + 9)
    return rows_target(extra)
