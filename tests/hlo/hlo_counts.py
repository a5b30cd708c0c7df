"""Structure counts of HLO text files, computed line by line without the C
parser (tests/hlo/hloref.py reads the text), to check it: prints the lines
`hlo_tool stats` prints.

  module NAME computations=C instructions=I edges=E
  opcode NAME COUNT          (one per opcode, by name)

Counts as tests/data/hlo/README.md defines them: computations are
header lines ending in '{', instructions are lines `[ROOT ]name = ...`.
Edges follow the dataset's featurizer: per instruction its distinct operands,
plus one per called computation (to_apply, calls, body, condition, select,
scatter, true/false_computation, branch_computations, called_computations).

Usage: hlo_counts.py FILE.hlo
"""
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hloref import modules  # noqa: E402


def main():
    for m in modules(sys.argv[1]):
        edges = sum(len(set(i["operands"])) + len(i["calls"]) for i in m.instrs)
        print("module %s computations=%d instructions=%d edges=%d" % (m.name, len(m.comps), len(m.instrs), edges))
        for op, n in sorted(Counter(i["opcode"] for i in m.instrs).items()):
            print("opcode %s %d" % (op, n))


main()
