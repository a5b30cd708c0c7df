"""Checks hloscope's drawings of real HLO text against the text itself: the
instructions, their operands (in order, repeats kept) and the computations
they call are read line by line with regular expressions (tests/hlo/hloref.py),
not with the C parser, and compared with
the DOT that `hloscope dot` writes (parsed here, not with Graphviz):

  dot FILE --computation entry --expand all --force -T dot -o -
      a node for every instruction of the computations the entry reaches;
      an edge that is not dotted for each operand and user (a repeated
      operand once), headlabel the operand's positions in the user ("0,1"
      for multiply(x, x)) when the user has more than one operand, none
      otherwise; every operand drawn; each node's tooltip gives its operand
      count as written; the dotted edges are calls: from the root of a
      computation the user calls (calls=, to_apply=, body=, ...) to it.
  dot FILE --computation entry --force -T dot -o -
      the entry's instructions, and each computation they call as one box
      "NAME\\nROLE, N nodes" (N as the text counts it), joined to each of
      its callers by a dotted edge.
  dot FILE --around NAME --radius 1 --max-operands 16 -T dot -o -
      (NAME: the instruction with the most operands, when over 16) the
      center keeps its operands at positions 0..15, each edge labelled
      with its positions, and one "K more operands" box for the rest.

Prints PASS / FAIL lines for tests/run.sh.

Usage: dot_hlo_check.py FILE.hlo...   (environment: HLOSCOPE)
"""
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hlo"))
from hloref import Module  # noqa: E402  (the tests' one reading of HLO text)

HLOSCOPE = os.environ["HLOSCOPE"]


# ---- DOT, as agwrite writes it -----------------------------------------------

TOKEN = re.compile(r'\s*(?:(->)|("(?:[^"\\]|\\.|\\\n)*")|(<[^>]*>)|([A-Za-z0-9_.]+)|(.))', re.S)


def tokens(text):
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        arrow, quoted, html, word, other = m.groups()
        if arrow:
            yield "->"
        elif quoted is not None:
            yield ("str", quoted[1:-1].replace("\\\n", "").replace('\\"', '"'))
        elif html is not None:
            yield ("str", html)
        elif word is not None:
            yield ("str", word)
        elif other and not other.isspace():
            yield other


def parse_dot(text):
    """Nodes {name: attrs} and edges [(tail, head, attrs)] (defaults and
    graph attributes left out)."""
    toks = list(tokens(text))
    nodes, edges, i = {}, [], 0

    def attrs_at(j):
        out = {}
        if j < len(toks) and toks[j] == "[":
            j += 1
            while toks[j] != "]":
                key = toks[j][1]
                val = toks[j + 2][1]
                out[key] = val
                j += 3
                if toks[j] == ",":
                    j += 1
            j += 1
        return out, j

    while i < len(toks):
        t = toks[i]
        if isinstance(t, tuple) and t[1] in ("graph", "node", "edge") and i + 1 < len(toks) \
                and toks[i + 1] == "[":
            _, i = attrs_at(i + 1)
            continue
        if isinstance(t, tuple) and i + 1 < len(toks) and toks[i + 1] == "->":
            a, _, b = t[1], toks[i + 1], toks[i + 2][1]
            at, i = attrs_at(i + 3)
            edges.append((a, b, at))
            continue
        if isinstance(t, tuple) and i + 1 < len(toks) and toks[i + 1] == "[":
            at, i = attrs_at(i + 1)
            nodes[t[1]] = at
            continue
        i += 1
    return nodes, edges


TIP = re.compile(r"^node (\d+) (\S+), .*, in (\S+): (\d+) operands?, (\d+) users?", re.S)


