#!/bin/sh
# hloscope dot on the real files: golden DOT per region kind, every DOT read
# back with agmemread (node and edge counts), SVG well-formed, PNG signature
# and size, golden terminal drawings, and every bad argument.
. tests/lib.sh

D="$DATA/npz"
UNET="$D/layout/xla/default/train/unet3d.npz"
RNN="$D/layout/xla/random/train/openai_v0_rnn_optimized.npz"
NLP="$D/layout/nlp/random/test/23559853d9702baaaacbb0c83fd32266.npz"
T1="$D/tile/xla/test/0a3585c3e686065389227fa374175e48.npz"
T2="$D/tile/xla/test/0ac539372cc77cc6791794b369b984e1.npz"
COUNT="$ROOT/$HLOSCOPE_BUILD/tests/test_render"

# Expected "NODES EDGES" of the Graphviz graph from the --text header:
# region nodes + placeholders + collapsed computations (+ 1 legend with
# --heat), edges + call edges + placeholders + edges to and from collapsed
# computations.
expected_counts() { # header-file heat(0/1)
	sed -n '1{s/^.*: \([0-9]* nodes\)/\1/;p;}' "$1" | awk -v h="$2" '{
		n = 0; e = -1; m = 0; c = 0; l = 0; k = 0
		for (i = 1; i <= NF; i++) {
			w = $(i + 1); sub(/,$/, "", w)
			if (w == "nodes" && n == 0) n = $i
			else if (w ~ /^edges?$/ && e < 0) e = $i
			else if (w == "call") k = $i
			else if (w == "collapsed") {
				if ($(i + 2) ~ /^computation/) { c = $i; l = $(i + 5) }
				else m += $i
			}
		}
		print n + m + c + h, (e < 0 ? 0 : e) + k + m + l }'
}

# dot_case NAME FILE ARGS...: golden DOT, agmemread counts, golden text.
dot_case() {
	dc=$1 dc_file=$2
	shift 2
	dc_text=${DC_TEXT:-1}
	dc_heat=0
	case " $* " in *" --heat "*) dc_heat=1 ;; esac
	"$HLOSCOPE" dot "$dc_file" "$@" -o "$T/$dc.dot" --text >"$T/$dc.txt" 2>"$T/err"
	dc_rc=$?
	if [ "$dc_rc" -ne 0 ]; then
		bad "dot $dc" "exit $dc_rc: $(head -c 300 "$T/err")"
		return
	fi
	no_sanitizer_report "$T/err" || bad "dot $dc sanitizer" "$(head -c 300 "$T/err")"
	golden "render/$dc.dot" "$T/$dc.dot"
	# Drawings many screens wide are checked through their DOT only.
	[ "$dc_text" = 1 ] && golden "render/$dc.txt" "$T/$dc.txt"
	dc_want=$(expected_counts "$T/$dc.txt" "$dc_heat")
	dc_got=$("$COUNT" --count "$T/$dc.dot" | awk '{print $2, $3}')
	if [ -n "$dc_want" ] && [ "$dc_want" = "$dc_got" ]; then ok "dot $dc: agmemread counts $dc_got"; else
		bad "dot $dc: agmemread counts" "got '$dc_got', wanted '$dc_want'"
	fi
}

dot_case around_unet3d "$UNET" --around 1026 --radius 2
dot_case around_operands_tile "$T1" --around 35 --radius 3 --direction operands
dot_case around_users_nlp "$NLP" --around 12 --radius 2 --direction users
dot_case path_tile "$T2" --path 64 2
dot_case path_capped_tile "$T2" --path 64 2 --max-nodes 4
DC_TEXT=0
dot_case computation_rnn "$RNN" --computation 1
dot_case nodes_tile "$T2" --nodes 40-44,2
dot_case configurable_rnn "$RNN" --configurable
DC_TEXT=1
dot_case heat_tile "$T2" --path 64 2 --heat shape_dimensions_product
dot_case highlight_tile "$T1" --around 30 --radius 2 --highlight 28,31
dot_case cells_tile "$T2" --path 64 2 --cells

