"""Checks the query language's HLO fields against the HLO text itself: for
each file, the instruction names, computation names and metadata are read
line by line with regular expressions (not with the C parser), and compared
with what `hloscope query FILE --csv` answers:

  nodes show name, computation_name, opcode, fusion_kind, op_type, op_name,
             source_file, source_line, custom_call_target, sharding
  count by source_file / computation_name / op_type
  show NAME        for the first and last instruction (id and name agree)

Prints PASS / FAIL lines for tests/run.sh.

Usage: hlo_names_check.py FILE.hlo...   (environment: HLOSCOPE)
The text is read by tests/hlo/hloref.py.
"""
import csv
import io
import os
import re
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hlo"))
from hloref import QUOTED, Module, meta, unescape  # noqa: E402  (the tests' one reading of HLO text)

HLOSCOPE = os.environ["HLOSCOPE"]
FIELDS = ("name", "computation_name", "opcode", "fusion_kind", "op_type", "op_name",
          "source_file", "source_line", "custom_call_target", "sharding")


def read_hlo(path):
    """The FIELDS of every instruction, as the text writes them."""
    mod, rows = Module(path), []
    for i in mod.instrs:
        kind = re.match(r"(k[A-Za-z]+)$", i["attr"].get("kind", ""))
        target = re.match(QUOTED, i["attr"].get("custom_call_target", ""))
        source_file, source_line = mod.source_location(i)
        rows.append({
            "name": i["name"], "computation_name": i["comp"], "opcode": i["opcode"],
            "fusion_kind": kind.group(1) if kind else "",
            "op_type": meta(i["metadata"], "op_type"), "op_name": i["op_name"],
            "source_file": source_file, "source_line": source_line,
            "custom_call_target": unescape(target.group(1)) if target else "",
            "sharding": i["attr"].get("sharding", ""),
        })
    return rows


def query(path, *queries):
    out = subprocess.run([HLOSCOPE, "query", path, "--csv", *queries], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return out.stdout


def check(label, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + detail))
    return ok


def check_file(path):
    base = os.path.basename(path)
    want = read_hlo(path)
    text = query(path, "nodes show " + ", ".join(FIELDS))
    got = list(csv.DictReader(io.StringIO(text)))
    good = check("%s: %d instructions" % (base, len(want)), len(got) == len(want),
                 "hloscope has %d" % len(got))
    # Nodes are laid out computation by computation; the file's order is
    # kept within a computation, so compare as multisets per field.
    for f in FIELDS:
        a, b = Counter(r[f] for r in want), Counter(r[f] for r in got)
        diff = [(k, a[k], b[k]) for k in set(a) | set(b) if a[k] != b[k]][:3]
        good &= check("%s: %s" % (base, f), not diff, "value, text count, hloscope count: %r" % diff)
    pairs = Counter((r["name"], r["computation_name"]) for r in want)
    gpairs = Counter((r["name"], r["computation_name"]) for r in got)
    good &= check("%s: name in computation" % base, pairs == gpairs)
    for f in ("source_file", "computation_name", "op_type"):
        text = query(path, "count by " + f)
        counts = {r[f]: int(r["count"]) for r in csv.DictReader(io.StringIO(text))}
        good &= check("%s: count by %s" % (base, f), counts == dict(Counter(r[f] for r in want)),
                      repr(counts)[:200])
    for r in (got[0], got[-1]):
        text = query(path, "show " + r["name"])
        head = text.splitlines()[0] if text else ""
        good &= check("%s: show %s" % (base, r["name"]), (" %s: " % r["name"]) in head, head)
    return good


def main():
    ok = True
    for path in sys.argv[1:]:
        try:
            ok &= check_file(path)
        except RuntimeError as e:
            ok &= check("%s" % os.path.basename(path), False, str(e))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
