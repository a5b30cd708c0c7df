"""Checks hloscope's reading of XLA dump folders against the files themselves,
read here independently (tests/hlo/xla_proto.py: the wire format by hand,
python's lzma; tests/hlo/hloref.py for HLO text).  For tests/suites/xla_dump.sh.

  xla_dump_check.py real DIR INFO.json        info --json on the real dump folder
  xla_dump_check.py target CONFIG INFO.json   the "target" of info --json FILE
  xla_dump_check.py folder DIR INFO.json      info --json on a folder of modules
                                              and other files (make_folder)
  xla_dump_check.py make_folder ROOT DIR      writes that folder
  xla_dump_check.py buffers PB CSV INFO.json  query's buffer_bytes (name,buffer_bytes)
                                              and info's "memory" of an HloProto
  xla_dump_check.py as_text PB OUT            the module without its assignment
                                              (OUT.pb) and the assignment as XLA
                                              prints it (OUT-buffer-assignment.txt)

Prints PASS/FAIL lines; exits 1 on a failure.
"""
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xla_proto  # noqa: E402
from hloref import Module  # noqa: E402

STAGE = re.compile(r"^(module_\d{4,}(?:\.[^.]+)?)\.((?:[A-Za-z][\w.]*_)?after_optimizations|before_optimizations)"
                   r"\.(?:hlo\.pb|txt)(?:\.xz)?$")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def counts_of(path):
    b = xla_proto.load(path)
    if b.lstrip().startswith(b"HloModule"):
        m = Module(lines=b.decode().split("\n"))
        return len(m.instrs), sum(i["opcode"] == "fusion" for i in m.instrs)
    ins = xla_proto.module_of(b) if b[:1] == b"\x0a" and xla_proto.first(b, 1)[:1] == b"\x0a" else None
    if ins is None:                                   # a bare HloModuleProto
        ins = xla_proto.module_of(xla_proto.varint(0x0a) + xla_proto.varint(len(b)) + b)
    return len(ins), sum(i[2] == "fusion" for i in ins)


def real(folder, info):
    got = json.load(open(info))
    graphs = {g["file"]: g for g in got["graphs"]}
    want = sorted(f for f in os.listdir(folder) if STAGE.match(f))
    check(sorted(graphs) == want, "graphs %s, want %s" % (sorted(graphs), want))
    order = {}
    for name in want:
        m = STAGE.match(name)
        g = graphs.get(name, {})
        n, fus = counts_of(os.path.join(folder, name))
        stage = "before optimizations" if m.group(2) == "before_optimizations" else \
            "after optimizations (%s)" % m.group(2)[:-len("_after_optimizations")]
        check(g.get("module") == m.group(1), "%s: module %r" % (name, g.get("module")))
        check(g.get("stage") == stage, "%s: stage %r, want %r" % (name, g.get("stage"), stage))
        check(g.get("instructions") == n and g.get("fusions") == fus,
              "%s: %r instructions, %r fusions; want %d, %d" % (name, g.get("instructions"), g.get("fusions"), n, fus))
        order.setdefault(m.group(1), []).append(stage)
    listed = {}
    for g in got["graphs"]:
        listed.setdefault(g["module"], []).append(g["stage"])
    for mod, stages in order.items():
        check(listed.get(mod) == sorted(stages, key=lambda s: s != "before optimizations"),
              "%s: stages %s not in the compiler's order" % (mod, listed.get(mod)))
    reports = {r["file"]: r for r in got["reports"]}
    for name in sorted(os.listdir(folder)):
        if "gpu_target_config" in name or "autotune_results" in name:
            r = reports.get(name, {})
            text = xla_proto.load(os.path.join(folder, name)).decode()
            if "autotune" in name:
                n = len(re.findall(r"^results\s*\{", text, re.M))
                want_note = "%d result%s" % (n, "" if n == 1 else "s")
            else:
                t = xla_proto.target_of(text)
                want_note = "%s (%s, compute capability %s)" % (t["device_description_str"], t["platform_name"],
                                                                 t["compute_capability"])
            check(r.get("note") == want_note, "%s: note %r, want %r" % (name, r.get("note"), want_note))
    check(got.get("left_out") == [], "left out: %r" % got.get("left_out"))
    return "info --json on the real dump: every stage's module, stage, instructions and fusions, " \
           "in the compiler's order; the target configs and autotune results as reports"


