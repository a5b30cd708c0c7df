# Layers and data (issue 20): the `layers` command and the `layer` field
# checked against a reading of the HLO text (tests/layers_check.py), runs of
# repeated blocks folded, data files laid over the graph (--data on query,
# info and the explorer) with their errors, and the explorer's layers tree.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"
need "$PY" || exit 0

H=$ROOT/tests/data/hlo
I3D=$H/i3d_tf_xla_cluster_1.hlo
PROF=$ROOT/tests/data/profile/i3d_tf_xla_cluster_1.profile.csv

# --- the command, against the text ---------------------------------------------
for m in i3d_tf_xla_cluster_1 llama2_dp1_tp1_pp1_SyncTensorsGraph openxla_cpu_jax.issue.26021; do
	"$HLOSCOPE" query "$H/$m.hlo" --csv 'layers all' >"$T/$m.layers.csv" 2>"$T/err" &&
		"$HLOSCOPE" query "$H/$m.hlo" --csv 'count by layer' >"$T/$m.count.csv" 2>>"$T/err" ||
		bad "$m: layers runs" "$(head -c 300 "$T/err")"
	"$PY" "$ROOT/tests/layers_check.py" "$H/$m.hlo" "$T/$m.layers.csv" "$T/$m.count.csv" | sed "s/^\(PASS\|FAIL\) /\1 $m: /"
done
"$HLOSCOPE" query "$I3D" --csv --data "$PROF" 'layers all' >"$T/i3d.data.csv" 2>"$T/err"
"$PY" "$ROOT/tests/layers_check.py" "$I3D" "$T/i3d_tf_xla_cluster_1.layers.csv" "$T/i3d_tf_xla_cluster_1.count.csv" "$PROF" "$T/i3d.data.csv" |
	sed 's/^\(PASS\|FAIL\) /\1 i3d: /'

# the inception blocks Mixed_4b..4e: one repeat group, one folded row
"$HLOSCOPE" query "$I3D" 'layers depth 3' >"$T/fold.txt" 2>&1
grep -q 'Mixed_4e ... Mixed_4b: 4 repeats of one block .* 360 ' "$T/fold.txt" &&
	ok "a run of repeated blocks is one row with their nodes summed" ||
	bad "a run of repeated blocks is one row with their nodes summed" "$(grep Mixed_4 "$T/fold.txt")"
"$PY" - "$T/i3d_tf_xla_cluster_1.layers.csv" <<'PYEOF' && ok "layers all: the four blocks share a repeat group, Mixed_5c does not" || bad "repeat groups" "see above"
import csv, sys
g = {r["path"].rsplit("/", 1)[-1]: r["repeat_group"] for r in csv.DictReader(open(sys.argv[1])) if r["depth"] == "3"}
blocks = {g["Mixed_4%s" % c] for c in "bcde"}
sys.exit(0 if len(blocks) == 1 and blocks != {"0"} and g["Mixed_5c"] not in blocks else print(g) or 1)
PYEOF
"$HLOSCOPE" query "$I3D" 'layers depth 3 sort by cost desc limit 3' >"$T/sorted.txt" 2>&1
[ "$(sed -n 2p "$T/sorted.txt" | awk '{print $1}')" = RGB ] && grep -q '^(3 rows' "$T/sorted.txt" &&
	ok "sort by and limit keep the tree" || bad "sort by and limit keep the tree" "$(cat "$T/sorted.txt")"
"$HLOSCOPE" query "$I3D" --json 'layers where opcode = convolution depth 2' >"$T/conv.json" 2>&1
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if [x["nodes"] for x in r]==[58,58] else 1)' "$T/conv.json" &&
	ok "where: numbers over the nodes that match (58 convolutions)" || bad "where" "$(head -c 300 "$T/conv.json")"
expect_status 1 "sort by an unknown column is a usage error" "$HLOSCOPE" query "$I3D" 'layers sort by nope'
expect_status 1 "depth 0 is a usage error" "$HLOSCOPE" query "$I3D" 'layers depth 0'

# --- data laid over the graph ------------------------------------------------------
"$HLOSCOPE" query "$I3D" --data "$PROF" 'stats time_us' 'computations' >"$T/q.txt" 2>"$T/err"
grep -q '^time_us *668 ' "$T/q.txt" && ok "--data: a numeric column is a field (stats)" || bad "--data stats" "$(head -3 "$T/q.txt")"
grep -q 'entry .* 11734.6 ' "$T/q.txt" && ok "--data: summed per computation" || bad "--data per computation" "$(tail -2 "$T/q.txt")"
grep -q '2 rows name no instruction: MemcpyHtoD, _XlaRun' "$T/err" &&
	ok "--data: the rows naming no instruction are listed on stderr" || bad "unmatched rows" "$(cat "$T/err")"
