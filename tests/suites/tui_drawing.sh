# The explorer's graph drawing (tui/view_draw.c), scripted at 100x30.  Its
# screens are Graphviz's layout drawn in cells, so a Graphviz upgrade may
# move them: their goldens live apart in tests/golden/tui/drawing/, and
# the other checks read only the header lines.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

UNET=npz/layout/xla/default/train/unet3d.npz

# Around node 8; moves, re-centring, export, the node under the cursor.
tui_run "drawing session ends cleanly" "$DATA" "$UNET" <<'EOF'
t
:
type goto 8
Enter
v
golden drawing/around_8
k
save moved
Enter
save recentred
:
type export $T/region.dot
Enter
:
type export $T/region.txt
Enter
has export refuses an unknown format => must end in .dot
i
save detail
Q
EOF
cur=$(sed -n 's/.*cursor: node \([0-9]*\).*/\1/p' "$S/moved.txt" | head -1)
if [ -n "$cur" ] && [ "$cur" != 8 ]; then ok "the cursor moves to another node"; else
	bad "the cursor moves to another node" "cursor '$cur'"; fi
if grep -qF "2 steps around node $cur" "$S/recentred.txt"; then ok "Enter re-centres on the cursor"; else
	bad "Enter re-centres on the cursor" "$(sed -n 2p "$S/recentred.txt")"; fi
if [ -f "$T/region.dot" ] && grep -q digraph "$T/region.dot"; then ok "e exports the drawing as DOT"; else
	bad "e exports the drawing as DOT" "no $T/region.dot"
fi
if grep -qF "node $cur  " "$S/detail.txt"; then ok "i opens the node under the cursor"; else
	bad "i opens the node under the cursor" "$(sed -n 2p "$S/detail.txt")"; fi

# x draws the called computations collapsed into boxes in full, and again
# collapses them.
tui_run "x expands and collapses called computations" "$DATA" "$UNET" <<'EOF2'
t
:
type goto 2546
Enter
v
x
has called computations drawn in full
x
has 2 called computations collapsed into boxes
Q
EOF2
