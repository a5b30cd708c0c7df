#!/bin/sh
# The REPL (hloscope repl) driven through tmux on a private socket: prompt,
# tab completion of commands, fields, opcode names and file paths, errors
# with a caret, Ctrl-C, history across sessions, an unwritable history,
# paging (built-in "-- more --" and $PAGER), format and open, Ctrl-D.
# Also the REPL on a pipe (no terminal).
. tests/lib.sh

F="$DATA/npz/layout/xla/default/train/unet3d.npz"
F2="$DATA/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz"

# Without a terminal: lines run in order, errors do not stop the loop.
printf 'count by opcode limit 1\nnodez\nnodes where id = 5 show id, opcode\n' |
	"$HLOSCOPE" repl "$F" >"$T/pipe.out" 2>"$T/pipe.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^get-tuple-element *682' "$T/pipe.out" &&
	grep -q "unknown command 'nodez'" "$T/pipe.err" && grep -q '^ 5  add$' "$T/pipe.out"; then
	ok "repl: on a pipe, lines run and errors do not stop it"
else
	bad "repl: on a pipe, lines run and errors do not stop it" "rc $rc: $(head -c 300 "$T/pipe.out" "$T/pipe.err")"
fi
expect_status 2 "repl: a bad file exits 2" "$HLOSCOPE" repl "$T/missing.npz"
expect_status 1 "repl: no file is a usage error" "$HLOSCOPE" repl
no_sanitizer_report "$T/pipe.err" || bad "repl: pipe run" "sanitizer report"

need tmux || exit 0

SOCK="hsq$$"
# A pane whose program ended stays on screen (remain-on-exit) until the
# server is killed, so its last screen can still be read.
printf 'set -g remain-on-exit on\n' >"$T/tmux.conf"
TM="tmux -L $SOCK -f $T/tmux.conf"
# ASan builds start slower.
WAIT=${REPL_WAIT:-100}
trap '$TM kill-server 2>/dev/null' EXIT

# start NAME ENV... : a REPL session on $F in a 100x24 window; stderr shows
# on the screen, sanitizer reports go to $T/san.*.  When the REPL ends, its
# status goes to $T/NAME.exit and the tmux channel NAME is signalled.
start() {
	name=$1
	shift
	$TM kill-session -t "$name" 2>/dev/null
	$TM new-session -d -s "$name" -x 100 -y 24 \
		"env ASAN_OPTIONS=\"\${ASAN_OPTIONS:-}:log_path=$T/san\" \
		UBSAN_OPTIONS=\"\${UBSAN_OPTIONS:-}:log_path=$T/san\" $* $HLOSCOPE repl $F; \
		echo EXIT=\$? >$T/$name.exit; $TM wait-for -S $name"
}

# ended NAME: waits (at most WAIT tenths of a second) for session NAME's
# signal that its program ended.
ended() {
	timeout "$((WAIT / 10 + 1))" $TM wait-for "$1"
}

screen() { $TM capture-pane -p -t "$1"; }

