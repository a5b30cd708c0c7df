# The explorer and its terminal: sizes, colours and NO_COLOR, bad files,
# completion, usage errors, the script mode itself; and, in a real terminal
# (tmux), what needs one: resize signals, mouse escapes, signals and exit
# paths restoring the terminal.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

N=npz
UNET=$N/layout/xla/default/train/unet3d.npz
TILE=$N/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz

# Sizes: too small gets a message, growing back redraws at once.
tui_run "resize session ends cleanly" "$DATA" "$UNET" <<'EOF'
t
resize 50 12
golden too_small
j
has keys are ignored while too small => this terminal is 50x12
q
has q does not quit while too small (only Q does) => this terminal is 50x12
resize 100 30
KEY_RESIZE
golden nodes
resize 130 40
golden nodes_130x40
resize 100 30
Q
EOF

# Colours by opcode category, none under NO_COLOR (attributes only).
tui_run "colour session ends cleanly" "$DATA" "$UNET" <<'EOF'
save color.ans
Q
EOF
if grep -q "$(printf '\033')\[[0-9;]*38;5;" "$S/color.ans" || grep -q "$(printf '\033')\[[0-9;]*3[0-7]m" "$S/color.ans"; then
	ok "colours are used"
else
	bad "colours are used" "no colour escapes in the capture"
