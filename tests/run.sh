#!/bin/sh
# Runs every test suite and prints one closing line: "check: N passed, N failed".
#
# Environment: HLOSCOPE_BUILD (build dir holding hloscope and tests/), PY
# (python3 with numpy), DATA (the real TpuGraphs files), UPDATE_GOLDENS=1 to
# rewrite golden files instead of comparing.
#
# Two kinds of suites:
#   $HLOSCOPE_BUILD/tests/test_*  C unit tests (tests/unit/test_*.c)
#   tests/suites/*.sh              shell suites, sourcing tests/lib.sh
# Every suite prints "PASS name" / "FAIL name: why" lines; anything else is
# shown as is.  A suite that exits non-zero without a FAIL line counts as one
# failure.
set -u
: "${HLOSCOPE_BUILD:=build/release}"
: "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
ROOT=$(pwd)
HLOSCOPE="$ROOT/$HLOSCOPE_BUILD/hloscope"
export HLOSCOPE_BUILD PY DATA ROOT HLOSCOPE
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-check.XXXXXX")
export WORK
trap 'rm -rf "$WORK"' EXIT INT TERM

pass=0 fail=0
run_suite() {
	name=$1; shift
	out="$WORK/$name.out"
	"$@" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited $rc" >>"$out"
		f=1
	fi
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$f" -ne 0 ]; then
		echo "--- $name: $p passed, $f failed"
		grep -v '^PASS ' "$out" | head -60
	else
		echo "--- $name: $p passed"
	fi
}

for t in "$HLOSCOPE_BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run_suite "$(basename "$t")" "$t"
done
for s in tests/suites/*.sh; do
	[ -f "$s" ] || continue
	run_suite "$(basename "$s" .sh)" sh "$s"
done

echo "check ($HLOSCOPE_BUILD): $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
