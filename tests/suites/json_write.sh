#!/bin/sh
# Every --json command whose output cannot be written (stdout on /dev/full)
# exits non-zero with one message naming the write error, and the same
# commands still exit 0 when the output goes somewhere.
. tests/lib.sh

H=$HLOSCOPE
use_demo || exit 1
D=$DEMO
LAY=$(find "$D/npz/layout/xla/default/train" -name '*.npz' | sort | head -1)

# full NAME CMD...: 0 when written to a file, 2 and the message on /dev/full.
full() {
	name=$1; shift
	if "$@" >"$T/out" 2>"$T/err"; then
		ok "json_write: $name writes"
	else
		bad "json_write: $name writes" "exit $?; $(head -c 300 "$T/err")"
	fi
	"$@" >/dev/full 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -q "No space left on device" "$T/err" && no_sanitizer_report "$T/err"; then
		ok "json_write: $name on /dev/full exits 2 with a message"
	else
		bad "json_write: $name on /dev/full" "exit $rc; stderr: $(head -c 300 "$T/err")"
	fi
}

full "info FILE --json" "$H" info "$LAY" --json
full "info DIR --json" "$H" info "$D" --json
full "predict --json" "$H" predict "$LAY" --json
full "fit --json" "$H" fit "$LAY" --train-fraction 0.5 --json
full "eval --json" "$H" eval "$LAY" --json
full "compare --json" "$H" compare "$LAY" 0 1 --json
full "query --json" "$H" query "$LAY" "nodes limit 3" --json
exit 0
