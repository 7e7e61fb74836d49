"""Seeds of safetensors_fuzz.cc: small safetensors files, valid ones and one per malformation.

tests/fuzz/make_seeds.py writes them to corpus/safetensors/ beside this file."""
import json
import struct


def _file(header, data=b"", raw_header=None):
    h = raw_header if raw_header is not None else json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(h)) + h + data


def _f32(*v):
    return struct.pack("<%df" % len(v), *v)


def generate():
    w = {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}
    b = {"dtype": "F32", "shape": [3], "data_offsets": [24, 36]}
    valid = _file({"__metadata__": {"format": "pt"}, "w": w, "b": b}, _f32(*range(9)))
    seeds = [
        valid,
        _file({}),
        _file({"s": {"dtype": "I64", "shape": [], "data_offsets": [0, 8]}}, b"\x01" * 8),
        _file({"z": {"dtype": "F32", "shape": [0, 4], "data_offsets": [0, 0]}}),
        # every dtype
        _file({d: {"dtype": d, "shape": [1], "data_offsets": [0, s]} for d, s in [("F16", 2)]}, b"\0\0"),
        _file({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]},
               "b": {"dtype": "F64", "shape": [1], "data_offsets": [4, 12]},
               "c": {"dtype": "U8", "shape": [3], "data_offsets": [12, 15]},
               "d": {"dtype": "BOOL", "shape": [1], "data_offsets": [15, 16]},
               "e": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [16, 17]},
               "f": {"dtype": "I32", "shape": [1], "data_offsets": [17, 21]}}, bytes(range(21))),
        # an odd header length: f32 data at an unaligned offset
        _file(None, _f32(1.5, 2.5), raw_header=b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}  '),
        # malformed
        b"\x01\x02\x03",
        valid[:20],
        valid[:-4],
        valid + b"\0\0\0\0",
        struct.pack("<Q", 2**64 - 1) + b"{}",
        _file(None, raw_header=b'{"a":'),
        _file(None, raw_header=b"[1,2]"),
        _file({"x": {"dtype": "F31", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4),
        _file({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4),
        _file({"x": {"dtype": "F32", "shape": [2**32, 2**32, 16], "data_offsets": [0, 4]}}, b"\0" * 4),
        _file({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4),
        _file({"x": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}}, b"\0" * 4),
        _file({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
               "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12),
        _file({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
               "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}}, b"\0" * 16),
        _file({"__metadata__": {"a": 1}}),
        _file({"__metadata__": []}),
    ]
    return seeds
