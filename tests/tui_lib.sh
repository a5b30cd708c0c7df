# Sourced by tests/suites/tui_*.sh (after tests/lib.sh).  Two ways to drive
# the explorer.
#
# Scripted, no terminal (tui/script.c): every test that looks at screens.
#
#   tui_run NAME DIR ARGS... <<'EOF'
#   ...session...
#   EOF
#
# runs "hloscope ARGS" in DIR (relative paths keep the goldens free of
# machine paths) with HLOSCOPE_SCRIPT on a 100x30 screen, TERM
# screen-256color, UTF-8, model numbers masked (HLOSCOPE_MASK_MODEL=1);
# XENV adds environment ("NO_COLOR=1").  Each line of the session is one of
#
#   KEY | type TEXT | :COMMAND | resize COLS ROWS   for the explorer
#   golden NAME            the screen, compared with tests/golden/tui/NAME.txt
#   has NAME => TEXT       the screen contains TEXT
#   lacks NAME => TEXT     the screen does not contain TEXT
#   save NAME              the screen kept in $S/NAME.txt ($S/NAME with
#                          attributes when NAME ends in .ans) for the
#                          suite's own checks ($S is the last session's)
#
# $T in a line stands for the suite's scratch folder.
#
# Every key is fully processed before the next line, so nothing waits.
# After the run: one PASS/FAIL NAME for the exit status (0, or TUI_STATUS)
# and sanitizer reports, then one per golden/has/lacks line, in order.
# The explorer's stderr is in $T/stderr.
#
# In a terminal (tmux), only for what needs one: signals, resize, mouse.
#   tui_start DIR ARGS...   start "hloscope ARGS" in DIR at 100x30 and wait
#                           for the first screen
#   tui_send KEY...         tmux key names, sent without waiting
#   tui_wait NAME TEXT      wait until the screen shows TEXT (PASS/FAIL NAME)
#   tui_finish NAME STATUS  wait for the exit with STATUS: no sanitizer
#                           report, the terminal left in normal mode
TUI_W=100
TUI_H=30
TUI_RUNS=0