def target(config, info):
    got = json.load(open(info)).get("target") or {}
    t = xla_proto.target_of(xla_proto.load(config).decode())
    pairs = [("device", t["device_description_str"]), ("platform", t["platform_name"]),
             ("compute_capability", t["compute_capability"]), ("sm_count", int(t["core_count"])),
             ("clock_ghz", float(t["clock_rate_ghz"])), ("memory_bandwidth", int(t["memory_bandwidth"])),
             ("device_memory_size", int(t["device_memory_size"])), ("l2_cache_size", int(t["l2_cache_size"])),
             ("fpus_per_core", int(t["fpus_per_core"])), ("threads_per_warp", int(t["threads_per_warp"])),
             ("shared_memory_per_block", int(t["shared_memory_per_block"]))]
    for key, want in pairs:
        check(got.get(key) == want, "target %s: %r, want %r" % (key, got.get(key), want))
    check(os.path.samefile(got.get("file", "/"), config), "target file %r" % got.get("file"))
    return "info --json FILE: the target object is the config beside the module"


JUNK = {"notes.txt": b"my notes\n", "README": b"A folder of dumps.\n",
        "module_0099.jit_f.ir-no-opt.ll": b"; ModuleID = 'module_0099'\n",
        "blob.bin": bytes(random.Random(7).choices(range(256), k=200))}


def make_folder(root, out):
    os.makedirs(out, exist_ok=True)
    hlo = os.path.join(root, "tests/data/hlo")
    texts = sorted(f for f in os.listdir(hlo) if f.endswith(".hlo"))
    for k, name in enumerate(texts[:-1]):
        data = open(os.path.join(hlo, name), "rb").read()
        with open(os.path.join(out, "module_%04d.after_optimizations.txt" % (k + 1)), "wb") as fo:
            fo.write(data)
    with open(os.path.join(out, "last.log"), "wb") as fo:          # HLO text, by its content
        fo.write(open(os.path.join(hlo, texts[-1]), "rb").read())
    import lzma
    pb = open(os.path.join(hlo, "tpu_op_fusion.261.HloModuleProto.pb"), "rb").read()
    with open(os.path.join(out, "fusion.dat.xz"), "wb") as fo:     # a module, by its content
        fo.write(lzma.compress(pb))
    for name, data in JUNK.items():
        with open(os.path.join(out, name), "wb") as fo:
            fo.write(data)


def folder(out, info):
    got = json.load(open(info))
    graphs = {g["file"]: g for g in got["graphs"]}
    want = sorted(f for f in os.listdir(out) if f not in JUNK)
    check(sorted(graphs) == want, "graphs %s, want %s" % (sorted(graphs), want))
    for name in want:
        n, fus = counts_of(os.path.join(out, name))
        g = graphs.get(name, {})
        check(g.get("nodes") == n and "error" not in g, "%s: %r nodes, want %d (%s)" % (name, g.get("nodes"), n,
                                                                                         g.get("error")))
        if name.startswith("module_"):
            check(g.get("module") == name[:11] and g.get("stage") == "after optimizations",
                  "%s: module %r, stage %r" % (name, g.get("module"), g.get("stage")))
    left = {l["file"]: l["why"] for l in got.get("left_out", [])}
    check(sorted(left) == sorted(JUNK), "left out %s, want %s" % (sorted(left), sorted(JUNK)))
    check(left.get("notes.txt") == "not HLO text: it starts with 'my notes'", "why notes.txt: %r" % left.get("notes.txt"))
    check(left.get("module_0099.jit_f.ir-no-opt.ll", "").startswith("not HLO text: it starts with '; ModuleID"),
          "why the .ll: %r" % left.get("module_0099.jit_f.ir-no-opt.ll"))
    check(left.get("blob.bin", "").startswith("not an HLO protobuf ("), "why blob.bin: %r" % left.get("blob.bin"))
    total = sum(counts_of(os.path.join(out, f))[0] for f in want)
    print("TOTAL %d %d" % (len(want), total))
    return "info --json on a folder of module_NNNN.after_optimizations.txt and other files: every module " \
           "(by name or content) with its count, every other file left out with why"