printf '{"convolution.306": {"t": 2.5, "tag": "x"}, "nope": {"t": 1}}' >"$T/d.json"
"$HLOSCOPE" query "$I3D" --data "$T/d.json" "nodes where t > 0 show name, t, tag" >"$T/j.txt" 2>&1
grep -q 'convolution.306 *2.5 *x' "$T/j.txt" && ok "--data: a JSON object by instruction name" || bad "--data JSON" "$(cat "$T/j.txt")"
printf 'name,t\nconvolution.306,1\nconvolution.319,1,2\n' >"$T/bad.csv"
"$HLOSCOPE" query "$I3D" --data "$T/bad.csv" 'count by t' >"$T/out" 2>"$T/err"; st=$?
[ $st -eq 2 ] && grep -q "bad.csv:3: 3 fields where the header has 2" "$T/err" && [ ! -s "$T/out" ] &&
	ok "--data: a malformed line fails with FILE:LINE, exit 2, nothing run" || bad "malformed data" "exit $st: $(cat "$T/err")"
printf 'name,cost\nconvolution.306,1\n' >"$T/clash.csv"
expect_status 1 "--data: a column named as a field is refused" "$HLOSCOPE" query "$I3D" --data "$T/clash.csv" 'count by opcode'
expect_status 1 "--data over a folder is a usage error" "$HLOSCOPE" query "$H" --data "$PROF" 'count by opcode'
"$HLOSCOPE" info --json "$I3D" --data "$PROF" >"$T/info.json" 2>/dev/null
"$PY" - "$T/info.json" "$PROF" <<'PYEOF' && ok "info --data --json: rows, matches, each field's sum" || bad "info --data" "$(head -c 300 "$T/info.json")"
import csv, json, sys
d = json.load(open(sys.argv[1]))["data"][0]
total = sum(float(r["time_us"]) for r in csv.DictReader(open(sys.argv[2])) if r["name"] not in ("MemcpyHtoD", "_XlaRun"))
f = {x["name"]: x for x in d["fields"]}
sys.exit(0 if d["rows"] == 670 and d["matched"] == 668 and d["unmatched_names"] == ["MemcpyHtoD", "_XlaRun"]
         and abs(f["time_us"]["sum"] - total) < 1e-6 and f["op_category"]["type"] == "text" else 1)
PYEOF

# --- the data file's rules (issues 28, 31; loader/overlay.h) -----------------------------
# data_fails NAME FILE TEXT: query --data FILE exits 2 with TEXT on stderr, nothing on stdout.
data_fails() {
	"$HLOSCOPE" query "$I3D" --data "$2" 'count by opcode' >"$T/out" 2>"$T/err"; st=$?
	[ $st -eq 2 ] && grep -qF -- "$3" "$T/err" && [ ! -s "$T/out" ] && ok "--data: $1" ||
		bad "--data: $1" "exit $st: $(head -c 300 "$T/err")"
}
printf 'name,time_us\nconvolution.306,1\0.5\n' >"$T/nul.csv"
data_fails "a NUL byte is an error at its line naming the column" "$T/nul.csv" \
	"nul.csv:2: column 'time_us': a NUL byte in the value '1'"
printf 'name,time_us\nconvolution.306,1\nconvolution.319,1e400\n' >"$T/big.csv"
data_fails "a number out of range (1e400) is an error at its line" "$T/big.csv" \
	"big.csv:3: field 'time_us': '1e400' is not a finite number"
printf '[{"name": "convolution.306", "t": 1},\n {"name": "convolution.319", "t": -1e400}]' >"$T/big.json"
data_fails "a JSON number out of range is an error at its line and byte" "$T/big.json" \
	"big.json:2 (byte 72): field 't': '-1e400' is not a finite number"
printf 'name,time_us\nconvolution.306,1\nconvolution.319,n/a\n' >"$T/text.csv"
data_fails "a non-number in a numeric field is an error naming it" "$T/text.csv" \
	"text.csv:3: field 'time_us': 'n/a' is not a number, and the field is numeric (its first value, line 2, is one)"
printf 'name,time_us\nconvolution.306,1\nconvolution.319,2\nconvolution.306,3\n' >"$T/rep.csv"
data_fails "an instruction named twice is an error naming both lines" "$T/rep.csv" \
	"rep.csv:4: 'convolution.306' is named again, first at line 2; name each instruction once, or merge its values with --data-merge sum|first|last"
"$HLOSCOPE" query "$I3D" --data "$T/rep.csv" --data-merge sum --csv 'nodes where time_us > 0 show name, time_us' >"$T/sum.csv" 2>"$T/err" &&
	grep -qx 'convolution.306,4' "$T/sum.csv" && grep -qx 'convolution.319,2' "$T/sum.csv" &&
	ok "--data-merge sum adds a repeated instruction's numbers" || bad "--data-merge sum" "$(cat "$T/sum.csv" "$T/err")"
"$HLOSCOPE" query "$I3D" --data "$T/rep.csv" --data-merge last --csv 'nodes where time_us > 0 show name, time_us' >"$T/last.csv" 2>"$T/err" &&
	grep -qx 'convolution.306,3' "$T/last.csv" && ok "--data-merge last keeps the last value" ||
	bad "--data-merge last" "$(cat "$T/last.csv" "$T/err")"
