"""Checks what the explorer shows of an HLO module against the HLO text
itself, read line by line with regular expressions (tests/hlo/hloref.py,
not the C parser):

  node detail  for fusions, their bodies' parameters and roots, nodes with
               a repeated operand, collectives, while / call / conditional
               nodes and their bodies' parameters and roots (and a few
               more): the operands in the instruction's order, repeats kept,
               each with its index; the users, each once; the called
               computations; for a parameter or the root of a called
               computation its callers, and for a parameter the operand
               each caller passes it (fusion, call, custom-call, map,
               async-start: operand N; while: operand 0; conditional
               branch k: operand k + 1; sort: operand N / 2); the
               attributes as written, in order; and `u` from a parameter
               lands on that operand;
  node table   the ops, users and shape columns of every node (a tuple's
               shape whole, as written);
  collectives  (`:collectives`) every collective with its replica groups
               as written, the number of groups and the devices in one,
               the channel id and the bytes per device (its operands');
  frequency    F on the op_name column: every distinct value whole (not
               cut), with its count;
  overview     of a plain module: instructions, computations, fusions,
               collectives; its analytic total is the sum of the cost
               column over the executed computations (neither fusion
               bodies nor reducers), each executed op once.

Each file is one explorer session (HLOSCOPE_SCRIPT) that writes its tables
with :write and its screens with :save-display.  Prints PASS / FAIL lines
for tests/run.sh.

Usage: explorer_hlo_check.py TMPDIR FILE.hlo...
Environment: HLOSCOPE (the binary), PASS (sanitizer: stderr is checked for
reports).
"""
import csv
import os
import re
import subprocess
import sys
from collections import Counter
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hlo"))
from hloref import COLLECTIVES, Module, frames_resolved, shape_bytes, shape_text  # noqa: E402  (the tests' one reading)

HLOSCOPE = os.environ["HLOSCOPE"]
SANITIZER = os.environ.get("PASS") == "sanitizer"
NAME_MAX = 40


def units_ns(ns):
    """A time as the explorer writes it (base/units.c, 3 decimals)."""
    if ns >= 1e9:
        return "%.3f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.3f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.3f us" % (ns / 1e3)
    if ns >= 1 or ns == 0:
        return "%.0f ns" % ns
    return "%.3g ns" % ns


def units_sig(v, steps):
    """A size or a FLOP count as the explorer writes it (base/units.c: the
    largest step reached, 3 significant digits)."""
    for suffix, scale in steps:
        if v >= scale:
            break
    return "%.3g %s" % (v / scale, suffix)


BYTE_STEPS = (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1))
FLOP_STEPS = (("PFLOP", 1e15), ("TFLOP", 1e12), ("GFLOP", 1e9), ("MFLOP", 1e6), ("kFLOP", 1e3), ("FLOP", 1))

def short(name):
    if len(name) <= NAME_MAX:
        return name
    tail = (NAME_MAX - 1) // 2
    return name[:NAME_MAX - 1 - tail] + "\u2026" + name[-tail:]


