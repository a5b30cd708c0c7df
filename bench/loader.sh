#!/bin/sh
# bench/loader.sh - `hloscope check` on a large layout file against numpy
# loading every array of it, in the same run.
#
# The file is written by numpy's savez_compressed once and cached in
# build/bench-data/: 40,000 nodes (140 features), 64,000 edges (Fortran
# order, as real layout files), 5,000 configs x 800 configurable nodes x 18
# layout values (288 MB of float32 uncompressed; small integers -1..5, each
# node's dims a permutation of 0..rank-1 padded with -1, as the dataset's),
# node_splits of 12 computations.
#
# Each side runs 3 times, alternating; the best wall time and the best peak
# RSS (os.wait4's ru_maxrss of that process) count.  Prints:
#   loader: check wall 0.41x numpy (1.2 s vs 2.9 s), peak RSS 0.12x numpy (40 MB vs 330 MB) [targets <= 0.5x, <= 0.6x: met]
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
CACHE=${BENCH_DATA:-$(pwd)/build/bench-data}
F="$CACHE/loader-layout-v1.npz"
mkdir -p "$CACHE"

if [ ! -f "$F" ]; then
	echo "loader: writing $F with numpy (once; about a minute)" >&2
	"$PY" - "$F" <<'PYEOF' || { echo "loader: numpy could not write the file"; exit 1; }
import os, sys
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(2023)
N, E, C, K, W = 40_000, 64_000, 5_000, 800, 18
feat = np.zeros((N, 140), np.float32)
feat[:, 21:27] = rng.integers(1, 512, size=(N, 6))
feat[:, 2 + rng.integers(1, 19, size=N)] = 1.0
opcode = rng.choice([63, 2, 59, 13, 75, 98, 26, 34, 70, 41, 45, 100, 24, 25],
                    size=N).astype(np.uint8)
users = rng.integers(1, N, size=E)
operands = (users - rng.integers(1, 200, size=E)).clip(0)
edges = np.asfortranarray(np.stack([users, operands], axis=1).astype(np.int64))
ids = np.sort(rng.choice(N, size=K, replace=False)).astype(np.int64)
splits = np.concatenate([[0], np.sort(rng.choice(np.arange(1, N), 11, replace=False)),
                         [N]]).reshape(1, -1).astype(np.int64)
# Per node and per group (output, input, kernel layout): a rank 0..6; each
# config holds a permutation of 0..rank-1 then -1s.
rank = rng.integers(0, 7, size=(K, 3))
ncf = np.empty((C, K, W), np.float32)
pos = np.arange(6)
for c0 in range(0, C, 250):
    c1 = min(C, c0 + 250)
    keys = rng.random((c1 - c0, K, 3, 6))
    keys[..., :] += (pos[None, None, None, :] >= rank[None, :, :, None]) * 2.0
    perm = np.argsort(keys, axis=-1).astype(np.float32)
    perm[(pos[None, None, None, :] >= rank[None, :, :, None]).repeat(c1 - c0, 0)] = -1
    ncf[c0:c1] = perm.reshape(c1 - c0, K, W)
ncf[0] = -1  # the compiler's default config
runtime = rng.integers(10**8, 10**9, size=C).astype(np.int64)
tmp = out + ".tmp.npz"
np.savez_compressed(tmp, node_feat=feat, node_opcode=opcode, edge_index=edges,
                    node_config_feat=ncf, node_config_ids=ids,
                    config_runtime=runtime, node_splits=splits)
os.replace(tmp, out)
PYEOF
fi

"$HS" check "$F" >/dev/null 2>&1 || { echo "loader: hloscope check fails on $F"; "$HS" check "$F" 2>&1 | head -3; exit 1; }

"$PY" - "$HS" "$F" <<'PYEOF'
import os, subprocess, sys, time

hs, f = sys.argv[1], sys.argv[2]
numpy_cmd = [sys.executable, "-c",
             "import sys, numpy as np\n"
             "z = np.load(sys.argv[1])\n"
             "for k in z.files:\n"
             "    a = z[k]\n"
             "    del a\n", f]
check_cmd = [hs, "check", f]


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("loader: %s failed" % cmd[0])
    return wall, ru.ru_maxrss / 1024.0  # MB


best = {"hs": [1e9, 1e9], "np": [1e9, 1e9]}
for _ in range(3):
    for key, cmd in (("hs", check_cmd), ("np", numpy_cmd)):
        w, m = run(cmd)
        best[key][0] = min(best[key][0], w)
        best[key][1] = min(best[key][1], m)
(hw, hm), (nw, nm) = best["hs"], best["np"]
rw, rm = hw / nw, hm / nm
met = "met" if rw <= 0.5 and rm <= 0.6 else "MISSED"
print("loader: check wall %.2fx numpy (%.2f s vs %.2f s), peak RSS %.2fx numpy "
      "(%.0f MB vs %.0f MB) [targets <= 0.5x, <= 0.6x: %s] on %s (%.0f MB)"
      % (rw, hw, nw, rm, hm, nm, met, os.path.basename(f),
         os.path.getsize(f) / 1e6))
PYEOF
