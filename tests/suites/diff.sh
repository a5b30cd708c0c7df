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
*"no change: every instruction matched, none differs (52 matched)"*) ok "diff: a protobuf module with its twin in a TuningData file: no change" ;;
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

# Bad input: not HLO (exit 2, the file named), a missing argument (exit 1).
"$HLOSCOPE" diff README.md "$D/graphsage_tf_cpu_benchmark.hlo" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'README.md' "$T/err" && [ ! -s "$T/out" ] &&
	ok "diff: a file that is not HLO: exit 2, named, nothing printed" ||
	bad "diff: not HLO" "exit $rc: $(head -c 200 "$T/err")"
"$HLOSCOPE" diff "$D/graphsage_tf_cpu_benchmark.hlo" >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && grep -q 'usage' "$T/err" && ok "diff: one module only: usage, exit 1" ||
	bad "diff: usage" "$(head -c 200 "$T/err")"
"$HLOSCOPE" diff "$D/graphsage_tf_cpu_benchmark.hlo" "$T/no-such.hlo" >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'no-such.hlo' "$T/err" && ok "diff: a missing file: exit 2, named" ||
	bad "diff: missing file" "$(head -c 200 "$T/err")"
exit 0
