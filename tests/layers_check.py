#!/usr/bin/env python3
"""layers_check.py MODULE.hlo LAYERS.csv COUNT.csv [PROFILE.csv LAYERS_DATA.csv]

Checks hloscope's `layers all` (CSV) and `count by layer` (CSV) against a
reading of the HLO text alone: instruction lines and their metadata op_name
(tests/hlo/hloref.py, regular expressions, not hloscope's parser).  A node's layer is its
op_name without the last '/' component ('/' inside brackets does not
split); one component: (top level); none: (no op_name).  Every prefix of a
layer is a namespace; a namespace's nodes are those at or under it.  With a
profile (name,time_us,...): the time_us sums of `layers all --data` per
namespace.  Prints PASS/FAIL lines."""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "hlo"))
from hloref import Module, layer_of, namespaces  # noqa: E402  (the tests' one reading of HLO text)


def read(path):
    """(name, op_name) of every instruction."""
    return [(i["name"], i["op_name"]) for i in Module(path).instrs]


def prefixes(op):
    """The namespaces a node counts in: its layer's prefixes, or the one
    pseudo-namespace of a node with no op_name or a one-component one."""
    return namespaces(op) or [layer_of(op)]


def main():
    mod, layers_csv, count_csv = sys.argv[1:4]
    nodes = read(mod)
    under, own = {}, {}
    for name, op in nodes:
        own[layer_of(op)] = own.get(layer_of(op), 0) + 1
        for p in prefixes(op):
            under[p] = under.get(p, 0) + 1
    rows = list(csv.DictReader(open(layers_csv)))
    got = {r["path"]: int(r["nodes"]) for r in rows}
    fails = 0
    def check(name, cond, why):
        nonlocal fails
        print(("PASS %s" if cond else "FAIL %s: " + why) % name)
        fails += not cond
    check("layers: one row per namespace of the text", set(got) == set(under),
          "only hloscope: %s; only the text: %s" % (sorted(set(got) - set(under))[:5], sorted(set(under) - set(got))[:5]))
    bad = [p for p in under if got.get(p) != under[p]]
    check("layers: nodes at or under each namespace as the text counts them", not bad,
          "%s: %s vs %s" % (bad[:3], [got.get(p) for p in bad[:3]], [under[p] for p in bad[:3]]))
    order = [r["path"] for r in rows]
    parents_first = all(order.index(namespaces(p)[-1]) < i for i, p in enumerate(order)
                        if namespaces(p) and namespaces(p)[-1] in got)
    check("layers: parents before children", parents_first, "order broken")
    depth_ok = all(int(r["depth"]) == len(namespaces(r["path"])) + 1 for r in rows if not r["path"].startswith("("))
    check("layers: depth is the number of components", depth_ok, "wrong depth")
    counts = {r[next(iter(r))]: int(r["count"]) for r in csv.DictReader(open(count_csv))}
    check("count by layer: each node's own layer", counts == own,
          "differs: %s" % sorted((k, counts.get(k), own.get(k)) for k in set(counts) | set(own) if counts.get(k) != own.get(k))[:3])
    if len(sys.argv) > 5:
        prof = {r["name"]: float(r["time_us"]) for r in csv.DictReader(open(sys.argv[4]))}
        want = {}
        for name, op in nodes:
            if name in prof:
                for p in prefixes(op):
                    want[p] = want.get(p, 0) + prof[name]
        data = {r["path"]: r["time_us"] for r in csv.DictReader(open(sys.argv[5]))}
        bad = [p for p in under if (data.get(p) or None) is None and p in want or
               p in want and abs(float(data[p]) - want[p]) > 1e-6 * max(1, want[p])]
        check("layers --data: time_us summed per namespace as the profile gives it", not bad,
              "%s: %s vs %s" % (bad[:3], [data.get(p) for p in bad[:3]], [want.get(p) for p in bad[:3]]))
        empty = [p for p in under if p not in want and data.get(p)]
        check("layers --data: no value where no node of it has one", not empty, str(empty[:3]))
    sys.exit(1 if fails else 0)


main()
