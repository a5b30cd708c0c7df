#!/usr/bin/env python3
"""gen_profile.py - a per-op timing file for an HLO text module, shaped like
the op profiles people export (XProf's op profile, nsys's kernel summary):
one row per executed instruction with its self time.

It is NOT a measurement: the times come from a roofline over the shapes the
text writes (FLOPs of convolutions and dots from their operand shapes, bytes
of every operand and result) on a stated device, plus a launch overhead and
a seeded log-normal jitter, so that a profile exists for the bundled real
modules without the hardware.  It reads the text alone (regular
expressions), never hloscope.

  tools/gen_profile.py MODULE.hlo -o PROFILE.csv [--seed N] [--unmatched N]

Columns: name, time_us (mean self time per occurrence), occurrences,
op_category (the opcode as a profiler names it).  Instructions that run no
kernel (parameter, constant, tuple, get-tuple-element, bitcast, reshape) are
left out, as a profile leaves them out.  --unmatched N adds N rows that name
no instruction (a host copy, the runtime's own launch), as real profiles have.
"""
import argparse
import math
import random
import re

PEAK_FLOPS = 15.7e12   # FP32, a V100-class GPU
PEAK_BYTES = 900e9     # HBM2
LAUNCH_US = 3.0
NO_KERNEL = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "reshape"}
ELEM_BYTES = {"f32": 4, "s32": 4, "u32": 4, "f16": 2, "bf16": 2, "s8": 1, "u8": 1, "pred": 1,
              "f64": 8, "s64": 8}

INSTR = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(\w+)\[([\d,]*)\]\S*\s+([\w\-]+)\((.*)$")
SHAPE = re.compile(r"(\w+)\[([\d,]*)\]")


def dims(text):
    return [int(d) for d in text.split(",") if d]


def elems(ds):
    return math.prod(ds) if ds else 1


def entry_lines(text):
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("ENTRY"))
    for l in lines[start + 1:]:
        if l.startswith("}"):
            break
        yield l


def roofline(etype, out, opcode, rest):
    ops = SHAPE.findall(rest.split("), ")[0] if "), " in rest else rest)
    nbytes = elems(out) * ELEM_BYTES.get(etype, 4)
    nbytes += sum(elems(dims(d)) * ELEM_BYTES.get(t, 4) for t, d in ops if t in ELEM_BYTES)
    flops = elems(out)
    if opcode == "convolution" and len(ops) >= 2:
        kernel = dims(ops[1][1])
        flops = 2 * elems(out) * elems(kernel[:-1])      # spatial x input features per output
    elif opcode == "dot" and len(ops) >= 2:
        a, b = dims(ops[0][1]), dims(ops[1][1])
        k = elems(a) * elems(b) / max(elems(out), 1)
        flops = 2 * elems(out) * math.sqrt(max(k, 1))
    return max(flops / PEAK_FLOPS, nbytes / PEAK_BYTES) * 1e6 + LAUNCH_US


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--unmatched", type=int, default=2)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rows = []
    for line in entry_lines(open(a.module).read()):
        m = INSTR.match(line)
        if not m or m.group(4) in NO_KERNEL:
            continue
        name, etype, out, opcode, rest = m.groups()
        t = roofline(etype, dims(out), opcode, rest) * math.exp(rng.gauss(0, 0.1))
        rows.append((name, "%.3f" % t, "1", opcode))
    extra = [("MemcpyHtoD", "412.500", "1", "memcpy"), ("_XlaRun", "8.200", "1", "runtime")]
    rows += extra[:a.unmatched]
    with open(a.out, "w") as f:
        f.write("name,time_us,occurrences,op_category\n")
        for r in rows:
            f.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
