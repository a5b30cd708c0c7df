"""Checks folder queries (hloscope query DIR) against numpy over the same
files: count by opcode_id / opcode (bincount summed over every graph), stats
(numpy.percentile and friends over the rows of all graphs concatenated, not
per-graph summaries), the rows of nodes / configs queries (which graph, which
node, in what order), and the graphs command's fields and aggregates.

Usage: numpy_folder.py DIR   (environment: HLOSCOPE)
Prints PASS / FAIL lines for tests/run.sh.
"""
import csv
import io
import math
import os
import subprocess
import sys

import numpy as np

HLOSCOPE = os.environ["HLOSCOPE"]
failed = 0


def report(name, ok, why=""):
    global failed
    if ok:
        print("PASS query-folder-numpy: %s" % name)
    else:
        failed += 1
        print("FAIL query-folder-numpy: %s: %s" % (name, why))


def rows(root, q, *opts):
    p = subprocess.run([HLOSCOPE, "query", root, "--csv", *opts, q], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.decode()[:300]))
    return list(csv.DictReader(io.StringIO(p.stdout.decode())))


def num(s):
    return float("nan") if s == "" else float(s)


def close(a, b, rel=1e-9):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def load(root):
    """Every .npz under root (following links), in hloscope's path order."""
    found = []
    for d, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if f.lower().endswith(".npz") and not f.startswith("."):
                p = os.path.join(d, f)
                found.append((os.path.relpath(p, root), p))
    found.sort(key=lambda x: x[0].encode())
    graphs = []
    for rel, p in found:
        z = np.load(p)
        op = z["node_opcode"].astype(np.int64)
        n = len(op)
        edges = z["edge_index"].astype(np.int64).reshape(-1, 2)
        rt = z["config_runtime"].astype(np.float64)
        labeled = bool((rt != 0).any())
        if "config_runtime_normalizers" in z.files:
            rt = rt / z["config_runtime_normalizers"]
        splits = z["node_splits"].reshape(-1) if "node_splits" in z.files else np.array([n])
        graphs.append({
            "rel": rel, "op": op, "n": n, "feat": z["node_feat"].astype(np.float64),
            "users": np.bincount(edges[:, 1], minlength=n),
            "operands": np.bincount(edges[:, 0], minlength=n),
            "edges": len(edges), "rt": rt, "labeled": labeled,
            "kind": "layout" if "node_config_feat" in z.files else "tile",
            "cfg": len(z["node_config_ids"]) if "node_config_ids" in z.files else 0,
            "comps": len(splits) - (1 if len(splits) and splits[0] == 0 else 0),
        })
    return graphs


def check(name, fn):
    try:
        ok, why = fn()
    except Exception as e:  # a failing query is a failing test
        ok, why = False, "%s: %s" % (type(e).__name__, e)
    report(name, ok, why)


def check_counts(root, graphs):
    total = sum(g["n"] for g in graphs)
    want = np.zeros(256, dtype=np.int64)
    for g in graphs:
        want += np.bincount(g["op"], minlength=256)

    def by_id():
        got = {int(num(r["opcode_id"])): (int(r["count"]), num(r["share"]))
               for r in rows(root, "count by opcode_id")}
        ids = {i for i in range(256) if want[i]}
        if set(got) != ids:
            return False, "ids differ"
        bad = [i for i in ids if got[i][0] != want[i] or not close(got[i][1], want[i] / total)]
        return not bad, "ids %s differ" % bad[:5]

    def by_name():
        got = rows(root, "count by opcode")
        counts = sorted(int(r["count"]) for r in got)
        return (counts == sorted(int(c) for c in want if c) and len({r["opcode"] for r in got}) == len(got),
                "counts by name are not those by id")

    check("count by opcode_id = summed bincount of node_opcode", by_id)
    check("count by opcode: one row per opcode id, same counts", by_name)


def check_stats(root, graphs):
    cols = {
        "users": lambda g: g["users"],
        "operands": lambda g: g["operands"],
        "shape_dimensions_product": lambda g: g["feat"][:, 28],
        "opcode_id": lambda g: g["op"],
        "f21 * 2 - users": lambda g: g["feat"][:, 21] * 2 - g["users"],
    }
    q = "stats " + ", ".join(cols)
    got = {r["field"]: r for r in rows(root, q)}

    def one(field):
        v = np.concatenate([cols[field](g) for g in graphs]).astype(np.float64)
        r = got[field]
        want = [len(v), v.min(), v.max(), v.mean(), v.sum()] + list(np.percentile(v, [25, 50, 75, 90, 99]))
        names = ["count", "min", "max", "mean", "sum", "p25", "p50", "p75", "p90", "p99"]
        bad = [k for k, w in zip(names, want) if not close(num(r[k]), float(w))]
        return not bad, "%s differ: %s" % (bad, [(r[k], w) for k, w in zip(names, want) if k in bad][:3])

    for field in cols:
        check("stats %s over all rows of all graphs" % field, lambda f=field: one(f))

    def configs():
        r = rows(root, "stats runtime where config % 3 != 1")[0]
        v = np.concatenate([g["rt"][np.arange(len(g["rt"])) % 3 != 1] for g in graphs if g["labeled"]])
        want = [len(v), v.min(), v.max(), v.mean()] + list(np.percentile(v, [25, 50, 99]))
        names = ["count", "min", "max", "mean", "p25", "p50", "p99"]
        bad = [k for k, w in zip(names, want) if not close(num(r[k]), float(w))]
        return not bad, "%s differ" % bad

    check("stats runtime (configs, labeled graphs) = numpy over all configs", configs)


