"""Checks query results against the same computation done with numpy on the
same .npz arrays: counts by opcode, users and operands (bincount), filters,
statistics (numpy.percentile), splits (node_splits), config order
(argsort of runtimes), config values, every feature column, paths and
neighbourhoods (a breadth-first search written here), and that --json and
--csv output parse.

Usage: numpy_check.py FILE.npz...   (environment: HLOSCOPE)
Prints PASS / FAIL lines for tests/run.sh.

The checks of a file run in rounds, so that one hloscope process answers many
queries: a check that asks for a result not known yet stops (Pending); the
queries asked in a round run in one `hloscope query FILE --csv Q1 Q2 ...`
(results are separated by blank lines; when the count does not match or a
query fails they run one by one), and the stopped checks start again.
"""
import csv
import io
import json
import math
import os
import subprocess
import sys
from collections import deque

import numpy as np

HLOSCOPE = os.environ["HLOSCOPE"]
failed = 0


def report(name, ok, why=""):
    global failed
    if ok:
        print("PASS %s" % name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def query(path, *queries, fmt="csv"):
    args = [HLOSCOPE, "query", path, "--" + fmt] + list(queries)
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.decode()[:300]))
    return p.stdout.decode()


class Pending(Exception):
    """A check asked for a query result that the next round will fetch."""


results = {}  # (path, query) -> CSV text, or the RuntimeError of a failed query
wanted = []   # (path, query) asked for in this round


def rows(path, q):
    key = (path, q)
    if key not in results:
        wanted.append(key)
        raise Pending()
    if isinstance(results[key], Exception):
        raise results[key]
    return list(csv.DictReader(io.StringIO(results[key])))


def prefetch(path, qs):
    """Asks for all of qs at once (a check that needs several results)."""
    missing = [(path, q) for q in qs if (path, q) not in results]
    if missing:
        wanted.extend(missing)
        raise Pending()


def fetch(path, qs):
    """Fills results for qs: one process, or one per query if need be."""
    qs = list(dict.fromkeys(qs))
    try:
        parts = query(path, *qs).split("\n\n")
        if len(parts) == len(qs):
            for q, text in zip(qs, parts):
                results[(path, q)] = text
            return
    except RuntimeError:
        pass
    for q in qs:
        try:
            results[(path, q)] = query(path, q)
        except RuntimeError as e:
            results[(path, q)] = e


def run_checks(path, checks):
    """Runs (label, fn) checks in rounds until none waits for a result."""
    while checks:
        waiting = []
        for label, fn in checks:
            try:
                ok, why = fn()
            except Pending:
                waiting.append((label, fn))
                continue
            except Exception as e:  # a failing query is a failing test
                ok, why = False, "%s: %s" % (type(e).__name__, e)
            report(label, ok, why)
        fetch(path, [q for p, q in wanted if p == path])
        del wanted[:]
        checks = waiting


def num(s):
    return float("nan") if s == "" else float(s)


