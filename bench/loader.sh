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
# Measured: this build (ISA-L when it was found) and, when `make units`
# linked it, the zlib fallback ($HLOSCOPE_BUILD/tests/hloscope-zlib), each
# against numpy.  Every side runs BENCH_RUNS times (default 5), in turns;
# the medians count: wall time, CPU time (user + system: the machine may be
# shared, CPU time is what load does not inflate) and peak RSS (os.wait4's
# ru_maxrss of that process).  Prints one line per inflater:
#   loader: check [isa-l 2.30.0] wall 0.21x numpy (1.02 s vs 4.90 s), CPU 0.16x (0.33 s vs 2.05 s), peak RSS 0.09x (29 MB vs 308 MB) [targets <= 0.5x, <= 0.6x: met]
# The targets are judged on this build's line.
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
HZ=$(dirname "$HS")/tests/hloscope-zlib
[ -x "$HZ" ] || HZ=

"$PY" - "$F" "${BENCH_RUNS:-5}" "$HS" $HZ <<'PYEOF'
import os, statistics, subprocess, sys, time

f, runs, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
numpy_cmd = [sys.executable, "-c",
             "import sys, numpy as np\n"
             "z = np.load(sys.argv[1])\n"
             "for k in z.files:\n"
             "    a = z[k]\n"
             "    del a\n", f]


def name_of(hs):
    out = subprocess.run([hs, "--version"], capture_output=True, text=True).stdout
    return out.split("inflate: ")[-1].split(")")[0].strip() if "inflate: " in out \
        else os.path.basename(hs)


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("loader: %s failed" % cmd[0])
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0  # s, s, MB


sides = [("np", numpy_cmd)] + [(hs, [hs, "check", f]) for hs in builds]
samples = {key: [] for key, _ in sides}
for _ in range(runs):
    for key, cmd in sides:
        samples[key].append(run(cmd))
med = {key: [statistics.median(s[i] for s in v) for i in range(3)]
       for key, v in samples.items()}
nw, nc, nm = med["np"]
for i, hs in enumerate(builds):
    hw, hc, hm = med[hs]
    rw, rc, rm = hw / nw, hc / nc, hm / nm
    verdict = ""
    if i == 0:
        verdict = " [targets <= 0.5x, <= 0.6x: %s]" % (
            "met" if rw <= 0.5 and rm <= 0.6 else "MISSED")
    print("loader: check [%s] wall %.2fx numpy (%.2f s vs %.2f s), CPU %.2fx (%.2f s vs %.2f s), "
          "peak RSS %.2fx (%.0f MB vs %.0f MB)%s; medians of %d on %s (%.0f MB)"
          % (name_of(hs), rw, hw, nw, rc, hc, nc, rm, hm, nm, verdict, runs,
             os.path.basename(f), os.path.getsize(f) / 1e6))
PYEOF
