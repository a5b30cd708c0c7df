#!/bin/sh
# bench/profile.sh - the analytic estimate against measured GPU profiles
# (issue 30): every ../shared/data/profiles/*.csv beside the nsys-jax
# archive whose dump holds its module (the archive unzipped into
# build/bench-data/profiles/), through `hloscope profile`: Spearman over the
# instructions, the share of the measured time in instructions predicted
# within 2x, and the predicted step against the measured one [targets: 0.96,
# 70%, within 1.25x].  Skips with a message when ../shared is absent.
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
SHARED=${SHARED:-$(pwd)/../shared/data/profiles}
[ -d "$SHARED" ] || SHARED=$(pwd)/../../shared/data/profiles   # from a worktree
CACHE=${BENCH_DATA:-$(pwd)/build/bench-data}/profiles
if [ ! -d "$SHARED" ]; then
	echo "profile: skipped ($SHARED is absent)"
	exit 0
fi
mkdir -p "$CACHE"
for z in "$SHARED"/*.zip; do
	[ -d "$CACHE/$(basename "$z" .zip)" ] && continue
	"$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$z" \
		"$CACHE/$(basename "$z" .zip)" || exit 1
done
# pax_a100_proc0_wrapped_step_fn.csv: the module is *.pjit__wrapped_step_fn.*after_optimizations*;
# the measured step (the README's median XlaModule range) is given per file below.
for csv in "$SHARED"/*.csv; do
	name=$(basename "$csv" .csv)
	mod=${name#*_proc0_}
	step=""
	[ "$name" = pax_a100_proc0_wrapped_step_fn ] && step="127.46 ms"
	m=$(find "$CACHE" -name "*.pjit__${mod}.*after_optimizations.hlo.pb*" | head -1)
	if [ -z "$m" ]; then
		echo "profile: $name: no module found for it"
		continue
	fi
	"$HS" profile "$m" "$csv" --json ${step:+--measured-step "$step"} >"$CACHE/$name.json" || exit 1
	"$PY" - "$CACHE/$name.json" "$name" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
step = r["predicted_step_ns"] / r["measured_step_ns"] if r["measured_step_ns"] else float("nan")
ok = lambda c: "met" if c else "missed"
print(f"profile: {sys.argv[2]} on {r['machine']}: Spearman {r['spearman']:.3f} [0.96 {ok(r['spearman'] >= 0.96)}], "
      f"within 2x {100 * r['within_2x_share']:.1f}% of the measured time [70% {ok(r['within_2x_share'] >= 0.7)}], "
      f"step {r['predicted_step_ns'] / 1e6:.1f} ms predicted / {(r['measured_step_ns'] or 0) / 1e6:.2f} ms measured = "
      f"{step:.2f}x [1.25x {ok(0.8 <= step <= 1.25)}] ({r['instructions']} instructions)")
PYEOF
done
