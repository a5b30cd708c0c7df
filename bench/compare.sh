#!/bin/sh
# bench/compare.sh - `hloscope compare` on the real layout file unet3d
# (2774 nodes, 56 configurable, 1159 configs): best against worst as JSON,
# against the same work in numpy in one warm Python process (load the file,
# pick best and worst, the rows of node_config_feat that differ, their
# values, runtimes, ratio and ranks, written as JSON).  hloscope's time
# includes its process start-up and the neighbour walk numpy does not do.
# Prints "ratio" lines: numpy's time over hloscope's (above 1: hloscope is
# faster); then the cost of the model's part (predictions and per-node
# contributions of the analytic estimate) on its own.
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
F="$DATA/npz/layout/xla/default/train/unet3d.npz"
RUNS=10

now() { date +%s%N; }
time_hs() { # ARGS...: mean ns of RUNS runs
	"$HS" compare "$F" "$@" >/dev/null || { echo "FAIL compare bench: hloscope compare $*" >&2; echo 0; return; }
	s=$(now) i=0
	while [ $i -lt $RUNS ]; do "$HS" compare "$F" "$@" >/dev/null; i=$((i + 1)); done
	echo $((($(now) - s) / RUNS))
}

hs_np=$(time_hs best worst --json --no-predict)
hs_pred=$(time_hs best worst --json)
py_ns=$("$PY" - "$F" "$RUNS" <<'PYEOF'
import io, json, sys, time
import numpy as np

def compare(path):
    d = np.load(path)
    rt = d["config_runtime"].astype(float)
    a, b = int(np.argmin(rt)), int(np.argmax(rt))
    ncf, ids, ops = d["node_config_feat"], d["node_config_ids"], d["node_opcode"]
    diff = np.nonzero((ncf[a] != ncf[b]).any(axis=1))[0]
    out = {"runtime_a": rt[a], "runtime_b": rt[b], "runtime_ratio": rt[b] / rt[a],
           "rank_a": int((rt < rt[a]).sum()) + 1, "rank_b": int((rt < rt[b]).sum()) + 1,
           "differing_nodes": [{"id": int(ids[k]), "opcode": int(ops[ids[k]]),
                                "a": ncf[a, k].tolist(), "b": ncf[b, k].tolist()} for k in diff]}
    json.dump(out, io.StringIO(), indent=2)

path, runs = sys.argv[1], int(sys.argv[2])
compare(path)
t = time.perf_counter_ns()
for _ in range(runs):
    compare(path)
print((time.perf_counter_ns() - t) // runs)
PYEOF
)
echo "compare: unet3d best vs worst: hloscope $((hs_np / 1000000)) ms (with the analytic model $((hs_pred / 1000000)) ms), numpy $((py_ns / 1000000)) ms"
awk -v a="$py_ns" -v b="$hs_np" 'BEGIN { if (b > 0) printf "ratio compare-unet3d numpy/hloscope %.2f\n", a / b }'
awk -v a="$hs_pred" -v b="$hs_np" 'BEGIN { if (b > 0) printf "ratio compare-unet3d with-model/without %.2f\n", a / b }'
