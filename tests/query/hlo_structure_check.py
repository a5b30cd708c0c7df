"""Checks the query language's view of a module's structure against the HLO
text itself, read line by line here (not with the C parser), for each file:

  nodes show ... operand_names, operands, users, shape, hlo, computation_role
      each instruction's operands in the order written (repeats kept), how
      many, its users (the instructions that name it as an operand, each
      once), its shape as written, its whole line, and the role of its
      computation (from the attribute that calls it: calls=, body=, ...)
  nodes show attr('NAME'), ...
      every attribute name the file uses, as written ('' when absent; a
      metadata stack_frame_id resolved into source_file and source_line)
  computations   name, role, nodes, root, callers of each computation
  collectives    replica groups and pairs as written, groups, group size, pairs, channel id,
                 bytes per device (the operands' shapes), shape
  opcodes        every opcode as written with its count
  show NAME      for parameters of called computations: the caller's
                 operand each one stands for (fusion, call: operand N;
                 while: operand 0; conditional branch k: operand k + 1)

Prints PASS / FAIL lines for tests/run.sh.

Usage: hlo_structure_check.py FILE.hlo...   (environment: HLOSCOPE)
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
from hloref import COLLECTIVES, Module, frames_resolved, shape_bytes, shape_text  # noqa: E402  (the tests' one reading)

HLOSCOPE = os.environ["HLOSCOPE"]


def query(path, *queries):
    out = subprocess.run([HLOSCOPE, "query", path, "--csv", *queries], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return out.stdout


def rows(path, q):
    return list(csv.DictReader(io.StringIO(query(path, q))))


def check(label, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + str(detail)[:400]))
    return ok


def diff(want, got):
    """The first few keys whose values differ, as (key, text, hloscope)."""
    return [(k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got), key=str)
            if want.get(k) != got.get(k)][:3]


def check_nodes(path, base, mod):
    instrs = mod.instrs
    got = rows(path, "nodes show name, computation, operand_names, operands, operand_count, "
                     "users, shape, hlo, computation_role")
    key = lambda r: (r["computation"], r["name"])  # noqa: E731
    want_of = {(i["comp"], i["name"]): i for i in instrs}
    got_of = {key(r): r for r in got}
    good = check("%s: structure rows" % base, set(want_of) == set(got_of),
                 set(want_of) ^ set(got_of))
    fields = {
        "operand_names": lambda i: ", ".join(i["operands"]),
        "operands": lambda i: str(len(i["operands"])),
        "operand_count": lambda i: str(len(i["operands"])),
        "users": lambda i: str(len(mod.users.get((i["comp"], i["name"]), ()))),
        "shape": lambda i: shape_text(i["shape"]),
        "hlo": lambda i: i["line"],
        "computation_role": lambda i: mod.role(i["comp"]),
    }
    for f, want_f in fields.items():
        want = {k: want_f(i) for k, i in want_of.items()}
        have = {k: r[f] for k, r in got_of.items()}
        good &= check("%s: %s of every instruction" % (base, f), want == have, diff(want, have))
    return good


def check_attrs(path, base, instrs):
    names = sorted({a for i in instrs for a in i["attr"]})[:40]
    if not names:
        return True
    got = rows(path, "nodes show name, computation, " +
               ", ".join("attr('%s')" % a for a in names))
    got_of = {(r["computation"], r["name"]): r for r in got}
    want_md = {(i["comp"], i["name"]): i["attr"].get("metadata", "") for i in instrs}
    good = True
    for a in names:
        want = {(i["comp"], i["name"]): frames_resolved(a, i["attr"].get(a, ""), "stack_frame_id=" in want_md[(i["comp"], i["name"])])
                for i in instrs}
        have = {k: frames_resolved(a, r["attr('%s')" % a], "stack_frame_id=" in want_md.get(k, ""))
                for k, r in got_of.items()}
        good &= want == have
        if want != have:
            check("%s: attr('%s')" % (base, a), False, diff(want, have))
    return check("%s: attr() of %d attribute names" % (base, len(names)), good)


def check_computations(path, base, mod):
    want = {c: (mod.role(c), str(len(mod.comps[c])), next((i["name"] for i in mod.comps[c] if i["root"]), ""),
                str(len({id(i) for i, _, _ in mod.callers[c]}))) for c in mod.comps}
    got = {r["computation"]: (r["role"], r["nodes"], r["root"], r["callers"])
           for r in rows(path, "computations")}
    return check("%s: computations (role, nodes, root, callers)" % base, want == got, diff(want, got))


def groups_of(text):
    """(groups, group size) of replica_groups as written; (0, 0) for none."""
    m = re.match(r"\s*\[(\d+)(?:,(\d+))?\]<=", text)
    if m:
        return (int(m.group(1)), int(m.group(2))) if m.group(2) else (1, int(m.group(1)))
    inner = re.findall(r"\{([^{}]*)\}", text[1:-1]) if text.startswith("{{") else []
    if not inner:
        return 0, 0
    return len(inner), max(len([x for x in g.split(",") if x.strip()]) for g in inner)


def num(text):
    return "" if text in ("", "-") else "%g" % float(text)


def check_collectives(path, base, instrs):
    shape_of = {(i["comp"], i["name"]): i["shape"] for i in instrs}
    want = {}
    for i in instrs:
        if i["opcode"] not in COLLECTIVES:
            continue
        rg = i["attr"].get("replica_groups", "")
        g, s = groups_of(rg)
        stp = i["attr"].get("source_target_pairs", "")
        pairs = len(re.findall(r"\{\s*\d+\s*,\s*\d+\s*\}", stp))
        if i["opcode"].startswith("collective-permute"):  # pairs, not groups
            g = 0
        nbytes = sum(shape_bytes(shape_of[(i["comp"], o)]) for o in i["operands"])
        want[(i["comp"], i["name"])] = (i["opcode"], rg, stp, num(str(g)) if g else "",
                                        num(str(s)) if g else "", num(str(pairs)) if pairs else "",
                                        num(i["attr"].get("channel_id", "")), num(str(nbytes)),
                                        shape_text(i["shape"]))
    got = {}
    by_name = {i["name"]: i["comp"] for i in instrs}
    for r in rows(path, "collectives"):
        got[(by_name.get(r["name"]), r["name"])] = (
            r["opcode"], r["replica_groups"], r["source_target_pairs"], num(r["groups"]),
            num(r["group_size"]), num(r["pairs"]),
            num(r["channel_id"]), num(r["bytes"]), r["shape"])
    return check("%s: collectives (%d)" % (base, len(want)), want == got, diff(want, got))


def check_opcodes(path, base, instrs):
    want = Counter(i["opcode"] for i in instrs)
    got = {r["opcode"]: int(r["nodes"]) for r in rows(path, "opcodes")}
    return check("%s: opcodes as written" % base, dict(want) == got, diff(dict(want), got))


def check_parameters(path, base, mod):
    """show NAME of parameters of called computations (up to 40), in one run."""
    callers = {}
    for c, calls in mod.callers.items():  # each caller once, with the first key it calls c by
        for i, key, _ in calls:
            if all(i is not j for j, _ in callers.setdefault(c, [])):
                callers[c].append((i, key))
    params = [i for i in mod.instrs if i["opcode"] == "parameter" and callers.get(i["comp"])
              and mod.role(i["comp"]) not in ("reducer",)]
    names = Counter(i["name"] for i in mod.instrs)
    params = [i for i in params if names[i["name"]] == 1][:40]
    if not params:
        return True
    text = query(path, *["show '%s'" % i["name"] for i in params])
    blocks = [b for b in text.split("\n\n") if b.startswith("node ")]
    good = check("%s: show of %d parameters" % (base, len(params)), len(blocks) == len(params),
                 "%d blocks" % len(blocks))
    for ins, block in zip(params, blocks):
        want = []
        for c, key in callers[ins["comp"]][:12]:
            k = mod.source(ins, c, key)
            if k >= 0:
                want.append((c["name"], k, c["operands"][k]))
        got = [(m.group(3), int(m.group(2)), m.group(4)) for m in re.finditer(
            r"^  parameter     (\d+) = operand (\d+) of (\S+) \(node \d+\): \d+ (\S+)$", block, re.M)]
        good &= check("%s: show %s stands for the callers' operands" % (base, ins["name"]),
                      want == got, (want, got))
    return good


def check_file(path):
    base = os.path.basename(path)
    mod = Module(path)
    good = check_nodes(path, base, mod)
    good &= check_attrs(path, base, mod.instrs)
    good &= check_computations(path, base, mod)
    good &= check_collectives(path, base, mod.instrs)
    good &= check_opcodes(path, base, mod.instrs)
    good &= check_parameters(path, base, mod)
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