def pick_nodes(mod, limit):
    """Nodes worth a detail check, the interesting ones first."""
    out, seen = [], set()

    def add(i):
        key = (i["comp"], i["name"])
        if key not in seen and len(out) < limit:
            seen.add(key)
            out.append(i)
    for i in mod.instrs:
        if len(set(i["operands"])) < len(i["operands"]) or i["opcode"] in COLLECTIVES:
            add(i)
    for i in mod.instrs:
        if i["calls"]:
            add(i)
            for _, c in i["calls"]:
                for j in mod.comps.get(c, []):
                    if j["param"] >= 0 or j["root"]:
                        add(j)
    for i in mod.instrs[::max(1, len(mod.instrs) // 20)]:
        add(i)
    return out


def session(tmp, path, lines):
    script = os.path.join(tmp, "script")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    env = dict(os.environ, HLOSCOPE_SCRIPT=script, COLUMNS="200", LINES="50", TERM="screen-256color",
               LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("HLOSCOPE_MASK_MODEL", None)
    r = subprocess.run([HLOSCOPE, path], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    bad = SANITIZER and re.search(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:", r.stderr)
    return r.returncode == 0 and not bad, r.stderr[:300]


class Missing(Exception):
    """A table or screen the session should have written and did not, or
    one of another shape."""


def rows(path, width=None):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            out = list(csv.reader(f))[1:]
    except OSError as e:
        raise Missing("%s: %s" % (os.path.basename(path), e.strerror))
    if width and any(len(r) < width for r in out):
        raise Missing("%s: rows of fewer than %d columns" % (os.path.basename(path), width))
    return out


def dict_rows(path, need=()):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            out = list(csv.DictReader(f))
    except OSError as e:
        raise Missing("%s: %s" % (os.path.basename(path), e.strerror))
    if out and any(k not in out[0] for k in need):
        raise Missing("%s: no column %s" % (os.path.basename(path), [k for k in need if k not in out[0]]))
    return out


def screen_lines(path):
    try:
        return open(path, encoding="utf-8").read().split("\n") + [""] * 8
    except OSError as e:
        raise Missing("%s: %s" % (os.path.basename(path), e.strerror))


def check(label, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + str(detail)[:400]))
    return ok


def detail_want(mod, i):
    """What the list of node i's detail holds, from the text."""
    want = {"operands": i["operands"], "users": mod.users.get((i["comp"], i["name"]), set()),
            "calls": {c for _, c in i["calls"]}, "callers": set(), "sources": set()}
    if (i["param"] >= 0 or i["root"]) and i["comp"] != mod.entry:
        for caller, key, pos in mod.callers[i["comp"]]:
            want["callers"].add(caller["name"])
            k = mod.source(i, caller, key) if i["param"] >= 0 else -1
            if k >= 0:
                want["sources"].add((caller["name"], k, caller["operands"][k]))
    return want


def detail_got(nbrs):
    got = {"operands": [], "users": set(), "calls": set(), "callers": set(), "sources": set()}
    caller = None
    for rel, _, name, *_ in nbrs:
        if rel.startswith("operand "):
            got["operands"].append((int(rel.split()[1]), name))
        elif rel == "user":
            got["users"].add(name)
        elif rel == "calls":
            got["calls"].add(name)
        elif rel == "caller":
            caller = name
            got["callers"].add(name)
        elif "operand" in rel:
            got["sources"].add((caller, int(rel.split()[-1]), name))
    idx = [k for k, _ in got["operands"]]
    got["operands"] = [n for _, n in got["operands"]] if idx == list(range(len(idx))) else ["bad index", idx]
    return got


def check_details(tmp, path, mod, base):
    nodes = pick_nodes(mod, 60)
    lines = [":show %s" % nodes[0]["name"]] if nodes else []
    ups = []
    for k, i in enumerate(nodes):
        lines.append(":goto %s" % i["name"])
        lines.append(":write %s/nbrs_%d.csv" % (tmp, k))
        if i["attrs"]:
            lines += ["Tab", "Tab", ":write %s/attrs_%d.csv" % (tmp, k), "Tab"]
        w = detail_want(mod, i)
        if w["sources"]:
            lines += ["u", ":save-display %s/up_%d.txt" % (tmp, k), "<"]
            ups.append((k, i, w["sources"]))
    ok, err = session(tmp, path, lines)
    good = check("%s: node detail session ends cleanly" % base, ok, err)
    if not ok:
        return False
    for k, i in enumerate(nodes):
        what = "%s: %s" % (base, i["name"])
        try:
            good &= check_detail(tmp, k, mod, i, what)
        except Missing as e:
            good &= check(what + ": node detail written", False, e)
    for k, i, sources in ups:
        try:
            head = screen_lines("%s/up_%d.txt" % (tmp, k))[1]
        except Missing as e:
            head = str(e)
        names = {short(s) for _, _, s in sources}
        good &= check("%s: u from %s lands on the operand it stands for" % (base, i["name"]),
                      any(re.search(r" node \d+  %s  " % re.escape(n), head) for n in names), head)
    return good


def check_detail(tmp, k, mod, i, what):
    """The list and the attributes of node i's detail (written as nbrs_K,
    attrs_K) against the text."""
    got, want = detail_got(rows("%s/nbrs_%d.csv" % (tmp, k), 3)), detail_want(mod, i)
    good = True
    good &= check(what + ": operands in order, repeats kept", got["operands"] == want["operands"],
                  "%r != %r" % (got["operands"], want["operands"]))
    good &= check(what + ": users, each once", got["users"] == want["users"],
                  "%r != %r" % (got["users"], want["users"]))
    good &= check(what + ": calls apart", got["calls"] == want["calls"], "%r != %r" % (got["calls"], want["calls"]))
    good &= check(what + ": callers and the operands they pass",
                  (got["callers"], got["sources"]) == (want["callers"], want["sources"]),
                  "%r != %r" % ((got["callers"], got["sources"]), (want["callers"], want["sources"])))
    if i["attrs"]:
        framed = "stack_frame_id=" in dict(i["attrs"]).get("metadata", "")
        attrs = [(a, frames_resolved(a, v, framed)) for a, v in rows("%s/attrs_%d.csv" % (tmp, k))]
        want = [(a, frames_resolved(a, v, framed)) for a, v in i["attrs"]]
        good &= check(what + ": attributes as written", attrs == want, "%r != %r" % (attrs, want))
    return good


def collectives_want(mod):
    out = []
    for i in mod.instrs:
        if i["opcode"] not in COLLECTIVES:
            continue
        a = dict(i["attrs"])
        g = a.get("replica_groups", "")
        m = re.match(r"\[(\d+),(\d+)\]<=", g)
        if m:
            groups, size = int(m.group(1)), int(m.group(2))
        elif re.match(r"\[(\d+)\]<=", g):
            groups, size = 1, int(re.match(r"\[(\d+)\]", g).group(1))
        else:
            inner = re.findall(r"\{([0-9,\s]*)\}", g[1:-1]) if g.startswith("{") else []
            sizes = [len([x for x in s.split(",") if x.strip()]) for s in inner]
            groups, size = (len(sizes), max(sizes)) if sizes and max(sizes) > 0 else (0, 0)
        ch = a.get("channel_id", "")
        nbytes = sum(shape_bytes(mod.by[(i["comp"], o)]["shape"]) for o in i["operands"])
        if i["opcode"].startswith("collective-permute"):  # its devices are pairs, not groups
            pairs = a.get("source_target_pairs", "")
            g, groups, size = "pairs " + pairs if pairs else "(no pairs)", 0, 0
        out.append([i["name"], i["opcode"], g if g else "(none: every device)",
                    str(groups) if groups else "-", str(size) if size else "-", ch or "-", str(nbytes)])
    return sorted(out)


def check_module_views(tmp, path, mod, base):
    """Overview, node table, collectives and F on op_name, in one session."""
    try:
        return module_views(tmp, path, mod, base)
    except Missing as e:
        return check("%s: module views written" % base, False, e)


def module_views(tmp, path, mod, base):
    lines = [":save-display %s/overview.txt" % tmp, "t", ":column computation", ":column flops",
             ":column bytes", ":write %s/nodes.csv" % tmp, ":column op_name", "F",
             ":write %s/freq.csv" % tmp, "q", "q", ":collectives", ":write %s/coll.csv" % tmp]
    ok, err = session(tmp, path, lines)
    good = check("%s: module views session ends cleanly" % base, ok, err)
    if not ok:
        return False
    screen = screen_lines("%s/overview.txt" % tmp)
    fusions = sum(i["opcode"] == "fusion" for i in mod.instrs)
    colls = sum(i["opcode"] in COLLECTIVES for i in mod.instrs)
    counts = " %d instruction%s  %d computation%s  %d fusion%s  %d collective%s" % (
        len(mod.instrs), "" if len(mod.instrs) == 1 else "s", len(mod.comps), "" if len(mod.comps) == 1 else "s",
        fusions, "" if fusions == 1 else "s", colls, "" if colls == 1 else "s")
    good &= check("%s: the overview counts what the module holds" % base, screen[2].startswith(counts),
                  "%r, wanted %r" % (screen[2], counts))
    good &= check("%s: the overview says a plain module has no configs" % base,
                  screen[3].startswith(" no configs"), screen[3])
    table = dict_rows("%s/nodes.csv" % tmp, ("name", "computation", "ops", "users", "shape", "cost", "flops",
                                              "bytes"))
    bad_counts = []
    for r in table:
        i = mod.by.get((r["computation"], r["name"]))
        if not i or (int(r["ops"]), int(r["users"])) != (len(i["operands"]),
                                                         len(mod.users.get((i["comp"], i["name"]), ()))):
            bad_counts.append((r["name"], r["ops"], r["users"]))
    good &= check("%s: the node table's ops and users are the instructions'" % base,
                  len(table) == len(mod.instrs) and not bad_counts, bad_counts[:3])
    bad_shapes = [(r["name"], r["shape"]) for r in table if (r["computation"], r["name"]) in mod.by and
                  r["shape"] != shape_text(mod.by[(r["computation"], r["name"])]["shape"])]
    good &= check("%s: shapes whole, tuples written out" % base, not bad_shapes, bad_shapes[:2])
    total = [0.0, 0.0, 0.0]
    for r in table:
        if mod.executed(r["computation"]) and r["cost"] != "unknown":
            total = [total[0] + float(r["cost"]), total[1] + float(r["flops"]), total[2] + float(r["bytes"])]
    m = re.search(r"analytic cost: (\S+ \S*FLOP)  (\S+ \S*B)  (\S+ (?:ns|us|ms|s))\b", screen[4])
    want = (units_sig(total[1], FLOP_STEPS), units_sig(total[2], BYTE_STEPS), units_ns(total[0] * 1e9))
    good &= check("%s: the overview's total is over the executed computations only" % base,
                  m is not None and m.groups() == want, "%r, wanted %r" % (screen[4], want))
    freq = {r[0]: int(r[1]) for r in rows("%s/freq.csv" % tmp, 2)}
    want_freq = dict(Counter(i["op_name"] for i in mod.instrs))
    diff = [(k[:60], freq.get(k), want_freq.get(k)) for k in set(freq) | set(want_freq)
            if freq.get(k) != want_freq.get(k)]
    good &= check("%s: F on op_name: %d whole values with their counts" % (base, len(want_freq)),
                  not diff, diff[:3])
    coll = sorted([r[1], r[2], r[3], r[4], r[5], r[6], r[7]] for r in rows("%s/coll.csv" % tmp, 8))
    want_coll = collectives_want(mod)
    good &= check("%s: the collectives view: %d collectives, groups as written, channels, bytes" %
                  (base, len(want_coll)), coll == want_coll,
                  [(a, b) for a, b in zip(coll, want_coll) if a != b][:2] or (len(coll), len(want_coll)))
    return good


def main():
    ok = True
    for path in sys.argv[2:]:
        base = os.path.basename(path)
        mod = Module(path)
        tmp = os.path.join(sys.argv[1], base)  # each file's own outputs
        os.makedirs(tmp, exist_ok=True)
        ok &= check_module_views(tmp, path, mod, base)
        ok &= check_details(tmp, path, mod, base)
    sys.exit(0 if ok else 1)


main()