def close(a, b, rel=1e-9):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def check_file(path):
    z = np.load(path)
    name = os.path.basename(path)
    feat = z["node_feat"].astype(np.float64)
    op = z["node_opcode"].astype(np.int64)
    edges = z["edge_index"].astype(np.int64).reshape(-1, 2)
    n = len(op)
    users = np.bincount(edges[:, 1], minlength=n)
    operands = np.bincount(edges[:, 0], minlength=n)
    layout = "node_config_feat" in z.files

    checks = []

    def t(label, fn):
        checks.append(("query-numpy %s: %s" % (name, label), fn))

    # Counts.
    def count_by(field, values):
        got = {num(r[field]): (int(r["count"]), num(r["share"])) for r in rows(path, "count by " + field)}
        want = {}
        for v in values:
            want[float(v)] = want.get(float(v), 0) + 1
        if set(got) != set(want):
            return False, "values differ: %s vs %s" % (sorted(got)[:8], sorted(want)[:8])
        for k, (c, share) in got.items():
            if c != want[k] or not close(share, c / n):
                return False, "value %g: count %d share %g, numpy %d" % (k, c, share, want[k])
        return True, ""

    t("count by opcode_id = bincount(node_opcode)", lambda: count_by("opcode_id", op))
    t("count by users = bincount of edge_index[:,1]", lambda: count_by("users", users))
    t("count by operands = bincount of edge_index[:,0]", lambda: count_by("operands", operands))

    def count_names():
        r = rows(path, "count by opcode")
        return (sum(int(x["count"]) for x in r) == n and len(r) == len(np.unique(op)),
                "%d names for %d opcode ids" % (len(r), len(np.unique(op))))

    t("count by opcode: one name per opcode id, counts add up", count_names)

    def count_order():
        r = rows(path, "count by opcode_id")
        counts = [int(x["count"]) for x in r]
        keys = [num(x["opcode_id"]) for x in r]
        pairs = list(zip([-c for c in counts], keys))
        return pairs == sorted(pairs), "not sorted by count desc, value asc"

    t("count by: sorted by count, then value", count_order)

    # Filters.
    dims = feat[:, 28] if feat.shape[1] == 140 else feat[:, 0]
    fname = "shape_dimensions_product" if feat.shape[1] == 140 else "f0"
    filters = [
        ("%s > 1000 and opcode_id != 63 or users >= 3" % fname,
         ((dims > 1000) & (op != 63)) | (users >= 3)),
        ("not (operands = 1) and id % 3 = 1", ~(operands == 1) & (np.arange(n) % 3 == 1)),
        ("opcode_id in (26, 34, 41, 70) and %s * 2 - 1 >= 7" % fname,
         np.isin(op, [26, 34, 41, 70]) & (dims * 2 - 1 >= 7)),
        ("users - operands > 0 || id / 2 < 3", (users - operands > 0) | (np.arange(n) / 2 < 3)),
        ("(opcode_id = 63 or users > 2) and not (operands >= 2) and id != 5",
         ((op == 63) | (users > 2)) & ~(operands >= 2) & (np.arange(n) != 5)),
        ("opcode_id != 63 and users = operands and %s >= 1" % fname,
         (op != 63) & (users == operands) & (dims >= 1)),
    ]
    for q, mask in filters:
        def filt(q=q, mask=mask):
            got = [int(r["id"]) for r in rows(path, "nodes where %s show id" % q)]
            want = list(np.nonzero(mask)[0])
            return got == want, "%d ids vs numpy %d" % (len(got), len(want))
        t("nodes where " + q, filt)

    # Statistics.
    def stats():
        r = rows(path, "stats %s, users, operands where id >= 0" % fname)
        for row, arr in zip(r, (dims, users.astype(np.float64), operands.astype(np.float64))):
            want = {"count": len(arr), "min": arr.min(), "max": arr.max(), "mean": arr.mean(),
                    "sum": arr.sum()}
            for q in (25, 50, 75, 90, 99):
                want["p%d" % q] = np.percentile(arr, q)
            for k, v in want.items():
                if not close(num(row[k]), float(v)):
                    return False, "%s %s: %s vs numpy %r" % (row["field"], k, row[k], v)
        return True, ""

    t("stats = numpy min/max/mean/sum/percentile", stats)

    # node_splits segments (`splits`; `computations` are the HLO ones).
    def comps():
        if "node_splits" not in z.files:  # tile files: one computation
            want = [n]
        else:
            bounds = z["node_splits"].reshape(-1).astype(np.int64)
            if bounds[0] != 0:
                bounds = np.concatenate([[0], bounds])
            want = [int(x) for x in np.diff(bounds)]
        got = [int(r["nodes"]) for r in rows(path, "splits")]
        return got == want, "%s vs numpy %s" % (got[:8], want[:8])

    t("splits = diff(node_splits)", comps)

    # Every feature of node 0 and of the last node, through `show *`.
    def features():
        prefetch(path, ["nodes where id = %d show *" % v for v in (0, n - 1)])
        for v in (0, n - 1):
            r = rows(path, "nodes where id = %d show *" % v)[0]
            names = list(r.keys())[-feat.shape[1]:]
            got = np.array([num(r[k]) for k in names])
            if not np.array_equal(got, feat[v]):
                bad = np.nonzero(got != feat[v])[0][:3]
                return False, "node %d features %s differ" % (v, bad)
        return True, ""

    t("show * = node_feat rows", features)

    # Configs: order by runtime, values.
    rt_raw = z["config_runtime"].astype(np.float64)
    labeled = bool(np.any(rt_raw != 0))
    if labeled:
        rt = rt_raw / z["config_runtime_normalizers"] if "config_runtime_normalizers" in z.files else rt_raw

        def order():
            got = [int(r["config"]) for r in rows(path, "configs sort by runtime show config")]
            want = list(np.argsort(rt, kind="stable"))
            return got == want, "first %s vs numpy %s" % (got[:5], want[:5])

        t("configs sort by runtime = argsort(runtime)", order)

        def ranks():
            r = rows(path, "configs where runtime_rank = 1 show config, runtime")
            best = int(np.argmin(rt))
            return int(r[0]["config"]) == best and close(num(r[0].get("runtime_ns", r[0].get("runtime"))), rt[best]), \
                "best %s vs numpy %d" % (r[0]["config"], best)

        t("runtime_rank 1 = argmin(runtime)", ranks)
    else:
        def hidden():
            r = rows(path, "configs limit 2")
            return all(x.get("runtime_ns", x.get("runtime")) == "" for x in r), "runtimes of an unlabeled file not empty"

        t("hidden runtimes are missing", hidden)

    def config_values():
        k = len(rt_raw) - 1
        r = rows(path, "config %d" % k)
        if layout:
            ncf = z["node_config_feat"][k].astype(np.float64)
            ids = z["node_config_ids"].astype(np.int64)
            got_ids = [int(x["node"]) for x in r]
            got = np.array([[num(x[c]) for c in list(x.keys())[3:]] for x in r])
            return got_ids == list(ids) and np.array_equal(got, ncf), "values differ"
        got = np.array([num(x["value"]) for x in r])
        return np.array_equal(got, z["config_feat"][k].astype(np.float64)), "values differ"

    t("config N = node_config_feat[N] / config_feat[N]", config_values)

    # Paths and neighbourhoods against a BFS written here.
    succ = [[] for _ in range(n)]   # users
    pred = [[] for _ in range(n)]   # operands
    for u, v in edges:
        succ[v].append(u)
        pred[u].append(v)

    def bfs(start, nbrs, depth=None):
        dist = {start: 0}
        dq = deque([start])
        while dq:
            x = dq.popleft()
            if depth is not None and dist[x] >= depth:
                continue
            for y in nbrs(x):
                if y not in dist:
                    dist[y] = dist[x] + 1
                    dq.append(y)
        return dist

    rng = np.random.default_rng(7)
    pairs = [(int(a), int(b)) for a, b in rng.integers(0, n, size=(6, 2))]
    pairs += [(int(v), int(succ[v][0])) for v in range(n) if succ[v]][:2]

    def paths():
        prefetch(path, ["path %d %d" % (a, b) for a, b in pairs])
        for a, b in pairs:
            d1 = bfs(a, lambda x: succ[x]).get(b)
            d2 = bfs(a, lambda x: pred[x]).get(b)
            want = d1 if d1 is not None else d2
            r = rows(path, "path %d %d" % (a, b))
            got = len(r) - 1 if r else None
            if got != want:
                return False, "path %d %d: %s steps, numpy BFS %s" % (a, b, got, want)
            ids = [int(x["id"]) for x in r]
            if r and (ids[0] != a or ids[-1] != b):
                return False, "path %d %d runs %s" % (a, b, ids)
            for x, y in zip(ids, ids[1:]):
                if y not in succ[x] and y not in pred[x]:
                    return False, "path %d %d: %d-%d is not an edge" % (a, b, x, y)
        return True, ""

    t("path = shortest directed path", paths)

    def neighbours():
        prefetch(path, ["neighbors %d depth %d %s" % (v, d, w) for v in (0, n // 2, n - 1)
                        for d, w in ((2, ""), (3, "up"), (3, "down"))])
        for v in (0, n // 2, n - 1):
            for depth, dirword, nbrs in ((2, "", lambda x: succ[x] + pred[x]),
                                         (3, "up", lambda x: pred[x]),
                                         (3, "down", lambda x: succ[x])):
                want = bfs(v, nbrs, depth)
                del want[v]
                r = rows(path, "neighbors %d depth %d %s" % (v, depth, dirword))
                got = {int(x["id"]): int(x["distance"]) for x in r}
                if got != want:
                    return False, "neighbors %d depth %d %s: %d vs %d nodes" % (
                        v, depth, dirword, len(got), len(want))
        return True, ""

    t("neighbors = BFS distances", neighbours)

    # Output formats parse.
    def json_stream():
        text = query(path, "count by opcode", "show 0", "nodes limit 2", "stats users", "help",
                     "configs limit 2", "nodes where 1 = 0", fmt="json")
        dec = json.JSONDecoder()
        i, docs = 0, []
        while i < len(text):
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                break
            doc, i = dec.raw_decode(text, i)
            docs.append(doc)
        ok = len(docs) == 7 and isinstance(docs[0], list) and "text" in docs[1] and docs[6] == []
        ok = ok and sum(d["count"] for d in docs[0]) == n
        return ok, "%d documents" % len(docs)

    t("--json: one valid document per command", json_stream)

    def csv_tables():
        text = query(path, "count by opcode", "nodes limit 3 show id, shape")
        parts = text.split("\n\n")
        a = list(csv.DictReader(io.StringIO(parts[0])))
        b = list(csv.DictReader(io.StringIO(parts[1])))
        return sum(int(r["count"]) for r in a) == n and len(b) == min(3, n), "csv tables"

    t("--csv: tables parse, blank line between", csv_tables)
    run_checks(path, checks)


def main():
    for path in sys.argv[1:]:
        check_file(path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
