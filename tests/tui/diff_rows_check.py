"""The rows of the explorer's diff view (written with :write) against what
a mutation made (tests/hlo/mutate_diff.py's want.json) and against the HLO
text itself, read with regular expressions (tests/hlo/hloref.py):

  diff_rows_check.py WANT.json NAME ROWS.csv A.hlo B.hlo
      the rows shown by default are exactly the changed pairs (with their
      kinds), the instructions only in A and only in B of mutation NAME;
  diff_rows_check.py --all ROWS.csv A.hlo B.hlo
      with every row shown (`a`), each instruction of A and of B is on
      exactly one row;

and in both, every name's opcode and shape cell is the one its line in
A.hlo or B.hlo writes.  Prints PASS / FAIL lines; exit 1 on a failure.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hlo"))
from hloref import Module  # noqa: E402  (the tests' one reading of HLO text)


def instrs(path):
    """name -> (opcode, shape as written) of every instruction."""
    return {i["name"]: (i["opcode"], i["shape"]) for i in Module(path).instrs}


def check(label, ok, why=""):
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + why))
    return ok


def cells_match(rows, a, b):
    why = []
    for r in rows:
        for side, table in (("a", a), ("b", b)):
            name = r[side + "_name"]
            if not name:
                continue
            if name not in table:
                why.append("%s %s: no such instruction" % (side, name))
                continue
            op, shape = table[name]
            if r[side + "_opcode"] != op or r[side + "_shape"] != shape:
                why.append("%s %s: %s %s, the text says %s %s" % (side, name, r[side + "_opcode"],
                                                                  r[side + "_shape"], op, shape))
    return why


def main():
    if sys.argv[1] == "--all":
        rows_path, pa, pb = sys.argv[2:5]
        label = "every row"
    else:
        want_path, name, rows_path, pa, pb = sys.argv[1:6]
        label = name
    a, b = instrs(pa), instrs(pb)
    rows = list(csv.DictReader(open(rows_path, encoding="utf-8")))
    ok = check("diff view %s: opcode and shape cells are the text's" % label, not cells_match(rows, a, b),
               "; ".join(cells_match(rows, a, b)[:4]))
    if sys.argv[1] == "--all":
        seen_a = [r["a_name"] for r in rows if r["a_name"]]
        seen_b = [r["b_name"] for r in rows if r["b_name"]]
        ok &= check("diff view every row: each instruction of A and of B once (%d, %d)" % (len(a), len(b)),
                    sorted(seen_a) == sorted(a) and sorted(seen_b) == sorted(b),
                    "A %d rows for %d, B %d rows for %d" % (len(seen_a), len(a), len(seen_b), len(b)))
        sys.exit(0 if ok else 1)
    w = __import__("json").load(open(want_path))[name]
    got_changed = sorted([r["a_name"], r["b_name"], sorted(x.strip() for x in r["change"].split(","))]
                         for r in rows if r["a_name"] and r["b_name"])
    want_changed = sorted([x, y, sorted(k)] for x, y, k in w["changed"])
    only_a = sorted(r["a_name"] for r in rows if r["change"] == "only in A")
    only_b = sorted(r["b_name"] for r in rows if r["change"] == "only in B")
    why = []
    if got_changed != want_changed:
        why.append("changed %s, want %s" % (got_changed[:4], want_changed))
    if only_a != sorted(w["only_a"]):
        why.append("only in A %s, want %s" % (only_a[:5], sorted(w["only_a"])))
    if only_b != sorted(w["only_b"]):
        why.append("only in B %s, want %s" % (only_b[:5], sorted(w["only_b"])))
    ok &= check("diff view %s: %d rows, the changes the mutation made" % (name, len(rows)), not why,
                "; ".join(why))
    sys.exit(0 if ok else 1)


main()
