#!/bin/sh
# bench/model_logo.sh - the analytic estimate, the learned ranker (leave one
# graph out) and fit at 10/20/50% on every labeled file at hand: the real
# samples of tests/data (layout and tile .npz, the raw TuningData .pb), the
# synthetic demo data, and LOGO_EXTRA (folders of more real TpuGraphs
# files, e.g. LOGO_EXTRA=/work/tpugraphs-extra).  bench/model_logo.py does
# the work and says how; its tables are the ones docs/model.md holds
# (regenerate them with LOGO_DOC=docs/model.md).  Seeds are fixed:
# train --seed 1, fit --seed 1, 2, 3.  LOGO_EPOCHS=N trains shorter.
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
T=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-bench-logo.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

"$HS" synth "$T/demo" >/dev/null || { echo "logo: FAIL synth"; exit 1; }
set -- "$DATA/npz" "$(cd "$DATA/.." && pwd)/raw" "$T/demo/npz"
for d in ${LOGO_EXTRA:-}; do
	[ -d "$d" ] && set -- "$@" "$d"
done
if [ -n "${LOGO_DOC:-}" ]; then
	"$PY" bench/model_logo.py --hloscope "$HS" --epochs "${LOGO_EPOCHS:-0}" --update-doc "$LOGO_DOC" "$@" >/dev/null
else
	"$PY" bench/model_logo.py --hloscope "$HS" --epochs "${LOGO_EPOCHS:-0}" "$@"
fi
