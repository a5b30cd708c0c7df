#!/bin/sh
# bench/render.sh - layout plus terminal drawing of a region, against
# Graphviz's own `dot -Tplain` on the DOT we export, in the same run.
#
# Two regions of the real unet3d graph: radius 5 around node 700 (309
# nodes) and radius 9 around node 1000 (2,021 nodes, past the limit, so
# --force).  For each, three numbers:
#   hloscope   `hloscope dot FILE REGION --text` as a whole process: read the
#              npz, select the region, build the graph, lay it out with the
#              linked Graphviz, read the geometry back, draw and print it;
#   dot        `dot -Tplain` (the reference; the only place a dot process
#              runs) on the DOT hloscope lays out, exported with --cells: the
#              very same graph and attributes, so both run the same layout;
#   dot-labels `dot -Tplain` on the ordinary export (text labels measured by
#              the dot command's own text layout plugin), for information.
# Times are CPU seconds (user + system) of the process, the fastest of RUNS
# runs: on a shared machine wall time mostly measures the neighbours.  The
# wall times are printed too.  hloscope's --time splits its own run.
#
# RENDER_BENCH="300" runs the small case only (the large one costs about a
# minute of CPU for the two processes).
#
# Targets: 300 nodes under 1 s; hloscope's overhead over Graphviz's layout
# under 10%, i.e. "ratio ... hloscope/dot" below 1.10.
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
F="$DATA/npz/layout/xla/default/train/unet3d.npz"
W=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-render.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM

if ! command -v dot >/dev/null 2>&1; then
	echo "render bench: Graphviz's dot command is not installed (the reference); skipped"
	exit 0
fi

bench_case() { # NAME RUNS REGION-ARGS...
	bn=$1 runs=$2
	shift 2
	if ! "$HS" dot "$F" "$@" --force --cells -o "$W/$bn.cells.dot" 2>"$W/err" ||
		! "$HS" dot "$F" "$@" --force -o "$W/$bn.dot" 2>>"$W/err"; then
		echo "FAIL render bench $bn: $(head -c 300 "$W/err")"
		return
	fi
	"$PY" - "$bn" "$runs" "$HS" "$F" "$W" "$@" <<'PYEOF'
import os, re, resource, subprocess, sys, time

name, runs, hs, f, w = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
region = sys.argv[6:]

def run(cmd):
    """(cpu seconds, wall seconds, stderr) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        print("FAIL render bench %s: %s exited %d: %s" % (name, cmd[0], p.returncode,
              p.stderr.decode()[:300]))
        sys.exit(0)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, p.stderr.decode()

def best(cmd):
    res = [run(cmd) for _ in range(runs)]
    return min(r[0] for r in res), min(r[1] for r in res), min(res)[2]

ours = best([hs, "dot", f] + region + ["--force", "--text", "--time"])
ref = best(["dot", "-Tplain", os.path.join(w, name + ".cells.dot")])
lab = best(["dot", "-Tplain", os.path.join(w, name + ".dot")])
with open(os.path.join(w, name + ".cells.dot")) as fh:
    nodes = sum(1 for line in fh if re.match(r"\s+(n|more)\d+\s*(\[|;|$)", line)
                and "->" not in line)
split = ours[2].strip().replace("time: ", "")
print("render %s (%d nodes): hloscope %.3f s cpu (%.3f s wall), dot -Tplain %.3f s cpu "
      "(%.3f s wall), dot -Tplain with labels %.3f s cpu; hloscope's own split: %s"
      % (name, nodes, ours[0], ours[1], ref[0], ref[1], lab[0], split))
print("ratio render-%s hloscope/dot %.2f" % (name, ours[0] / ref[0]))
print("ratio render-%s hloscope/dot-labels %.2f" % (name, ours[0] / lab[0]))
if name == "300":
    print("target render-300 under 1 s: %s (%.3f s cpu, %.3f s wall)"
          % ("met" if ours[0] < 1.0 else "MISSED", ours[0], ours[1]))
print("target render-%s overhead over Graphviz under 10%%: %s (%+.0f%%)"
      % (name, "met" if ours[0] < 1.10 * ref[0] else "MISSED", 100 * (ours[0] / ref[0] - 1)))
PYEOF
}

case "${RENDER_BENCH:-300 2000}" in *300*) bench_case 300 5 --around 700 --radius 5 ;; esac
case "${RENDER_BENCH:-300 2000}" in *2000*) bench_case 2000 1 --around 1000 --radius 9 ;; esac
