#!/bin/sh
# tools/screenshots.sh - regenerates screenshots/*.png from real runs of the
# explorer: scripted keys in a detached tmux (120x36, 256 colours), the
# screen captured with its colours (capture-pane -e), drawn in ImageMagick's
# vector format by tools/ansi2mvg.py and rendered to PNG by ImageMagick.  Runs on the demo
# data (`hloscope synth`), on a real file from $DATA and on real HLO text
# (tests/data/hlo).
set -u
: "${PY:=/usr/bin/python3}" "${DATA:=$(pwd)/tests/data/tpugraphs}"
HS=${HLOSCOPE:-$(pwd)/hloscope}
DEMO=${DEMO_DIR:-$(pwd)/build/screenshots-demo}
OUT=$(pwd)/screenshots
COLS=120
ROWS=36
L="hloscope-shots-$$"
T=$(mktemp -d "${TMPDIR:-/tmp}/hloscope-shots.XXXXXX")
trap 'tmux -L "$L" kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT INT TERM

for tool in tmux convert; do
	command -v $tool >/dev/null || { echo "screenshots: $tool is missing (tools/deps.sh)" >&2; exit 1; }
done
[ -x "$HS" ] || { echo "screenshots: no $HS (make hloscope)" >&2; exit 1; }
if [ ! -d "$DEMO" ]; then
	"$HS" synth "$DEMO" >/dev/null || { echo "screenshots: hloscope synth failed" >&2; exit 1; }
fi
mkdir -p "$OUT"

state() { tmux -L "$L" capture-pane -e -p -t s 2>/dev/null; }
settle() {
	prev="" i=0
	while [ $i -lt 200 ]; do
		sleep 0.1
		cur=$(state)
		[ "$cur" = "$prev" ] && [ -n "$(printf '%s' "$cur" | tr -d ' \n')" ] && return 0
		prev=$cur
		i=$((i + 1))
	done
}

# shot NAME DIR ARGS KEYS...: runs `hloscope ARGS` (words: a path, or a
# command such as "diff a.hlo b.hlo"); KEYS are tmux key names; "=TEXT"
# types TEXT.
shot() {
	name=$1 dir=$2 path=$3
	shift 3
	tmux -L "$L" kill-server >/dev/null 2>&1
	tmux -L "$L" -f /dev/null new-session -d -s s -x $COLS -y $ROWS \
		"cd '$dir' && exec env -u NO_COLOR TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 '$HS' $path"
	tmux -L "$L" set-option -t s status off >/dev/null
	settle
	for k in "$@"; do
		case $k in
		=*) tmux -L "$L" send-keys -t s -l "${k#=}" ;;
		*) tmux -L "$L" send-keys -t s "$k" ;;
		esac
		settle
	done
	state >"$T/$name.ans"
	tmux -L "$L" send-keys -t s Q
	"$PY" "$(dirname "$0")/ansi2mvg.py" $COLS $ROWS <"$T/$name.ans" >"$T/$name.mvg" &&
		convert "mvg:$T/$name.mvg" "$T/$name.png" &&
		mv "$T/$name.png" "$OUT/$name.png" && echo "screenshots/$name.png"
}

UNET=npz/layout/xla/default/train/unet3d.npz
first_demo=$(cd "$DEMO" && find . -name '*.npz' | sort | grep layout | grep train | head -1)

shot demo-dataset "$DEMO" . l l l l l ']' g
shot demo-overview "$DEMO" "$first_demo"
shot demo-configs "$DEMO" "$first_demo" c
shot real-overview "$DATA" "$UNET"
shot real-nodes "$DATA" "$UNET" t l l l l l l l ']' g
shot real-node "$DATA" "$UNET" t : "=goto 603" Enter Enter
shot real-configs "$DATA" "$UNET" c
shot real-drawing "$DATA" "$UNET" t : "=goto 266" Enter v
shot real-query "$DATA" "$UNET" : "=count by opcode where configurable or users > 4" Enter
shot real-help "$DATA" "$UNET" t '?'
HLO=$(pwd)/tests/data/hlo
BERT=bert_dp_graph_3_SyncTensorsGraph.hlo
shot hlo-nodes "$HLO" "$BERT" t : "=goto 1000" Enter
shot hlo-node "$HLO" "$BERT" t : "=goto 1000" Enter i
# The model's own structure: i3d's namespaces, repeated inception blocks
# folded, with the bundled per-op profile as a column.
I3D=i3d_tf_xla_cluster_1.hlo
shot hlo-layers "$HLO" "$I3D --data $(pwd)/tests/data/profile/i3d_tf_xla_cluster_1.profile.csv" y '*'
# Two modules: a real one and a copy with one opcode swapped and every
# instruction renamed (tests/hlo/mutate_diff.py), matched by structure.
mkdir -p "$T/diff"
"$PY" tests/hlo/mutate_diff.py "$HLO/$BERT" "$T/diff" >/dev/null &&
	cp "$HLO/$BERT" "$T/diff/" && shot hlo-diff "$T/diff" "diff $BERT renamed_opcode.hlo" ||
	{ echo "screenshots: the diff copies failed" >&2; exit 1; }
# Not the explorer: `hloscope dot`'s own PNG of a layer, filled by the
# bundled per-op profile (one box per child namespace, repeats folded).
"$HS" dot "$HLO/i3d_tf_xla_cluster_1.hlo" --layer RGB/inception_i3d \
	--data tests/data/profile/i3d_tf_xla_cluster_1.profile.csv --heat time_us \
	-o "$OUT/real-layer-heat.png" 2>/dev/null && echo "screenshots: real-layer-heat.png" ||
	{ echo "screenshots: hloscope dot --layer failed" >&2; exit 1; }