# Real HLO (text and HloModuleProto): nodes by name, labels with the
# instruction name, one cluster per HLO computation, called computations
# collapsed into one box each (--expand draws them), large fan-in collapsed.
H="$ROOT/tests/data/hlo"
SOFTMAX="$H/jit_f_softmax_allreduce_gpu_before_fusion.hlo"
dot_case hlo_collapsed "$SOFTMAX" --around all-reduce.1.0 --radius 2
dot_case hlo_expand_one "$SOFTMAX" --around all-reduce.1.0 --radius 2 --expand triton_softmax_computation.3
dot_case hlo_expand_all "$H/tpu_op_fusion.261.HloModuleProto.pb" --around fusion.261 --radius 1 --expand all
DC_TEXT=0
dot_case hlo_fan_in "$H/bert_dp_graph_3_SyncTensorsGraph.hlo" --around get-tuple-element.212 --radius 2
dot_case hlo_path "$H/graphsage_tf_cpu_benchmark.hlo" --path mul_2.1 shape.25
DC_TEXT=1
# A real HLO computation by name (--computation NAME): its nodes, its
# callees as boxes; an expanded callee brings its own callees as boxes.  A
# derived name on a bare .npz.  A plain number is still the split, the same
# drawing as --split.
DC_TEXT=1
dot_case hcomp_fusion "$SOFTMAX" --computation triton_softmax_computation.3
dot_case hcomp_entry_expand "$SOFTMAX" --computation main.38_spmd --expand triton_softmax_computation.3
dot_case hcomp_derived_unet3d "$UNET" --computation computation.62
"$HLOSCOPE" dot "$RNN" --split 1 -o "$T/split.dot" 2>"$T/err"
golden render/computation_rnn.dot "$T/split.dot"
# The query language's export draws the same computations and splits.
"$HLOSCOPE" query "$SOFTMAX" "export dot computation triton_softmax_computation.3 -o $T/qf.dot" >/dev/null 2>"$T/err"
golden render/hcomp_fusion.dot "$T/qf.dot"
"$HLOSCOPE" query "$UNET" "export dot computation computation.62 -o $T/qd.dot" >/dev/null 2>"$T/err"
golden render/hcomp_derived_unet3d.dot "$T/qd.dot"
"$HLOSCOPE" query "$RNN" "export dot split 1 force -o $T/qs.dot" >/dev/null 2>"$T/err"
golden render/computation_rnn.dot "$T/qs.dot"

# The collapsed box stands for the whole computation; --expand all draws
# the same region's nodes in full.
"$HLOSCOPE" dot "$H/tpu_op_fusion.261.HloModuleProto.pb" --around fusion.261 --radius 1 -o "$T/boxed.dot" 2>"$T/err"
if grep -q 'label="fused_computation.20.clone\\nfusion, 14 nodes"' "$T/boxed.dot" &&
	! grep -q 'label="subtract' "$T/boxed.dot"; then
	ok "fusion body collapsed into one box"
else
	bad "fusion body collapsed into one box" "$(grep -c label "$T/boxed.dot") labels; $(head -c 200 "$T/err")"
fi

# Heat from the analytic cost model (values owned by model/cost.c, so no
# golden): a legend node, per-node values in the labels, levels on screen.
if "$HLOSCOPE" dot "$UNET" --around 1026 --radius 2 --heat cost -o "$T/cost.dot" --text \
	>"$T/cost.txt" 2>"$T/err"; then
	n=$("$COUNT" --count "$T/cost.dot" | awk '{print $2}')
	if [ "$n" = 7 ] && grep -q 'cost (s) = ' "$T/cost.dot" && grep -q '^heat cost (s)' "$T/cost.txt" &&
		grep -q 'legend' "$T/cost.dot"; then
		ok "--heat cost: legend, labels and levels"
	else
		bad "--heat cost" "nodes '$n'; $(head -2 "$T/cost.txt" | tr '\n' '|')"
	fi
else
	bad "--heat cost" "$(head -c 300 "$T/err")"
fi

# Determinism: the same command twice gives the same bytes.
"$HLOSCOPE" dot "$RNN" --configurable -o "$T/a.dot" 2>/dev/null
"$HLOSCOPE" dot "$RNN" --configurable -o "$T/b.dot" 2>/dev/null
if cmp -s "$T/a.dot" "$T/b.dot"; then ok "DOT output is deterministic"; else
	bad "DOT output is deterministic" "two runs differ"
fi

