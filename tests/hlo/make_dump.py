"""An XLA dump folder (--xla_dump_to) for the explorer's and info's dump
tests (tests/suites/dump_folder.sh, tui_diff.sh), made of real modules:

  module_0001.jit__psum.*.hlo.pb      the real before/after pair of
                                      tests/data/hlo/nsysjax_* (GPU, JAX)
  module_0034.jit__unstack.*.hlo.pb   a real module after optimizations only
  module_0007.jit_step.*              stages of graphsage_tf_cpu_benchmark.hlo
                                      as XLA names them: before optimizations
                                      (the module), after pass 0003 algsimp
                                      (an opcode changed), after pass 0012
                                      priority-fusion (an op moved into a new
                                      fusion), after optimizations (the same),
                                      its buffer assignment and memory usage
                                      report, and a stage file that is not HLO
                                      (pass 0020), which must be listed as
                                      skipped

The stages of module_0007 are the mutations of tests/hlo/mutate_diff.py
(opcode.hlo, fused.hlo), written by it into OUT/mut first.  The buffer
assignment gives every instruction of the entry computation after
optimizations one value whose size is its shape's bytes, computed from the
text by tests/hlo/hloref.py (element bytes times the dimensions; a tuple adds
its elements).
want.json: per file, module, stage and instructions/fusions counted from the
text here (the protobufs' counts are those tests/data/hlo/README.md gives),
and the buffer bytes per instruction.

Usage: make_dump.py REPO_ROOT OUT_DIR
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hloref import Module, shape_bytes  # noqa: E402  (the tests' one reading of HLO text)


def counts(text):
    """(instructions, fusion instructions, {entry instruction: shape}) of HLO text."""
    m = Module(lines=text.split("\n"))
    return (len(m.instrs), sum(i["opcode"] == "fusion" for i in m.instrs),
            {i["name"]: i["shape"] for i in m.comps.get(m.entry, [])})


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    hlo = os.path.join(root, "tests/data/hlo")
    want = {"files": {}, "buffer_bytes": {}}
    for src, dst, stage, n, f in [
            ("nsysjax_module_0001.jit__psum.before_optimizations.hlo.pb",
             "module_0001.jit__psum.before_optimizations.hlo.pb", "before optimizations", 8, None),
            ("nsysjax_module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb",
             "module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb", "after optimizations (sm_8.0_gpu)", 10,
             None),
            ("nsysjax_module_0034.jit__unstack.sm_8.0_gpu_after_optimizations.hlo.pb",
             "module_0034.jit__unstack.sm_8.0_gpu_after_optimizations.hlo.pb", "after optimizations (sm_8.0_gpu)",
             14, None)]:
        shutil.copyfile(os.path.join(hlo, src), os.path.join(out, dst))
        want["files"][dst] = {"module": dst[:dst.index(".", 12)], "stage": stage, "instructions": n}
    mut = os.path.join(out, "..", "dump-mut")
    subprocess.run([sys.executable, os.path.join(root, "tests/hlo/mutate_diff.py"),
                    os.path.join(hlo, "graphsage_tf_cpu_benchmark.hlo"), mut], check=True,
                   stdout=subprocess.DEVNULL)
    base = "module_0007.jit_step."
    stages = [("before_optimizations.txt", os.path.join(hlo, "graphsage_tf_cpu_benchmark.hlo"),
               "before optimizations"),
              ("0003.simp.after_algsimp.txt", os.path.join(mut, "opcode.hlo"), "pass 0003 simp: after algsimp"),
              ("0012.fusion.after_priority-fusion.txt", os.path.join(mut, "fused.hlo"),
               "pass 0012 fusion: after priority-fusion"),
              ("cpu_after_optimizations.txt", os.path.join(mut, "fused.hlo"), "after optimizations (cpu)")]
    last = None
    for suffix, src, stage in stages:
        text = open(src, encoding="utf-8").read()
        with open(os.path.join(out, base + suffix), "w", encoding="utf-8") as fo:
            fo.write(text)
        n, f, entry = counts(text)
        want["files"][base + suffix] = {"module": "module_0007.jit_step", "stage": stage, "instructions": n,
                                        "fusions": f}
        last = entry
    with open(os.path.join(out, base + "0020.broken.after_nothing.txt"), "w") as fo:
        fo.write("this is not HLO\n")
    want["files"][base + "0020.broken.after_nothing.txt"] = {"module": "module_0007.jit_step",
                                                             "stage": "pass 0020 broken: after nothing",
                                                             "error": True}
    lines = ["BufferAssignment:"]
    offset = 0
    for i, (name, shape) in enumerate(last.items()):
        size = shape_bytes(shape)
        if size == 0:
            continue
        lines.append("allocation %d: size %d, maybe-live-out:" % (i, size))
        lines.append(" value: <%d %s @0> (size=%d,offset=%d): %s" % (i, name, size, 0, shape))
        want["buffer_bytes"][name] = size
        offset += size
    lines.append("")
    lines.append("Total bytes used: %d" % offset)
    with open(os.path.join(out, base + "cpu_after_optimizations-buffer-assignment.txt"), "w") as fo:
        fo.write("\n".join(lines) + "\n")
    with open(os.path.join(out, base + "cpu_after_optimizations-memory-usage-report.txt"), "w") as fo:
        fo.write("Total bytes used: %d\n" % offset)
    want["reports"] = [base + "cpu_after_optimizations-buffer-assignment.txt",
                       base + "cpu_after_optimizations-memory-usage-report.txt"]
    with open(os.path.join(out, "..", "dump-want.json"), "w") as fo:
        json.dump(want, fo, indent=1, sort_keys=True)


main()
