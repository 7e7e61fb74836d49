#!/usr/bin/env python3
"""scripts/x86-cycles on two kernels of the host library: it must find their loops, trace their
elements per iteration and give cycles per element within loose bounds. llvm-mca's models are
deterministic, so the bounds only catch a broken trace or a kernel that fell off its vector loop
(the figures and their margin: docs/x86-cycles.md). Exit 77 (skipped) without llvm-22.

  check_x86_cycles.py SCRIPT LIB
"""
import shutil
import subprocess
import sys

# (function, target, cpu): (loops at least, bound on the cheapest loop, bound on every loop),
# in cycles per element. Model figures (llvm-mca 22): rmsnorm's output loop 0.127 (znver4) and
# 0.129 (sapphirerapids) for AVX-512, 0.191 (znver3) for AVX2; exp's six variants' loops
# 0.38-0.93 (znver4) and 0.32-0.96 (sapphirerapids).
BOUNDS = {
    ("RmsNormRowsF32", "avx512", "znver4"): (4, 0.25, 1.0),
    ("RmsNormRowsF32", "avx512", "sapphirerapids"): (4, 0.25, 1.5),
    ("RmsNormRowsF32", "avx2", "znver3"): (4, 0.4, 1.5),
    ("ExpF32", "avx512", "znver4"): (6, 0.8, 2.0),
    ("ExpF32", "avx512", "sapphirerapids"): (6, 0.8, 2.0),
    ("ExpF32", "avx2", "znver3"): (6, 1.6, 4.0),
}


def main():
    script, lib = sys.argv[1:3]
    if not (shutil.which("llvm-mca-22") and shutil.which("llvm-objdump-22")):
        print("check_x86_cycles: llvm-mca-22 / llvm-objdump-22 not found (apt-get install llvm-22): skipped")
        return 77
    r = subprocess.run([script, "--lib", lib, "--markdown", "--match", r"^vlak::n_avx(2|512)::(RmsNormRowsF32|ExpF32)\("],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr, sep="")
    if r.returncode != 0:
        print(f"check_x86_cycles: x86-cycles exit {r.returncode}")
        return 1
    lines = [l for l in r.stdout.splitlines() if l.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    cpus = [c.split()[0] for c in head[4:]]
    if cpus != ["znver3", "znver4", "sapphirerapids"]:
        print(f"check_x86_cycles: unexpected columns {head}")
        return 1
    seen = {}
    bad = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        fn, target = cells[0].strip("`"), cells[3].split()[0]
        for cpu, cell in zip(cpus, cells[4:]):
            if target == "avx512" and cpu == "znver3":
                if cell != "–":
                    bad.append(f"{fn} {target} on znver3: '{cell}', expected '–' (not modelled)")
                continue
            try:
                v = float(cell.rstrip("?"))
            except ValueError:
                bad.append(f"{fn} {target} {cells[1]} on {cpu}: '{cell}' is no figure")
                continue
            if cell.endswith("?") or not 0 < v < 100:
                bad.append(f"{fn} {target} {cells[1]} on {cpu}: {cell} (untraced or out of range)")
            seen.setdefault((fn, target, cpu), []).append(v)
    for key, (count, best, worst) in BOUNDS.items():
        vals = seen.get(key, [])
        if len(vals) < count:
            bad.append(f"{key}: {len(vals)} loops, expected at least {count}")
        elif min(vals) > best or max(vals) > worst:
            bad.append(f"{key}: cycles/element {min(vals):.3f}..{max(vals):.3f}, bounds {best} (best) / {worst} (every loop)")
    for b in bad:
        print("check_x86_cycles: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
