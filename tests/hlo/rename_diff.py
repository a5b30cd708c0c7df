"""Copies of a real HLO module as a recompilation would give them, for
`hloscope diff` (tests/suites/diff.sh).  Reads the module line by line (no
hloscope code); writes into OUT_DIR what KIND asks for:

  permute    permuted.hlo: the instruction names permuted among the
             instructions of each opcode (seeded), every reference with
             them: the same module; renames.json the true renaming
             (old -> new, the names that moved)
  swap       swapped.hlo: the names of the first two custom-calls of
             different shapes swapped (a recompilation numbering them the
             other way round); renames.json the two
  subtract   subtract.hlo: the first multiply made a subtract
  merge      merged.hlo: the callers of the second of two computations
             with the same body call the first, and the second is gone

Usage: rename_diff.py MODULE.hlo OUT_DIR KIND
"""
import json
import os
import random
import re
import sys

INSTR = re.compile(r"^\s*(?:ROOT\s+)?%?([A-Za-z0-9_.\-]+)\s*=\s*(\S+|\(.*?\))\s+([a-z][a-z0-9\-]*)\(")
HEADER = re.compile(r"^(?:ENTRY\s+)?%?([A-Za-z0-9_.\-]+)\b.*\{\s*$")
REF = re.compile(r"%([A-Za-z0-9_.\-]+)")


def instrs(lines):
    return [m.groups() for m in map(INSTR.match, lines) if m]


def renamed(lines, ren):
    return [REF.sub(lambda m: "%" + ren.get(m.group(1), m.group(1)), line) for line in lines]


def permute(lines):
    byop = {}
    for name, _, op in instrs(lines):
        byop.setdefault(op, []).append(name)
    rng, ren = random.Random(31), {}
    for names in byop.values():
        p = names[:]
        rng.shuffle(p)
        ren.update(zip(names, p))
    return renamed(lines, ren), {k: v for k, v in ren.items() if k != v}


def swap(lines):
    calls = [(n, s) for n, s, op in instrs(lines) if op == "custom-call"]
    x = calls[0]
    y = next(c for c in calls if c[1] != x[1])
    ren = {x[0]: y[0], y[0]: x[0]}
    return renamed(lines, ren), ren


def subtract(lines):
    out, done = [], False
    for line in lines:
        m = INSTR.match(line)
        if not done and m and m.group(3) == "multiply":
            line, done = line.replace(" multiply(", " subtract(", 1), True
        out.append(line)
    return out, {}


def merge(lines):
    """Computations by their body with the names taken out; the first
    body that occurs twice: the second copy goes, its callers call the first."""
    comps, cur, start = {}, None, 0
    for i, line in enumerate(lines):
        h = HEADER.match(line)
        if h and " = " not in line:
            cur, start = h.group(1), i
        elif line.strip() == "}" and cur:
            body = "\n".join(re.sub(r"%[A-Za-z0-9_.\-]+", "%", l) for l in lines[start + 1:i])
            comps.setdefault(body, []).append((cur, start, i))
            cur = None
    first, second = next(v for v in comps.values() if len(v) > 1)[:2]
    out = lines[:second[1]] + lines[second[2] + 1:]
    return [re.sub(r"=%" + re.escape(second[0]) + r"\b", "=%" + first[0], l) for l in out], \
        {"kept": first[0], "removed": second[0]}


def main():
    src, out, kind = sys.argv[1:4]
    lines = open(src).read().split("\n")
    new, info = {"permute": permute, "swap": swap, "subtract": subtract, "merge": merge}[kind](lines)
    os.makedirs(out, exist_ok=True)
    name = {"permute": "permuted", "swap": "swapped", "subtract": "subtract", "merge": "merged"}[kind]
    with open(os.path.join(out, name + ".hlo"), "w") as f:
        f.write("\n".join(new))
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(info, f)


main()