def dot(path, *args):
    out = subprocess.run([HLOSCOPE, "dot", path, *args, "-T", "dot", "-o", "-"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return parse_dot(out.stdout)


def check(label, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + str(detail)[:400]))
    return ok


def drawn_nodes(nodes):
    """DOT node name -> (computation, instruction name, operand count)."""
    out = {}
    for n, at in nodes.items():
        m = TIP.match(at.get("tooltip", ""))
        if n.startswith("n") and m:
            out[n] = (m.group(3), m.group(2), int(m.group(4)))
    return out


def check_full(path, base, mod):
    comps = mod.comps
    nodes, edges = dot(path, "--computation", "entry", "--expand", "all", "--force")
    drawn = drawn_nodes(nodes)
    by_key = {v[:2]: k for k, v in drawn.items()}
    want = {(c, i["name"]) for c in mod.reachable(mod.entry) for i in comps[c]}
    check(base + ": every instruction the entry reaches is drawn, nothing else",
          set(by_key) == want, sorted(set(by_key) ^ want)[:5])
    counts = [k for k in want if k in by_key and
              drawn[by_key[k]][2] != len(next(i for i in comps[k[0]] if i["name"] == k[1])["operands"])]
    check(base + ": operand counts in the tooltips are the text's", not counts, counts[:5])
    got, calls = {}, set()
    for a, b, at in edges:
        if a not in drawn or b not in drawn:
            continue
        if at.get("style") == "dotted":
            calls.add((drawn[a][:2], drawn[b][:2]))
        else:
            got.setdefault((drawn[a][:2], drawn[b][:2]), []).append(at.get("headlabel", ""))
    exp, exp_calls = {}, set()
    for c in mod.reachable(mod.entry):
        for ins in comps[c]:
            ops = ins["operands"]
            for pos, o in enumerate(ops):
                key = ((c, o), (c, ins["name"]))
                label = ",".join(str(p) for p, x in enumerate(ops) if x == o) if len(ops) > 1 else ""
                exp[key] = [label]
            for _, d in ins["calls"]:
                if d in comps:
                    exp_calls.add(((d, mod.root(d)), (c, ins["name"])))
    def same(g, e):
        """A long label is cut: "11,13,…" stands for "11,13,15,..."."""
        if g is None or e is None or len(g) != len(e):
            return g == e
        return all(a == b or (a.endswith("\u2026") and b.startswith(a[:-1])) for a, b in zip(g, e))
    bad = [(k, got.get(k), exp.get(k)) for k in set(got) | set(exp) if not same(got.get(k), exp.get(k))]
    check(base + ": %d operand edges, one per operand and user, labelled with the positions" % len(exp),
          not bad, bad[:3])
    check(base + ": %d call edges from the callee's root to the caller" % len(exp_calls),
          calls == exp_calls, sorted(calls ^ exp_calls)[:3])


def check_boxes(path, base, mod):
    comps, entry = mod.comps, mod.entry
    nodes, edges = dot(path, "--computation", "entry", "--force")
    drawn = drawn_nodes(nodes)
    boxes = {}
    for n, at in nodes.items():
        if n.startswith("comp"):
            what = at.get("label", "").split("\\n")[1]
            # the full name is in the tooltip; the label may cut a long one
            name = re.match(r"(.*): \d+ of its", at.get("tooltip", "")).group(1)
            boxes[n] = (name, what)
    callees = {d for i in comps[entry] for _, d in i["calls"] if d in comps}
    ok = {b[0] for b in boxes.values()} == callees
    check(base + ": one box per computation the entry calls (%d)" % len(callees), ok,
          sorted({b[0] for b in boxes.values()} ^ callees)[:5])
    sizes = [(name, what) for name, what in boxes.values()
             if not what.endswith(" %d node%s" % (len(comps[name]), "" if len(comps[name]) == 1 else "s"))]
    check(base + ": each box counts its computation's instructions", not sizes, sizes[:3])
    links = {(boxes[a][0], drawn[b][1]) for a, b, at in edges
             if a in boxes and b in drawn and at.get("style") == "dotted"}
    want = {(d, i["name"]) for i in comps[entry] for _, d in i["calls"] if d in comps}
    check(base + ": each box joined to each caller by a dotted call edge", links == want,
          sorted(links ^ want)[:3])


def check_center(path, base, mod):
    best = max(((len(i["operands"]), i["comp"], i) for i in mod.instrs), key=lambda t: t[0])
    n, comp, ins = best
    if n <= 16:
        return
    nodes, edges = dot(path, "--around", ins["name"], "--radius", "1", "--max-operands", "16")
    drawn = drawn_nodes(nodes)
    center = [k for k, v in drawn.items() if v[:2] == (comp, ins["name"])]
    if not check(base + ": " + ins["name"] + " drawn", len(center) == 1, list(drawn.values())[:3]):
        return
    c = center[0]
    into = {drawn[a][1]: at.get("headlabel", "") for a, b, at in edges
            if b == c and a in drawn and at.get("style") != "dotted"}
    ops = ins["operands"]
    first = set(ops[:16])
    labels = {o: ",".join(str(p) for p, x in enumerate(ops) if x == o) for o in first}
    check(base + ": %s keeps its operands 0..15 of %d, labelled" % (ins["name"], n),
          into == labels, sorted(set(into.items()) ^ set(labels.items()))[:3])
    fanin = [at.get("label", "") for k, at in nodes.items() if k.startswith("fanin")]
    hidden = len(set(ops) - first)
    check(base + ": one '%d more operands' box" % hidden,
          fanin == ["%s more operand%s" % ("{:,}".format(hidden), "" if hidden == 1 else "s")],
          fanin)


def main():
    ok = True
    for path in sys.argv[1:]:
        base = os.path.basename(path)
        mod = Module(path)
        if not mod.entry:
            check(base + ": has an ENTRY computation", False, "none found")
            continue
        for fn in (check_full, check_boxes, check_center):
            try:
                fn(path, base, mod)
            except RuntimeError as e:
                ok = check(base + ": " + fn.__name__, False, e) and ok
    return 0


if __name__ == "__main__":
    sys.exit(main())