def names_by_id(b):
    return {i[0]: i[1] for i in xla_proto.module_of(b)}


def buffers(pb, csv_path, info):
    import csv
    b = xla_proto.load(pb)
    per, mem = xla_proto.buffers_of(b)
    names = names_by_id(b)
    want = {names[i]: v for i, v in per.items()}
    got = {r["name"]: int(float(r["buffer_bytes"])) for r in csv.DictReader(open(csv_path))}
    diff = [(k, got.get(k), want.get(k)) for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
    check(not diff, "%d of %d instructions differ, e.g. %s" % (len(diff), len(want), diff[:3]))
    m = json.load(open(info)).get("memory") or {}
    for key, w in [("peak_bytes", mem["peak"]), ("parameter_bytes", mem["parameters"]),
                   ("output_bytes", mem["outputs"]), ("constant_bytes", mem["constants"]),
                   ("temp_bytes", mem["temporaries"]), ("thread_local_bytes", mem["thread_local"]),
                   ("allocations", mem["allocations"]), ("instructions_with_buffers", len(per))]:
        check(m.get(key) == w, "memory %s: %r, want %r" % (key, m.get(key), w))
    return "%s: buffer_bytes of %d instructions and the memory, as the wire format gives them" % (
        os.path.basename(pb), len(want))


def as_text(pb, out):
    """The module alone (HloProto without field 3), and its assignment printed
    as XLA's BufferAssignment::ToString does (allocation lines, then one
    'value: <ID NAME @INDEX> (size=S,offset=O): SHAPE' line per assigned buffer)."""
    b = xla_proto.load(pb)
    with open(out + ".pb", "wb") as fo:
        for n, v in xla_proto.fields(b):
            if n == 1:
                fo.write(xla_proto.varint(0x0a) + xla_proto.varint(len(v)) + v)
    names = names_by_id(b)
    ba = xla_proto.first(b, 3)
    defined = {}
    for n, lb in xla_proto.fields(ba):
        if n == 1:
            defined[xla_proto.first(lb, 1, 0)] = names[xla_proto.first(xla_proto.first(lb, 3, b""), 4, 0)]
    lines = ["BufferAssignment:"]
    for n, al in xla_proto.fields(ba):
        if n != 3:
            continue
        lines.append("allocation %d: size %d, preallocated-temp:" % (xla_proto.first(al, 1, 0), xla_proto.first(al, 2, 0)))
        for m, a in xla_proto.fields(al):
            if m == 9:
                lid = xla_proto.first(a, 1, 0)
                lines.append(" value: <%d %s @0> (size=%d,offset=%d): f32[]" % (
                    lid, defined[lid], xla_proto.first(a, 3, 0), xla_proto.first(a, 2, 0)))
    with open(out + "-buffer-assignment.txt", "w") as fo:
        fo.write("\n".join(lines) + "\n")


def main():
    what = sys.argv[1]
    if what == "make_folder":
        make_folder(sys.argv[2], sys.argv[3])
        return
    if what == "as_text":
        as_text(sys.argv[2], sys.argv[3])
        return
    if what == "buffers":
        name = buffers(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        name = {"real": real, "target": target, "folder": folder}[what](sys.argv[2], sys.argv[3])
    for f in fails:
        print("FAIL %s: %s" % (name, f))
    if not fails:
        print("PASS " + name)
    sys.exit(1 if fails else 0)


main()
