"""Seeds of wordpiece_fuzz.cc: a max_length byte, then text (valid and invalid UTF-8).

tests/fuzz/make_seeds.py writes them to corpus/wordpiece/ beside this file."""

TEXTS = [
    "ab, a.b",
    "Hello, World! Crème brûlée",
    "abab" * 30,
    "a" * 101,
    "\u4e2d\u6587 \ud55c\uae00 \u0130stanbul \u03a3",
    "x[MASK]y [CLS][SEP] [PAD",
    "e\u0301\u0308 \u200b\u00ad\ufeff \u00a0\u3000\t\n\r",
    "\U0001f600 \U000e0041 \ue000 \ufdd0",
]
RAW = [
    b"\x80\xbf\xc0\xaf\xe2\x82\xed\xa0\x80\xf4\x90\x80\x80\xff",
    b"a\x00b\x01c\x7fd\xc2\x85e",
]


def generate():
    seeds = []
    for i, t in enumerate(TEXTS):
        seeds.append(bytes([(i * 7) % 40]) + t.encode("utf-8"))
    for i, r in enumerate(RAW):
        seeds.append(bytes([3 + i]) + r)
    return seeds
