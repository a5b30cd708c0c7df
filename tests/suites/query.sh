#!/bin/sh
# The data-driven query tests (tests/query/*.test, run by tests/query/runner.py)
# against the real files in $DATA and the synthetic demo data written here.
. tests/lib.sh

use_demo
export DEMO
"$PY" tests/query/runner.py tests/query/*.test
