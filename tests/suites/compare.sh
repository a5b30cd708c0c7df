# compare: `hloscope compare FILE A B` (model/compare.c, cli/cmd_compare.c).
# Golden text and JSON on real layout and tile files (predicted values are
# left out of the goldens: they belong to the model and are checked apart);
# the differing nodes, values, runtimes and ranks against numpy; selectors
# and their errors; unlabeled files; two files of one graph (numpy-written
# fixtures with a default config).
. tests/lib.sh
need numpy || exit 0

L="$DATA/npz/layout/xla/default/train/unet3d.npz"
R="$DATA/npz/layout/xla/random/train/openai_v0_rnn_optimized.npz"
LU="$DATA/npz/layout/nlp/random/test/23559853d9702baaaacbb0c83fd32266.npz"
TV="$DATA/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz"
TU="$DATA/npz/tile/xla/test/0a3585c3e686065389227fa374175e48.npz"

# Runs compare, expecting status 0 and no sanitizer report; output in $T/out.
run_ok() {
	name=$1; shift
	"$HLOSCOPE" compare "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] || ! no_sanitizer_report "$T/err"; then
		bad "$name" "exit $rc: $(head -c 300 "$T/err")"
		return 1
	fi
	return 0
}

# Golden of the output with the data folder and the model's numbers taken out.
golden_text() {
	sed -e "s|$DATA|\$DATA|g" "$T/out" | grep -v '^predicted' >"$T/g.$1"
	golden "compare/$1" "$T/g.$1"
}
golden_json() {
	sed -e "s|$DATA|\$DATA|g" "$T/out" | grep -v '"predict\(ed_[a-z_]*\|or\|ion_error\)":' >"$T/g.$1"
	golden "compare/$1" "$T/g.$1"
}

# Usage: error_case NAME STATUS 'MESSAGE' ARGS...  (the message is grepped in stderr)
error_case() {
	name=$1 want=$2 msg=$3; shift 3
	"$HLOSCOPE" compare "$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ $got -ne "$want" ]; then
		bad "$name" "exit $got, wanted $want; stderr: $(head -c 300 "$T/err")"
	elif ! grep -qF -- "$msg" "$T/err"; then
		bad "$name" "stderr lacks '$msg': $(head -c 300 "$T/err")"
	elif [ -s "$T/out" ]; then
		bad "$name" "wrote to stdout on error: $(head -c 200 "$T/out")"
	elif ! no_sanitizer_report "$T/err"; then
		bad "$name" "sanitizer report"
	else
		ok "$name"
	fi
}

# 1. Goldens on real files (--no-predict: the model's numbers are checked in 3).
NP=--no-predict
run_ok "layout best worst" "$L" best worst $NP && golden_text unet3d_best_worst.txt
run_ok "layout best worst json" "$L" best worst --json $NP && golden_json unet3d_best_worst.json
run_ok "layout all" "$L" 0 1 --all $NP && golden_text unet3d_0_1_all.txt
run_ok "layout all json" "$L" 0 1 --all --json $NP && golden_json unet3d_0_1_all.json
run_ok "layout same values" "$R" 0 best $NP && golden_text rnn_0_best.txt
run_ok "tile labeled" "$TV" 0 best $NP && golden_text inception_0_best.txt
run_ok "tile unlabeled" "$TU" 0 5 $NP && golden_text tile_test_0_5.txt
run_ok "tile unlabeled json" "$TU" 0 5 --json $NP && golden_json tile_test_0_5.json
run_ok "layout unlabeled" "$LU" 0 1 $NP && golden_text nlp_test_0_1.txt

