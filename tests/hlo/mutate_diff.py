"""Mutated copies of a real HLO module whose true diff is known, for
`hloscope diff` (tests/suites/diff.sh).  Reads the module line by line
(no hloscope code) and writes, into OUT_DIR:

  renamed.hlo      every instruction renamed (NAME -> NAME_r) and every
                   reference with it: no change at all once matched
  renamed_opcode.hlo  renamed, and one binary op's opcode swapped: only
                   structure can match it, and it is the one change
  opcode.hlo       one elementwise binary op's opcode swapped
  added.hlo        one instruction added (a negate of a value, unused)
  removed.hlo      one unused, non-ROOT instruction removed (the one added
                   above would be; here one the module already has, when
                   there is one; else the copy equals the original)
  layout.hlo       one rank-2 instruction's layout transposed
  fused.hlo        one elementwise binary op of the entry moved into a new
                   fusion body: the op is matched inside the body, reported
                   as moved (fused into the new fusion); the fusion and the
                   body's parameters are new
  attr.hlo         one attribute value changed (a dimensions list, a
                   replica_groups or a comparison direction)

and want.json: per copy, the instructions only in the original, only in
the copy, and the changed pairs with their kinds.

Usage: mutate_diff.py MODULE.hlo OUT_DIR
"""
import json
import os
import re
import sys

INSTR = re.compile(r"^(\s*)(ROOT\s+)?(%?)([A-Za-z0-9_.\-]+)(\s*=\s*)(.*)$")
HEADER = re.compile(r"^(ENTRY\s+)?%?([A-Za-z0-9_.\-]+)\b.*\{\s*$")
BINARY = ("add", "multiply", "subtract", "maximum", "minimum", "divide")
SWAP = {"add": "multiply", "multiply": "add", "subtract": "add", "maximum": "minimum",
        "minimum": "maximum", "divide": "multiply"}


def balanced(text, i):
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def split_top(text):
    """Comma-separated items at bracket depth 0 (typed operands hold commas)."""
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse(lines):
    """Instructions: (line index, comp, name, shape, opcode, operand text,
    rest) and the entry computation's name."""
    out, comp, entry = [], None, None
    for i, line in enumerate(lines):
        h = HEADER.match(line)
        if h and " = " not in line:
            comp = h.group(2)
            if h.group(1):
                entry = comp
            continue
        m = INSTR.match(line)
        if not m or comp is None:
            continue
        rhs = m.group(6)
        j = balanced(rhs, 0) if rhs.startswith("(") else rhs.index(" ")
        shape = rhs[:j]
        rest = rhs[j:].lstrip()
        k = rest.index("(")
        close = balanced(rest, k)
        out.append({"line": i, "comp": comp, "name": m.group(4), "root": bool(m.group(2)),
                    "shape": shape, "opcode": rest[:k], "args": rest[k + 1:close - 1],
                    "after": rest[close:], "pct": m.group(3), "indent": m.group(1)})
    if entry is None and out:
        entry = out[-1]["comp"]
    return out, entry


def used_names(instrs):
    used = set()
    for ins in instrs:
        for tok in re.findall(r"%?([A-Za-z0-9_.\-]+)", ins["args"]):
            used.add(tok)
    return used


def write(out_dir, name, lines):
    with open(os.path.join(out_dir, name), "w") as f:
        f.write("\n".join(lines))


def line_of(ins, **kw):
    d = dict(ins, **kw)
    return "%s%s%s%s = %s %s(%s)%s" % (d["indent"], "ROOT " if d["root"] else "", d["pct"], d["name"],
                                      d["shape"], d["opcode"], d["args"], d["after"])