# -T overrides the extension; "-o -" writes to stdout.
"$HLOSCOPE" dot "$T2" --path 64 2 -T dot -o "$T/typed.svg" 2>/dev/null
if head -c 7 "$T/typed.svg" | grep -q '^digraph'; then ok "-T dot overrides .svg"; else
	bad "-T dot overrides .svg" "$(head -c 60 "$T/typed.svg")"
fi
"$HLOSCOPE" dot "$T2" --path 64 2 -T dot -o - >"$T/stdout.dot" 2>"$T/err"
if cmp -s "$T/stdout.dot" "$T/typed.svg"; then ok "-o - writes DOT to stdout"; else
	bad "-o - writes DOT to stdout" "$(head -c 200 "$T/err")"
fi

# SVG: well-formed XML with one node group per graph node.
svg_case() {
	sc=$1
	shift
	"$HLOSCOPE" dot "$@" -o "$T/$sc.svg" --text >"$T/$sc.txt" 2>"$T/err"
	sc_rc=$?
	if [ "$sc_rc" -ne 0 ]; then
		bad "svg $sc" "exit $sc_rc: $(head -c 300 "$T/err")"
		return
	fi
	sc_want=$(expected_counts "$T/$sc.txt" 0 | awk '{print $1}')
	sc_got=$("$PY" - "$T/$sc.svg" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
print(sum(1 for g in root.iter(ns + 'g') if g.get('class') == 'node'))
EOF
)
	if [ "$sc_got" = "$sc_want" ]; then ok "svg $sc: well-formed, $sc_got nodes"; else
		bad "svg $sc" "xml.etree gives '$sc_got' nodes, wanted '$sc_want'"
	fi
}
svg_case unet3d "$UNET" --around 1026 --radius 2
svg_case rnn_configurable "$RNN" --configurable

# PNG: signature, and IHDR size of the expected order of magnitude.
png_case() {
	pc=$1 wmin=$2 wmax=$3 hmin=$4 hmax=$5
	shift 5
	"$HLOSCOPE" dot "$@" -o "$T/$pc.png" 2>"$T/err"
	pc_rc=$?
	if [ "$pc_rc" -ne 0 ]; then
		bad "png $pc" "exit $pc_rc: $(head -c 300 "$T/err")"
		return
	fi
	pc_got=$("$PY" - "$T/$pc.png" <<'EOF'
import sys, struct
b = open(sys.argv[1], 'rb').read(32)
if b[:8] != b'\x89PNG\r\n\x1a\n' or b[12:16] != b'IHDR':
    print('not-png')
else:
    w, h = struct.unpack('>II', b[16:24])
    print(w, h)
EOF
)
	set -- $pc_got
	if [ "$#" -eq 2 ] && [ "$1" -ge "$wmin" ] && [ "$1" -le "$wmax" ] &&
		[ "$2" -ge "$hmin" ] && [ "$2" -le "$hmax" ]; then
		ok "png $pc: ${1}x$2"
	else
		bad "png $pc" "got '$pc_got', wanted width $wmin..$wmax, height $hmin..$hmax"
	fi
}
# 5 boxes in 3 ranks, ~4 boxes wide: a few hundred pixels each way.
png_case around_unet3d 300 2000 200 1500 "$UNET" --around 1026 --radius 2
# 1 node under a title line: a few hundred pixels wide, ~100 high.
png_case single_tile 100 1200 30 300 "$T2" --around 7 --radius 0
# 189 nodes in 3 computations: wide.
png_case configurable_rnn 2000 60000 200 6000 "$RNN" --configurable

# ---- bad arguments: status, message, no output file ----
bad_case() { # STATUS NAME PATTERN ARGS...
	bc_want=$1 bc=$2 bc_pat=$3
	shift 3
	rm -f "$T/out.svg"
	"$HLOSCOPE" dot "$@" >"$T/out" 2>"$T/err"
	bc_got=$?
	if [ "$bc_got" -ne "$bc_want" ]; then
		bad "$bc" "exit $bc_got, wanted $bc_want; stderr: $(head -c 300 "$T/err")"
	elif ! grep -q -- "$bc_pat" "$T/err"; then
		bad "$bc" "message lacks '$bc_pat': $(head -c 300 "$T/err")"
	elif [ -e "$T/out.svg" ]; then
		bad "$bc" "left an output file"
	elif ! no_sanitizer_report "$T/err"; then
		bad "$bc" "sanitizer: $(head -c 300 "$T/err")"
	else
		ok "$bc"
	fi
}
O="$T/out.svg"
bad_case 1 "node id out of range" "node 2774 is out of range: unet3d has 2774 nodes" \
	"$UNET" --around 2774 -o "$O"
