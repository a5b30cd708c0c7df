#!/bin/sh
# bench/diff.sh - `hloscope diff` on two modules of the size people open
# (issue 21): the generator's unrolled transformer
# (tools/gen_transformer_hlo.py) at 600 / 1,000 / 50,000 layers (13.8k, 23k
# and 1.15M instructions), each against a mutated copy: one instruction in
# ten renamed (every reference with it: only structure and neighbours can
# match those), one add in a thousand made a multiply.  Written once into
# build/bench-data/.  For each pair: the wall and CPU time and peak memory
# of `diff --json` (reading both modules included), against `wc -w` on both
# files from the page cache in the same run, and whether the diff found
# exactly the opcodes changed and nothing unmatched [targets: 14k under
# 1 s, 1.15M under 10 s].  Times are the best of 3 runs (1 at 1.15M).
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
CACHE=${BENCH_DATA:-$(pwd)/build/bench-data}
GEN=$(pwd)/tools/gen_transformer_hlo.py
mkdir -p "$CACHE"
for L in 600 1000 50000; do
	f="$CACHE/transformer-$L.hlo"
	[ -f "$f" ] || { "$PY" "$GEN" --layers "$L" -o "$f.tmp" && mv "$f.tmp" "$f"; } ||
		{ echo "diff: could not write $f"; exit 1; }
	m="$CACHE/transformer-$L.mutated.hlo"
	[ -f "$m" ] && continue
	"$PY" - "$f" "$m.tmp" <<'PYEOF' || { echo "diff: could not write $m"; exit 1; }
import re, sys
src, dst = sys.argv[1:]
tok = re.compile(r"%([A-Za-z0-9_.\-]+)")
names, n = {}, 0
with open(src) as f, open(dst, "w") as o:
    for line in f:
        m = re.match(r"\s*(ROOT\s+)?%([A-Za-z0-9_.\-]+) = ", line)
        if m:
            n += 1
            if n % 10 == 3:
                names[m.group(2)] = m.group(2) + "_r"
            if n % 1000 == 500 and " add(" in line:
                line = line.replace(" add(", " multiply(", 1)
        if names:
            line = tok.sub(lambda mm: "%" + names.get(mm.group(1), mm.group(1)), line)
        o.write(line)
PYEOF
	mv "$m.tmp" "$m"
done
"$PY" - "$HS" "$CACHE" <<'PYEOF' || exit 1
import json, os, re, subprocess, sys, time
hs, cache = sys.argv[1:]

def run(cmd):
    """(wall s, cpu s, peak MB, stdout) of one process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status and not (cmd[1] == "diff" and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1):
        raise SystemExit("diff: FAILED: %s exited %d: %s" % (" ".join(cmd[:2]), status, p.stderr.read()[:300]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, out

def best(cmd, n):
    return min((run(cmd) for _ in range(n)), key=lambda r: r[0])

for L, target in ((600, 1.0), (1000, None), (50000, 10.0)):
    a = os.path.join(cache, "transformer-%d.hlo" % L)
    b = os.path.join(cache, "transformer-%d.mutated.hlo" % L)
    subprocess.run(["cat", a, b], stdout=subprocess.DEVNULL)
    wc = best(["wc", "-w", a, b], 3)[0]
    reps = 1 if L >= 50000 else 3
    wall, cpu, peak, out = best([hs, "diff", a, b, "--json"], reps)
    d = json.loads(out)
    swapped = sum(1 for la, lb in zip(open(a), open(b)) if " add(" in la and " multiply(" in lb)
    n = sum(1 for line in open(a) if " = " in line and line.startswith("  "))
    # exit 1 (they differ) is not a failure; found checks the report
    found = (len(d["changed"]) == swapped and all(c["changes"] == ["opcode"] for c in d["changed"])
             and not d["unmatched_a"] and not d["unmatched_b"])
    verdict = "" if target is None else " [target < %g s: %s]" % (target, "met" if wall < target else "MISSED")
    print("diff: %s instructions, each side: %.2f s = %.1fx wc -w of both (%.2f s), CPU %.2f s, peak %.0f MB; "
          "%d matched, %d changed (%d opcodes swapped: %s)%s"
          % (format(n, ","), wall, wall / wc, wc, cpu, peak, d["matched"], len(d["changed"]), swapped,
             "all found, nothing unmatched" if found else "NOT ALL FOUND", verdict))
    print("ratio diff_%d_vs_wc %.2f" % (L, wc / wall))
PYEOF
