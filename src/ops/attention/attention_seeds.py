"""Seeds of attention_fuzz.cc: byte strings in the decode order of its LLVMFuzzerTestOneInput.

tests/fuzz/make_seeds.py writes them to corpus/attention/ beside this file."""
from make_seeds import MODES, fill, specials_for, u16, u8


def call(threads, batch, kv_heads, group, q_len, kv_len, dh, dv, layout=0, flags=0, window=0, scale=0, bias=0,
         lse=1, nulls=0, huge=0, q_not_multiple=False, mode=0, seed=1, kv_lens=None):
    s = u8(threads) + u16(batch) + u16(kv_heads) + u8(group - 1) + u8(7 if q_not_multiple else 0)
    s += u16(q_len) + u16(kv_len) + u16(dh) + u16(dv)
    s += u8(layout) + u8(flags) + u8(window) + u8(scale) + u8(bias) + u8(lse) + u8(nulls) + u8(huge)
    q_n = batch * kv_heads * group * q_len * dh
    s += fill(MODES[mode % 8], seed, specials_for(q_n, seed)) + fill(0, seed + 1) + fill(0, seed + 2) + fill(0, seed + 3)
    if kv_lens is not None:  # key counts per batch row, decoded last
        s += u8(1) + b"".join(u16(n) for n in kv_lens)
    return s


def generate():
    seeds = []
    shapes = [(1, 1, 1, 1, 1, 16, 16), (1, 1, 1, 7, 9, 8, 5), (2, 2, 4, 1, 65, 64, 64), (1, 2, 1, 33, 70, 24, 40),
              (2, 1, 3, 17, 17, 3, 1), (1, 1, 2, 50, 130, 33, 17), (1, 2, 2, 9, 0, 16, 16), (1, 1, 1, 5, 3, 0, 8),
              (1, 1, 1, 4, 6, 12, 0)]
    for i, (b, hkv, g, ql, kl, dh, dv) in enumerate(shapes):
        for flags in (0, 1, 2):
            seeds.append(call(i % 2, b, hkv, g, ql, kl, dh, dv, layout=i * 3 % 64, flags=flags,
                              window=(i % 4) * 2 if flags else 0, scale=0 if i % 3 else 160, bias=i % 3,
                              lse=(i + flags) % 2, mode=i + flags, seed=i * 3 + flags + 1))
    # Key padding: a padded batch, KV caches of different lengths (causal), a count beyond kv_len.
    seeds.append(call(0, 2, 2, 2, 5, 37, 16, 8, kv_lens=[37, 11]))
    seeds.append(call(1, 2, 1, 4, 1, 130, 32, 16, flags=1, kv_lens=[0, 129]))
    seeds.append(call(0, 2, 1, 1, 6, 20, 8, 8, flags=2, window=3, bias=2, kv_lens=[20, 5]))
    seeds.append(call(0, 2, 1, 1, 3, 9, 8, 8, kv_lens=[9, 10]))
    seeds.append(call(0, 1, 1, 1, 3, 4, 8, 8, flags=250))          # unknown flag
    seeds.append(call(0, 1, 1, 1, 3, 4, 8, 8, flags=3))            # both causal flags
    seeds.append(call(0, 1, 1, 1, 3, 4, 8, 8, window=3))           # window without causal
    seeds.append(call(0, 1, 1, 1, 3, 4, 8, 8, scale=1))            # NaN scale
    seeds.append(call(0, 1, 2, 2, 3, 4, 8, 8, q_not_multiple=True))  # kv_heads not dividing q_heads
    seeds.append(call(0, 2, 1, 1, 3, 4, 8, 8, huge=245))           # overflowing stride
    for nulls in range(1, 6):
        seeds.append(call(0, 1, 1, 1, 3, 4, 8, 8, nulls=nulls))    # NULL q, k, v, o; o aliasing q
    return seeds
