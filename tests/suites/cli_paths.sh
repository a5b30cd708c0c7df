#!/bin/sh
# cli_paths: a path that does not exist gets one message in every command,
# "hloscope CMD: PATH: No such file or directory", exit 2 (bad data) and
# nothing on stdout; an output that cannot be written exits 2 too, and
# check reports the folders it cannot walk; a mistyped command gets a
# did-you-mean (exit 1), a mistyped path the same message as in the
# commands (exit 2); predict --csv and --json write nothing unless every
# file scored.
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
grep -qxF "hloscope check: nothing to check: no .npz or HLO module found" "$T/err" &&
	ok "cli_paths: check of a folder without graphs names what it looked for" ||
	bad "cli_paths: check of an empty folder" "$(head -c 200 "$T/err")"

# check walks folders with base/walk.h: a folder nested past its limit (64)
# is a problem named on stdout, not skipped in silence (exit 2, the rest
# still checked); a link loop ends.
D=$T/deep
mkdir -p "$D/$(printf 'd/%.0s' $(seq 65))"
ln -s "$LAY" "$D/top.npz"
ln -s "$LAY" "$D/$(printf 'd/%.0s' $(seq 65))bottom.npz"
ln -s .. "$D/d/loop"
expect_status 2 "cli_paths: check of a tree deeper than the walk's limit exits 2" "$H" check "$D"
grep -q "^$D/$(printf 'd/%.0s' $(seq 63))d: not checked: a folder nested more than 64 deep$" "$T/out" &&
	grep -qxF "OK $D/top.npz" "$T/out" && ! grep -q bottom "$T/out" &&
	ok "cli_paths: check names the folder it did not enter and checks the rest" ||
	bad "cli_paths: check of a deep tree" "$(head -c 300 "$T/out")"
rm -r "$D/d"
mkdir -p "$D/d"
ln -s .. "$D/d/loop"
expect_status 0 "cli_paths: check through a link loop ends, each file once" "$H" check "$D"
[ "$(grep -c '^OK ' "$T/out")" -eq 1 ] && ok "cli_paths: ... one OK line" ||
	bad "cli_paths: check through a loop" "$(head -c 300 "$T/out")"

# An output that cannot be written: exit 2 (bad data, as an input that
# cannot be read), "cannot write PATH: REASON", and no temporary file left
# (base/afile.h), in every command that writes one.
nowrite() {
	name=$1
	shift
	"$H" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		bad "cli_paths: $name" "exit $rc, wanted 2; stderr: $(head -c 200 "$T/err")"
	elif ! grep -q "cannot write $T/no/dir/" "$T/err"; then
		bad "cli_paths: $name" "stderr: $(head -c 300 "$T/err")"
	elif [ -n "$(find "$T" -name '*.tmp.*' | head -1)" ]; then
		bad "cli_paths: $name" "left $(find "$T" -name '*.tmp.*' | head -1)"
	else
		ok "cli_paths: $name"
	fi
}
nowrite "convert to a missing folder" convert "$ROOT/tests/data/hlo/tpu_op_fusion.261.HloModuleProto.pb" \
	-o "$T/no/dir/x.npz"
nowrite "dot to a missing folder" dot "$LAY" --around 5 -o "$T/no/dir/x.dot"

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
