"""Writes the seed corpus of the HLO text fuzz target (tests/fuzz/corpus/hlo_text):
small cuts of the real HLO files (the header, the first computations whole,
the first instructions of the entry computation) and the input of every
test in tests/hlo/*.test, each under 4 KB.  Existing files whose names start with "crash-"
are inputs the fuzzer found; they are kept.

Usage: make_hlo_seeds.py HLO_DIR OUT_DIR   (e.g. ../shared/data/hlo)
"""
import glob
import os
import re
import sys

MAX_BYTES = 3800  # tests/fuzz/README.md: seeds under 4 KB


def cut(text):
    """The header, whole computations while they fit, then the entry
    computation's first instructions (each defined before it is used), so
    the cut is still a module."""
    lines = text.split("\n")
    header = lines[0]
    if len(header) > 400:  # a long input_output_alias: keep one entry
        header = re.sub(r"input_output_alias=\{.*\}\)\s*\}",
                        "input_output_alias={ {0}: (0, {}, must-alias) }", header)
        if len(header) > 400 or header.count("{") != header.count("}"):
            header = header.split(",")[0]
    out = [header, ""]
    comps, cur = [], None
    for line in lines[1:]:
        if line.rstrip().endswith("{") and " = " not in line:
            cur = [line]
            comps.append(cur)
        elif cur is not None:
            cur.append(line)
            if line.startswith("}"):
                cur = None
    size = len(header)
    entry = [c for c in comps if c[0].startswith("ENTRY")]
    for c in comps:
        if c[0].startswith("ENTRY"):
            continue
        body = "\n".join(c)
        if size + len(body) > MAX_BYTES // 2:
            break
        out.append(body)
        out.append("")
        size += len(body)
    if entry:
        e = entry[0]
        # the entry's signature can list hundreds of parameters: leave it out
        head = re.match(r"(ENTRY\s+%?[\w.\-]+)", e[0])
        kept = [head.group(1) + " {" if head else e[0]]
        for line in e[1:-1]:
            if size + len(line) > MAX_BYTES:
                break
            kept.append(line.replace("ROOT ", ""))
            size += len(line)
        out.extend(kept)
        out.append("}")
    return "\n".join(out) + "\n"


def test_inputs():
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "hlo", "*.test"))):
        name = os.path.splitext(os.path.basename(path))[0]
        lines = open(path, encoding="utf-8").read().split("\n")
        i, k = 0, 0
        while i < len(lines):
            if lines[i].startswith("%%TEST"):
                j = i + 1
                while j < len(lines) and lines[j] not in ("%%DUMP", "%%PRINT", "%%FAIL"):
                    j += 1
                k += 1
                yield "test-%s-%02d" % (name, k), "\n".join(lines[i + 1:j]) + "\n"
                i = j
            i += 1


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if not f.startswith("crash-"):
            os.remove(os.path.join(out, f))
    for path in sorted(glob.glob(os.path.join(src, "*.hlo"))):
        name = os.path.splitext(os.path.basename(path))[0]
        text = open(path, encoding="utf-8").read()
        body = text if len(text) <= MAX_BYTES else cut(text)
        with open(os.path.join(out, "real-" + name + ".hlo"), "w", encoding="utf-8") as f:
            f.write(body)
    for name, text in test_inputs():
        if len(text) > MAX_BYTES:
            continue
        with open(os.path.join(out, name + ".hlo"), "w", encoding="utf-8") as f:
            f.write(text)


main()
