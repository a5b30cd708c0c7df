#!/bin/sh
# bench/dataset_query.sh - a query over a folder of 6,000 tile files:
# `hloscope query DIR 'count by opcode_id'` and 'count by opcode' against a
# numpy script that loads node_opcode from each file and counts (np.load and
# bincount, in one Python process), in the same run.  The files are written
# once with numpy into build/bench-data/tile-6000/ (shaped like the
# dataset's tile files: a few dozen nodes, mostly-zero features, a few
# hundred configs) and kept.  Checks that both counts equal numpy's, then
# prints the medians of RUNS runs (each side's wall time, hloscope's with
# its process start-up) and the ratio to numpy's time against the 0.2x
# target.
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
N=6000
RUNS=${RUNS:-5}
D=build/bench-data/tile-$N
T=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-dsq.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

if [ ! -f "$D/.complete" ]; then
	rm -rf "$D"
	mkdir -p "$D"
	"$PY" - "$D" "$N" <<'PYEOF' || { echo "FAIL dataset_query bench: cannot write $D"; exit 1; }
import os, sys
import numpy as np
root, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(6000)
for i in range(n):
    split = "train" if i % 10 < 8 else "valid" if i % 10 == 8 else "test"
    d = os.path.join(root, "npz", "tile", "xla", split)
    os.makedirs(d, exist_ok=True)
    nodes = int(rng.integers(3, 120))
    configs = int(rng.integers(8, 400))
    op = rng.integers(1, 121, size=nodes).astype(np.uint8)
    feat = np.zeros((nodes, 140), np.float32)
    feat[:, 21:31] = rng.integers(0, 256, size=(nodes, 10))
    src = rng.integers(1, nodes, size=nodes + nodes // 3)
    edges = np.stack([src, rng.integers(0, src)], 1).astype(np.int64)
    rt = rng.integers(1000, 10**7, size=configs).astype(np.int64)
    norm = np.full(configs, 1000, np.int64)
    if split == "test":
        rt[:] = 0
        norm[:] = 1
    np.savez_compressed(os.path.join(d, "g%05d.npz" % i), node_feat=feat, node_opcode=op,
                        edge_index=edges, config_feat=rng.integers(0, 32, (configs, 24)).astype(np.float32),
                        config_runtime=rt, config_runtime_normalizers=norm)
open(os.path.join(root, ".complete"), "w").write("%d\n" % n)
PYEOF
fi

"$PY" - "$HS" "$D" "$RUNS" "$T" <<'PYEOF'
import csv, io, os, statistics, subprocess, sys, time
import numpy as np

hs, root, runs, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
numpy_script = os.path.join(tmp, "count.py")
with open(numpy_script, "w") as f:
    f.write("""import os, sys
import numpy as np
counts = np.zeros(256, dtype=np.int64)
for d, dirs, files in os.walk(sys.argv[1], followlinks=True):
    dirs.sort()
    for name in sorted(files):
        if name.endswith(".npz"):
            with np.load(os.path.join(d, name)) as z:
                counts += np.bincount(z["node_opcode"], minlength=256)
print(",".join(str(int(c)) for c in counts))
""")


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("dataset_query: %s failed: %s" % (" ".join(cmd[:3]), p.stderr.decode()[:300]))
    return wall, p.stdout.decode()


queries = {"count by opcode_id": "opcode_id", "count by opcode": "opcode"}
sides = [("numpy", [sys.executable, numpy_script, root])] + \
    [(q, [hs, "query", root, "--csv", "--no-progress", q]) for q in queries]
times = {k: [] for k, _ in sides}
outs = {}
for _ in range(runs):
    for key, cmd in sides:
        wall, out = run(cmd)
        times[key].append(wall)
        outs[key] = out

want = [int(x) for x in outs["numpy"].strip().split(",")]
rows = list(csv.DictReader(io.StringIO(outs["count by opcode_id"])))
got = {int(float(r["opcode_id"])): int(r["count"]) for r in rows}
exact_id = got == {i: c for i, c in enumerate(want) if c}
rows = list(csv.DictReader(io.StringIO(outs["count by opcode"])))
exact_name = sorted(int(r["count"]) for r in rows) == sorted(c for c in want if c) and \
    len({r["opcode"] for r in rows}) == len(rows)
files = sum(1 for d, _, fs in os.walk(root) for f in fs if f.endswith(".npz"))
nt = statistics.median(times["numpy"])
for q in queries:
    ht = statistics.median(times[q])
    exact = exact_id if q.endswith("_id") else exact_name
    print("dataset_query: %s over %d tile files: hloscope %.3f s, numpy %.3f s: %.2fx numpy's time "
          "[target <= 0.2x: %s; counts %s numpy's]; medians of %d"
          % (q, files, ht, nt, ht / nt, "met" if ht / nt <= 0.2 else "MISSED",
             "equal" if exact else "DIFFER FROM", runs))
    print("ratio dataset-query-%s numpy/hloscope %.2f" % (queries[q], nt / ht))
if not (exact_id and exact_name):
    sys.exit(1)
PYEOF