expect_status 1 "--data-merge takes sum, first, last or none" "$HLOSCOPE" query "$I3D" --data "$T/rep.csv" --data-merge add 'count'
# the bundled profile as an Excel CSV (a byte-order mark) and as a JSON array of records: the same fields
printf '\357\273\277' | cat - "$PROF" >"$T/bom.csv"
"$PY" - "$PROF" "$T/records.json" <<'PYEOF'
import csv, json, sys
rows = [{k: (float(v) if k in ("time_us", "occurrences") else v) for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1]))]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
PYEOF
Q='nodes where time_us > 0 show name, time_us, occurrences, op_category'
"$HLOSCOPE" query "$I3D" --csv --data "$PROF" "$Q" >"$T/from_csv.csv" 2>/dev/null
"$HLOSCOPE" query "$I3D" --csv --data "$T/bom.csv" "$Q" >"$T/from_bom.csv" 2>"$T/err.bom"
"$HLOSCOPE" query "$I3D" --csv --data "$T/records.json" "$Q" >"$T/from_json.csv" 2>"$T/err.json"
[ "$(wc -l <"$T/from_csv.csv")" -eq 669 ] && cmp -s "$T/from_csv.csv" "$T/from_bom.csv" &&
	ok "--data: a CSV after a UTF-8 byte-order mark reads as without" || bad "--data with a byte-order mark" "$(head -c 300 "$T/err.bom")"
cmp -s "$T/from_csv.csv" "$T/from_json.csv" && grep -q '2 rows name no instruction: MemcpyHtoD, _XlaRun' "$T/err.json" &&
	ok "--data: a JSON array of records gives the CSV's fields and values" ||
	bad "--data JSON records" "$(diff "$T/from_csv.csv" "$T/from_json.csv" | head -5) $(head -c 300 "$T/err.json")"
# 65,536 fields read and each queried (the query language numbers them in 16 bits); one more is refused
printf 'HloModule w\n\nENTRY %%main (a: f32[4]) -> f32[4] {\n  %%a = f32[4]{0} parameter(0)\n  ROOT %%n = f32[4]{0} negate(%%a)\n}\n' >"$T/w.hlo"
"$PY" - "$T" <<'PYEOF'
import sys
for n, p in ((65536, "c"), (65537, "c"), (65536, "d")):
    with open("%s/wide%d%s.csv" % (sys.argv[1], n, p), "w") as f:
        f.write("name," + ",".join("%s%d" % (p, i) for i in range(n)) + "\nn," + ",".join(str(i) for i in range(n)) + "\n")
PYEOF
"$HLOSCOPE" query "$T/w.hlo" --data "$T/wide65536c.csv" --csv 'nodes where c65535 > 0 show name, c0, c40000, c65535' >"$T/wide.csv" 2>"$T/err"
[ "$(tail -1 "$T/wide.csv")" = "n,0,40000,65535" ] && ok "--data: 65,536 fields, the last one queried" ||
	bad "--data 65,536 fields" "$(cat "$T/wide.csv") $(head -c 300 "$T/err")"
# a second file of 65,536 fields: each new field is found by name, not by a scan of the fields so far
"$HLOSCOPE" query "$T/w.hlo" --data "$T/wide65536c.csv" --data "$T/wide65536d.csv" --csv 'nodes where d65535 > 0 show c1, d65535' >"$T/wide2.csv" 2>"$T/err"
[ "$(tail -1 "$T/wide2.csv")" = "1,65535" ] && ok "--data twice: 2 x 65,536 fields" ||
	bad "--data twice 65,536 fields" "$(cat "$T/wide2.csv") $(head -c 300 "$T/err")"
expect_status 2 "--data: 65,537 fields are refused" "$HLOSCOPE" query "$T/w.hlo" --data "$T/wide65537c.csv" 'count'
grep -qF "wide65537c.csv:1: 65537 fields, more than the 65536 hloscope reads" "$T/err" &&
	ok "--data: the refusal names the line and the limit" || bad "--data: 65,537 fields" "$(head -c 300 "$T/err")"

# --- the explorer ----------------------------------------------------------------------
TUI_W=160
tui_run "layers tree session ends cleanly" "$H" i3d_tf_xla_cluster_1.hlo --data "$PROF" <<'EOF2'
y
has y opens the tree down to the only model namespace => inception_i3d
has the data's numbers are columns => time_us
has a run of repeats is one row => Mixed_4e ... Mixed_4b
/
type Mixed_4e
Enter
Enter
has Enter opens the run into its blocks => Mixed_4d
lacks ... which is no longer folded => Mixed_4e ... Mixed_4b
*
has * opens everything => conv_3d
g
q
t
:goto convolution.306
i
has the node detail shows its layer => layer RGB/inception_i3d/Mixed_3b/Branch_0/Conv3d_0a_1x1/conv_3d
y
has y jumps to it in the tree => Conv3d_0a_1x1
q
q
:data $T/d.json
q
t
has :data lays more data over the graph: a new node table shows it => tag
Q
EOF2
