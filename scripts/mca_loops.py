"""The loop-finding and llvm-mca part that scripts/rvv-cycles and scripts/x86-cycles share.

A loop is a conditional branch or jump to a lower address in the same function; its body is the
part of [target, branch] on a path from the target back to the branch (scripts/rvv-spill-check's
definition). Only innermost loops are kept: a body holding another loop's back edge would be
modelled as straight-line code. Each body goes to llvm-mca-22 in address order (branches retargeted
to a label at its head: llvm-mca does not follow them, so a body with a skipped branch counts both
sides) for ITERATIONS iterations; its cycles per iteration are Total Cycles / Iterations.

What differs per instruction set (which instructions branch, the assembler's dialect, the
elements one iteration does) stays in the scripts; they subclass Insn and fill Loop.row.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

MCA = "llvm-mca-22"
OBJDUMP = "llvm-objdump-22"
ITERATIONS = 100


def die(prog, msg, code=2):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(code)


def need(prog, tool, pkg):
    if shutil.which(tool) is None:
        die(prog, f"{tool} not found (install: apt-get install {pkg})")


def mca(args, asm):
    """Cycles per iteration of asm under llvm-mca-22 with args (-mtriple, -mcpu, ...), or raises
    RuntimeError with llvm-mca's message."""
    r = subprocess.run([MCA] + args + [f"-iterations={ITERATIONS}"], input=asm, capture_output=True, text=True)
    if r.returncode != 0:
        err = [l for l in r.stderr.splitlines() if "error" in l]
        raise RuntimeError((err or r.stderr.splitlines() or ["llvm-mca failed"])[0].strip())
    it = re.search(r"^Iterations:\s+(\d+)", r.stdout, re.M)
    cy = re.search(r"^Total Cycles:\s+(\d+)", r.stdout, re.M)
    return int(cy.group(1)) / int(it.group(1))


