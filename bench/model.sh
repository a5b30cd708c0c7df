#!/bin/sh
# bench/model.sh - the learned ranker's speed.
#
#  1. Configs scored per second by `hloscope predict` (end to end: load,
#     prepare, encode, score every config; one thread) on two layout graphs
#     built with numpy from the real files and cached in build/bench-data/:
#       bench_3k:  unet3d's graph (2,774 nodes, 56 configurable), 20,000
#                  random configs; target 10,000 configs/s;
#       bench_22k: 3 x unet3d + 11 x openai_v0_rnn_optimized as one graph
#                  (22,369 nodes, 850 configurable), 2,000 random configs.
#     Random configs permute each configurable node's set layout positions
#     (and unset a tensor with probability 0.2), so rows rarely repeat.
#  2. Training time per epoch on the demo data (`hloscope synth`), layout
#     and tile heads, default sizes, one thread and two.
# Prints "ratio" lines: measured over target (above 1 is better).
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
CACHE=${BENCH_DATA:-build/bench-data}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-model.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
mkdir -p "$CACHE"

if [ ! -f "$CACHE/bench_3k.npz" ] || [ ! -f "$CACHE/bench_22k.npz" ]; then
	"$PY" - "$DATA/npz/layout/xla" "$CACHE" <<'PYEOF' || { echo "FAIL model bench: cannot build the bench graphs"; exit 1; }
import os, sys
import numpy as np
src, out = sys.argv[1], sys.argv[2]
unet = dict(np.load(os.path.join(src, "default/train/unet3d.npz")))
rnn = dict(np.load(os.path.join(src, "random/train/openai_v0_rnn_optimized.npz")))
rng = np.random.default_rng(2023)

def union(parts):
    feat, op, edges, ids, rows, splits, base = [], [], [], [], [], [0], 0
    for d in parts:
        n = len(d["node_opcode"])
        feat.append(d["node_feat"]); op.append(d["node_opcode"])
        edges.append(d["edge_index"] + base); ids.append(d["node_config_ids"] + base)
        rows.append(d["node_config_feat"][0])
        splits.extend((d["node_splits"][0][1:] + base).tolist())
        base += n
    return (np.concatenate(feat), np.concatenate(op), np.concatenate(edges),
            np.concatenate(ids), np.concatenate(rows), np.array([splits], dtype=np.int64))

def random_configs(template, count):
    # template: (K, 18) one row per node; permute the set values of each of
    # the three 6-wide tensors, unset a tensor with probability 0.2.
    K = template.shape[0]
    cfg = np.repeat(template[None], count, axis=0).astype(np.float32)
    for t in range(3):
        blk = cfg[:, :, 6 * t:6 * t + 6]
        r = (template[:, 6 * t:6 * t + 6] >= 0).sum(1)
        for k in range(K):
            if r[k] > 1:
                keys = rng.random((count, r[k]))
                perm = np.argsort(keys, axis=1)
                vals = template[k, 6 * t:6 * t + r[k]]
                blk[:, k, :r[k]] = vals[perm]
        off = rng.random((count, K)) < 0.2
        blk[off] = -1
    return cfg

def write(name, parts, count):
    feat, op, edges, ids, rows, splits = union(parts)
    ncf = random_configs(rows, count)
    runtime = rng.integers(10**9, 2 * 10**9, size=count)
    np.savez_compressed(os.path.join(out, name + ".tmp.npz"), node_feat=feat, node_opcode=op,
                        edge_index=edges, node_config_feat=ncf, node_config_ids=ids,
                        config_runtime=runtime, node_splits=splits)
    os.replace(os.path.join(out, name + ".tmp.npz"), os.path.join(out, name + ".npz"))
    print(name, len(op), "nodes", len(ids), "configurable", count, "configs",
          len(np.unique(ncf.reshape(count, -1), axis=0)), "distinct")

write("bench_3k", [unet], 20000)
write("bench_22k", [unet] * 3 + [rnn] * 11, 2000)
PYEOF
fi

"$HS" synth "$T/demo" >/dev/null || { echo "FAIL model bench: synth failed"; exit 1; }
"$HS" train "$T/demo/npz/layout/xla/default/train" -o "$T/m.hsm" --epochs 1 --quiet >/dev/null ||
	{ echo "FAIL model bench: train failed"; exit 1; }

# run3 CMD...: best of 3 runs; sets WALL and CPU (user + system), in seconds.
# CPU time is what "on one core" means on a shared machine; wall time is
# shown too.
run3() {
	WALL= CPU=
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -o "$T/time" "$@" >/dev/null 2>"$T/err" ||
			{ echo "FAIL model bench: $* ($(tail -1 "$T/err"))"; exit 1; }
		read -r w u s <"$T/time"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		if [ -z "$CPU" ] || awk -v a="$c" -v b="$CPU" 'BEGIN { exit !(a < b) }'; then
			CPU=$c
			WALL=$w
		fi
	done
}

for name in bench_3k bench_22k; do
	f="$CACHE/$name.npz"
	configs=$("$PY" -c "import numpy as np; print(len(np.load('$f')['config_runtime']))")
	run3 "$HS" predict "$f" --csv
	acpu=$CPU
	run3 "$HS" predict "$f" --model "$T/m.hsm" --csv
	awk -v n="$configs" -v c="$CPU" -v w="$WALL" -v a="$acpu" -v name="$name" 'BEGIN {
		printf "model: predict %s: %d configs, learned ranker: %.3f s CPU (%.3f s wall) = %.0f configs/s on one core, end to end; analytic estimate %.0f configs/s\n", name, n, c, w, n / c, n / a }'
	if [ "$name" = bench_3k ]; then
		awk -v n="$configs" -v c="$CPU" 'BEGIN { printf "ratio predict-3k configs_per_s/target %.2f (target 10000 configs/s on one core)\n", n / c / 10000 }'
	fi
done

for th in 1 2; do
	/usr/bin/time -f "%e %U %S" -o "$T/time" "$HS" train "$T/demo/npz/layout/xla/default/train" \
		"$T/demo/npz/layout/xla/random/train" "$T/demo/npz/tile/xla/train" -o "$T/e.hsm" --epochs 3 \
		--threads $th --quiet >"$T/out" || { echo "FAIL model bench: train failed"; exit 1; }
	read -r w u s <"$T/time"
	lay=$(sed -n 's/.*layout:.* \([0-9.]*\) s\/epoch/\1/p' "$T/out")
	tile=$(sed -n 's/.*tile:.* \([0-9.]*\) s\/epoch/\1/p' "$T/out")
	awk -v th="$th" -v lay="$lay" -v tile="$tile" -v u="$u" -v s="$s" 'BEGIN {
		printf "model: train on the demo data (6 layout graphs, 2450 configs; 10 tile graphs, 1866 configs), %d thread(s): layout %s s/epoch, tile %s s/epoch wall; %.2f s CPU per epoch of both heads\n", th, lay, tile, (u + s) / 3 }'
done
