#!/bin/sh
# bench/hlo.sh - `hloscope convert` of raw protobufs (a bare HloModuleProto
# of about 3,000 instructions, and the same module as a ModuleTuningData with
# 300 layout runs) against a plain python + numpy featurization of the same
# files (bench/hlo_proto_featurize.py, which
# decodes the wire format by hand: python's protobuf module is not
# installed), both writing a compressed .npz.  The two outputs must hold the
# same arrays.  The HLO text side of this benchmark is the text reader's.
#
# The file is generated once into build/bench-data/.  Each side runs 3
# times, alternating; the best CPU time (user + system of the process, from
# os.wait4) counts, since on a shared machine the wall time mostly measures
# the other processes; the best wall time is shown beside it.  Prints:
#   hlo: convert (HloModuleProto, 3,001 instructions, 0 runs) CPU 0.09x python (0.05 s vs 0.50 s), wall ...
#   hlo: convert (ModuleTuningData, 3,001 instructions, 300 runs) CPU 0.14x python (...), wall ...
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
CACHE=${BENCH_DATA:-$(pwd)/build/bench-data}
F="$CACHE/hlo-proto-3000-v2.pb"
REFPY=$(pwd)/bench/hlo_proto_featurize.py
mkdir -p "$CACHE"
if [ ! -f "$F" ] || [ ! -f "${F%.pb}.module.pb" ]; then
	"$PY" "$REFPY" --make "$F.tmp.pb" 3000 >/dev/null && mv "$F.tmp.module.pb" "${F%.pb}.module.pb" &&
		mv "$F.tmp.pb" "$F" || { echo "hlo: could not write $F"; exit 1; }
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-hlo.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM

for input in "${F%.pb}.module.pb" "$F"; do
"$PY" - "$HS" "$PY" "$REFPY" "$input" "$W" <<'PYEOF' || exit 1
import os, subprocess, sys, time
import numpy as np
hs, py, refpy, pb, work = sys.argv[1:]
kind = "HloModuleProto" if pb.endswith(".module.pb") else "ModuleTuningData"

def timed(cmd):
    """(cpu, wall) seconds of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise SystemExit("hlo: FAILED: %s exited %d" % (cmd[1], status))
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t

ours, theirs = [], []
for _ in range(3):
    ours.append(timed([hs, "convert", pb, "-o", os.path.join(work, "hs.npz")]))
    theirs.append(timed([py, refpy, pb, os.path.join(work, "py.npz")]))
a = np.load(os.path.join(work, "hs.npz"))
b = np.load(os.path.join(work, "py.npz"))
diff = [k for k in b.files if k not in a.files or a[k].dtype != b[k].dtype or not np.array_equal(a[k], b[k])]
if diff:
    print("hlo: FAILED: hloscope and python differ in %s" % ", ".join(diff))
    sys.exit(1)
oc, tc = min(x[0] for x in ours), min(x[0] for x in theirs)
ow, tw = min(x[1] for x in ours), min(x[1] for x in theirs)
n, runs = a["node_opcode"].shape[0], a["config_runtime"].shape[0]
r = oc / tc
print("hlo: convert (%s, %s instructions, %d runs) CPU %.3fx python (%.3f s vs %.2f s), wall %.2fx (%.2f s vs %.2f s) [target <= 0.08x: %s]"
      % (kind, format(n, ","), runs, r, oc, tc, ow / tw, ow, tw, "met" if r <= 0.08 else "MISSED"))
PYEOF
done
