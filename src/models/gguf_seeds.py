"""Seeds of gguf_fuzz.cc: small GGUF files, valid ones and one per malformation.

tests/fuzz/make_seeds.py writes them to corpus/gguf/ beside this file."""
import struct

TYPES = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20), "Q8_0": (8, 32, 34),
         "Q4_K": (12, 256, 144), "BF16": (30, 1, 2)}


def _s(b):
    b = b.encode() if isinstance(b, str) else b
    return struct.pack("<Q", len(b)) + b


def _kv(key, vtype, payload):
    return _s(key) + struct.pack("<I", vtype) + payload


def _file(kvs=(), tensors=(), version=3, alignment=32, n_tensors=None, n_kv=None, cut=None, extra=b""):
    """tensors: (name, type name, dims, offset or None)."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors) if n_tensors is None else n_tensors,
                                len(kvs) if n_kv is None else n_kv)
    out += b"".join(kvs)
    data = b""
    for name, tname, dims, offset in tensors:
        tid, block, size = TYPES[tname]
        n = 1
        for d in dims:
            n *= d
        at = (len(data) + alignment - 1) // alignment * alignment
        out += _s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", tid, at if offset is None else offset)
        data = data.ljust(at, b"\0") + bytes(i & 0xFF for i in range(n // block * size))
    if tensors:
        out = out.ljust((len(out) + alignment - 1) // alignment * alignment, b"\0") + data
    out += extra
    return out if cut is None else out[:cut]


def generate():
    kvs = [
        _kv("general.architecture", 8, _s("llama")),
        _kv("llama.block_count", 4, struct.pack("<I", 30)),
        _kv("llama.rope.freq_base", 6, struct.pack("<f", 1e5)),
        _kv("b", 7, b"\1"), _kv("u8", 0, b"\xff"), _kv("i8", 1, b"\x80"), _kv("u16", 2, b"\xff\xff"),
        _kv("i16", 3, b"\0\x80"), _kv("i32", 5, struct.pack("<i", -7)), _kv("u64", 10, struct.pack("<Q", 2**40)),
        _kv("i64", 11, struct.pack("<q", -2**40)), _kv("f64", 12, struct.pack("<d", 0.25)),
        _kv("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 3) + _s("a") + _s("") + _s("<|im_start|>")),
        _kv("tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, 3) + struct.pack("<3i", 1, 1, 3)),
        _kv("scores", 9, struct.pack("<IQ", 6, 2) + struct.pack("<2f", 0.5, -1)),
    ]
    tensors = [("w", "F32", [3, 2], None), ("q", "Q4_1", [64, 3], None), ("e", "Q8_0", [32], None)]
    valid = _file(kvs, tensors)
    seeds = [
        valid,
        _file(),
        _file(kvs, tensors, version=2),
        _file(kvs + [_kv("general.alignment", 4, struct.pack("<I", 64))], tensors, alignment=64),
        _file([_kv("general.alignment", 4, struct.pack("<I", 1))], tensors, alignment=1),
        _file([], [("h", "F16", [5], None), ("k", "Q4_K", [256], None), ("z", "BF16", [0, 3], None),
                   ("q0", "Q4_0", [32, 1, 1, 2], None)]),
        # malformed
        b"GGU",
        b"gguf" + valid[4:],
        _file(kvs, tensors, version=1),
        _file(kvs, tensors, version=0x03000000),
        valid[:100],
        valid[:-1],
        _file(kvs, tensors, n_tensors=2**62),
        _file(kvs, tensors, n_kv=2**64 - 1),
        _file([_kv("k", 13, b"")]),
        _file([_kv("k", 9, struct.pack("<IQ", 9, 1))]),
        _file([_kv("k", 9, struct.pack("<IQ", 4, 2**61))]),
        _file([_kv("k", 9, struct.pack("<IQ", 8, 2**64 - 1))]),
        _file([_kv("k", 8, struct.pack("<Q", 2**64 - 1))]),
        _file([_kv("", 4, b"\0\0\0\0")]),
        _file([_kv("a", 4, b"\0\0\0\0"), _kv("a", 4, b"\0\0\0\0")]),
        _file([_kv("general.alignment", 4, struct.pack("<I", 48))], tensors),
        _file([_kv("general.alignment", 8, _s("32"))], tensors),
        _file([], [("a", "F32", [4], None), ("a", "F32", [4], None)]),
        _file([], [("n" * 64, "F32", [4], None)]),
        _file([], [("b", "F32", [1, 1, 1, 1, 1], None)]),
        _file([], [("b", "Q4_1", [48, 2], None)]),
        _file([], [("b", "F32", [4], 64)], extra=b"\0" * 64),
        _file([], [("b", "F32", [4], 2**64 - 1)]),
        _file([], [("b", "F32", [4], None)], cut=-1),
    ]
    # Shapes that overflow, written by hand (no data).
    def info(name, dims, tid=0, offset=0):
        return _s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", tid, offset)
    for dims, tid in [([2**63], 0), ([2**32, 2**32], 0), ([2**31, 2**31], 0), ([32], 4), ([32], 1000)]:
        seeds.append(b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + info("b", dims, tid) + b"\0" * 32)
    return seeds
