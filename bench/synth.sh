#!/bin/sh
# bench/synth.sh - writing the demo dataset: `hloscope synth DIR` (building
# every graph, drawing configs, evaluating the runtime formulas, deflating and
# writing 26 .npz files with an fsync each) against numpy writing the very
# same arrays with np.savez_compressed (no graph building, no fsync), in the
# same run.  Prints "ratio" lines: numpy's time over hloscope's (above 1
# means hloscope is faster), and the write time and size against the targets
# (under 2 s, under 5 MB).
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-synth.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
RUNS=5

"$HS" synth "$T/ref" >/dev/null || { echo "FAIL synth bench: hloscope synth failed"; exit 1; }
best=0
i=0
while [ $i -lt $RUNS ]; do
	start=$(date +%s%N)
	"$HS" synth "$T/run" >/dev/null || { echo "FAIL synth bench: run $i failed"; exit 1; }
	ns=$(($(date +%s%N) - start))
	{ [ $best -eq 0 ] || [ $ns -lt $best ]; } && best=$ns
	i=$((i + 1))
done

py_ns=$("$PY" - "$T/ref" "$T/np" "$RUNS" <<'PYEOF'
import glob, os, sys, time
import numpy as np
ref, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(glob.glob(os.path.join(ref, "npz", "**", "*.npz"), recursive=True))
data = [(os.path.relpath(f, ref), dict(np.load(f))) for f in files]
best = None
for _ in range(runs):
    t = time.perf_counter_ns()
    for rel, arrays in data:
        p = os.path.join(out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        np.savez_compressed(p, **arrays)
    ns = time.perf_counter_ns() - t
    best = ns if best is None else min(best, ns)
print(best)
PYEOF
)
bytes=$(find "$T/ref" -type f -exec cat {} + | wc -c)
echo "synth: write the demo tree: hloscope $((best / 1000000)) ms (best of $RUNS), numpy savez_compressed of the same arrays $((py_ns / 1000000)) ms"
awk -v a="$py_ns" -v b="$best" 'BEGIN { printf "ratio synth-write numpy/hloscope %.2f\n", a / b }'
awk -v b="$best" 'BEGIN { printf "ratio synth-write target/hloscope %.2f (target 2 s)\n", 2e9 / b }'
awk -v s="$bytes" 'BEGIN { printf "ratio synth-size target/size %.2f (%.2f MB, target 5 MB)\n", 5e6 / s, s / 1e6 }'
