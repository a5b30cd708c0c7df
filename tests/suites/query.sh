#!/bin/sh
# The data-driven query tests (tests/query/*.test, run by tests/query/runner.py)
# against the real files in $DATA and the synthetic demo data written here.
. tests/lib.sh

DEMO="$T/demo"
if "$HLOSCOPE" synth "$DEMO" >"$T/synth.out" 2>&1; then
	ok "query: demo data written"
else
	bad "query: demo data written" "$(head -c 300 "$T/synth.out")"
	DEMO=""
fi
export DEMO
"$PY" tests/query/runner.py tests/query/*.test
