"""Structure counts of HLO text files, computed line by line without the C
parser, to check it: prints the lines `hlo_tool stats` prints.

  module NAME computations=C instructions=I edges=E
  opcode NAME COUNT          (one per opcode, by name)

Counts as tests/data/hlo/README.md defines them: computations are
header lines ending in '{', instructions are lines `[ROOT ]name = ...`.
Edges follow the dataset's featurizer: per instruction its distinct operands,
plus one per called computation (to_apply, calls, body, condition, select,
scatter, true/false_computation, branch_computations, called_computations).

Usage: hlo_counts.py FILE.hlo
"""
import re
import sys

INSTR = re.compile(r"^\s*(?:ROOT\s+)?%?([A-Za-z0-9_.\-]+)\s*=\s*(.*)$")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
ONE_CALLEE = re.compile(r"(?<![\w\-])(to_apply|calls|body|condition|select|scatter|"
                        r"true_computation|false_computation)=%?[A-Za-z0-9_.\-]+")
LIST_CALLEES = re.compile(r"(?<![\w\-])(branch_computations|called_computations|calls)"
                          r"=\{([^}]*)\}")


def balanced(text, i):
    """Index just past the bracket group opening at text[i]."""
    depth, quote = 0, False
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced: " + text[:80])


def split_top(text):
    """Splits at commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def instruction(rhs):
    """(opcode, operand names, number of called computations) of the text
    after 'name ='."""
    rhs = re.sub(r"/\*.*?\*/", "", rhs)
    i = balanced(rhs, 0) if rhs.startswith("(") else rhs.index(" ")
    rest = rhs[i:].lstrip()
    opcode = rest[:rest.index("(")]
    close = balanced(rest, len(opcode))
    args, attrs = rest[len(opcode) + 1:close - 1], rest[close:]
    names = []
    if opcode not in ("parameter", "constant"):
        names = [p.split()[-1].lstrip("%") for p in split_top(args)]
    attrs = STRING.sub('""', attrs)
    called = len(ONE_CALLEE.findall(attrs))
    for _, lst in LIST_CALLEES.findall(attrs):
        called += len([n for n in lst.split(",") if n.strip()])
    return opcode, names, called


def count(path):
    modules = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("HloModule "):
                name = re.split(r"[,\s]", line[len("HloModule "):].strip())[0]
                modules.append({"name": name, "comps": 0, "instrs": 0, "edges": 0, "ops": {}})
                continue
            if not modules:
                continue
            m = modules[-1]
            bare = re.sub(r"//.*$", "", line).rstrip()
            if bare.endswith("{") and " = " not in bare:
                m["comps"] += 1
                continue
            hit = INSTR.match(line)
            if not hit or bare.endswith("{"):
                continue
            opcode, names, called = instruction(hit.group(2))
            m["instrs"] += 1
            m["edges"] += len(set(names)) + called
            m["ops"][opcode] = m["ops"].get(opcode, 0) + 1
    return modules


def main():
    for m in count(sys.argv[1]):
        print("module %s computations=%d instructions=%d edges=%d" %
              (m["name"].lstrip("%"), m["comps"], m["instrs"], m["edges"]))
        for op in sorted(m["ops"]):
            print("opcode %s %d" % (op, m["ops"][op]))


main()