# 2. The JSON against numpy: differing nodes, their values, runtimes, ranks.
# (Each comparison is saved; one python checks them all.)
nk=0
: >"$T/numpy.list"
check_numpy() {
	name=$1 file=$2 a=$3 b=$4
	if ! run_ok "$name" "$file" "$a" "$b" --json; then return; fi
	nk=$((nk + 1))
	cp "$T/out" "$T/numpy.$nk.json"
	printf '%s\t%s\t%s\t%s\t%s\n' "$file" "$a" "$b" "$T/numpy.$nk.json" "$name" >>"$T/numpy.list"
}
check_numpy "numpy: unet3d best worst" "$L" best worst
check_numpy "numpy: unet3d 0 1" "$L" 0 1
check_numpy "numpy: rnn 3 17" "$R" 3 17
check_numpy "numpy: nlp test 5 900" "$LU" 5 900
check_numpy "numpy: tile test 0 1281" "$TU" 0 1281
check_numpy "numpy: tile valid worst best" "$TV" worst best
"$PY" - "$T/numpy.list" <<'PYEOF'
import json, sys
import numpy as np


def check(path, a, b, out, name):
    got = json.load(open(out))
    d = np.load(path)
    raw = d["config_runtime"].astype(np.int64)
    rt = raw.astype(float)
    if "config_runtime_normalizers" in d.files:
        rt = rt / d["config_runtime_normalizers"]
    def pick(s):
        if s == "best": return int(np.argmin(rt))
        if s == "worst": return int(np.argmax(rt))
        return int(s)
    ia, ib = pick(a), pick(b)
    fails = []
    def want(key, value):
        g = got.get(key)
        if isinstance(value, float):
            if g is None or abs(g - value) > 1e-12 * abs(value): fails.append("%s %r != %r" % (key, g, value))
        elif g != value:
            fails.append("%s %r != %r" % (key, g, value))
    want("config_a", ia); want("config_b", ib)
    labeled = bool((raw != 0).any())
    if labeled:
        want("runtime_a", float(rt[ia])); want("runtime_b", float(rt[ib]))
        want("runtime_ratio", float(rt[ib] / rt[ia]))
        want("rank_a", int((rt < rt[ia]).sum()) + 1); want("rank_b", int((rt < rt[ib]).sum()) + 1)
    else:
        for k in ("runtime_a", "runtime_b", "runtime_ratio", "rank_a", "rank_b"):
            want(k, None)
    if "node_config_feat" in d.files:
        ncf, ids, ops = d["node_config_feat"], d["node_config_ids"], d["node_opcode"]
        diff = (ncf[ia] != ncf[ib]).any(axis=1)
        want("differing_count", int(diff.sum()))
        want("configurable_nodes", int(len(ids)))
        rows = {r["id"]: r for r in got["differing_nodes"]}
        if sorted(rows) != sorted(int(i) for i in ids[diff]):
            fails.append("differing ids %s != %s" % (sorted(rows)[:8], sorted(ids[diff])[:8]))
        for k in np.nonzero(diff)[0]:
            r = rows.get(int(ids[k]))
            if r is None: continue
            if r["a"] != ncf[ia, k].astype(int).tolist() or r["b"] != ncf[ib, k].astype(int).tolist():
                fails.append("values of node %d" % ids[k]); break
            if r["changed"] != np.nonzero(ncf[ia, k] != ncf[ib, k])[0].tolist():
                fails.append("changed of node %d" % ids[k]); break
        from collections import Counter
        names = {}
        for r in got["differing_nodes"]: names[r["id"]] = r["opcode"]
        if dict(Counter(names.values())) != got["differing_opcodes"]:
            fails.append("differing_opcodes")
        # a bare .npz names its nodes opcode.id and has no metadata; rows
        # give the HLO computation by name and the node_splits segment
        for r in got["differing_nodes"]:
            if r["name"] != "%s.%d" % (r["opcode"], r["id"]) or r["op_name"] is not None or \
                    not isinstance(r["computation"], str) or not isinstance(r["split"], int):
                fails.append("names of node %d: %r %r %r" % (r["id"], r["name"], r["computation"], r["split"]))
                break
        for key, field in (("differing_computations", "computation"), ("differing_splits", "split")):
            per = Counter(r[field] for r in got["differing_nodes"])
            if {c[field]: c["count"] for c in got[key]} != dict(per):
                fails.append(key)
    else:
        cf = d["config_feat"]
        dv = [int(j) for j in np.nonzero(cf[ia] != cf[ib])[0]]
        if [v["index"] for v in got["differing_values"]] != dv: fails.append("differing_values")
        for v in got["differing_values"]:
            if v["a"] != float(cf[ia, v["index"]]) or v["b"] != float(cf[ib, v["index"]]):
                fails.append("value %d" % v["index"]); break
        if len(got["kernel_nodes"]) != d["node_feat"].shape[0]: fails.append("kernel_nodes")
    print(("FAIL %s: %s" % (name, "; ".join(fails[:5]))) if fails else "PASS " + name)


