#!/bin/sh
# bench/model_quality.sh - how well the predictors rank configs they never
# saw, on every labeled file at hand, side by side with baselines measured
# in the same run.
#
#  1. The analytic estimate on each labeled layout file, with every term and
#     with each term left out or alone (`eval --analytic-terms`): Kendall
#     tau-b and tau with ties broken at random.
#  2. `fit --train-fraction 0.2` against gradient-boosted trees
#     (bench/gbt.py, numpy) on the same split: fit --json lists the
#     held-out configs, the trees train on the others.  Real unet3d (seeds
#     1-3), the labeled demo layout files, the real reference tile kernels
#     with at least 50 configs and the demo tile files.
#  3. With QUALITY_TRAIN=1: the learned ranker across graphs, leave one
#     real labeled layout file out (train on the demo data and the other).
# Prints one line per measurement; nothing here is a pass/fail test.
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
REF=${REFERENCE_TILES:-$(cd "$DATA/.." 2>/dev/null && pwd)/raw/op_tuning_data.reference}
SEEDS=${QUALITY_SEEDS:-1 2 3}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-quality.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

"$HS" synth "$T/demo" >/dev/null || { echo "FAIL quality: synth"; exit 1; }
REAL_LAYOUT=$(ls "$DATA"/npz/layout/*/*/train/*.npz "$DATA"/npz/layout/*/*/valid/*.npz 2>/dev/null)
DEMO_LAYOUT=$(ls "$T"/demo/npz/layout/xla/*/train/*.npz "$T"/demo/npz/layout/xla/*/valid/*.npz)
DEMO_TILE=$(ls "$T"/demo/npz/tile/xla/valid/*.npz)

tau() { # FILE TERMS -> "tau tiebroken"
	"$HS" eval "$1" --analytic-terms "$2" --json 2>/dev/null | "$PY" -c '
import json, sys
g = json.load(sys.stdin)["graphs"][0]
f = lambda v: "n/a" if v is None else "%+.3f" % v
print(f(g["kendall_tau"]), f(g["kendall_tau_tiebroken"]))'
}

echo "quality: 1. analytic estimate, Kendall tau-b / tie-broken tau per set of terms"
for f in $REAL_LAYOUT $DEMO_LAYOUT; do
	case $f in "$T"/*) name="demo:${f#"$T"/demo/npz/layout/xla/}" ;; *) name="real:${f#"$DATA"/npz/layout/}" ;; esac
	line=""
	for terms in none all mxu padding copy overhead mxu,padding,copy mxu,padding,overhead \
		mxu,copy,overhead padding,copy,overhead all,mxu-operands; do
		line="$line  $terms $(tau "$f" "$terms" | tr ' ' '/')"
	done
	echo "quality: analytic $name:$line"
done

echo "quality: 2. fit --train-fraction 0.2 vs gradient-boosted trees on the same split (tau-b, tie-broken)"
fitvs() { # FILE SEED LABEL
	if ! "$HS" fit "$1" --train-fraction 0.2 --seed "$2" --json >"$T/fit.json" 2>"$T/fit.err"; then
		echo "quality: fit $3 seed $2: skipped ($(head -c 120 "$T/fit.err"))"
		return
	fi
	"$PY" bench/gbt.py "$T/fit.json" "$1" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
f = lambda v: "n/a" if v != v else "%.3f" % v
print("quality: fit %s seed %s: fit %s / %s   gbt %s / %s   (%d train, %d held out, %d features; gbt %s)" % (
    sys.argv[1], sys.argv[2], f(d["fit_tau"]), f(d["fit_tau_tiebroken"]), f(d["gbt_tau"]),
    f(d["gbt_tau_tiebroken"]), d["train"], d["heldout"], d["features"], d["params"]))' "$3" "$2"
}
for f in $REAL_LAYOUT; do
	for s in $SEEDS; do fitvs "$f" "$s" "real:${f#"$DATA"/npz/layout/}"; done
done
for f in $DEMO_LAYOUT $DEMO_TILE; do fitvs "$f" 1 "demo:${f#"$T"/demo/npz/}"; done
if [ -d "$REF" ]; then
	for f in "$REF"/*.npz; do
		n=$("$PY" -c "import numpy as np, sys; print(len(np.load(sys.argv[1])['config_runtime']))" "$f")
		[ "$n" -ge 50 ] && fitvs "$f" 1 "real-tile:$(basename "$f")"
	done
fi

if [ "${QUALITY_TRAIN:-0}" = 1 ]; then
	echo "quality: 3. learned ranker across graphs: leave one real labeled layout file out"
	for held in $REAL_LAYOUT; do
		others=$(echo "$REAL_LAYOUT" | grep -v -F "$held")
		"$HS" train "$T"/demo/npz/layout/xla/*/train $others -o "$T/m.hsm" --quiet >/dev/null 2>&1 ||
			{ echo "quality: train without $(basename "$held"): failed"; continue; }
		"$HS" eval "$held" --model "$T/m.hsm" --json | "$PY" -c '
import json, sys
g = json.load(sys.stdin)["graphs"][0]
f = lambda v: "n/a" if v is None else "%.3f" % v
print("quality: cross-graph %s held out: tau %s, tie-broken %s" % (sys.argv[1], f(g["kendall_tau"]),
      f(g["kendall_tau_tiebroken"])))' "$(basename "$held")"
	done
fi
