# Sourced by tests/suites/tui_*.sh (after tests/lib.sh): drives the real
# explorer in a private tmux server at a fixed size and compares screens.
#
#   tui_start DIR ARGS...   run "hloscope ARGS" in DIR (relative paths keep the
#                           goldens free of machine paths); XENV adds env vars
#   tui_keys KEY...         tmux key names (Enter, Tab, C-c, j, ...), then settle
#   tui_type TEXT           literal text, then settle
#   tui_screen NAME         capture and compare with tests/golden/tui/NAME.txt
#   tui_has NAME TEXT       the screen contains TEXT
#   tui_finish NAME STATUS  wait for the program to exit with STATUS, no
#                           sanitizer report, terminal left in normal mode
TUI_L="hloscope-test-$$"
TUI_W=100
TUI_H=30
TM() { tmux -L "$TUI_L" "$@"; }
trap 'tmux -L "$TUI_L" kill-server >/dev/null 2>&1' EXIT
printf 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 0\n' >"$T/tmux.conf"

if ! command -v tmux >/dev/null 2>&1; then
	bad "tmux" "tmux is not installed (tools/deps.sh installs it)"
	exit 0
fi

tui_capture() { TM capture-pane -p -t t 2>/dev/null; }
# With attributes: a key may change only where the highlight is.
tui_state() { TM capture-pane -e -p -t t 2>/dev/null; }

# Waits until the screen is the same on three polls 50 ms apart (and, with
# an argument, non-blank: the program has drawn).
tui_settle() {
	prev="" i=0 same=0
	while [ $i -lt 300 ]; do
		sleep 0.05
		cur=$(tui_state)
		if [ "$cur" = "$prev" ] && { [ $# -eq 0 ] || [ -n "$(printf '%s' "$cur" | tr -d ' \n')" ]; }; then
			same=$((same + 1))
			[ $same -ge 2 ] && return 0
		else
			same=0
		fi
		prev=$cur
		i=$((i + 1))
	done
}

# Waits (up to 6 s: sanitizer builds on a loaded machine) for the screen
# to differ from $1, then for it to settle.
tui_wait_change() {
	i=0
	while [ $i -lt 120 ] && [ "$(tui_state)" = "$1" ]; do
		sleep 0.05
		i=$((i + 1))
	done
	tui_settle
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
	tui_settle drawn
}

# One key at a time, each waited for (a key may leave the screen as it is:
# then the wait ends after 6 s).
tui_keys() {
	for k in "$@"; do
		before=$(tui_state)
		TM send-keys -t t "$k"
		tui_wait_change "$before"
	done
}

tui_type() {
	before=$(tui_state)
	TM send-keys -t t -l "$1"
	tui_wait_change "$before"
}

tui_resize() {
	before=$(tui_state)
	TM resize-window -t t -x "$1" -y "$2"
	tui_wait_change "$before"
}

tui_screen() {
	tui_capture >"$T/$1.txt"
	golden "tui/$1.txt" "$T/$1.txt"
}

tui_has() {
	if tui_capture | grep -qF -- "$2"; then ok "$1"; else
		bad "$1" "screen lacks '$2': $(tui_capture | tr -s ' ' | head -c 400 | tr '\n' '|')"
	fi
}

# The "row/rows" at the end of the status line.
tui_row() { tui_capture | tail -1 | awk '{print $NF}'; }

# The explorer's pid: the child of the pane's shell.
tui_pid() { ps -o pid= --ppid "$(TM display -p -t t '#{pane_pid}')" | tr -d ' '; }

tui_finish() {
	name=$1 want=$2 i=0
	while [ $i -lt 150 ] && [ ! -f "$T/rc" ]; do
		sleep 0.1
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