for line in open(sys.argv[1]):
    check(*line.rstrip("\n").split("\t"))
PYEOF

# 3. Predictions and per-node contributions come from the model (the
# analytic estimate without --model): a number and a rank per side, and the
# contributions of all configurable nodes add up to predicted B - A.
mk=0
: >"$T/model.list"
check_model() {
	name=$1; shift
	if ! run_ok "$name" "$@" --all --json; then return; fi
	mk=$((mk + 1))
	cp "$T/out" "$T/model.$mk.json"
	printf '%s\t%s\n' "$T/model.$mk.json" "$name" >>"$T/model.list"
}
check_model "model: unet3d best worst" "$L" best worst
check_model "model: nlp test 0 1" "$LU" 0 1
check_model "model: tile test 0 5" "$TU" 0 5
"$PY" - "$T/model.list" <<'PYEOF'
import json, math, sys


def check(d, name):
    fails = []
    if d.get("predictor") != "analytic estimate": fails.append("predictor %r" % d.get("predictor"))
    for s in "ab":
        p, r = d.get("predicted_" + s), d.get("predicted_rank_" + s)
        if not isinstance(p, (int, float)) or not isinstance(r, int) or not 1 <= r <= d["configs_" + s]:
            fails.append("prediction of %s: %r rank %r" % (s, p, r))
    rows = d.get("differing_nodes", []) + d.get("unchanged_nodes", [])
    if d["kind"] == "layout":
        c = [r["contribution"] for r in rows]
        if any(not isinstance(x, (int, float)) for x in c): fails.append("a contribution is missing")
        else:
            want = d["predicted_b"] - d["predicted_a"]
            if abs(sum(c) - want) > 1e-6 * max(1.0, abs(want)): fails.append("sum %r != %r" % (sum(c), want))
            if abs(d["contribution_total"] - want) > 1e-6 * max(1.0, abs(want)): fails.append("contribution_total")
            cd = sum(r["contribution"] for r in d["differing_nodes"])
            if abs(d["contribution_differing"] - cd) > 1e-6 * max(1.0, abs(cd)): fails.append("contribution_differing")
    print(("FAIL %s: %s" % (name, "; ".join(fails))) if fails else "PASS " + name)


for line in open(sys.argv[1]):
    path, name = line.rstrip("\n").split("\t")
    check(json.load(open(path)), name)
PYEOF

if run_ok "model: text shows contributions" "$L" best worst; then
	if grep -q '^contribution   per node, its part of predicted B - A (analytic estimate)' "$T/out" &&
		grep -q '^predicted rank ' "$T/out" &&
		grep -qE '^ *603  convolution\.603 +convolution .*  ([+-][0-9.]+|0) (ns|us|ms|s)$' "$T/out"; then
		ok "model: text rows end in a signed contribution with its unit"
	else
		bad "model: text rows end in a signed contribution with its unit" "$(head -c 600 "$T/out")"
	fi
fi
if run_ok "sort by contribution" "$L" best worst --sort contribution --json; then
	"$PY" - "$T/out" <<'PYEOF'
