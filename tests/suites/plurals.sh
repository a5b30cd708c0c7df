#!/bin/sh
# Counts with their nouns: "1 node", "2 nodes", never "1 nodes".  Graphs
# where every count is 1 (tests/fixtures/make_ones.py), a real tile file of
# 2 nodes and 1 edge, and a folder of one graph go through the commands'
# usual outputs; none may print 1 next to a plural noun.
. tests/lib.sh
need numpy || exit 0

H=$HLOSCOPE
"$PY" "$ROOT/tests/fixtures/make_ones.py" "$T/ones" >"$T/gen.log" 2>&1 ||
	{ bad "plurals: fixtures" "$(tail -3 "$T/gen.log")"; exit 0; }
L=$T/ones/layout_ones.npz
TI=$T/ones/tile_ones.npz
REAL=$DATA/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz
mkdir -p "$T/one"
cp "$L" "$T/one/"

# 1 next to a plural noun, with at most one word between ("1 configurable
# nodes"); "1 ns" and the like are units, not counts of things.
NOUNS='nodes|edges|configs|users|operands|graphs|files|computations|opcodes|rows|values|fields|steps|entries|fusions|modules|hops|groups|columns|runtimes|layouts|segments|splits|collectives|callers'
PAT="(^|[^0-9.,])1 ([a-z-]+ )?($NOUNS)([^a-z]|\$)"

# run NAME ARGS...: whatever it prints (stdout and stderr, any status) holds
# no "1 <plural>".
run() {
	name=$1
	shift
	"$H" "$@" >"$T/out" 2>&1
	if ! no_sanitizer_report "$T/out"; then
		bad "plurals: $name" "sanitizer report"
	elif grep -nE "$PAT" "$T/out" >"$T/hits"; then
		bad "plurals: $name" "$(head -3 "$T/hits" | tr '\n' '|')"
	else
		ok "plurals: $name"
	fi
}

run "check" check "$L" "$TI"
run "check of one file" check "$L"
run "info layout" info "$L"
run "info tile" info "$TI"
run "info real tile" info "$REAL"
run "info folder of one graph" info "$T/one"
for q in 'nodes' 'nodes where id == 1' 'count by opcode' 'opcodes' 'computations' 'splits' 'collectives' \
	'neighbors 0' 'users 0' 'operands 1' 'configs' 'configs where config == 0' 'config 0' \
	'stats id' 'graphs' 'path 1 0' 'compare 0 0' 'node 1' 'nodes where id == 7' 'config 5'; do
	run "query '$q'" query "$L" "$q"
done
run "query on a folder of one graph" query "$T/one" 'nodes' 'count by opcode' 'stats id' 'graphs'
run "query tile 'configs'" query "$TI" 'configs'
run "query real tile" query "$REAL" 'nodes' 'opcodes' 'computations' 'splits' 'users 0' 'show 0'
run "dot --text" dot "$L" --around 0 --text
run "dot --text, one step" dot "$L" --around 0 --radius 1 --text
run "dot --configurable --text" dot "$L" --configurable --text
run "dot --nodes out of range" dot "$L" --nodes 7 --text
run "predict" predict "$L"
run "predict tile" predict "$TI"
run "compare" compare "$L" 0 0
run "eval" eval "$L" "$TI"
run "fit on one config" fit "$L" --train-fraction 0.5
run "train on one file of one config" train "$L" -o "$T/m.hsm" --epochs 1
run "compare tile" compare "$TI" 0 0

# The fixture's counts are 1 indeed: the test would prove nothing otherwise.
"$H" info "$L" >"$T/out" 2>&1
grep -q "configurable    1 node x 18 values" "$T/out" && grep -q "configs         1" "$T/out" &&
	ok "plurals: the fixture has 1 config and 1 configurable node" ||
	bad "plurals: fixture" "$(head -c 300 "$T/out")"
"$H" query "$L" 'users 0' >"$T/out" 2>&1
grep -qE "has 1 user[;)]" "$T/out" && ok "plurals: users 0 says 1 user" ||
	bad "plurals: users 0" "$(cat "$T/out")"
exit 0
