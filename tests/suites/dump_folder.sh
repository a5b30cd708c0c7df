# info on an XLA dump folder (loader/dump.h, loader/dataset.c): made of real
# modules by tests/hlo/make_dump.py, which counts each stage's instructions
# and fusions from the text itself (the protobufs' counts are those
# tests/data/hlo/README.md gives).  `info DIR --json` lists every file with
# its module, stage, size in bytes, instructions and fusions, in the
# compiler's order, the reports apart, and the file that is not HLO with its
# error (exit 2); the text listing says what was skipped.
. "$ROOT/tests/lib.sh"

"$PY" tests/hlo/make_dump.py "$ROOT" "$T/xla_dump" >/dev/null || { bad "dump folder" "make_dump.py failed"; exit 0; }
"$HLOSCOPE" info --json "$T/xla_dump" >"$T/info.json" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && ok "info --json on a dump folder with a broken file: exit 2" || bad "info --json: exit" "exit $rc"
"$PY" - "$T/dump-want.json" "$T/info.json" "$T/xla_dump" <<'PYEOF' || bad "info --json on a dump folder" "see above"
import json, os, sys
want, got, folder = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
fail = []
files = {g["file"]: g for g in got["graphs"]}
if sorted(files) != sorted(want["files"]):
    fail.append("files %s, want %s" % (sorted(files), sorted(want["files"])))
for name, w in want["files"].items():
    g = files.get(name, {})
    for k in ("module", "stage", "instructions", "fusions"):
        if k in w and g.get(k) != w[k]:
            fail.append("%s: %s %r, want %r" % (name, k, g.get(k), w[k]))
    if g.get("bytes") != os.path.getsize(os.path.join(folder, name)):
        fail.append("%s: bytes %r" % (name, g.get("bytes")))
    if w.get("error") and "error" not in g:
        fail.append("%s: no error" % name)
order = [g["file"] for g in got["graphs"] if g["file"].startswith("module_0007")]
stages = ["before_optimizations", "0003", "0012", "0020", "cpu_after_optimizations.txt"]
if [next(i for i, s in enumerate(stages) if s in f) for f in order] != list(range(5)):
    fail.append("module_0007's stages out of order: %s" % order)
reports = sorted(r["file"] for r in got.get("reports", []))
if reports != sorted(want["reports"]):
    fail.append("reports %s" % reports)
kinds = sorted(r["kind"] for r in got.get("reports", []))
if kinds != ["buffer assignment", "memory usage report"]:
    fail.append("report kinds %s" % kinds)
for f in fail:
    print("FAIL info --json on a dump folder: " + f)
print("PASS info --json on a dump folder: module, stage, sizes of each file, in the compiler's order, the reports" if not fail else "", end="\n" if not fail else "")
sys.exit(1 if fail else 0)
PYEOF
"$HLOSCOPE" info "$T/xla_dump" >"$T/info.txt" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "skipped: 1:1: expected 'HloModule'" "$T/info.txt" &&
   grep -q '^8 files, 2 reports; 1 skipped (could not be read)$' "$T/info.txt" &&
   grep -q '^module_0007.jit_step  *pass 0012 fusion: after priority-fusion  *141  *1 ' "$T/info.txt"; then
	ok "info on a dump folder: stages with their counts, what was skipped and why"
else
	bad "info on a dump folder" "exit $rc: $(head -c 400 "$T/info.txt" | tr '\n' '|')"
fi
exit 0
