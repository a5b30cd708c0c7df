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
  collectives    replica groups as written, groups, group size, channel id,
                 bytes per device (the operands' shapes), shape
  opcodes        every opcode as written with its count
  show NAME      for parameters of called computations: the caller's
                 operand each one stands for (fusion, call: operand N;
                 while: operand 0; conditional branch k: operand k + 1)

Prints PASS / FAIL lines for tests/run.sh.

Usage: hlo_structure_check.py FILE.hlo...   (environment: HLOSCOPE)
"""
import csv
import io
import os
import re
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_names_check import HEADER, INSTR, OPCODE, skip_shape, split_top, top_attrs, frames_resolved  # noqa: E402

HLOSCOPE = os.environ["HLOSCOPE"]
REDUCERS = {"reduce", "reduce-window", "reduce-scatter", "all-reduce", "all-reduce-start", "scatter",
            "select-and-scatter", "map", "sort", "reduce-precision"}
COLLECTIVES = {"all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter",
               "all-to-all", "ragged-all-to-all", "collective-permute", "collective-permute-start",
               "collective-broadcast"}
CALL_KEYS = ("calls", "to_apply", "body", "condition", "branch_computations", "true_computation",
             "false_computation", "select", "scatter", "called_computations")
ELEM_BYTES = {"pred": 1, "s2": 0.25, "u2": 0.25, "s4": 0.5, "u4": 0.5, "s8": 1, "u8": 1, "s16": 2,
              "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8,
              "f64": 8, "c64": 8, "c128": 16}


COMMENT = re.compile(r"/\*.*?\*/")


def shape_text(rest):
    """The result shape as written, without the /*index=5*/ comments XLA
    writes into long tuples: a (...) group or the first word."""
    if rest.startswith("("):
        return COMMENT.sub("", rest[:len(rest) - len(skip_shape(rest))])
    return rest.split(None, 1)[0]


def shape_bytes(text):
    """Bytes of a shape text: every array in it, f8 types 1 byte each."""
    total = 0
    for m in re.finditer(r"\b([a-z][a-z0-9]*)\[([0-9,]*)\]", text):
        et, dims = m.group(1), m.group(2)
        size = ELEM_BYTES.get(et, 1 if et.startswith("f8") else None)
        if size is None:
            continue
        n = 1
        for d in dims.split(","):
            if d:
                n *= int(d)
        total += n * size
    return total


def operand_names(opcode, after):
    """The operands written in the first (...) after the opcode: each one's
    last word (an old-style operand is 'f32[] %x'), '%' dropped."""
    if opcode in ("constant", "parameter"):
        return []
    start = after.find("(")
    _, closed = split_top(after[start:])
    inside = COMMENT.sub("", after[start + 1:start + closed - 1])
    names = []
    for part in split_top(inside)[0]:
        part = part.strip()
        if part:
            names.append(part.split()[-1].lstrip("%"))
    return names


def callees(value):
    """Computation names in an attribute value: %a or {%a, %b}."""
    return [n.lstrip("%") for n in re.findall(r"%?[A-Za-z0-9_.\-]+", value)]


def read_module(path):
    instrs, comps, comp, entry = [], [], None, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("HloModule"):
            continue
        h = HEADER.match(line)
        if h and "=" not in line.split("(")[0]:
            comp = h.group(1)
            comps.append(comp)
            if line.startswith("ENTRY"):
                entry = comp
            continue
        m = INSTR.match(line)
        if not m or comp is None:
            continue
        name, rest = m.group(1), m.group(2)
        after = skip_shape(rest)
        op = OPCODE.match(after)
        opcode = op.group(1) if op else ""
        attrs = top_attrs(rest)
        calls = []
        for key in CALL_KEYS:
            if key in attrs:
                calls += [(key, c) for c in callees(attrs[key])]
        instrs.append({"name": name, "comp": comp, "opcode": opcode, "shape": shape_text(rest),
                       "operands": operand_names(opcode, after), "attrs": attrs,
                       "line": line.strip(), "root": line.lstrip().startswith("ROOT "),
                       "calls": calls})
    return instrs, comps, entry


def roles(instrs, comps, entry):
    """Each computation's role, from its first caller in file order."""
    out = {}
    for ins in instrs:
        for key, callee in ins["calls"]:
            if callee in out:
                continue
            op = ins["opcode"]
            if key == "body":
                out[callee] = "while-body"
            elif key == "condition":
                out[callee] = "while-condition"
            elif key in ("branch_computations", "true_computation", "false_computation"):
                out[callee] = "branch"
            elif op == "fusion":
                out[callee] = "fusion"
            elif op == "call":
                out[callee] = "call"
            elif op.startswith("async-"):
                out[callee] = "async"
            elif op in REDUCERS:
                out[callee] = "reducer"
            else:
                out[callee] = "other"
    for c in comps:
        out.setdefault(c, "other")
    out[entry] = "entry"
    return out


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


def check_nodes(path, base, instrs, role):
    users = Counter()
    for ins in instrs:
        for o in set(ins["operands"]):
            users[(ins["comp"], o)] += 1
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
        "users": lambda i: str(users[(i["comp"], i["name"])]),
        "shape": lambda i: i["shape"],
        "hlo": lambda i: i["line"],
        "computation_role": lambda i: role[i["comp"]],
    }
    for f, want_f in fields.items():
        want = {k: want_f(i) for k, i in want_of.items()}
        have = {k: r[f] for k, r in got_of.items()}
        good &= check("%s: %s of every instruction" % (base, f), want == have, diff(want, have))
    return good


