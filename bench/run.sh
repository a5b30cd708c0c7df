#!/bin/sh
# bench/run.sh - runs every bench/*.sh (but itself) and prints their lines,
# e.g. "loader: check wall 0.41x numpy (...)".  `make bench` calls it with
# HLOSCOPE_BUILD, PY and DATA set.  Exit status 1 when a benchmark failed to
# run (a missed speed target is reported in its line, not as a failure).
set -u
: "${HLOSCOPE_BUILD:=build/release}" "${PY:=/usr/bin/python3}"
: "${DATA:=$(pwd)/tests/data/tpugraphs}"
export HLOSCOPE_BUILD PY DATA
status=0
for b in bench/*.sh; do
	[ "$b" = bench/run.sh ] && continue
	name=$(basename "$b" .sh)
	start=$(date +%s)
	sh "$b"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "$name: FAILED (exit $rc)"
		status=1
	fi
	echo "($name: $(($(date +%s) - start)) s)"
done
exit $status