def check_rows(root, graphs):
    def where():
        got = [(r["file"], int(num(r["id"]))) for r in
               rows(root, "nodes where users >= 3 and opcode_id != 63 show id")]
        want = [(g["rel"], int(i)) for g in graphs
                for i in np.nonzero((g["users"] >= 3) & (g["op"] != 63))[0]]
        return got == want, "%d rows, numpy %d (or another order)" % (len(got), len(want))

    def top():
        got = [(r["file"], int(num(r["id"]))) for r in
               rows(root, "nodes sort by shape_dimensions_product desc limit 25 show id")]
        keyed = [(-g["feat"][i, 28], k, int(i)) for k, g in enumerate(graphs) for i in range(g["n"])]
        keyed.sort()
        want = [(graphs[k]["rel"], i) for _, k, i in keyed[:25]]
        return got == want, "top 25 differ: %s vs %s" % (got[:3], want[:3])

    def configs():
        got = [(r["file"], int(num(r["config"]))) for r in
               rows(root, "configs where runtime_rank <= 2 sort by runtime limit 10 show config")]
        keyed = []
        for k, g in enumerate(graphs):
            if not g["labeled"]:
                continue
            order = np.argsort(g["rt"], kind="stable")
            ranks = np.empty(len(order))
            for j, c in enumerate(order):  # competition ranks: ties share the smallest
                ranks[c] = j + 1 if j == 0 or g["rt"][c] != g["rt"][order[j - 1]] else ranks[order[j - 1]]
            keyed += [(g["rt"][c], k, int(c)) for c in range(len(g["rt"])) if ranks[c] <= 2]
        keyed.sort()
        want = [(graphs[k]["rel"], c) for _, k, c in keyed[:10]]
        return got == want, "%s vs %s" % (got[:3], want[:3])

    check("nodes where: the rows of every graph, in path order", where)
    check("nodes sort by ... limit 25: the top 25 over all graphs (a bounded heap)", top)
    check("configs where ... sort by runtime limit 10: the top 10 over all graphs", configs)


def check_graphs(root, graphs):
    q = ("graphs show file, kind, nodes, edges, configs, configurable, splits, labeled, "
         "runtime_min, runtime_median, runtime_max, count(opcode_id = 63), sum(users), "
         "max(shape_dimensions_product where users > 1), mean(operands), min(f21 where opcode_id != 63)")
    got = rows(root, q)

    def fields():
        if [r["file"] for r in got] != [g["rel"] for g in graphs]:
            return False, "not one row per graph in path order"
        for r, g in zip(got, graphs):
            rt = g["rt"]
            lab = g["labeled"] and len(rt) > 0
            f21 = g["feat"][g["op"] != 63, 21]
            big = g["feat"][g["users"] > 1, 28]
            want = {
                "kind": g["kind"], "nodes": g["n"], "edges": g["edges"], "configs": len(rt),
                "configurable": g["cfg"], "splits": g["comps"], "labeled": int(g["labeled"]),
                "runtime_min": rt.min() if lab else math.nan,
                "runtime_median": float(np.median(rt)) if lab else math.nan,
                "runtime_max": rt.max() if lab else math.nan,
                "count(opcode_id = 63)": int((g["op"] == 63).sum()),
                "sum(users)": int(g["users"].sum()),
                "max(shape_dimensions_product where users > 1)": big.max() if len(big) else math.nan,
                "mean(operands)": g["operands"].mean() if g["n"] else math.nan,
                "min(f21 where opcode_id != 63)": f21.min() if len(f21) else math.nan,
            }
            for k, w in want.items():
                v = r[k]
                ok = v == w if isinstance(w, str) else close(num(v), float(w))
                if not ok:
                    return False, "%s: %s is %r, numpy %r" % (g["rel"], k, v, w)
        return True, ""

    check("graphs: fields and aggregates of every graph", fields)

    def where():
        got = [r["file"] for r in rows(root, "graphs where count(users >= 4) > 2 sort by nodes desc show file")]
        want = [g["rel"] for g in sorted((g for g in graphs if (g["users"] >= 4).sum() > 2),
                                         key=lambda g: -g["n"])]
        return got == want, "%s vs %s" % (got[:3], want[:3])

    check("graphs where count(...) sort by nodes desc", where)


def main():
    root = sys.argv[1]
    graphs = load(root)
    report("folder has graphs of both kinds", len({g["kind"] for g in graphs}) == 2,
           "%d graphs" % len(graphs))
    check_counts(root, graphs)
    check_stats(root, graphs)
    check_rows(root, graphs)
    check_graphs(root, graphs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
