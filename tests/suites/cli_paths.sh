#!/bin/sh
# cli_paths: a path that does not exist gets one message in every command,
# "hloscope CMD: PATH: No such file or directory", exit 2 (bad data) and
# nothing on stdout; a mistyped command gets a did-you-mean (exit 1), a
# mistyped path the same message as in the commands (exit 2); predict --csv
# and --json write nothing unless every file scored.
. tests/lib.sh

H=$HLOSCOPE
N=$T/nope.npz
LAY=$DATA/npz/layout/xla/default/train/unet3d.npz

# missing NAME CMD ARGS...: exit 2, the one message, empty stdout.
missing() {
	name=$1 cmd=$2
	shift 2
	"$H" "$cmd" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	want="hloscope $cmd: $N: No such file or directory"
	if [ "$rc" -ne 2 ]; then
		bad "cli_paths: $name" "exit $rc, wanted 2; stderr: $(head -c 200 "$T/err")"
	elif ! grep -qxF "$want" "$T/err"; then
		bad "cli_paths: $name" "wanted the line '$want'; got: $(head -c 300 "$T/err")"
	elif [ -s "$T/out" ]; then
		bad "cli_paths: $name" "stdout: $(head -c 100 "$T/out")"
	else
		ok "cli_paths: $name"
	fi
}

missing "info" info "$N"
missing "info --json" info "$N" --json
missing "check" check "$N"
grep -qxF "nothing checked: 1 path could not be read" "$T/err" &&
	ok "cli_paths: check of only a missing path does not claim 0 files were checked" ||
	bad "cli_paths: check of a missing path's summary" "$(head -c 200 "$T/err")"
missing "dump" dump "$N" node_feat
missing "dot" dot "$N" --around 1 --text
missing "query" query "$N" nodes
missing "predict" predict "$N"
missing "predict --csv" predict "$N" --csv
missing "eval" eval "$N"
missing "compare" compare "$N" 0 1
missing "fit" fit "$N" --train-fraction 0.5
missing "train" train "$N" -o "$T/m.hsm"
missing "repl" repl "$N"
missing "explore" explore "$N"
N=$T/nope.pb
missing "convert" convert "$N" -o "$T/o.npz"
N=$T/nope.npz

mkdir -p "$T/empty"
expect_status 2 "cli_paths: check of a folder without graphs exits 2" "$H" check "$T/empty"
grep -qxF "hloscope check: no .npz, .pb or .hlo files found" "$T/err" &&
	ok "cli_paths: check of a folder without graphs names what it looked for" ||
	bad "cli_paths: check of an empty folder" "$(head -c 200 "$T/err")"

# hloscope PATH with a mistyped path, and a mistyped command.
expect_status 2 "cli_paths: hloscope MISSING-PATH exits 2" "$H" "$N"
grep -qxF "hloscope: $N: No such file or directory" "$T/err" &&
	ok "cli_paths: hloscope MISSING-PATH: the same message" ||
	bad "cli_paths: hloscope MISSING-PATH message" "$(head -c 200 "$T/err")"
expect_status 1 "cli_paths: a mistyped command exits 1" "$H" infoo "$LAY"
grep -qF "'infoo' is neither a command nor a file or folder (did you mean 'info'?)" "$T/err" &&
	ok "cli_paths: a mistyped command: did you mean" ||
	bad "cli_paths: did you mean" "$(head -c 200 "$T/err")"

# predict --csv / --json: a file that cannot be scored leaves no document.
printf 'not a zip' >"$T/bad.npz"
for f in csv json; do
	"$H" predict "$LAY" "$T/bad.npz" --$f >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] &&
		grep -q "nothing written: every file must score for --$f" "$T/err"; then
		ok "cli_paths: predict --$f with a bad file writes nothing, exit 2"
	else
		bad "cli_paths: predict --$f with a bad file" "exit $rc; stdout $(wc -c <"$T/out") bytes; $(head -c 200 "$T/err")"
	fi
done
"$H" predict "$LAY" --csv >"$T/out" 2>"$T/err" && [ "$(wc -l <"$T/out")" -eq 2 ] &&
	ok "cli_paths: predict --csv on a good file writes the header and its row" ||
	bad "cli_paths: predict --csv on a good file" "$(head -c 200 "$T/err")"
exit 0
