#!/bin/sh
# bench/dataset.sh - indexing a folder of graphs: `hloscope info DIR` against
# the same work in numpy (npy headers of every array, config_runtime and the
# tile normalizers, in one Python process).  The tree holds 20 symlinked
# copies of each real sample file (140 graphs).  Prints "ratio" lines: the
# numpy time over hloscope's (above 1 means hloscope is faster), hloscope's
# time including its process start-up on every run.
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-dataset.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

find "$DATA" -name '*.npz' | while read -r f; do
	d="$T/tree/$(dirname "${f#"$DATA"/}")"
	mkdir -p "$d"
	i=0
	while [ $i -lt 20 ]; do ln -s "$f" "$d/$(basename "$f" .npz)_$i.npz"; i=$((i + 1)); done
done
RUNS=10

"$HS" info "$T/tree" >/dev/null || { echo "FAIL dataset bench: hloscope info failed"; exit 1; }
start=$(date +%s%N)
i=0
while [ $i -lt $RUNS ]; do "$HS" info "$T/tree" >/dev/null; i=$((i + 1)); done
hs_ns=$(( ($(date +%s%N) - start) / RUNS ))

py_ns=$("$PY" - "$T/tree" "$RUNS" <<'PYEOF'
import os, sys, time, zipfile
import numpy as np
from numpy.lib import format as fmt

def index(root):
    out = []
    for d, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".npz"):
                continue
            p = os.path.join(d, name)
            with zipfile.ZipFile(p) as z:
                shapes = {}
                for member in z.namelist():
                    with z.open(member) as f:
                        version = fmt.read_magic(f)
                        shapes[member[:-4]] = fmt._read_array_header(f, version)[0]
                rt = np.load(z.open("config_runtime.npy")).astype(float)
                if "config_runtime_normalizers.npy" in z.namelist():
                    rt = rt / np.load(z.open("config_runtime_normalizers.npy"))
            out.append((p, shapes, rt.min() if len(rt) else 0, rt.max() if len(rt) else 0))
    return out

root, runs = sys.argv[1], int(sys.argv[2])
index(root)
t = time.perf_counter_ns()
for _ in range(runs):
    index(root)
print((time.perf_counter_ns() - t) // runs)
PYEOF
)
n=$(find "$T/tree" -name '*.npz' | wc -l)
echo "dataset: index $n graphs: hloscope $((hs_ns / 1000000)) ms, numpy $((py_ns / 1000000)) ms"
awk -v a="$py_ns" -v b="$hs_ns" 'BEGIN { printf "ratio dataset-index numpy/hloscope %.2f\n", a / b }'
