# The explorer and its terminal: resize, too small, mouse, colours and
# NO_COLOR, signals and exit paths, bad files, usage errors.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

N=npz
UNET=$N/layout/xla/default/train/unet3d.npz
TILE=$N/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz

# Resize: too small gets a message, growing back redraws at once.
tui_start "$DATA" "$UNET"
tui_keys t
tui_resize 50 12
tui_screen too_small
tui_keys j
tui_has "keys are ignored while too small" "this terminal is 50x12"
tui_resize 100 30
tui_screen nodes
tui_resize 130 40
tui_screen nodes_130x40
tui_resize 100 30
tui_keys Q
tui_finish "resize session ends cleanly" 0

# Mouse: a click selects the row under it, the wheel scrolls.
tui_start "$DATA" "$UNET"
tui_keys t
# xterm X10 encoding: ESC [ M button+32 col+33 row+33; row 12 is the 10th data row
TM send-keys -t t -l "$(printf '\033[M &-')"
TM send-keys -t t -l "$(printf '\033[M#&-')"
tui_settle
tui_has "a click selects the row" " 10/2774"
TM send-keys -t t -l "$(printf '\033[Ma&-')"
tui_settle
tui_has "the wheel scrolls down" " 13/2774"
TM send-keys -t t -l "$(printf '\033[M`&-')"
tui_settle
tui_has "the wheel scrolls up" " 10/2774"
tui_keys Q
tui_finish "mouse session ends cleanly" 0

# Colours by opcode category, none under NO_COLOR (attributes only).
tui_start "$DATA" "$UNET"
TM capture-pane -e -p -t t >"$T/color.txt"
if grep -q "$(printf '\033')\[[0-9;]*38;5;" "$T/color.txt" || grep -q "$(printf '\033')\[3[0-7]m" "$T/color.txt"; then
	ok "colours are used"
else
	bad "colours are used" "no colour escapes in the capture"
fi
tui_keys Q
tui_finish "colour session ends cleanly" 0
XENV="NO_COLOR=1" tui_start "$DATA" "$UNET"
TM capture-pane -e -p -t t >"$T/nocolor.txt"
if grep -qE "$(printf '\033')\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]" "$T/nocolor.txt"; then
	bad "NO_COLOR: no colour escapes" "$(grep -m1 -o "$(printf '\033')\[[0-9;]*m" "$T/nocolor.txt" | od -c | head -2)"
else
	ok "NO_COLOR: no colour escapes"
fi
if grep -q "$(printf '\033')\[[0-9;]*7m" "$T/nocolor.txt" || grep -q "$(printf '\033')\[[0-9;]*1m" "$T/nocolor.txt"; then
	ok "NO_COLOR: cursor and headers still stand out"
else
	bad "NO_COLOR: cursor and headers still stand out" "no bold or reverse"
fi
tui_screen nocolor_overview
tui_keys Q
tui_finish "NO_COLOR session ends cleanly" 0

# A 16-colour terminal works too.
XENV="TERM=screen" tui_start "$DATA" "$UNET"
tui_has "screen (8/16 colours) draws the overview" "unet3d  layout graph"
tui_keys Q
tui_finish "16-colour session ends cleanly" 0

# Signals: the terminal is restored and the status tells the signal.
tui_start "$DATA" "$UNET"
tui_keys t
kill -TERM "$(tui_pid)"
tui_finish "SIGTERM restores the terminal, exit 143" 143
tui_start "$DATA" "$UNET"
tui_keys C-c
tui_finish "Ctrl-C restores the terminal, exit 130" 130
tui_start "$DATA" "$UNET"
tui_keys t Enter q q q
tui_finish "q on the last view quits" 0

# Bad files: a message, never a crash.
mkdir -p "$T/set/good" "$T/set/bad"
cp "$DATA/$TILE" "$T/set/good/inception.npz"
cp "$DATA/$TILE" "$T/set/good/réseau-λ.npz"
printf 'not a zip at all' >"$T/set/bad/garbage.npz"
head -c 3000 "$DATA/$UNET" >"$T/set/bad/truncated.npz"
tui_start "$T" set
tui_screen dataset_bad_files
tui_keys Enter
tui_has "Enter on a bad file shows the loader's message" "bad/garbage.npz: "
tui_keys j Enter
tui_has "the truncated file too" "bad/truncated.npz: "
tui_keys G Enter
tui_has "a good file still opens" "réseau-λ  tile graph"
tui_keys q k Enter
tui_has "wide characters in names" "inception  tile graph"
tui_keys Q
tui_finish "bad-file dataset session ends cleanly" 0

# :open of a bad file inside the explorer: message, the view stays.
tui_start "$DATA" "$UNET"
tui_keys :
tui_type "open $T/set/bad/garbage.npz"
tui_keys Enter
tui_has ":open of a bad file shows the message" "garbage.npz"
tui_has "the current view stays" "unet3d  layout graph"
tui_keys :
tui_type "open $T/set/good/inception.npz"
tui_keys Enter
tui_has ":open of a good file opens it" "inception  tile graph"
tui_keys Q
tui_finish ":open session ends cleanly" 0

# The command line completes command names, columns and files with Tab.
tui_start "$DATA" "$UNET"
tui_keys t :
tui_type 'sor'
tui_keys Tab
tui_has "Tab completes a command name" ":sort"
tui_has "Tab lists the candidates" "sort  sort-desc"
tui_type ' use'
tui_keys Tab
tui_has "Tab completes a column name" ":sort users"
tui_keys Enter
tui_has "the completed command runs" "sorted by users, ascending"
tui_keys Q
tui_finish "completion session ends cleanly" 0

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

# Scripted keys and bench timings (what bench/tui.sh uses).
XENV="HLOSCOPE_BENCH=$T/bench.log HLOSCOPE_KEYS='tjjG]/conv<Enter>n'" tui_start "$DATA" "$UNET"
tui_finish "scripted keys run and quit" 0
if grep -q '^first_paint_ms ' "$T/bench.log" && [ "$(grep -c '^key ' "$T/bench.log")" -eq 7 ]; then
	ok "bench log: first paint and one line per key"
else
	bad "bench log: first paint and one line per key" "$(head -c 300 "$T/bench.log" 2>&1)"
fi
