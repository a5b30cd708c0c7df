#!/bin/sh
# bench/hlo_text.sh - reading (and featurizing) HLO text: hloscope's C reader
# against a plain python + numpy featurization of the same file
# (bench/hlo_featurize.py), in the same run, as a ratio.  The target:
# convert of a 3,000-instruction module at most 0.1x the python time.
#
# The file is the 3,517-instruction llama2 module (tests/data/hlo, else
# ../shared/data/hlo).  When `hloscope convert` reads HLO text, the C side is
# the whole convert process (start, read, featurize, write the .npz; best of
# 5); otherwise it is the parse alone (hlo_tool bench, best of 20) and the
# line says so.  The python side is its best of 3 in one process (start and
# imports not counted).  Prints e.g.
#   hlo_text: convert 0.04x python (28.1 ms vs 702.3 ms, 3517 instructions) [target <= 0.1x: met]
#   hlo_text: parse best 9.8 ms, median 11.0 ms (871686 bytes)
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
HS=${HLOSCOPE:-$(pwd)/$HLOSCOPE_BUILD/hloscope}
TOOL=$(pwd)/$HLOSCOPE_BUILD/tests/hlo_tool
NAME=llama2_dp1_tp1_pp1_SyncTensorsGraph.hlo
F=""
for d in tests/data/hlo ../shared/data/hlo; do
	[ -f "$d/$NAME" ] && F="$d/$NAME" && break
done
if [ -z "$F" ]; then
	echo "hlo_text: skipped (no $NAME in tests/data/hlo or ../shared/data/hlo)"
	exit 0
fi
[ -x "$TOOL" ] || { echo "hlo_text: no $TOOL (make units builds it)"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hlo-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

parse=$("$TOOL" bench "$F" 20) || { echo "hlo_text: the C reader failed on $F"; exit 1; }
best=$(echo "$parse" | sed 's/.*best \([0-9.]*\) ms.*/\1/')
median=$(echo "$parse" | sed 's/.*median \([0-9.]*\) ms.*/\1/')
instrs=$(echo "$parse" | sed 's/.* \([0-9]*\) instructions.*/\1/')
bytes=$(echo "$parse" | sed 's/.*: \([0-9]*\) bytes.*/\1/')

# The whole convert process, when this build's convert reads HLO text.
what=parse c_ms=$best
if "$HS" convert "$F" -o "$TMP/x.npz" >/dev/null 2>&1 && [ -s "$TMP/x.npz" ]; then
	what=convert c_ms=""
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$HS" convert "$F" -o "$TMP/x.npz" >/dev/null 2>&1
		t1=$(date +%s%N)
		ms=$(echo "$t0 $t1" | awk '{ printf "%.1f", ($2 - $1) / 1e6 }')
		c_ms=$(echo "$c_ms $ms" | awk '{ if ($1 == "" || $2 < $1) print $2; else print $1 }')
	done
fi

py=$("$PY" bench/hlo_featurize.py "$F" 3) || { echo "hlo_text: the python featurizer failed"; exit 1; }
py_ms=$(echo "$py" | sed 's/.*best \([0-9.]*\) ms.*/\1/')

echo "$c_ms $py_ms $what $instrs" | awk '{
	r = $1 / $2
	note = ($3 == "parse") ? " (parse only: this build'"'"'s convert does not read HLO text)" : ""
	printf "hlo_text: %s %.3fx python (%.1f ms vs %.1f ms, %d instructions)%s [target <= 0.1x: %s]\n",
	       $3, r, $1, $2, $4, note, (r <= 0.1 ? "met" : "MISSED")
}'
echo "hlo_text: parse best $best ms, median $median ms ($bytes bytes)"
