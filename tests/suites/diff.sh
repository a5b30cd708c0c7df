# diff: `hloscope diff` on real modules and mutated copies whose true diff is
# known (tests/hlo/mutate_diff.py: renamed, renamed with an opcode changed,
# an opcode changed, an instruction added or removed, a layout changed, an
# op moved into a new fusion, an attribute changed), checked by
# tests/hlo/check_diff.py against what each mutation made; a module with
# itself, a protobuf with the same module in a TuningData file, the text
# report, and bad input.
. tests/lib.sh
D=tests/data/hlo
for m in graphsage_tf_cpu_benchmark openxla_hlo_llama3_8b_cp_bf16_1x4 bert_dp_graph_3_SyncTensorsGraph; do
	if ! "$PY" tests/hlo/mutate_diff.py "$D/$m.hlo" "$T/$m" >"$T/gen.log" 2>&1; then
		bad "diff: mutations of $m" "$(tail -2 "$T/gen.log" | tr '\n' '|')"
		continue
	fi
	"$PY" tests/hlo/check_diff.py "$HLOSCOPE" "$D/$m.hlo" "$T/$m" ||
		bad "diff: $m" "check_diff.py exited $?"
done

# The same module from two protobufs: the HloModuleProto cut out of a
# TuningData file, and module 2 of that file.
out=$("$HLOSCOPE" diff "$D/tpu_op_fusion.261.HloModuleProto.pb" "tests/data/raw/op_tuning_data.pb#2" 2>&1)
case $out in
*"no change: every instruction matched, none differs (52 matched, 0 renamed)"*) ok "diff: a protobuf module with its twin in a TuningData file: no change" ;;
*) bad "diff: protobuf twins" "$(printf '%s' "$out" | head -5 | tr '\n' '|')" ;;
esac

# The text report: totals side by side, the changed op with its change.
"$HLOSCOPE" diff "$D/graphsage_tf_cpu_benchmark.hlo" "$T/graphsage_tf_cpu_benchmark/layout.hlo" >"$T/report" 2>&1
if grep -q '^matched 138 ' "$T/report" && grep -q '^instructions  *138  *138  *+0$' "$T/report" &&
   grep -q 'embedding_lookup.2  *embedding_lookup.2  *layout ' "$T/report"; then
	ok "diff: the text report gives the totals and the changed pair"
else
	bad "diff: text report" "$(head -12 "$T/report" | tr '\n' '|')"
fi

# Bad input: not HLO (exit 2, the file named), a missing argument (exit 2:
# diff exits 1 when the modules differ, as diff(1)).
"$HLOSCOPE" diff README.md "$D/graphsage_tf_cpu_benchmark.hlo" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'README.md' "$T/err" && [ ! -s "$T/out" ] &&
	ok "diff: a file that is not HLO: exit 2, named, nothing printed" ||
	bad "diff: not HLO" "exit $rc: $(head -c 200 "$T/err")"
"$HLOSCOPE" diff "$D/graphsage_tf_cpu_benchmark.hlo" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'usage' "$T/err" && ok "diff: one module only: usage, exit 2" ||
	bad "diff: usage" "$(head -c 200 "$T/err")"
"$HLOSCOPE" diff "$D/graphsage_tf_cpu_benchmark.hlo" "$T/no-such.hlo" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'no-such.hlo' "$T/err" && ok "diff: a missing file: exit 2, named" ||
	bad "diff: missing file" "$(head -c 200 "$T/err")"
"$HLOSCOPE" diff --no-such-option "$D/graphsage_tf_cpu_benchmark.hlo" "$D/graphsage_tf_cpu_benchmark.hlo" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && ok "diff: an unknown option: exit 2" || bad "diff: unknown option" "$(head -c 200 "$T/err")"

# Names are counters a recompilation renumbers (tests/hlo/rename_diff.py
# writes the copies): matching goes by structure and content, names only
# break ties.
# 1. Names permuted among the instructions of each opcode: no change, exit
# 0, and the renames listed are exactly the permutation.
for m in bert_dp_graph_3_SyncTensorsGraph openxla_hlo_llama3_8b_cp_bf16_1x4 i3d_tf_xla_cluster_1; do
	"$PY" tests/hlo/rename_diff.py "$D/$m.hlo" "$T/p_$m" permute || { bad "diff: permute $m" "rename_diff.py failed"; continue; }
	"$HLOSCOPE" diff "$D/$m.hlo" "$T/p_$m/permuted.hlo" --json >"$T/p.json" 2>"$T/err"
	rc=$?
	"$HLOSCOPE" diff "$D/$m.hlo" "$T/p_$m/permuted.hlo" --text >"$T/p.txt" 2>&1
	rt=$?
	if [ $rc -eq 0 ] && [ $rt -eq 0 ] && grep -q '^no change: every instruction matched, none differs' "$T/p.txt" &&
	   grep -q '^renamed, the same otherwise' "$T/p.txt" &&
	   "$PY" - "$T/p.json" "$T/p_$m/permuted.json" <<'PYEOF'