def mca_version():
    ver = subprocess.run([MCA, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\S+)", ver)
    return m.group(1) if m else "?"


# ---- disassembly ---------------------------------------------------------------------------

class Insn:
    """One disassembled instruction. kind: "" (falls through), "c" (conditional branch to target),
    "j" (jump to target), "x" (return), "i" (indirect jump); subclasses set it in classify()."""
    __slots__ = ("addr", "mn", "ops", "kind", "target")

    def __init__(self, addr, mn, ops):
        self.addr, self.mn, self.ops = addr, mn, ops
        self.kind, self.target = "", None
        self.classify()

    def classify(self):
        pass

    def branch_target(self):
        m = re.search(r"0x([0-9a-f]+)$", self.ops[-1]) if self.ops else None
        return int(m.group(1), 16) if m else None


FUNC_LINE = re.compile(r"^[0-9a-f]+ <(.*)>:$")
INSN_LINE = re.compile(r"^\s*([0-9a-f]+):\s*\t(\S+)(?:\t(.*))?$")


def parse_objdump(text, make_insn):
    """[(demangled function name, [Insn])] of llvm-objdump -d -C --no-show-raw-insn output; the
    operands without objdump's '# ...' comments and '<symbol>' annotations."""
    funcs, body = [], None
    for line in text.splitlines():
        m = FUNC_LINE.match(line)
        if m:
            body = []
            funcs.append((m.group(1), body))
            continue
        m = INSN_LINE.match(line)
        if m and body is not None:
            ops = re.sub(r"\s*<.*>$", "", re.sub(r"\s+#.*$", "", m.group(3) or "")).strip()
            body.append(make_insn(int(m.group(1), 16), m.group(2), [o.strip() for o in ops.split(",")] if ops else []))
    return funcs


def loop_body(ins, tindex, a, b):
    """Indices in [a, b] on a path from a back to b (scripts/rvv-spill-check's loopbody), or None."""
    fr = {a}
    changed = True
    while changed:
        changed = False
        for k in range(a, b + 1):
            if k not in fr:
                continue
            i = ins[k]
            if i.kind == "i":
                fr.update(range(a, b + 1))
                break
            nxt = []
            if i.kind in ("", "c") and k < b:
                nxt.append(k + 1)
            if i.kind in ("c", "j") and i.target is not None:
                t = tindex.get(i.target)
                if t is not None and a <= t <= b:
                    nxt.append(t)
            for t in nxt:
                if t not in fr:
                    fr.add(t)
                    if t < k:
                        changed = True
    if b not in fr:
        return None
    bk = {b}
    changed = True
    while changed:
        changed = False
        for k in range(b - 1, a - 1, -1):
            if k in bk:
                continue
            i = ins[k]
            t = tindex.get(i.target) if i.target is not None else None
            if (i.kind == "i" or (i.kind in ("", "c") and k + 1 in bk) or
                    (i.kind in ("c", "j") and t is not None and a <= t <= b and t in bk)):
                bk.add(k)
                changed = True
    return sorted(fr & bk)


def find_loops(ins):
    """[(head index, back-edge index, body indices)] of the innermost loops of one function."""
    tindex = {x.addr: k for k, x in enumerate(ins)}
    loops = []
    for k, x in enumerate(ins):
        if x.kind not in ("c", "j") or x.target is None:
            continue
        t = tindex.get(x.target)
        if t is None or t > k:
            continue
        body = loop_body(ins, tindex, t, k)
        if body is not None:
            loops.append((t, k, body))
    # innermost: no other loop's back edge inside the body
    ends = {k for _, k, _ in loops}
    return [(a, b, body) for a, b, body in loops if not any(e != b and e in body for e in ends if a <= e <= b)]


# ---- modelling and the report ----------------------------------------------------------------

class Loop:
    """An innermost loop of function name: ins[s..e], body indices; shape describes its vector
    type for the report (None: a scalar loop); row {cpu: (cycles/iteration, elements, traced?) or
    ("error", message) or None (not modelled on that cpu)}."""
    __slots__ = ("name", "ins", "s", "e", "body", "shape", "row", "where")

    def __init__(self, name, ins, s, e, body, shape):
        self.name, self.ins, self.s, self.e, self.body, self.shape = name, ins, s, e, body, shape
        self.row, self.where = {}, f"{ins[s].addr:#x}-{ins[e].addr:#x}"


def model(loops, cpus, text, cycles, elements):
    """Fills each loop's row: text(loop, cpu) is llvm-mca's input (None: not modelled on cpu),
    cycles(cpu, text) runs it, elements(loop, cpu) gives (elements per iteration, traced?).
    Returns 1 if llvm-mca rejected a body, else 0."""
    rc = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futs = {}
        for n, lp in enumerate(loops):
            for cpu in cpus:
                t = text(lp, cpu)
                futs[(n, cpu)] = pool.submit(cycles, cpu, t) if t is not None else None
        for n, lp in enumerate(loops):
            for cpu in cpus:
                if futs[(n, cpu)] is None:
                    lp.row[cpu] = None
                    continue
                try:
                    cyc = futs[(n, cpu)].result()
                except RuntimeError as err:
                    lp.row[cpu] = ("error", str(err))
                    rc = 1
                    continue
                el, traced = elements(lp, cpu) if lp.shape else (0, False)
                lp.row[cpu] = (cyc, el, traced)
    return rc


def shorten(name, ns, quals):
    """The function's name without return type, parameters and the qualifiers up to ns (e.g.
    "n_rvv::") and those in quals."""
    n = re.sub(r"\s+const$", "", name)
    if n.endswith(")"):
        depth = 0
        for k in range(len(n) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(n[k], 0)
            if depth == 0:
                n = n[:k]
                break
    n = re.sub(r"^.*?" + re.escape(ns), "", n)
    for q in quals:
        n = n.replace(q, "")
    return n


def markdown_cell(r):
    if r is None:
        return "–"
    if r[0] == "error":
        return "error"
    return f"{r[0] / r[1]:.3f}" + ("" if r[2] else "?") if r[1] else f"{r[0]:.1f}/it"


def report(loops, cpus, markdown, header, shape_col, fmt_shape, short):
    """Text (header lines, then per function its loops and per cpu cycles/iteration, elements/
    iteration and cycles/element) or Markdown (one row per vector loop)."""
    if markdown:
        print(f"| function | loop | insns | {shape_col} | " + " | ".join(f"{c} cyc/el" for c in cpus) + " |")
        print("|---|---|---|---|" + "---|" * len(cpus))
    else:
        for line in header:
            print("# " + line)
    last = None
    width = max([13] + [len(c) for c in cpus])
    for lp in loops:
        if markdown and not lp.shape:
            continue
        if markdown:
            print(f"| `{short(lp.name)}` | {lp.where} | {len(lp.body)} | {fmt_shape(lp.shape)} | " +
                  " | ".join(markdown_cell(lp.row[c]) for c in cpus) + " |")
            continue
        if lp.name != last:
            print(lp.name)
            last = lp.name
        print(f"  loop {lp.where}  {len(lp.body)} insns  {fmt_shape(lp.shape)}")
        for c in cpus:
            r = lp.row[c]
            if r is None:
                print(f"    {c:{width}s} (not modelled)")
            elif r[0] == "error":
                print(f"    {c:{width}s} llvm-mca: {r[1]}")
            elif r[1]:
                print(f"    {c:{width}s} {r[0]:7.2f} cyc/it  {r[1]:6g}{'' if r[2] else '?'} el/it  {r[0] / r[1]:.3f} cyc/el")
            else:
                print(f"    {c:{width}s} {r[0]:7.2f} cyc/it  (scalar loop)")


def root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