fi
XENV="NO_COLOR=1" tui_run "NO_COLOR session ends cleanly" "$DATA" "$UNET" <<'EOF'
save nocolor.ans
golden nocolor_overview
Q
EOF
if grep -qE "$(printf '\033')\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]" "$S/nocolor.ans"; then
	bad "NO_COLOR: no colour escapes" "$(grep -m1 -o "$(printf '\033')\[[0-9;]*m" "$S/nocolor.ans" | od -c | head -2)"
else
	ok "NO_COLOR: no colour escapes"
fi
if grep -q "$(printf '\033')\[[0-9;]*7m" "$S/nocolor.ans" || grep -q "$(printf '\033')\[[0-9;]*1m" "$S/nocolor.ans"; then
	ok "NO_COLOR: cursor and headers still stand out"
else
	bad "NO_COLOR: cursor and headers still stand out" "no bold or reverse"
fi

# The pane with the focus stands out without colours too: its title is
# reversed and marked, the other one dim.
XENV="NO_COLOR=1" tui_run "NO_COLOR focus session ends cleanly" "$DATA" "$UNET" <<'EOF'
:show 603
save focus_nbrs.ans
Tab
save focus_feats.ans
Q
EOF
E=$(printf '\033')
# the pane titles of screen $1 (line 7: node detail of an .npz node has five header lines): "reversed:NAME" or "dim:NAME", one a line
pane_titles() {
	sed -n 7p "$S/$1.ans" | grep -oE "$E\[[0-9;]*m(▶ |  )[A-Z][a-z-]*" |
		sed -E "s/^$E\[0;2m  /dim:/; s/^$E\[[0-9;]*7m▶ /reversed:/"
}
if [ "$(pane_titles focus_nbrs | tr '\n' ' ')" = "dim:Non-zero reversed:Operands " ]; then
	ok "NO_COLOR: the focused pane's title is reversed and marked, the other dim"
else
	bad "NO_COLOR: the focused pane's title is reversed and marked, the other dim" \
		"$(pane_titles focus_nbrs | tr '\n' ' ')"
fi
if [ "$(pane_titles focus_feats | tr '\n' ' ')" = "reversed:Non-zero dim:Operands " ]; then
	ok "NO_COLOR: Tab moves the marks to the other pane"
else
	bad "NO_COLOR: Tab moves the marks to the other pane" "$(pane_titles focus_feats | tr '\n' ' ')"
fi

# A 16-colour terminal works too, with the basic colours.
XENV="TERM=screen" tui_run "16-colour session ends cleanly" "$DATA" "$UNET" <<'EOF'
has screen (8/16 colours) draws the overview => unet3d  layout graph
save screen.ans
Q
EOF
if grep -q "$(printf '\033')\[[0-9;]*;3[0-7][;m]" "$S/screen.ans" && ! grep -q "38;5;" "$S/screen.ans"; then
	ok "16 colours: basic colour escapes only"
else
	bad "16 colours: basic colour escapes only" "$(grep -m1 -o "$(printf '\033')\[[0-9;]*m" "$S/screen.ans" | od -c | head -2)"
fi

tui_run "q on the last view quits" "$DATA" "$UNET" <<'EOF'
t
Enter
q
q
q
EOF

# Bad files: a message, never a crash.
mkdir -p "$T/set/good" "$T/set/bad"
cp "$DATA/$TILE" "$T/set/good/inception.npz"
cp "$DATA/$TILE" "$T/set/good/réseau-λ.npz"
printf 'not a zip at all' >"$T/set/bad/garbage.npz"
head -c 3000 "$DATA/$UNET" >"$T/set/bad/truncated.npz"
# (130 wide: the status column follows the four runtime columns)
tui_run "bad-file dataset session ends cleanly" "$T" set <<'EOF'
resize 130 30
golden dataset_bad_files
Enter
has Enter on a bad file shows the loader's message => bad/garbage.npz: 
j
Enter
has the truncated file too => bad/truncated.npz: 
G
Enter
has a good file still opens => réseau-λ  tile graph
q
k
Enter
has wide characters in names => inception  tile graph
Q
EOF

# :open of a bad file inside the explorer: message, the view stays.
tui_run ":open session ends cleanly" "$DATA" "$UNET" <<'EOF'
:
type open $T/set/bad/garbage.npz
Enter
has :open of a bad file shows the message => garbage.npz
has the current view stays => unet3d  layout graph
:
type open $T/set/good/inception.npz
Enter
has :open of a good file opens it => inception  tile graph
Q
EOF

# The command line completes command names, columns and files with Tab.
tui_run "completion session ends cleanly" "$DATA" "$UNET" <<'EOF'
t
:
type sor
Tab
has Tab completes a command name => :sort
has Tab lists the candidates => sort  sort-desc
type  use
Tab
has Tab completes a column name => :sort users
Enter
has the completed command runs => sorted by users, ascending
Q
EOF

# The script mode itself: errors name the script's line.
printf 't\n\n# a comment\nFrob\n' >"$T/bad.script"
HLOSCOPE_SCRIPT="$T/bad.script" expect_status 1 "a script's unknown key: exit 1" "$HLOSCOPE" "$DATA/$UNET"
if grep -q "bad.script:4: unknown key 'Frob'" "$T/err"; then ok "a script's error names its line"; else
	bad "a script's error names its line" "$(cat "$T/err")"; fi
printf 't\nQ\nj\n' >"$T/late.script"
HLOSCOPE_SCRIPT="$T/late.script" expect_status 1 "script lines after the explorer quit: exit 1" "$HLOSCOPE" "$DATA/$UNET"
if grep -q "late.script:3: not run: the explorer quit at line 2" "$T/err"; then ok "lines not run are named"; else
	bad "lines not run are named" "$(cat "$T/err")"; fi
printf '/\n:quit\n' >"$T/prompt.script"
HLOSCOPE_SCRIPT="$T/prompt.script" expect_status 1 "a command line while a prompt is open: exit 1" "$HLOSCOPE" "$DATA/$UNET"
if grep -q "prompt.script:2: a command line while the prompt" "$T/err"; then ok "the prompt error names its line"; else
	bad "the prompt error names its line" "$(cat "$T/err")"; fi
printf ':save-display %s/no/such/dir/x.txt\n' "$T" >"$T/save.script"
HLOSCOPE_SCRIPT="$T/save.script" expect_status 1 "an unwritable screen file: exit 1" "$HLOSCOPE" "$DATA/$UNET"
HLOSCOPE_SCRIPT="$T/nope.script" expect_status 1 "a missing script: exit 1" "$HLOSCOPE" "$DATA/$UNET"
printf 'Q\n' >"$T/q.script"
HLOSCOPE_SCRIPT="$T/q.script" HLOSCOPE_KEYS=Q expect_status 1 "a script and keys at once: exit 1" "$HLOSCOPE" "$DATA/$UNET"
tui_run ":save-display from the command line" "$DATA" "$UNET" <<'EOF'
:
type save-display $T/typed.txt
Enter
has saving says where => saved the screen to
Q
EOF
if [ -f "$T/typed.txt" ] && [ "$(wc -l <"$T/typed.txt")" -eq 30 ] && grep -q '^ unet3d  layout graph' "$T/typed.txt" &&
	! grep -q 'save-display' "$T/typed.txt"; then
	ok ":save-display writes the screen without the prompt"
else
	bad ":save-display writes the screen without the prompt" "$(head -c 300 "$T/typed.txt" 2>&1)"
fi

# Before the terminal is touched: bad files, usage, no terminal.
expect_status 2 "a bad file: exit 2" "$HLOSCOPE" "$T/set/bad/garbage.npz"
if grep -q "garbage.npz" "$T/err"; then ok "a bad file: message names it"; else bad "a bad file: message names it" "$(cat "$T/err")"; fi
expect_status 2 "a truncated file: exit 2" "$HLOSCOPE" explore "$T/set/bad/truncated.npz"
expect_status 2 "a missing file: exit 2" "$HLOSCOPE" explore "$T/nope.npz"
expect_status 1 "explore without a path: exit 1" "$HLOSCOPE" explore
expect_status 1 "explore with an unknown option: exit 1" "$HLOSCOPE" explore --frob "$DATA/$UNET"
expect_status 1 "explore with two paths: exit 1" "$HLOSCOPE" explore "$DATA/$UNET" "$DATA/$TILE"
expect_status 1 "explore --model without a file: exit 1" "$HLOSCOPE" explore "$DATA/$UNET" --model
expect_status 2 "explore --model with a bad model file: exit 2" "$HLOSCOPE" explore "$DATA/$UNET" --model "$T/set/bad/garbage.npz"
expect_status 0 "explore --help" "$HLOSCOPE" explore --help
expect_status 1 "no terminal: exit 1" "$HLOSCOPE" "$DATA/$UNET" </dev/null
if grep -q "needs a terminal" "$T/err"; then ok "no terminal: message"; else bad "no terminal: message" "$(cat "$T/err")"; fi
HLOSCOPE_KEYS='<Nope>' expect_status 1 "bad scripted key name: exit 1" "$HLOSCOPE" "$DATA/$UNET"


# ---- In a real terminal --------------------------------------------------
tui_tmux || exit 0

# Resize signals and mouse escapes: the screen follows the terminal, a
# click selects the row under it, the wheel scrolls.
tui_start "$DATA" "$UNET"
tui_send t
tui_wait "t opens the node table" "hloscope › unet3d › Nodes"
TM resize-window -t t -x 50 -y 12
tui_wait "a small terminal gets a message" "this terminal is 50x12"
TM resize-window -t t -x 100 -y 30
tui_wait "growing back redraws" "1/2774"
# xterm X10 encoding: ESC [ M button+32 col+33 row+33; row 12 is the 10th data row
TM send-keys -t t -l "$(printf '\033[M &-')"
TM send-keys -t t -l "$(printf '\033[M#&-')"
tui_wait "a click selects the row" " 10/2774"
TM send-keys -t t -l "$(printf '\033[Ma&-')"
tui_wait "the wheel scrolls down" " 13/2774"
TM send-keys -t t -l "$(printf '\033[Ma&-')"
tui_wait "the wheel scrolls down again" " 16/2774"
TM send-keys -t t -l "$(printf '\033[M`&-')"
tui_wait "the wheel scrolls up" " 13/2774"
tui_send Q
tui_finish "Q restores the terminal, exit 0" 0

# Signals: the terminal is restored and the status tells the signal.
tui_start "$DATA" "$UNET"
tui_send t
tui_wait "the explorer runs" "hloscope › unet3d › Nodes"
kill -TERM "$(tui_pid)"
tui_finish "SIGTERM restores the terminal, exit 143" 143
tui_start "$DATA" "$UNET"
tui_send C-c
tui_finish "Ctrl-C restores the terminal, exit 130" 130

# Scripted keys in the terminal and bench timings (what bench/tui.sh uses).
XENV="HLOSCOPE_BENCH=$T/bench.log HLOSCOPE_KEYS='tjjG]/conv<Enter>n'" tui_start "$DATA" "$UNET"
tui_finish "scripted keys run and quit" 0
if grep -q '^first_paint_ms ' "$T/bench.log" && [ "$(grep -c '^key ' "$T/bench.log")" -eq 7 ]; then
	ok "bench log: first paint and one line per key"
else
	bad "bench log: first paint and one line per key" "$(head -c 300 "$T/bench.log" 2>&1)"
fi