# wait_for NAME PATTERN: polls the screen for an extended regex.
wait_for() {
	i=0
	while [ $i -lt "$WAIT" ]; do
		if screen "$1" | grep -Eq -- "$2"; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# check NAME TEST PATTERN: a PASS/FAIL line on the screen content.
check() {
	if wait_for "$1" "$3"; then ok "repl: $2"; else
		bad "repl: $2" "screen: $(screen "$1" | grep -v '^$' | tail -8 | tr '\n' '|')"
	fi
}

# keys NAME KEY...: types them; the program reads them in order, so a check
# that waits for their effect needs no pause.
keys() {
	name=$1
	shift
	$TM send-keys -t "$name" "$@"
}

mkdir -p "$T/state" "$T/home" "$T/files"
cp "$F2" "$T/files/inception_tile.npz"
cp tests/data/hlo/i3d_tf_xla_cluster_1.hlo "$T/files/i3d.hlo"
ENV="XDG_STATE_HOME=$T/state HOME=$T/home PAGER="

start a "$ENV"
check a "prompt" '^unet3d>$'
keys a 'cou' Tab
check a "Tab completes a command" '^unet3d> count$'
keys a 'by opc' Tab Tab Tab
check a "Tab lists the fields that fit" 'opcode +opcode_id'
keys a C-u 'nodes where opcode = convo' Tab
check a "Tab completes an opcode name" '^unet3d> nodes where opcode = convolution$'
keys a C-u 'nodes where computation == en' Tab
check a "Tab completes a text field's value" '^unet3d> nodes where computation == entry$'
keys a C-u 'nodes where computation == computation.6' Tab Tab
check a "Tab lists a text field's values that fit" 'computation.61 +computation.62'
keys a C-u "open $T/files/incep" Tab
check a "Tab completes a file path" "^unet3d> open $T/files/inception_tile.npz"
keys a C-u 'count by opcode limit 2' Enter
check a "a query prints a table" '^get-tuple-element +682 +0.245854$'
keys a 'nodes where shap = 1' Enter
check a "an error names the field" "^error: unknown field 'shap' at column 13 \(did you mean 'shape'\?\)$"
check a "the caret marks the column" '^              \^$'
keys a 'garbage'
wait_for a '^unet3d> garbage$'
keys a C-c
wait_for a '^unet3d>$'
keys a 'help users' Enter
check a "Ctrl-C drops the line" '^users ID\|NAME$'
if screen a | grep -q "unknown command 'garbage'"; then
	bad "repl: Ctrl-C does not run the line" "garbage ran"
else
	ok "repl: Ctrl-C does not run the line"
fi
keys a 'format csv' Enter
keys a 'count by opcode limit 1' Enter
check a "format csv switches the output" '^get-tuple-element,682,0.245854'
keys a "open $T/files/i3d.hlo" Enter
check a "open says a plain HLO module is a module" '^opened i3d: module, 1170 instructions$'
keys a "open $T/files/inception_tile.npz" Enter
check a "open switches the graph and the prompt" '^inception_tile>$'
keys a 'nodes limit 40' Enter
check a "small output is not paged" '^0,parameter,'
keys a C-d
check a "Ctrl-D leaves" 'EXIT=0|^$'
ended a
if [ "$(cat "$T/a.exit" 2>/dev/null)" = "EXIT=0" ]; then ok "repl: exit status 0"; else
	bad "repl: exit status 0" "$(cat "$T/a.exit" 2>/dev/null)"
fi
H="$T/state/hloscope/history"
if [ -f "$H" ] && grep -qx 'count by opcode limit 2' "$H" && grep -qx 'format csv' "$H" &&
	! grep -q garbage "$H"; then
	ok "repl: history written under XDG_STATE_HOME/hloscope"
else
	bad "repl: history written under XDG_STATE_HOME/hloscope" "$(cat "$H" 2>/dev/null | head -5)"
fi

# A second session finds the history: Up recalls the last line.
start b "$ENV"
check b "second session starts" '^unet3d>$'
check b "the banner says what the graph is" '^hloscope: unet3d \(layout graph, 2774 nodes\)'
keys b Up
check b "Up recalls history from the last session" '^unet3d> nodes limit 40$'
keys b C-u 'nodes limit 40' Enter
check b "long output pages with -- more --" '^-- more --'
if screen b | grep -q '^ *39  '; then bad "repl: the pager stops at a page" "row 39 shown"; else
	ok "repl: the pager stops at a page"
fi
keys b ' '
check b "space shows the next page" '^ *39  '
keys b 'nodes limit 60' Enter
check b "pages again" '^-- more --'
keys b q
check b "q leaves the pager" '^unet3d>$'
keys b 'quit' Enter
ended b
[ "$(cat "$T/b.exit" 2>/dev/null)" = "EXIT=0" ] && ok "repl: quit exits 0" ||
	bad "repl: quit exits 0" "$(cat "$T/b.exit" 2>/dev/null)"

# $PAGER gets long output.
start c "XDG_STATE_HOME=$T/state HOME=$T/home PAGER='cat >$T/paged'"
check c "PAGER session starts" '^unet3d>$'
keys c 'nodes limit 60' Enter
wait_for c '^unet3d> nodes limit 60$'
# The REPL waits for its pager to end before the next prompt.
check c "prompt back after PAGER" '^unet3d>$'
if [ "$(grep -c '^ *[0-9]* ' "$T/paged" 2>/dev/null)" -ge 60 ]; then ok "repl: long output goes to \$PAGER"; else
	bad "repl: long output goes to \$PAGER" "$(head -c 200 "$T/paged" 2>/dev/null)"
fi
keys c 'quit' Enter

# An unwritable history is a warning, not a failure.
: >"$T/not-a-folder"
start d "XDG_STATE_HOME=$T/not-a-folder HOME=$T/home PAGER="
check d "unwritable history: the REPL still starts" '^unet3d>$'
check d "unwritable history: a warning" 'warning: cannot .*history'
screen d >"$T/d.screen"
keys d 'count by opcode limit 1' Enter
check d "unwritable history: queries still run" '^get-tuple-element +682'
keys d 'quit' Enter
ended d
if [ "$(cat "$T/d.exit" 2>/dev/null)" = "EXIT=0" ] && grep -q 'warning: cannot .*history' "$T/d.screen"; then
	ok "repl: unwritable history warns and exits 0"
else
	bad "repl: unwritable history warns and exits 0" "$(cat "$T/d.exit" 2>/dev/null)"
fi
if ls "$T"/san.* >/dev/null 2>&1; then
	bad "repl: no sanitizer report" "$(cat "$T"/san.* | head -c 600)"
else
	ok "repl: no sanitizer report"
fi

# A signal while the pager waits for a key leaves the terminal as it was.
$TM new-session -d -s e -x 100 -y 24 \
	"sh -c 'echo \$\$ >$T/e.pid; exec env XDG_STATE_HOME=$T/state HOME=$T/home PAGER= $HLOSCOPE repl $F'; stty -a >$T/e.stty; $TM wait-for -S e"
check e "signal test session starts" '^unet3d>$'
keys e 'nodes limit 40' Enter
check e "signal test: pager waits" '^-- more --'
kill -TERM "$(cat "$T/e.pid")"
ended e
if grep -qw icanon "$T/e.stty" && ! grep -q -- '-icanon' "$T/e.stty" &&
	! grep -q -- '-echo ' "$T/e.stty" && ! grep -q -- '-isig' "$T/e.stty"; then
	ok "repl: SIGTERM in the pager restores the terminal"
else
	bad "repl: SIGTERM in the pager restores the terminal" "$(grep -o -- '-\?icanon\|-\?echo \|-\?isig' "$T/e.stty" | tr '\n' ' ')"
fi