bad_case 1 "negative node id" "out of range" "$UNET" --around -3 -o "$O"
bad_case 1 "negative radius" "radius must be 0 or more" "$UNET" --around 5 --radius -1 -o "$O"
bad_case 1 "radius not a number" "radius needs a number" "$UNET" --around 5 --radius two -o "$O"
bad_case 1 "unknown direction" "operands, users or both" "$UNET" --around 5 --direction up -o "$O"
bad_case 1 "unknown split" "unknown split 7: unet3d has 2 node_splits segments (0..1)" \
	"$UNET" --computation 7 -o "$O"
bad_case 1 "unknown split (--split)" "unknown split 7" "$UNET" --split 7 -o "$O"
bad_case 1 "split not a number" "split needs a number" "$UNET" --split x -o "$O"
bad_case 1 "negative split" "needs a name or a split number" "$UNET" --computation -1 -o "$O"
bad_case 1 "unknown computation name: did you mean" \
	"has no computation named 'triton_softmax_computaton.3' (did you mean 'triton_softmax_computation.3'?)" \
	"$SOFTMAX" --computation triton_softmax_computaton.3 -o "$O"
bad_case 1 "unknown derived computation name: did you mean" \
	"unet3d has no computation named 'computaton.62' (did you mean 'computation.62'?)" \
	"$UNET" --computation computaton.62 -o "$O"
bad_case 1 "unknown computation name, nothing close" "named 'x' (the query \`count by computation_name\` lists them)" \
	"$UNET" --computation x -o "$O"
bad_case 1 "computation over the limit" "computation computation.61 draws 2188 nodes and boxes, more than the limit of 500" \
	"$UNET" --computation computation.61 --limit 500 --collapse none -o "$O"
bad_case 1 "--collapse with --force" "--collapse and --force" "$UNET" --computation computation.61 \
	--collapse layer --force -o "$O"
bad_case 1 "unknown --collapse" "must be auto, layer, computation or none, not 'deep'" "$UNET" \
	--computation computation.61 --collapse deep -o "$O"
bad_case 1 "--data without --heat" "--data gives fields for --heat" "$UNET" --around 5 --data "$T/x.csv" -o "$O"
bad_case 1 "--split and --computation" "one region only" "$UNET" --split 0 --computation entry -o "$O"
bad_case 1 "path end out of range" "path end node 99 is out of range" "$T2" --path 64 99 -o "$O"
bad_case 1 "no path between nodes" "no path between node 0 and node 1" "$T2" --path 0 1 -o "$O"
bad_case 1 "path needs two nodes" "needs two values" "$T2" --path 64
bad_case 1 "max-nodes below shortest path" "shortest path" "$T2" --path 64 2 --max-nodes 3 -o "$O"
bad_case 1 "max-nodes without path" "goes with --path" "$T2" --around 5 --max-nodes 3 -o "$O"
bad_case 1 "configurable on a tile graph" "only layout graphs" "$T2" --configurable -o "$O"
bad_case 1 "bad id list" "node ids like" "$T2" --nodes 3,x -o "$O"
bad_case 1 "id list out of range" "node 70 is out of range" "$T2" --nodes 3,70 -o "$O"
bad_case 1 "highlight out of range" "highlight: node 100 is out of range" \
	"$T2" --around 5 --highlight 100 -o "$O"
bad_case 1 "unknown heat feature" "--heat nope: unknown field 'nope'" "$T2" --around 5 --heat nope -o "$O"
bad_case 1 "heat feature index out of range" "out of range" "$T2" --around 5 --heat 140 -o "$O"
bad_case 1 "unknown heat feature: did you mean" "unknown field 'cots' at column 1 (did you mean 'cost'?)" \
	"$T2" --around 5 --heat cots -o "$O"
bad_case 1 "unknown heat feature: near a feature name" "(did you mean 'shape_dimensions_sum'?)" \
	"$T2" --around 5 --heat shape_dimension_sum -o "$O"