tui_run() {
	name=$1 dir=$2
	shift 2
	n=0
	TUI_RUNS=$((TUI_RUNS + 1))
	S="$T/session.$TUI_RUNS"
	mkdir -p "$S"
	# the script for the explorer, and the checks: kind, name, text a line
	: >"$S/script"
	: >"$S/checks"
	tab=$(printf '\t')
	while IFS= read -r line; do
		case $line in *'$T'*) line=$(printf '%s\n' "$line" | sed "s|\\\$T|$T|g") ;; esac
		case $line in
		"golden "* | "save "*)
			n=$((n + 1))
			shot=${line#* } flag=
			printf '%s\t%s\t\n' "${line%% *}" "$shot" >>"$S/checks"
			case $shot in
			*.ans) flag="--attrs " ;;
			*) shot="$shot.txt" ;;
			esac
			case $shot in */*) mkdir -p "$S/${shot%/*}" ;; esac
			printf ':save-display %s%s\n' "$flag" "$S/$shot" >>"$S/script"
			;;
		"has "* | "lacks "*)
			n=$((n + 1))
			rest=${line#* }
			printf '%s\t%s\t%s\n' "${line%% *}" "${rest%% => *}" "${rest#* => }" >>"$S/checks"
			printf ':save-display %s\n' "$S/$n.txt" >>"$S/script"
			;;
		*) printf '%s\n' "$line" >>"$S/script" ;;
		esac
	done
	(cd "$dir" && env -u NO_COLOR TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 \
		COLUMNS=$TUI_W LINES=$TUI_H HLOSCOPE_MASK_MODEL=1 ${XENV:-} \
		HLOSCOPE_SCRIPT="$S/script" "$HLOSCOPE" "$@" </dev/null >"$T/stdout" 2>"$T/stderr")
	got=$?
	want=${TUI_STATUS:-0}
	if [ "$got" -ne "$want" ]; then
		bad "$name" "exit $got, wanted $want; stderr: $(head -c 300 "$T/stderr")"
	elif ! no_sanitizer_report "$T/stderr"; then
		bad "$name" "sanitizer report: $(grep -m3 -E 'ERROR|runtime error' "$T/stderr")"
	else
		ok "$name"
	fi
	i=0
	while IFS="$tab" read -r kind cname text; do
		i=$((i + 1))
		tui_check "$kind" "$cname" "$i" "$text"
	done <"$S/checks"
}

# One check of a session, on screen $S/I.txt.
tui_check() {
	kind=$1 cname=$2 i=$3 text=$4
	case $kind in
	save) return ;;
	golden)
		if [ -f "$S/$cname.txt" ]; then golden "tui/$cname.txt" "$S/$cname.txt"; else
			bad "$cname" "no screen: the explorer stopped before"; fi
		return ;;
	esac
	if [ ! -f "$S/$i.txt" ]; then
		bad "$cname" "no screen: the explorer stopped before"
	elif grep -qF -- "$text" "$S/$i.txt"; then
		if [ "$kind" = has ]; then ok "$cname"; else bad "$cname" "screen shows '$text'"; fi
	elif [ "$kind" = has ]; then
		bad "$cname" "screen lacks '$text': $(tr -s ' ' <"$S/$i.txt" | head -c 400 | tr '\n' '|')"
	else
		ok "$cname"
	fi
}

# The "row/rows" at the end of the status line of a saved screen.
tui_row_of() { tail -1 "$S/$1.txt" | awk '{print $NF}'; }

# ---- tmux ----------------------------------------------------------------

TUI_L="hloscope-test-$$"
TM() { tmux -L "$TUI_L" "$@"; }

tui_tmux() {
	need tmux || return 1 # a SKIP line (tools/deps.sh installs tmux)
	trap 'tmux -L "$TUI_L" kill-server >/dev/null 2>&1' EXIT
	printf 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 0\n' >"$T/tmux.conf"
}

tui_capture() { TM capture-pane -p -t t 2>/dev/null; }

# Polls (every 20 ms, up to 20 s: sanitizer builds on a busy machine) until
# the screen contains $1; returns 1 if it never does or the explorer ended
# without showing it.
tui_until() {
	i=0
	while [ $i -lt 1000 ]; do
		done_=0
		[ -f "$T/rc" ] && done_=1
		tui_capture | grep -qF -- "$1" && return 0
		[ $done_ = 1 ] && return 1
		sleep 0.02
		i=$((i + 1))
	done
	return 1
}

tui_start() {
	dir=$1
	shift
	TM kill-server >/dev/null 2>&1
	: >"$T/stderr"
	rm -f "$T/rc"
	# sh stays the pane's process and records the status (tmux's own
	# pane_dead_status is not reliable); it ignores SIGINT so that Ctrl-C
	# reaches only the explorer, which installs its own handler.
	TM -f "$T/tmux.conf" new-session -d -s t -x "$TUI_W" -y "$TUI_H" \
		"trap '' INT QUIT; cd '$dir' && env -u NO_COLOR TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 ${XENV:-} '$HLOSCOPE' $* 2>>'$T/stderr'; echo \$? >'$T/rc.tmp'; mv '$T/rc.tmp' '$T/rc'"
	# the status line's help is drawn last
	tui_until "?:help"
}

tui_send() {
	for k in "$@"; do
		TM send-keys -t t "$k"
	done
}

tui_wait() {
	if tui_until "$2"; then ok "$1"; else
		bad "$1" "screen lacks '$2': $(tui_capture | tr -s ' ' | head -c 400 | tr '\n' '|')"
	fi
}

# The explorer's pid: the child of the pane's shell.
tui_pid() { ps -o pid= --ppid "$(TM display -p -t t '#{pane_pid}')" | tr -d ' '; }

tui_finish() {
	name=$1 want=$2 i=0
	while [ $i -lt 1000 ] && [ ! -f "$T/rc" ]; do
		sleep 0.02
		i=$((i + 1))
	done
	got=$(cat "$T/rc" 2>/dev/null)
	alt=$(TM display -p -t t '#{alternate_on}' 2>/dev/null)
	if [ "$got" != "$want" ]; then
		bad "$name" "exit status '$got', wanted $want; stderr: $(head -c 300 "$T/stderr")"
	elif [ "$alt" != 0 ]; then
		bad "$name" "terminal left in the alternate screen"
	elif ! no_sanitizer_report "$T/stderr"; then
		bad "$name" "sanitizer report: $(grep -m3 -E 'ERROR|runtime error' "$T/stderr")"
	else
		ok "$name"
	fi
	TM kill-server >/dev/null 2>&1
}