def check_attrs(path, base, instrs):
    names = sorted({a for i in instrs for a in i["attrs"]})[:40]
    if not names:
        return True
    got = rows(path, "nodes show name, computation, " +
               ", ".join("attr('%s')" % a for a in names))
    got_of = {(r["computation"], r["name"]): r for r in got}
    want_md = {(i["comp"], i["name"]): i["attrs"].get("metadata", "") for i in instrs}
    good = True
    for a in names:
        want = {(i["comp"], i["name"]): frames_resolved(a, i["attrs"].get(a, ""),
                                                 "stack_frame_id=" in i["attrs"].get("metadata", ""))
                for i in instrs}
        have = {k: frames_resolved(a, r["attr('%s')" % a], "stack_frame_id=" in want_md.get(k, ""))
                for k, r in got_of.items()}
        good &= want == have
        if want != have:
            check("%s: attr('%s')" % (base, a), False, diff(want, have))
    return check("%s: attr() of %d attribute names" % (base, len(names)), good)


def check_computations(path, base, instrs, comps, role):
    callers = Counter()
    for ins in instrs:
        for c in {c for _, c in ins["calls"]}:
            callers[c] += 1
    want = {c: (role[c], str(sum(1 for i in instrs if i["comp"] == c)),
                next((i["name"] for i in instrs if i["comp"] == c and i["root"]), ""),
                str(callers[c])) for c in comps}
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
        rg = i["attrs"].get("replica_groups", "")
        g, s = groups_of(rg)
        nbytes = sum(shape_bytes(shape_of[(i["comp"], o)]) for o in i["operands"])
        want[(i["comp"], i["name"])] = (i["opcode"], rg, num(str(g)) if g else "",
                                        num(str(s)) if g else "",
                                        num(i["attrs"].get("channel_id", "")), num(str(nbytes)),
                                        i["shape"])
    got = {}
    by_name = {i["name"]: i["comp"] for i in instrs}
    for r in rows(path, "collectives"):
        got[(by_name.get(r["name"]), r["name"])] = (
            r["opcode"], r["replica_groups"], num(r["groups"]), num(r["group_size"]),
            num(r["channel_id"]), num(r["bytes"]), r["shape"])
    return check("%s: collectives (%d)" % (base, len(want)), want == got, diff(want, got))


def check_opcodes(path, base, instrs):
    want = Counter(i["opcode"] for i in instrs)
    got = {r["opcode"]: int(r["nodes"]) for r in rows(path, "opcodes")}
    return check("%s: opcodes as written" % base, dict(want) == got, diff(dict(want), got))


def param_source(caller, callee, number):
    """The operand index of caller that parameter(number) of callee stands for."""
    op, keys = caller["opcode"], [k for k, c in caller["calls"] if c == callee]
    if op == "while":
        return 0 if number == 0 else None
    if op == "conditional":
        branch = [c for k, c in caller["calls"]].index(callee)
        return branch + 1 if number == 0 else None
    if op in ("fusion", "call", "async-start", "custom-call", "map"):
        return number
    if op == "sort" and keys:
        return number // 2
    return None


def check_parameters(path, base, instrs, role):
    """show NAME of parameters of called computations (up to 40), in one run."""
    callers = {}
    for i in instrs:
        for _, c in i["calls"]:
            callers.setdefault(c, [])
            if i not in callers[c]:
                callers[c].append(i)
    params = [i for i in instrs if i["opcode"] == "parameter" and callers.get(i["comp"])
              and role[i["comp"]] not in ("reducer",)]
    names = Counter(i["name"] for i in instrs)
    params = [i for i in params if names[i["name"]] == 1][:40]
    if not params:
        return True
    text = query(path, *["show '%s'" % i["name"] for i in params])
    blocks = [b for b in text.split("\n\n") if b.startswith("node ")]
    good = check("%s: show of %d parameters" % (base, len(params)), len(blocks) == len(params),
                 "%d blocks" % len(blocks))
    for ins, block in zip(params, blocks):
        number = int(re.search(r"parameter\((\d+)\)", ins["line"]).group(1))
        want = []
        for c in callers[ins["comp"]][:12]:
            k = param_source(c, ins["comp"], number)
            if k is not None and k < len(c["operands"]):
                want.append((c["name"], k, c["operands"][k]))
        got = [(m.group(3), int(m.group(2)), m.group(4)) for m in re.finditer(
            r"^  parameter     (\d+) = operand (\d+) of (\S+) \(node \d+\): \d+ (\S+)$", block, re.M)]
        good &= check("%s: show %s stands for the callers' operands" % (base, ins["name"]),
                      want == got, (want, got))
    return good


def check_file(path):
    base = os.path.basename(path)
    instrs, comps, entry = read_module(path)
    role = roles(instrs, comps, entry)
    good = check_nodes(path, base, instrs, role)
    good &= check_attrs(path, base, instrs)
    good &= check_computations(path, base, instrs, comps, role)
    good &= check_collectives(path, base, instrs)
    good &= check_opcodes(path, base, instrs)
    good &= check_parameters(path, base, instrs, role)
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