bad_case 1 "unknown heat feature: the command that lists the names" "hloscope query $T2 fields" \
	"$T2" --around 5 --heat nope -o "$O"
bad_case 1 "bad heat scale" "linear, log or auto" "$T2" --around 5 --heat 28 --heat-scale cubic -o "$O"
bad_case 1 "no region" "needs a region" "$T2" -o "$O"
bad_case 1 "two regions" "one region only" "$T2" --around 5 --computation 0 -o "$O"
bad_case 1 "no output" "needs -o OUT or --text" "$T2" --around 5
bad_case 1 "unknown option" "unknown option '--frobnicate'" "$T2" --around 5 --frobnicate -o "$O"
bad_case 1 "format from an unknown extension" "cannot tell the format" "$T2" --around 5 -o "$T/x.pdf"
bad_case 1 "unknown -T format" "unknown format 'pdf'" "$T2" --around 5 -T pdf -o "$O"
bad_case 1 "--cells with svg" "only applies to DOT" "$T2" --around 5 --cells -o "$O"
bad_case 1 "limit of zero" "--limit must be 1 or more" "$T2" --around 5 --limit 0 -o "$O"
bad_case 1 "over the limit" "has 2312 nodes, more than the limit of 500; use --radius 7 (384 nodes)" \
	"$UNET" --around 1000 --radius 100 --limit 500 --collapse none -o "$O"
bad_case 1 "heat of a text field" "--heat opcode: " "$T2" --around 5 --heat opcode -o "$O"
bad_case 1 "unknown node name" "has no node named 'nope' (names look like Arg_0.5)" \
	"$ROOT/tests/data/hlo/jit_f_softmax_allreduce_gpu_before_fusion.hlo" --around nope -o "$O"
bad_case 1 "unknown computation to expand" "no computation named 'bogus'" \
	"$ROOT/tests/data/hlo/jit_f_softmax_allreduce_gpu_before_fusion.hlo" --around 20 --expand bogus -o "$O"
bad_case 1 "max-operands without around" "go with --around" "$T2" --path 64 2 --max-operands 3 -o "$O"
bad_case 1 "over a set limit" "more than the limit of 3" "$T2" --path 64 2 --limit 3 --max-nodes 10 -o "$O"
# A file that cannot be written is bad data (exit 2), as in every command
# that writes one (base/afile.h), not bad usage.
bad_case 2 "unwritable output folder" "cannot write .*/no/such/dir/x.svg: No such file" \
	"$T2" --around 5 -o "$T/no/such/dir/x.svg"
mkdir -p "$T/isdir.svg"
bad_case 2 "output is a folder" "cannot write .*isdir.svg: it is a folder, not a regular file" \
	"$T2" --around 5 -o "$T/isdir.svg"
bad_case 2 "missing file" "No such file" "$T/missing.npz" --around 5 -o "$O"
printf 'not a zip file at all\n' >"$T/junk.npz"
bad_case 2 "corrupt file" "junk.npz" "$T/junk.npz" --around 5 -o "$O"
expect_status 0 "--help" "$HLOSCOPE" dot --help
grep -q -- "--around ID" "$T/out" && ok "--help lists the regions" || bad "--help lists the regions" "$(head -3 "$T/out")"

# --force lifts the limit (checked on a region that is over it).
expect_status 0 "--force lays out a big region" \
	"$HLOSCOPE" dot "$UNET" --around 1000 --radius 100 --force -o "$T/big.dot"
n=$("$COUNT" --count "$T/big.dot" | awk '{print $2}')
[ "${n:-0}" -gt 500 ] && ok "forced region has $n nodes" || bad "forced region size" "got '$n'"

# A failed run leaves an existing output untouched and no temporary files.
printf 'keep me\n' >"$T/keep.svg"
"$HLOSCOPE" dot "$UNET" --around 99999 -o "$T/keep.svg" 2>/dev/null
[ "$(cat "$T/keep.svg")" = "keep me" ] && ok "failed run keeps the old file" ||
	bad "failed run keeps the old file" "changed"
left=$(find "$T" -name '*.tmp.*' | head -3)
[ -z "$left" ] && ok "no temporary files left" || bad "no temporary files left" "$left"
