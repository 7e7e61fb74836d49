#!/usr/bin/env python3
"""Writes tests/models/smollm2/tokens.json: llama.cpp's token ids for the SmolLM2 tokenizer test set.

The prompts are tests/models/smollm2/prompts.json (written by hand), each tokenized with special
tokens parsed (as llama.cpp does for a prompt) and, for those that type one, also without; then
200 random strings from a fixed seed (ASCII, digits, white space runs, Latin-1, Cyrillic, Greek,
CJK, Hangul, Arabic, Devanagari, emoji, combining marks, apostrophe contractions). The reference is
llama.cpp's own tokenizer: its `llama-tokenize` tool, built from the llama-cpp-python sdist
(scripts/peers/llama-cpp), run once per string with --ids --no-bos --no-escape on a file, so the
bytes reach it unchanged.

    scripts/models install smollm2
    scripts/peers/llama-cpp                          # build/peers/llama.cpp-host/bin/llama-tokenize
    python3 scripts/smollm2-reference.py [--check] [--llama-tokenize PATH]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "models", "smollm2", "tokens.json")
PROMPTS = os.path.join(ROOT, "tests", "models", "smollm2", "prompts.json")

ALPHABETS = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " ", "  \t\n\r\n", ".,;:!?'\"()[]{}<>-_+=*/\\|@#$%^&~`",
    "éèêëàâäôöûüçñßÅØæœ", "абвгдежзийклмнопрстуфхцчшщъыьэюяЖЩ", "αβγδεζηθικλμνξοπρστυφχψωΩ", "的一是不了人我在有他这中大来上个国",
    "あいうえおかきくけこアイウエオ", "가나다라마바사아자차", "ابتثجحخدذرزسشصضطظعغفقكلمنهوي", "कखगघङचछजझञटठडढणतथदधनपफबभमयरलवशषसह",
    "😀🎉👍🏽🤖❤️🇫🇷", "\u0301\u0308\u0303\u200d\u200b", "'s'll're've'd'm't", "٠١٢٣٤٥٦٧٨٩①½²Ⅻ",
]


def random_strings(n, seed=20261129):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            a = rng.choice(ALPHABETS)
            parts.append("".join(rng.choice(a) for _ in range(rng.randint(1, 6))))
        out.append("".join(parts))
    return out


def tokenize(tool, model, text, parse_special):
    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
        f.write(text.encode("utf-8"))
        path = f.name
    try:
        cmd = [tool, "-m", model, "-f", path, "--ids", "--no-bos", "--no-escape", "--log-disable"]
        if not parse_special:
            cmd.append("--no-parse-special")
        r = subprocess.run(cmd, capture_output=True, check=True)
    finally:
        os.unlink(path)
    line = r.stdout.decode().strip().splitlines()[-1]
    return json.loads(line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare with the stored ids instead of writing them")
    ap.add_argument("--llama-tokenize", default=os.path.join(ROOT, "build", "peers", "llama.cpp-host", "bin", "llama-tokenize"))
    args = ap.parse_args()
    model = subprocess.run([os.path.join(ROOT, "scripts", "models"), "path", "smollm2"], capture_output=True, text=True,
                           check=True).stdout.strip()
    prompts = json.load(open(PROMPTS, encoding="utf-8"))["prompts"]
    cases = []
    for p in prompts:
        cases.append({"text": p, "parse_special": True, "ids": tokenize(args.llama_tokenize, model, p, True)})
        if "<|" in p or "<repo" in p:
            cases.append({"text": p, "parse_special": False, "ids": tokenize(args.llama_tokenize, model, p, False)})
    for s in random_strings(200):
        cases.append({"text": s, "parse_special": True, "ids": tokenize(args.llama_tokenize, model, s, True)})
    peer = os.path.join(os.path.dirname(os.path.dirname(args.llama_tokenize)), "peer.txt")
    doc = {
        "what": "llama.cpp's token ids for SmolLM2-135M-Instruct.Q4_1.gguf (scripts/smollm2-reference.py)",
        "reference": open(peer).read().splitlines()[0] if os.path.exists(peer) else "llama-tokenize",
        "cases": cases,
    }
    if args.check:
        old = json.load(open(OUT, encoding="utf-8"))
        bad = [c["text"] for c, o in zip(cases, old["cases"]) if c != o]
        if bad or len(cases) != len(old["cases"]):
            sys.exit(f"smollm2-reference.py: {len(bad)} cases differ from {OUT}: {bad[:3]}")
        print(f"{OUT}: {len(cases)} cases agree")
        return
    with open(OUT, "w", encoding="utf-8") as f:  # one case a line
        head = {k: v for k, v in doc.items() if k != "cases"}
        f.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "cases": [\n')
        f.write(",\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n]}\n")
    print(f"{OUT}: {len(cases)} cases, {sum(len(c['ids']) for c in cases)} ids")


if __name__ == "__main__":
    main()
