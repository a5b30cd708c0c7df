"""Checks hloscope's layer drawings and long-edge stubs against the HLO text
itself, read with regular expressions (tests/hlo/hloref.py: instructions,
operands, calls and each one's op_name), never with the C parser:

  layers FILE PATH
      dot FILE --layer PATH -T dot -o -: the instructions whose layer
      (op_name without its last component, '/' inside brackets not
      splitting) is PATH are drawn as themselves; every child namespace of
      PATH is in exactly one box, a box "NAME\\nN nodes, ..." holding
      N = the instructions at or under it, a run "A..B xK" K children and
      their instructions all together; an operand edge joins two drawn
      items (node or box) exactly when an instruction of one is an operand
      of an instruction of the other.
  stubs FILE ARGS...
      dot FILE ARGS -T dot -o -: each stub ("\\u2191 NAME", joined to one
      node) names an operand of that node's instruction, or a computation
      it calls; no stub is left unjoined.

Prints PASS / FAIL lines for tests/run.sh.
"""
import os
import re
import subprocess
import sys

from dot_hlo_check import HLOSCOPE, check, parse_dot

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hlo"))
from hloref import Module, layer_of  # noqa: E402  (the tests' one reading of HLO text)


def read(path):
    """[instr]: name, computation, operands, calls (names), layer."""
    return [dict(i, calls=[c for _, c in i["calls"]], layer=layer_of(i["op_name"])) for i in Module(path).instrs]


def no_html(text):
    """The DOT with each HTML-like label (a legend, the note) as "": <...>
    nested, which the tokenizer does not follow."""
    out, i = [], 0
    while True:
        j = text.find("=<", i)
        if j < 0:
            return "".join(out) + text[i:]
        out.append(text[i:j + 1] + '""')
        depth, k = 0, j + 1
        while k < len(text):
            depth += {"<": 1, ">": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                break
        i = k


def dot(path, *args):
    out = subprocess.run([HLOSCOPE, "dot", path, *args, "-T", "dot", "-o", "-"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return parse_dot(no_html(out.stdout))


def first_line(label):
    return label.split("\\n")[0]


def check_layers(path, top):
    base = "%s --layer %s" % (path.split("/")[-1], top)
    ins = read(path)
    under = [i for i in ins if i["layer"] == top or i["layer"].startswith(top + "/")]
    own = {i["name"] for i in under if i["layer"] == top}
    child = {}
    for i in under:
        if i["layer"] != top:
            child.setdefault(i["layer"][len(top) + 1:].split("/")[0], []).append(i["name"])
    nodes, edges = dot(path, "--layer", top)
    drawn = {first_line(at["label"]): n for n, at in nodes.items() if n.startswith("n")}
    check(base + ": the layer's own %d instructions are drawn as themselves" % len(own),
          set(drawn) == own, sorted(set(drawn) ^ own)[:5])
    item = {name: n for name, n in drawn.items()}
    boxes, problems = {}, []
    for n, at in nodes.items():
        if not n.startswith("grp"):
            continue
        name, detail = at["label"].split("\\n")[:2]
        count = int(detail.split(" node")[0].replace(",", ""))
        m = re.match(r"^(.*)\.\.(.*) x(\d+)$", name)
        if m:  # a run: which children it holds is counted below
            boxes[n] = ("run", int(m.group(3)), count)
        else:
            boxes[n] = name
            if name not in child:
                problems.append("box %s is no child namespace" % name)
            elif len(child[name]) != count:
                problems.append("box %s: %d nodes, the text has %d" % (name, count, len(child[name])))
            for x in child.get(name, []):
                item[x] = n
    singles = {b for b in boxes.values() if isinstance(b, str)}
    rest = [c for c in child if c not in singles]
    runs = [b for b in boxes.values() if not isinstance(b, str)]
    if sum(r[1] for r in runs) != len(rest):
        problems.append("runs hold %d children, %d are left" % (sum(r[1] for r in runs), len(rest)))
    if sum(r[2] for r in runs) != sum(len(child[c]) for c in rest):
        problems.append("runs hold %d nodes, the text has %d" %
                        (sum(r[2] for r in runs), sum(len(child[c]) for c in rest)))
    if len(runs) == 1:
        run_box = [n for n, b in boxes.items() if not isinstance(b, str)][0]
        for c in rest:
            for x in child[c]:
                item[x] = run_box
    check(base + ": %d child namespaces in %d boxes (%d runs), sizes as the text counts" %
          (len(child), len(boxes), len(runs)), not problems, problems[:3])
    if len(runs) > 1:
        return  # which run holds which child is the structural hash's call
    by_name = {i["name"]: i for i in under}
    want = set()
    for i in under:
        for o in i["operands"]:
            if o in by_name and item.get(o) != item.get(i["name"]):
                want.add((item[o], item[i["name"]]))
    got = {(a, b) for a, b, at in edges if at.get("style") != "dotted" and a in
           set(item.values()) and b in set(item.values())}
    check(base + ": %d operand edges between the drawn nodes and boxes, as the text has them" % len(want),
          got == want, sorted(got ^ want)[:4])


def check_stubs(path, args):
    base = "%s %s" % (path.split("/")[-1], " ".join(args))
    ins = {i["name"]: i for i in read(path)}
    nodes, edges = dot(path, *args)
    stubs = {n: at["label"][2:] for n, at in nodes.items() if n.startswith("stub")}
    users = {}
    for a, b, _ in edges:
        if a in stubs:
            users.setdefault(a, []).append(b)
    bad = []
    for s, name in stubs.items():
        if len(users.get(s, [])) != 1:
            bad.append("%s joined to %d nodes" % (s, len(users.get(s, []))))
            continue
        u = users[s][0]
        if not u.startswith("n"):
            continue  # a stub of a box's edge: the box's name, not an instruction's
        uname = first_line(nodes[u]["label"])
        i = ins.get(uname)
        if not i or (name not in i["operands"] and name not in i["calls"]):
            bad.append("%s names %s, no operand of %s" % (s, name, uname))
    check(base + ": %d stubs, each naming an operand of its user" % len(stubs), stubs and not bad,
          bad[:3] or "no stubs")


if __name__ == "__main__":
    what, path = sys.argv[1], sys.argv[2]
    try:
        if what == "layers":
            check_layers(path, sys.argv[3])
        else:
            check_stubs(path, sys.argv[3:])
    except RuntimeError as e:
        check("%s %s" % (what, path), False, e)
