# render_fit: pictures a viewer can open (issue 11, fault 11).  On the real
# unet3d file: every PNG side stays within 16,000 px (read from the IHDR
# chunk), stderr says when the PNG had to change and points at SVG, SVG keeps
# the full size; compare pictures carry a legend and each changed node's
# layouts A -> B; the explorer's export says so in its status line.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

UNET="$DATA/npz/layout/xla/default/train/unet3d.npz"
LIMIT=16000

# png_check NAME FILE MAXRATIO: "W H" of the PNG within the limit and, when
# MAXRATIO is given, no more elongated than that.
png_check() {
	"$PY" - "$2" "$LIMIT" "${3:-0}" <<'EOF' >"$T/png.out" 2>&1
import struct, sys
b = open(sys.argv[1], 'rb').read(24)
if b[:8] != b'\x89PNG\r\n\x1a\n' or b[12:16] != b'IHDR':
    sys.exit('not a PNG')
w, h = struct.unpack('>II', b[16:24])
lim, ratio = int(sys.argv[2]), float(sys.argv[3])
print(w, h)
if w > lim or h > lim:
    sys.exit('%d x %d px: over %d px' % (w, h, lim))
if ratio and max(w, h) > ratio * min(w, h):
    sys.exit('%d x %d px: more than %g times as long as wide' % (w, h, ratio))
EOF
	if [ $? -eq 0 ]; then ok "$1: $(head -1 "$T/png.out") px"; else bad "$1" "$(tail -1 "$T/png.out")"; fi
}

# 1. The compare picture of the issue: 12,808 x 809 px top to bottom (more
#    with its values), a strip; drawn left to right it is about square.
"$HLOSCOPE" dot "$UNET" --configurable --compare best worst -o "$T/diff.png" 2>"$T/err"
[ $? -eq 0 ] && ok "compare png written" || bad "compare png written" "$(head -c 300 "$T/err")"
png_check "compare png within the limit and not a strip" "$T/diff.png" 4
grep -q "diff.png: drawn left to right, .* px: top to bottom it is [0-9]* x [0-9]* px, a strip (an .svg keeps it top to bottom)" "$T/err" &&
	ok "compare png: stderr says it was turned and offers SVG" ||
	bad "compare png: stderr says it was turned" "$(head -c 300 "$T/err")"

# 2. A wide region (a 224-way fan-out, radius 4, large fan-in not collapsed):
#    over the limit top to bottom, within it left to right; its SVG keeps the
#    full size.
"$HLOSCOPE" dot "$UNET" --around 2500 --radius 4 --max-operands 0 -o "$T/wide.png" 2>"$T/err"
png_check "radius-4 png within the limit" "$T/wide.png"
grep -q "wide.png: drawn left to right, .*over the 16000 px limit (an .svg keeps it top to bottom)" "$T/err" &&
	ok "radius-4 png: stderr says why" || bad "radius-4 png: stderr says why" "$(head -c 300 "$T/err")"
"$HLOSCOPE" dot "$UNET" --around 2500 --radius 4 --max-operands 0 -o "$T/wide.svg" 2>"$T/err"
w=$(sed -n 's/^<svg width="\([0-9]*\)pt".*/\1/p' "$T/wide.svg" | head -1)
if [ -n "$w" ] && [ "$w" -gt 12000 ] && [ ! -s "$T/err" ]; then ok "radius-4 svg keeps the full size (${w}pt)"; else
	bad "radius-4 svg keeps the full size" "width '$w'; $(head -c 200 "$T/err")"; fi

# 3. A small PNG is the plain drawing, with nothing said.
"$HLOSCOPE" dot "$UNET" --around 603 -o "$T/small.png" 2>"$T/err"
png_check "small png" "$T/small.png"
[ ! -s "$T/err" ] && ok "small png: nothing on stderr" || bad "small png: nothing on stderr" "$(head -c 200 "$T/err")"

# 4. Compare pictures: a legend, and the layouts that change on each node.
"$HLOSCOPE" dot "$UNET" --around 603 --compare best worst -o "$T/cmp.dot" 2>"$T/err"
grep -q 'label="603: convolution \[cfg\]\\nbf16\[2,128,128,128,64\]{4,3,2,1,0}\\nkernel {3,4} → {4,3}"' "$T/cmp.dot" &&
	ok "compare: the changed node shows its kernel layout A -> B" ||
	bad "compare: the changed node shows its layouts" "$(grep -a -A4 '^		n603' "$T/cmp.dot" | tr '\n' ' ')"
grep -q 'highlight_legend.*blue border: the layout differs between A and B.*A = config 209 (best), B = config 986 (worst).*21 of 56 configurable nodes differ' "$T/cmp.dot" &&
	ok "compare: a legend names the border, the configs and the count" ||
	bad "compare: legend" "$(grep -a highlight_legend "$T/cmp.dot" | head -c 300)"
n=$(grep -c '→' "$T/cmp.dot")
[ "$n" -eq 2 ] && ok "compare: only the changed node (and the legend) carry values" ||
	bad "compare: only changed nodes carry values" "$n lines with an arrow"
"$HLOSCOPE" dot "$UNET" --around 603 -o "$T/plain.dot" 2>/dev/null
! grep -q '→\|highlight_legend' "$T/plain.dot" && ok "no compare: no legend, no values" ||
	bad "no compare: no legend, no values" "found in plain.dot"
"$HLOSCOPE" dot "$UNET" --around 603 --compare best worst -o "$T/cmp.svg" 2>"$T/err"
grep -q 'kernel {3,4} → {4,3}' "$T/cmp.svg" && grep -q 'blue border' "$T/cmp.svg" &&
	ok "compare svg: values and legend drawn" || bad "compare svg: values and legend" "$(head -c 200 "$T/err")"

# 5. The explorer: an export too wide says so in the status line; the export
#    of a comparison's drawing keeps its highlight, values and legend.
tui_run "explorer exports end cleanly" "$T" "$UNET" <<'EOF'
t
:
type export png configurable -o wide2.png
Enter
has the status line says the export was turned => drawn left to right
q
c
:
type compare best worst
Enter
Enter
:
type export cmp2.dot
Enter
has the compare drawing is written => wrote cmp2.dot
Q
EOF
png_check "explorer png within the limit" "$T/wide2.png"
grep -q 'highlight_legend' "$T/cmp2.dot" && grep -q '→' "$T/cmp2.dot" &&
	ok "explorer: a comparison's export has the legend and the values" ||
	bad "explorer: a comparison's export" "$(grep -c '→' "$T/cmp2.dot") arrows"
exit 0
