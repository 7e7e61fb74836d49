"""What the integer operators' tests (src/ops/<op>/<op>_test.py) share: image shapes, inputs that hold
the dtype's extremes, and int8 wraparound."""
import numpy as np

# (channels, height, width)
SHAPES = [(1, 1, 1), (1, 3, 5), (2, 7, 9), (3, 16, 17), (1, 31, 2), (2, 1, 33)]


def int8_wrap(v):
    return (((v & 0xFF) ^ 0x80) - 0x80).astype(np.int8)


def rand_i8(rng, shape, dtype=np.int8):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
    if x.size >= 2:  # the extremes always appear
        x.flat[0], x.flat[-1] = info.min, info.max
    return x
