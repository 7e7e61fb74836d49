"""Seeds of bpe_fuzz.cc: a flags byte (bit 0: parse special tokens), then text (valid and invalid UTF-8).

tests/fuzz/make_seeds.py writes them to corpus/bpe/ beside this file."""

TEXTS = [
    "Hello world",
    "I'm sure they'll say it's fine, we've done what you'd've done.",
    "Numbers: 0 7 42 1234567890 3.14159 -273.15 1e-5 0x1F",
    "  leading and trailing   \t\ttabs\n\nnewlines\r\n",
    "Caf\u00e9 na\u00efve \u041f\u0440\u0438\u0432\u0435\u0442 \u0393\u03b5\u03b9\u03ac \u4f60\u597d \u3053\u3093\u306b\u3061\u306f \uc548\ub155 \u0645\u0631\u062d\u0628\u0627 \u0928\u092e\u0938\u094d\u0924\u0947",
    "\U0001f600 \U0001f44d\U0001f3fd \U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f1eb\U0001f1f7 \u2764\ufe0f",
    "def f(n):\n    return n * 2  # comment\n",
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
    "x<|endoftext|>y<repo_name>z<|im_start <|im_end",
    "\u00bd \u216b \u00b2 \u2460 \u0663 \u0967 \uff14",
    "e\u0301 \u200b\u00ad\ufeff \u00a0\u3000\u2028",
    " " * 100 + "a",
    "a" * 200,
]
RAW = [
    b"\x80\xbf\xc0\xaf\xe2\x82\xed\xa0\x80\xf4\x90\x80\x80\xff",
    b"a\x00b\x01c\x7fd\xc2\x85e",
    b"\xf7\xbf\xbf\xbf \xe4\xbd",
]


def generate():
    seeds = []
    for i, t in enumerate(TEXTS):
        seeds.append(bytes([i & 1]) + t.encode("utf-8"))
        seeds.append(bytes([(i + 1) & 1]) + t.encode("utf-8"))
    for i, r in enumerate(RAW):
        seeds.append(bytes([i & 1]) + r)
    return seeds
