# The explorer's diff of two modules (tui/view_diff.c, view_diff_pair.c)
# and its XLA dump folders (view_dataset.c, view_passes.c, view_text.c),
# scripted at 100x30 on real modules and mutated copies whose true diff is
# known (tests/hlo/mutate_diff.py), and on a dump folder made of real
# modules (tests/hlo/make_dump.py).  The rows the diff view lists are
# written with :write and checked against what each mutation made
# (tests/tui/diff_rows_check.py); the buffer_bytes of a module after
# optimizations against the sizes the buffer assignment gives.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

G=tests/data/hlo/graphsage_tf_cpu_benchmark.hlo
"$PY" tests/hlo/mutate_diff.py "$G" "$T/mut" >/dev/null || { bad "tui_diff: mutations" "mutate_diff.py failed"; exit 0; }
cp "$G" "$T/a.hlo"
for m in fused renamed_opcode removed layout; do cp "$T/mut/$m.hlo" "$T/$m.hlo"; done
cp "$T/mut/want.json" "$T/want.json"

# 1. hloscope diff A B with a script: the diff view, not the report.
tui_run "diff view: session ends cleanly" "$T" diff a.hlo fused.hlo <<'EOF'
golden diff_fused
has changed first, the moved op marked => Mean.52
has what is only in B => only in B
:write $T/fused.csv
a
has a shows every pair => every instruction (141 rows)
:write $T/fused_all.csv
a
Enter
golden diff_fused_pair
has the pair says where the op went => fused into moved_f
q
Tab
Enter
has Enter on a computation keeps the rows to it => Instructions of cluster_0__XlaCompiledKernel
Q
EOF
for m in renamed_opcode removed layout; do
	tui_run "diff view $m: session ends cleanly" "$T" diff a.hlo "$m.hlo" <<EOF
:write \$T/$m.csv
Q
EOF
done
for m in fused renamed_opcode removed layout; do
	"$PY" tests/tui/diff_rows_check.py "$T/want.json" "$m" "$T/$m.csv" "$T/a.hlo" "$T/$m.hlo" ||
		bad "diff view $m: rows" "diff_rows_check.py exited $?"
done
"$PY" tests/tui/diff_rows_check.py --all "$T/fused_all.csv" "$T/a.hlo" "$T/fused.hlo" ||
	bad "diff view: every pair" "diff_rows_check.py exited $?"

# 2. v draws the side of the cursor's column with the changes highlighted;
# a module with itself: no change; :diff FILE from a module.
tui_run "diff view: drawing and itself" "$T" diff a.hlo renamed_opcode.hlo <<'EOF'
l
l
l
l
l
v
has the drawing of B's side says so => B side (renamed_opcode.hlo): 1 changed or only-in-B node highlighted
has it is centred on the pair => cursor: node 107 multiply
q
q
EOF
tui_run "diff: a module with itself" "$T" diff a.hlo a.hlo <<'EOF'
has no change => no change: every instruction matched, none differs (138 matched)
has nothing listed => (empty)
EOF
tui_run ":diff FILE from a module" "$T" a.hlo <<'EOF'
:diff removed.hlo
has the diff view opens => Diff a | removed
has the removed instruction => only in A
q
has q goes back to the module => HLO module
EOF

# 3. Bad input: a file that is not HLO is the usual message, exit 2,
# before any screen.
TUI_STATUS=2 tui_run "diff: not HLO, exit 2" "$T" diff a.hlo want.json <<'EOF'
EOF
grep -q 'want.json' "$T/stderr" && [ ! -s "$T/stdout" ] && ok "diff: not HLO names the file, nothing drawn" ||
	bad "diff: not HLO" "$(head -c 300 "$T/stderr")"
tui_run ":diff with a file that is not HLO" "$T" a.hlo <<'EOF'
:diff want.json
has the message names the file => want.json
has the module stays => HLO module
EOF

# 4. A dump folder: stages in the compiler's order, reports, passes, d,
# buffer_bytes.
"$PY" tests/hlo/make_dump.py "$ROOT" "$T/xla_dump" >/dev/null || { bad "tui_diff: dump folder" "make_dump.py failed"; exit 0; }
tui_run "dump folder: session ends cleanly" "$T" xla_dump <<'EOF'
resize 160 30
golden dump_folder
has reports are rows => report module_0007.jit_step     buffer assignment
has the stage that is not HLO is listed with why => 1:1: expected 'HloModule', found 'this'
j
j
j
j
:passes
golden dump_passes
has the pass that changed the most => the most instructions changed at pass 0012 fusion: after priority-fusion (+3)
j
j
d
has d diffs it with the stage before => Diff module_0007.jit_step.0003.simp.after_algsimp | module_0007.jit_step.0012.fusion.after_priority-fusion
q
G
d
has d skips a stage that could not be read => Diff module_0007.jit_step.0012.fusion.after_priority-fusion | module_0007.jit_step.cpu_after_optimizations
q
Enter
has opening it lays the buffer assignment over it => buffer_bytes from module_0007.jit_step.cpu_after_optimizations-buffer-assignment.txt
:nodes where buffer_bytes > 0 show name, buffer_bytes
:write $T/buffers.csv
q
q
q
G
Enter
has a report opens as text => Total bytes used:
q
g
d
has d on the first stage says so => is the first stage of module_0001.jit__psum
j
d
has d on a protobuf pair => Diff module_0001.jit__psum.before_optimizations.hlo | module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo
EOF
"$PY" - "$T/dump-want.json" "$T/buffers.csv" <<'PYEOF' && ok "dump folder: buffer_bytes is the buffer assignment's size of every instruction" || bad "dump folder: buffer_bytes" "see above"
import csv, json, sys
want = json.load(open(sys.argv[1]))["buffer_bytes"]
got = {r["name"]: float(r["buffer_bytes"]) for r in csv.DictReader(open(sys.argv[2]))}
bad = [(n, got.get(n), w) for n, w in want.items() if got.get(n) != w]
extra = set(got) - set(want)
if bad or extra or not want:
    print("want %d, got %d; differ: %s; extra: %s" % (len(want), len(got), bad[:5], sorted(extra)[:5]))
    sys.exit(1)
PYEOF
exit 0