def main():
    src, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    text = open(src, encoding="utf-8").read()
    lines = text.split("\n")
    instrs, entry = parse(lines)
    names = {i["name"] for i in instrs}
    used = used_names(instrs)
    want = {}

    # renamed: a suffix on every instruction name and on every reference
    # to one (operands, control predecessors); computations keep theirs
    pat = re.compile(r"(?<![A-Za-z0-9_.\-])(%?)(" + "|".join(
        re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![A-Za-z0-9_.\-])")
    ren = list(lines)
    for ins in instrs:
        after = re.sub(r"control-predecessors=\{[^}]*\}",
                       lambda m: pat.sub(lambda k: k.group(1) + k.group(2) + "_r", m.group(0)), ins["after"])
        ren[ins["line"]] = line_of(ins, name=ins["name"] + "_r",
                                   args=pat.sub(lambda k: k.group(1) + k.group(2) + "_r", ins["args"]),
                                   after=after)
    write(out_dir, "renamed.hlo", ren)
    want["renamed"] = {"only_a": [], "only_b": [], "changed": []}

    entry_ins = [i for i in instrs if i["comp"] == entry]
    binops = [i for i in entry_ins if i["opcode"] in BINARY and not i["root"]]
    b = binops[len(binops) // 2] if binops else None

    # opcode swapped
    mut = list(lines)
    if b:
        mut[b["line"]] = line_of(b, opcode=SWAP[b["opcode"]])
        want["opcode"] = {"only_a": [], "only_b": [], "changed": [[b["name"], b["name"], ["opcode"]]]}
    else:
        want["opcode"] = {"only_a": [], "only_b": [], "changed": []}
    write(out_dir, "opcode.hlo", mut)

    # renamed and the opcode swapped: matched by structure alone
    if b:
        mut = list(ren)
        rb = dict(b, name=b["name"] + "_r", args=pat.sub(lambda k: k.group(1) + k.group(2) + "_r", b["args"]))
        mut[b["line"]] = line_of(rb, opcode=SWAP[b["opcode"]])
        write(out_dir, "renamed_opcode.hlo", mut)
        want["renamed_opcode"] = {"only_a": [], "only_b": [],
                                  "changed": [[b["name"], b["name"] + "_r", ["opcode"]]]}

    # added: a negate of the first array-shaped value of the entry
    arr = [i for i in entry_ins if re.match(r"[a-z0-9]+\[", i["shape"]) and i["opcode"] != "parameter"]
    mut = list(lines)
    if arr:
        x = arr[0]
        new = dict(x, name="added_negate.0", opcode="negate", root=False,
                   args=x["pct"] + x["name"], after="")
        mut.insert(x["line"] + 1, line_of(new))
        want["added"] = {"only_a": [], "only_b": ["added_negate.0"], "changed": []}
    else:
        want["added"] = {"only_a": [], "only_b": [], "changed": []}
    write(out_dir, "added.hlo", mut)

    # removed: an unused, non-ROOT, non-parameter instruction of the entry
    dead = [i for i in entry_ins if i["name"] not in used and not i["root"] and i["opcode"] != "parameter"]
    mut = list(lines)
    if dead:
        mut[dead[0]["line"]] = None
        mut = [m for m in mut if m is not None]
        want["removed"] = {"only_a": [dead[0]["name"]], "only_b": [], "changed": []}
    else:
        want["removed"] = {"only_a": [], "only_b": [], "changed": []}
    write(out_dir, "removed.hlo", mut)

    # layout: a rank-2 shape's {1,0} becomes {0,1}
    two = [i for i in entry_ins if re.fullmatch(r"[a-z0-9]+\[\d+,\d+\]\{1,0\}", i["shape"])]
    mut = list(lines)
    if two:
        t = two[0]
        mut[t["line"]] = line_of(t, shape=t["shape"].replace("{1,0}", "{0,1}"))
        want["layout"] = {"only_a": [], "only_b": [], "changed": [[t["name"], t["name"], ["layout"]]]}
    else:
        want["layout"] = {"only_a": [], "only_b": [], "changed": []}
    write(out_dir, "layout.hlo", mut)

    # fused: the binary op moves into a new fusion body
    mut = list(lines)
    if b:
        ops = split_top(b["args"])
        shapes = []
        for a in ops:
            nm = a.split()[-1].lstrip("%")
            src_ins = next(i for i in instrs if i["name"] == nm and i["comp"] == entry)
            shapes.append(src_ins["shape"])
        p = b["pct"]
        body = ["%sfused_moved.0 {" % p]
        for k, s in enumerate(shapes):
            body.append("  %smoved_param_%d = %s parameter(%d)" % (p, k, s, k))
        body.append("  ROOT %s%s = %s %s(%s)%s" % (p, b["name"], b["shape"], b["opcode"],
                                                   ", ".join("%smoved_param_%d" % (p, k) for k in range(len(ops))),
                                                   b["after"]))
        body.append("}")
        body.append("")
        fusion = dict(b, opcode="fusion", after=", kind=kLoop, calls=%sfused_moved.0" % p)
        mut[b["line"]] = line_of(fusion, name="moved_fusion.0")
        # users of the op now use the fusion
        refpat = re.compile(r"(?<![A-Za-z0-9_.\-])(%?)" + re.escape(b["name"]) + r"(?![A-Za-z0-9_.\-])")
        for i in entry_ins:
            if i["line"] != b["line"] and refpat.search(i["args"]):
                mut[i["line"]] = line_of(i, args=refpat.sub(lambda m: m.group(1) + "moved_fusion.0", i["args"]))
        first_comp = min(n for n, line in enumerate(lines) if HEADER.match(line) and " = " not in line)
        mut[first_comp:first_comp] = body
        want["fused"] = {"only_a": [], "only_b": ["moved_fusion.0"] + ["moved_param_%d" % k for k in range(len(ops))],
                         "changed": [[b["name"], b["name"], ["computation"]]],
                         "fused_into": {b["name"]: "moved_fusion.0"}}
        # users of the moved op now read the fusion: their operands changed
        for i in entry_ins:
            if i["line"] != b["line"] and refpat.search(i["args"]):
                want["fused"]["changed"].append([i["name"], i["name"], ["operands"]])
    else:
        want["fused"] = {"only_a": [], "only_b": [], "changed": []}
    write(out_dir, "fused.hlo", mut)

    # attr: a comparison direction, a replica_groups or a dimensions list
    mut = list(lines)
    want["attr"] = {"only_a": [], "only_b": [], "changed": []}
    for i in instrs:
        m = re.search(r"direction=(LT|GT|LE|GE|EQ|NE)", i["after"])
        if m:
            new = {"LT": "GE", "GE": "LT", "GT": "LE", "LE": "GT", "EQ": "NE", "NE": "EQ"}[m.group(1)]
            mut[i["line"]] = line_of(i, after=i["after"].replace("direction=" + m.group(1), "direction=" + new, 1))
            want["attr"]["changed"].append([i["name"], i["name"], ["attributes"]])
            want["attr"]["attributes"] = {i["name"]: "direction"}
            break
    write(out_dir, "attr.hlo", mut)

    with open(os.path.join(out_dir, "want.json"), "w") as f:
        json.dump(want, f, indent=1, sort_keys=True)


main()