import json, sys
c = [abs(r["contribution"]) for r in json.load(open(sys.argv[1]))["differing_nodes"]]
print(("PASS" if c == sorted(c, reverse=True) else "FAIL") + " sort by contribution: largest part first")
PYEOF
fi
printf 'HLOSCMDL garbage' >"$T/bad.model"
error_case "bad model file" 2 "bad.model" "$L" 0 1 --model "$T/bad.model"
error_case "model with --no-predict" 1 "--model and --no-predict exclude each other" "$L" 0 1 --model "$T/bad.model" --no-predict

# 4. Sorting keeps the same rows.
if run_ok "sort contribution" "$L" best worst --sort contribution --json; then
	cp "$T/out" "$T/by_contrib.json"
	run_ok "sort id" "$L" best worst --sort id --json
	"$PY" - "$T/by_contrib.json" "$T/out" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ida = sorted(r["id"] for r in a["differing_nodes"])
idb = [r["id"] for r in b["differing_nodes"]]
print(("PASS" if ida == idb == sorted(idb) else "FAIL") + " sort: same rows, id order ascending")
PYEOF
fi

# 5. Errors: clear messages, status 1 for usage and 2 for bad data.
error_case "index out of range" 1 "B: config 1159 out of range: unet3d.npz has 1159 configs (0..1158)" "$L" 0 1159
error_case "negative index" 1 "A: config -3 out of range" "$L" -3 0
error_case "not a selector" 1 "A: 'fastest' is not a config: give an index, best, worst or default" "$L" fastest 0
error_case "best on unlabeled" 1 "A: 'best' needs measured runtimes, but 23559853d9702baaaacbb0c83fd32266.npz is unlabeled" "$LU" best 0
error_case "worst on unlabeled tile" 1 "B: 'worst' needs measured runtimes" "$TU" 0 worst
error_case "no default config" 1 "A: unet3d.npz has no default config (none of its 1159 configs has every value -1)" "$L" default best
error_case "default on tile" 1 "names the layout config whose values are all -1" "$TV" default 0
error_case "missing configs" 1 "needs a FILE and two configs" "$L" 0
error_case "extra argument" 1 "unexpected argument '2'" "$L" 0 1 2
error_case "unknown option" 1 "unknown option '--bogus'" "$L" 0 1 --bogus
error_case "bad sort" 1 "--sort takes contribution or id, not 'runtime'" "$L" 0 1 --sort runtime
error_case "option without value" 1 "--file2 needs a value" "$L" 0 1 --file2
error_case "missing file" 2 "nope.npz" "$T/nope.npz" 0 1
printf 'PK\003\004 not really a zip' >"$T/bad.npz"
error_case "corrupt file" 2 "bad.npz" "$T/bad.npz" 0 1
error_case "other graph" 1 "not the same graph: unet3d.npz has 2774 nodes, openai_v0_rnn_optimized.npz has 1277" "$L" 0 1 --file2 "$R"
error_case "missing model" 2 "missing.model" "$L" 0 1 --model "$T/missing.model"
run_ok "unlabeled runtimes compare values only" "$LU" 0 1 && if grep -q 'runtimes hidden: 23559853d9702baaaacbb0c83fd32266.npz is unlabeled' "$T/out" &&
	grep -q 'configurable nodes differ' "$T/out"; then ok "unlabeled: runtimes hidden, values compared"; else
	bad "unlabeled: runtimes hidden, values compared" "$(head -c 300 "$T/out")"; fi