import json, sys
d, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = {r["old"]: r["new"] for r in d["renamed"]}
sys.exit(0 if not d["differ"] and not d["changed"] and not d["unmatched_a"] and not d["unmatched_b"]
         and got == want and len(want) > 100 else 1)
PYEOF
	then
		ok "diff: $m with its names permuted within each opcode: no change, exit 0, the renames listed"
	else
		bad "diff: $m permuted" "exit $rc/$rt: $(sed -n 3p "$T/p.txt")"
	fi
done

# 2. Two custom-calls of different sizes (cuBLAS GEMMs of 2048x2048 and
# 2048x8192) numbered the other way round: paired by content, not by name.
A=$D/cut_alpa_xmap_train_step.57.hlo
"$PY" tests/hlo/rename_diff.py "$A" "$T/sw" swap
"$HLOSCOPE" diff "$A" "$T/sw/swapped.hlo" --json >"$T/sw.json"
rc=$?
if [ $rc -eq 0 ] && "$PY" - "$T/sw.json" "$T/sw/swapped.json" <<'PYEOF'
import json, sys
d, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sys.exit(0 if not d["changed"] and {r["old"]: r["new"] for r in d["renamed"]} == want and len(want) == 2 else 1)
PYEOF
then
	ok "diff: two custom-calls of different sizes with their names swapped: paired by content, 2 renamed"
else
	bad "diff: swapped custom-calls" "exit $rc: $(head -c 300 "$T/sw.json")"
fi

# 3. Each change old -> new, in text and JSON: an opcode, an attribute.
G=$D/graphsage_tf_cpu_benchmark.hlo
"$PY" tests/hlo/rename_diff.py "$G" "$T/sub" subtract
"$HLOSCOPE" diff "$G" "$T/sub/subtract.hlo" --text >"$T/sub.txt"
rt=$?
"$HLOSCOPE" diff "$G" "$T/sub/subtract.hlo" --json >"$T/sub.json"
rc=$?
if [ $rt -eq 1 ] && [ $rc -eq 1 ] && grep -q '^      opcode: multiply -> subtract$' "$T/sub.txt" &&
   "$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["changed"]; sys.exit(0 if len(c)==1 and c[0]["opcode"]=={"old":"multiply","new":"subtract"} else 1)' "$T/sub.json"; then
	ok "diff: an opcode changed: multiply -> subtract in text and JSON, exit 1"
else
	bad "diff: opcode old -> new" "exit $rt/$rc: $(grep -A2 '^changed' "$T/sub.txt" | tr '\n' '|')"
fi
m=bert_dp_graph_3_SyncTensorsGraph
"$HLOSCOPE" diff "$D/$m.hlo" "$T/$m/attr.hlo" --text >"$T/at.txt"
rt=$?
"$HLOSCOPE" diff "$D/$m.hlo" "$T/$m/attr.hlo" --json >"$T/at.json"
if [ $rt -eq 1 ] && grep -q '^      direction: LT -> GE$' "$T/at.txt" &&
   "$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["changed"]; sys.exit(0 if c[0]["attributes"]==[{"name":"direction","old":"LT","new":"GE"}] else 1)' "$T/at.json"; then
	ok "diff: an attribute changed: direction: LT -> GE in text and JSON"
else
	bad "diff: attribute old -> new" "exit $rt: $(grep -A3 '^changed' "$T/at.txt" | tr '\n' '|')"
fi

# 4. One computation of B pairs with at most one of A: names permuted, then
# two reducers with the same body merged into one.
"$PY" tests/hlo/rename_diff.py "$D/$m.hlo" "$T/mg" permute && "$PY" tests/hlo/rename_diff.py "$T/mg/permuted.hlo" "$T/mg" merge
"$HLOSCOPE" diff "$D/$m.hlo" "$T/mg/merged.hlo" --json >"$T/mg.json"
rc=$?
if [ $rc -eq 1 ] && "$PY" - "$T/mg.json" <<'PYEOF'
import collections, json, sys
d = json.load(open(sys.argv[1]))
twice = [b for b, n in collections.Counter(c["b"] for c in d["summary"]["computations"] if c["b"]).items() if n > 1]
sys.exit(0 if not twice and len(d["changed"]) == 1 and len(d["unmatched_a"]) == 3 and not d["unmatched_b"] else 1)
PYEOF
then
	ok "diff: a reducer merged into its twin, names permuted: no computation of B paired twice, 1 changed, 3 only in A"
else
	bad "diff: computations one to one" "exit $rc: $(head -c 300 "$T/mg.json")"
fi
exit 0