# 6. Two files of one graph, and a default config (numpy-written fixtures).
"$PY" - "$T" <<'PYEOF'
import sys
import numpy as np
out = sys.argv[1]
# 0 param, 1 param, 2 conv(0,1) cfg, 3 add(2,0), 4 conv(3,1) cfg, 5 reshape(4), 6 dot(5) cfg
ops = np.array([63, 63, 26, 2, 26, 75, 34], np.uint8)
dims = [[2, 8, 8, 4], [3, 3, 4, 4], [2, 8, 8, 4], [2, 8, 8, 4], [2, 8, 8, 4], [2, 8, 32], [2, 8, 32]]
feat = np.zeros((7, 140), np.float32)
for i, d in enumerate(dims):
    feat[i, 13] = 1  # f32
    feat[i, 21:21 + len(d)] = d
    feat[i, 27], feat[i, 28] = sum(d), np.prod(d)
    feat[i, 134:134 + len(d)] = list(range(len(d) - 1, -1, -1))
edges = np.array([[2, 0], [2, 1], [3, 2], [3, 0], [4, 3], [4, 1], [5, 4], [6, 5]], np.int64)
ids = np.array([2, 4, 6], np.int64)
def lay(*groups):
    v = []
    for g in groups:
        v += list(g) + [-1] * (6 - len(g))
    return v
row = {"id": lay([3, 2, 1, 0], [3, 2, 1, 0], [3, 2, 1, 0]), "tr": lay([3, 2, 1, 0], [0, 1, 2, 3], [3, 2, 1, 0]),
       "d": lay([2, 1, 0], [2, 1, 0], []), "r": lay([0, 1, 2], [2, 1, 0], []), "def": [-1] * 18}
def save(name, configs, runtimes, e=edges):
    ncf = np.array([[row[k] for k in c] for c in configs], np.float32)
    np.savez_compressed(out + "/" + name, node_feat=feat, node_opcode=ops, edge_index=e,
                        node_config_ids=ids, node_config_feat=ncf,
                        config_runtime=np.array(runtimes, np.int64),
                        node_splits=np.array([[0, 4, 7]], np.int64))
save("prog_default.npz", [["def", "def", "def"], ["id", "id", "d"], ["id", "tr", "r"]], [1000, 900, 1300])
save("prog_random.npz", [["id", "tr", "d"], ["id", "id", "r"]], [1100, 950])
e2 = edges.copy(); e2[3] = [3, 1]
save("prog_other.npz", [["id", "id", "d"]], [5], e2)
PYEOF
F1="$T/prog_default.npz" F2="$T/prog_random.npz" F3="$T/prog_other.npz"
if run_ok "default selector" "$F1" default best; then
	if grep -q '^config *0 (default) *1 (best)$' "$T/out" &&
		grep -q '3 of 3 configurable nodes differ' "$T/out"; then ok "default selector resolves"; else
		bad "default selector resolves" "$(head -c 400 "$T/out")"; fi
fi
run_ok "two files" "$F1" 2 0 --file2 "$F2" --no-predict && sed -e "s|$T|\$T|g" "$T/out" >"$T/two.txt" &&
	golden "compare/two_files.txt" "$T/two.txt"
run_ok "two files json" "$F1" best best --file2 "$F2" --json && "$PY" - "$T/out" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
good = (d["config_a"] == 1 and d["config_b"] == 1 and d["runtime_a"] == 900 and d["runtime_b"] == 950
        and d["file_a"] != d["file_b"] and [r["id"] for r in d["differing_nodes"]] == [6]
        and d["differing_nodes"][0]["changed"] == [0, 2])
print(("PASS" if good else "FAIL") + " two files json: configs, runtimes and rows from each file")
PYEOF
error_case "two files, other graph" 1 "not the same graph: edge 3 -> 0 (user -> operand) is in prog_default.npz but not in prog_other.npz" "$F1" 0 0 --file2 "$F3"
error_case "two files, B out of range" 1 "B: config 2 out of range: prog_random.npz has 2 configs (0..1)" "$F1" 0 2 --file2 "$F2"

# 7. hloscope dot --compare: the differing nodes get the highlight border.
if "$HLOSCOPE" dot "$L" --configurable --compare best worst -o "$T/cmp.dot" 2>"$T/err" &&
	no_sanitizer_report "$T/err"; then
	n=$(grep -c 'color="#1f77b4"' "$T/cmp.dot")
	ids=$(sed -n 's/^[[:space:]]*n\([0-9]*\)[[:space:]]*\[color="#1f77b4".*/\1/p' "$T/cmp.dot" | sort -n | tr '\n' ' ')
	"$HLOSCOPE" compare "$L" best worst --json --no-predict >"$T/cmp.json"
	want=$("$PY" -c 'import json,sys; print(" ".join(str(r["id"]) for r in sorted(json.load(open(sys.argv[1]))["differing_nodes"], key=lambda r: r["id"])) + " ")' "$T/cmp.json")
	if [ "$n" -eq 21 ] && [ "$ids" = "$want" ]; then ok "dot --compare highlights the 21 differing nodes"; else
		bad "dot --compare highlights the 21 differing nodes" "got $n: $ids; want $want"; fi
else
	bad "dot --compare highlights the 21 differing nodes" "$(head -c 300 "$T/err")"
fi
"$HLOSCOPE" dot "$R" --configurable --compare 0 1 -o "$T/same.svg" >"$T/out" 2>"$T/err"
if [ $? -eq 0 ] && grep -q 'configs 0 and 1 have the same values: nothing to highlight' "$T/err" &&
	[ -s "$T/same.svg" ]; then ok "dot --compare with equal configs says so"; else
	bad "dot --compare with equal configs says so" "$(head -c 300 "$T/err")"; fi
"$HLOSCOPE" dot "$L" --configurable --compare 0 99999 -o "$T/bad.svg" >"$T/out" 2>"$T/err"
if [ $? -eq 1 ] && grep -q 'B: config 99999 out of range' "$T/err" && [ ! -e "$T/bad.svg" ]; then
	ok "dot --compare with a bad config fails and writes nothing"; else
	bad "dot --compare with a bad config fails and writes nothing" "$(head -c 300 "$T/err")"; fi
"$HLOSCOPE" dot "$L" --configurable -o "$T/bad.svg" --compare 0 >"$T/out" 2>"$T/err"
if [ $? -eq 1 ] && grep -q -- '--compare needs two values' "$T/err"; then ok "dot --compare needs two configs"; else
	bad "dot --compare needs two configs" "$(head -c 300 "$T/err")"; fi

# 8. A learned model (a small one trained for one epoch on the demo's
# layout training graphs): unitless scores, so a difference instead of a
# ratio; contributions from the network still add up to predicted B - A.
if use_demo && "$HLOSCOPE" train "$DEMO/npz/layout/xla/default/train" -o "$T/m.model" --epochs 1 \
	--hidden 8 --quiet >/dev/null 2>"$T/err"; then
	DF=$(find "$DEMO" -path '*layout*train*' -name '*.npz' | sort | head -1)
	if run_ok "learned model" "$DF" best worst --model "$T/m.model" --all --json; then
		"$PY" - "$T/out" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
fails = []
if not d["predictor"].startswith("sage-ranker"): fails.append("predictor %r" % d["predictor"])
want = d["predicted_b"] - d["predicted_a"]
if abs(d["predicted_diff"] - want) > 1e-9 * max(1.0, abs(want)): fails.append("predicted_diff")
if (d["predicted_a"] <= 0 or d["predicted_b"] <= 0) and d["predicted_ratio"] is not None:
    fails.append("a ratio of non-positive scores")
c = sum(r["contribution"] for r in d["differing_nodes"] + d.get("unchanged_nodes", []))
if abs(c - want) > 1e-4 * max(1.0, abs(want)): fails.append("contributions sum %r != %r" % (c, want))
print(("FAIL learned model: %s" % "; ".join(fails)) if fails else "PASS learned model: scores, difference, contributions")
PYEOF
	fi
else
	bad "learned model" "synth or train failed: $(head -c 300 "$T/err")"
fi
