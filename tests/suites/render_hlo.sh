#!/bin/sh
# Drawings of real HLO modules as XLA wrote them: edges are the HLO operands
# (in order, a repeated one labelled "0,1"), called computations are joined
# by call edges, --expand draws a body whole (tests/render/dot_hlo_check.py
# reads the text with regular expressions and parses the DOT); a crowded
# center collapsed instead of refused; --path and every region bounded in
# layout time; did-you-mean for node names; --text within COLUMNS;
# unlearned opcodes drawn as written.
. tests/lib.sh

H="$ROOT/tests/data/hlo"
SOFTMAX="$H/jit_f_softmax_allreduce_gpu_before_fusion.hlo"
LLAMA="$H/llama2_dp1_tp1_pp1_SyncTensorsGraph.hlo"
FUSION="$H/tpu_op_fusion.261.HloModuleProto.pb"
unset COLUMNS

files=$(find tests/data/hlo -name '*.hlo' | sort)
# shellcheck disable=SC2086
"$PY" tests/render/dot_hlo_check.py $files

# ---- a crowded center: tuple.6427 has 148 operands --------------------------
# Within the limit it keeps them all; over it (--limit 100) it keeps its
# first 16 and one box for the rest, as the text counts them, instead of
# being refused.
hidden=$("$PY" - "$LLAMA" <<'EOF'
import re, sys
for line in open(sys.argv[1]):
    if re.match(r"\s*ROOT %tuple.6427 = ", line):
        args = line[line.index(" tuple(") + 7:]
        ops = [w.lstrip("%") for w in re.findall(r"%[\w.\-]+", args.split("), ")[0])]
        print(len(set(ops) - set(ops[:16])))
EOF
)
"$HLOSCOPE" dot "$LLAMA" --around tuple.6427 --radius 1 -T dot -o "$T/all.dot" --text >"$T/all.txt" 2>"$T/err"
head -1 "$T/all.txt" | grep -q ': 149 nodes, 148 edges$' && ok "crowded center within the limit: every operand" ||
	bad "crowded center within the limit" "$(head -c 200 "$T/all.txt") $(head -c 200 "$T/err")"
if "$HLOSCOPE" dot "$LLAMA" --around tuple.6427 --radius 1 --limit 100 -T dot -o "$T/crowd.dot" --text \
	>"$T/crowd.txt" 2>"$T/err"; then
	if head -1 "$T/crowd.txt" | grep -q ': 17 nodes, 16 edges, 1 collapsed operand group$' &&
		grep -q "label=\"$hidden more operands\"" "$T/crowd.dot"; then
		ok "crowded center over the limit: 16 operands and '$hidden more operands'"
	else
		bad "crowded center over the limit" "$(head -1 "$T/crowd.txt"); wanted $hidden hidden: $(grep -o 'label="[0-9,]* more operands"' "$T/crowd.dot")"
	fi
else
	bad "crowded center over the limit is drawn" "$(head -c 300 "$T/err")"
fi
# --max-operands given: the center's crowd is collapsed whatever the limit.
"$HLOSCOPE" dot "$LLAMA" --around tuple.6427 --radius 1 --max-operands 8 -o "$T/m8.dot" --text >"$T/m8.txt" 2>"$T/err"
head -1 "$T/m8.txt" | grep -q ': 9 nodes, 8 edges, 1 collapsed operand group$' &&
	ok "--max-operands 8 holds at the center" || bad "--max-operands 8 at the center" "$(head -1 "$T/m8.txt")"

# ---- --expand NAME draws the body whole -------------------------------------
# At radius 1 the fusion is reached but not its body: named, the body comes
# in whole (5 instructions), joined to the fusion by a call edge, and its own
# callee (region_1.8) is a box.
"$HLOSCOPE" dot "$SOFTMAX" --around all-reduce.1.0 --radius 1 --expand triton_softmax_computation.3 \
	-o "$T/x.dot" --text >"$T/x.txt" 2>"$T/err"
n=$(grep -c 'in triton_softmax_computation.3: ' "$T/x.dot")
if [ "$n" = 5 ] && grep -q 'triton_softmax.3 calls triton_softmax_computation.3 (root subtract.3)' "$T/x.dot" &&
	grep -q 'label="region_1.8\\nreducer, 3 nodes"' "$T/x.dot"; then
	ok "--expand draws all 5 nodes of the body, its call edge and its callee's box"
else
	bad "--expand draws the body" "$n nodes of it; $(head -1 "$T/x.txt")"
fi
golden render/hlo_expand_radius1.txt "$T/x.txt"

# ---- time: regions whose layout would take long ------------------------------
# x.22 -> tuple.6427 on llama2: 1,968 nodes on paths, 61,477 units of layout
# work drawn whole (minutes of Graphviz).  The path keeps the shortest paths
# that fit the work budget (here lowered with --max-work) and says so.
"$HLOSCOPE" dot "$LLAMA" --path x.22 tuple.6427 --max-work 1500 -o "$T/p.dot" --text --time \
	>"$T/p.txt" 2>"$T/p.err"
work=$(sed -n 's/.*(layout work \([0-9,]*\)).*/\1/p' "$T/p.err" | tr -d ,)
if head -1 "$T/p.txt" | grep -q 'longer paths left out' && [ -n "$work" ] && [ "$work" -le 1500 ]; then
	ok "--path keeps the paths within the work budget ($work)"
else
	bad "--path within the work budget" "work '$work'; $(head -1 "$T/p.txt") $(head -c 200 "$T/p.err")"
fi
"$HLOSCOPE" dot "$LLAMA" --path x.22 tuple.6427 --force -o "$T/pf.dot" --time 2>"$T/pf.err"
grep -q '1,968 nodes and 2,490 edges on 779 ranks.*(layout work 61,477)' "$T/pf.err" &&
	ok "--force keeps every path (work 61,477, not laid out for DOT)" ||
	bad "--path --force" "$(tail -1 "$T/pf.err")"
# A region over the budget has its longest edges cut into stubs beside
# their users until it fits (each naming an operand of its user in the
# text, tests/render/dot_layers_check.py); one whose nodes and edges alone
# are over it is refused at once, with its size and what to do.
"$PY" tests/render/dot_layers_check.py stubs "$LLAMA" --computation entry --limit 5000
"$HLOSCOPE" dot "$LLAMA" --computation entry --limit 5000 -o "$T/big.dot" --time 2>"$T/big.err"
work=$(sed -n 's/.*(layout work \([0-9,]*\)).*/\1/p' "$T/big.err" | tr -d ,)
if grep -q '^hloscope dot: [0-9,]* long edges cut: each drawn as a stub beside its user' "$T/big.err" &&
	[ -n "$work" ] && [ "$work" -le 12000 ]; then
	ok "over the work budget, long edges are cut into stubs until it fits ($work)"
else
	bad "long edges cut into stubs" "work '$work': $(head -c 300 "$T/big.err")"
fi
grep -q 'long edges cut: each drawn as a stub' "$T/big.dot" && ok "the drawing's legend says the edges were cut" ||
	bad "the legend says the edges were cut" "$(grep -c stub "$T/big.dot")"
expect_status 1 "a region over the work budget even with its edges cut is refused" \
	"$HLOSCOPE" dot "$LLAMA" --computation entry --limit 5000 --max-work 3000 -o "$T/big.svg"
if grep -q 'whose edges cross [0-9,]* ranks more (layout work [0-9,]*); with its [0-9,]* longest edges cut it is still [0-9,]* nodes .*; Graphviz would take long to lay that out (the budget is 3,000): draw less of it (--around ID --radius K, --collapse layer) or use --force' "$T/err" &&
	[ ! -e "$T/big.svg" ]; then
	ok "the refusal gives the size and what to do"
else
	bad "the refusal gives the size and what to do" "$(head -c 600 "$T/err")"
fi

# ---- layers of op_name --------------------------------------------------------
# i3d's namespaces (7 levels, repeated inception blocks) and a generated
# transformer's layers: own nodes, one box per child namespace (its size as
# the text counts it), runs of repeats one box, the edges between them.
I3D="$H/i3d_tf_xla_cluster_1.hlo"
"$PY" tools/gen_transformer_hlo.py --layers 24 -o "$T/t24.hlo"
"$PY" tests/render/dot_layers_check.py layers "$I3D" RGB/inception_i3d
"$PY" tests/render/dot_layers_check.py layers "$I3D" RGB/inception_i3d/Mixed_4c
"$PY" tests/render/dot_layers_check.py layers "$T/t24.hlo" 'jit(train_step)/transformer'
"$PY" tests/render/dot_layers_check.py layers "$T/t24.hlo" 'jit(train_step)/transformer/layer_3'
"$HLOSCOPE" dot "$T/t24.hlo" --layer 'jit(train_step)/transformer' --text >"$T/run.txt" 2>"$T/err"
grep -q '│ layer_0..23 x24 ' "$T/run.txt" && ok "24 repeated layers are one box 'layer_0..23 x24'" ||
	bad "a run of repeats is one box" "$(head -c 400 "$T/run.txt") $(head -c 200 "$T/err")"
golden render/hlo_layer_run.txt "$T/run.txt"
# --expand opens a namespace: the run splits around it.
"$HLOSCOPE" dot "$T/t24.hlo" --layer 'jit(train_step)/transformer' --expand layer_3 -T dot -o "$T/x3.dot"
if grep -q 'label="layer_0..2 x3' "$T/x3.dot" && grep -q 'label="layer_4..23 x20' "$T/x3.dot" &&
	grep -q 'label="mlp\\n' "$T/x3.dot"; then
	ok "--expand layer_3 opens it, the run split around it (layer_0..2 x3, layer_4..23 x20)"
else
	bad "--expand a layer" "$(grep -o 'label="[^"]*"' "$T/x3.dot" | head -8 | tr '\n' ' ')"
fi
expect_status 1 "--layer with a typo" "$HLOSCOPE" dot "$I3D" --layer RGB/inception_i3d/Mixed_4x -o "$T/o.svg"
grep -q "has no layer 'RGB/inception_i3d/Mixed_4x' (did you mean 'RGB/inception_i3d/Mixed_4" "$T/err" &&
	ok "--layer: did you mean" || bad "--layer: did you mean" "$(head -c 300 "$T/err")"
expect_status 1 "--expand with a word that is no layer or computation" \
	"$HLOSCOPE" dot "$I3D" --layer RGB/inception_i3d --expand Mixed_4z -o "$T/o.svg"
grep -q "no layer or computation named 'Mixed_4z' (did you mean 'Mixed_4" "$T/err" &&
	ok "--expand: did you mean" || bad "--expand: did you mean" "$(head -c 300 "$T/err")"

# ---- regions over the limit collapse instead of failing ---------------------------
# The entry of a 200-layer transformer is 2,602 boxes: collapsed by layer,
# the note on stderr and in the legend.  --collapse computation on a region
# that spans computations; --collapse none refuses as before.
"$PY" tools/gen_transformer_hlo.py --layers 200 -o "$T/t200.hlo"
"$HLOSCOPE" dot "$T/t200.hlo" --computation main -T dot -o "$T/c.dot" --text >"$T/c.txt" 2>"$T/err"
if grep -q '^hloscope dot: the region draws 2,602 boxes, more than the limit of 2,500: collapsed by layer into 2 boxes for its 4,604 nodes (1 run of repeated blocks folded)$' "$T/err" &&
	grep -q 'collapsed by layer into 2 boxes' "$T/c.dot" && grep -q '│ layer_0..199 x200 ' "$T/c.txt"; then
	ok "over the limit, the entry is collapsed by layer, as stderr and the legend say"
else
	bad "collapsed by layer" "$(head -c 300 "$T/err") $(head -3 "$T/c.txt")"
fi
expect_status 1 "--collapse none refuses a region over the limit" \
	"$HLOSCOPE" dot "$T/t200.hlo" --computation main --collapse none -o "$T/o.svg"
grep -q "computation main draws 2602 nodes and boxes, more than the limit of 2500; draw part of it with --around ID --radius K, or use --limit 2602 or --force" "$T/err" &&
	ok "--collapse none: the size and what to do" || bad "--collapse none" "$(head -c 300 "$T/err")"
"$HLOSCOPE" dot "$LLAMA" --around tuple.6427 --radius 2 --collapse computation --text >"$T/cc.txt" 2>"$T/err"
grep -q 'computation box' "$T/cc.txt" && grep -q '^note: collapsed by computation into ' "$T/cc.txt" &&
	ok "--collapse computation: one box per computation" ||
	bad "--collapse computation" "$(head -3 "$T/cc.txt") $(head -c 200 "$T/err")"

# ---- --data and --heat FIELD ------------------------------------------------------
# A CSV of per-op times (two rows naming no instruction) laid over i3d;
# --heat of its column fills nodes and layer boxes, a box by the sum of its
# instructions' times (python sums them from the CSV and the text).
"$PY" - "$I3D" "$T/prof.csv" <<'EOF'
import re, sys
names = re.findall(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=", open(sys.argv[1]).read(), re.M)
with open(sys.argv[2], "w") as f:
    f.write("name,time_us\n")
    for k, n in enumerate(names):
        f.write("%s,%d\n" % (n, 1 + k % 7))
    f.write("not.an.op,5\nnor.this,6\n")
EOF
"$HLOSCOPE" dot "$I3D" --layer RGB/inception_i3d --data "$T/prof.csv" --heat time_us -T dot -o "$T/heat.dot" 2>"$T/err"
grep -q "prof.csv: 1172 rows, 1170 instructions matched, field time_us (number); 2 rows name no instruction: not.an.op, nor.this$" "$T/err" &&
	ok "--data: the rows that name no instruction are counted, by name" ||
	bad "--data unmatched rows" "$(head -c 300 "$T/err")"
res=$("$PY" - "$I3D" "$T/prof.csv" "$T/heat.dot" <<'EOF'
import sys
sys.path.insert(0, "tests/render")
from dot_layers_check import read, no_html
from dot_hlo_check import parse_dot
ins = read(sys.argv[1])
t = dict(l.strip().split(",") for l in open(sys.argv[2]).readlines()[1:])
nodes, _ = parse_dot(no_html(open(sys.argv[3]).read()))
top = "RGB/inception_i3d/"
want = {}
for i in ins:
    if i["layer"].startswith(top) and i["name"] in t:
        k = i["layer"][len(top):].split("/")[0]
        want[k] = want.get(k, 0) + int(t[i["name"]])
got = {}
for n, at in nodes.items():
    lines = at.get("label", "").split("\\n")
    if n.startswith("grp") and " x" not in lines[0]:
        got[lines[0]] = float(lines[2].split(" = ")[1])
bad = [(k, got[k], want.get(k)) for k in got if got[k] != want.get(k)]
print("ok %d" % len(got) if got and not bad else "sums differ: %s" % bad[:3])
EOF
)
case $res in ok*) ok "--heat time_us: each of ${res#ok } layer boxes holds the sum of its instructions' times" ;;
*) false ;; esac ||
	bad "--heat of a data column on layer boxes" "$res"
printf 'name,time_us\nconvert.1170,3\nconvert.1172,x,4\n' >"$T/bad.csv"
expect_status 2 "--data: a malformed line is bad data" \
	"$HLOSCOPE" dot "$I3D" --layer / --data "$T/bad.csv" --heat time_us -o "$T/o.svg"
grep -q 'bad.csv:3' "$T/err" && [ ! -e "$T/o.svg" ] && ok "--data: the malformed line is named, nothing drawn" ||
	bad "--data malformed line" "$(head -c 300 "$T/err")"

# ---- a progress line ---------------------------------------------------------------
# --progress says what is being done every second, whatever stderr is (on
# a terminal it is one line, rewritten).
"$HLOSCOPE" dot "$I3D" --computation entry --progress -o "$T/p.svg" 2>"$T/err"
grep -q '^hloscope dot: laying out [0-9,]* boxes and [0-9,]* edges with Graphviz, [0-9.]* [mun]*s$' "$T/err" &&
	ok "--progress: a line while Graphviz lays the drawing out" || bad "--progress" "$(head -c 300 "$T/err")"

# ---- names: did-you-mean ------------------------------------------------------
expect_status 1 "--around with a typo" "$HLOSCOPE" dot "$SOFTMAX" --around all-reduce.1 -o "$T/o.svg"
grep -q "has no node named 'all-reduce.1' (did you mean 'all-reduce.1.0'?)" "$T/err" &&
	ok "--around: did you mean" || bad "--around: did you mean" "$(head -c 300 "$T/err")"
expect_status 1 "--path with a typo" "$HLOSCOPE" dot "$SOFTMAX" --path param exponentail.1.0 -o "$T/o.svg"
grep -q "has no node named 'exponentail.1.0' (did you mean 'exponential.1.0'?)" "$T/err" &&
	ok "--path: did you mean" || bad "--path: did you mean" "$(head -c 300 "$T/err")"
expect_status 0 "--computation entry on an HloModuleProto" "$HLOSCOPE" dot "$FUSION" --computation entry -o "$T/e.dot"

# ---- --text within COLUMNS ------------------------------------------------------
# fusion.261 and its 8 parameters: over 500 columns.  With COLUMNS=80 it is
# printed in strips of 80 columns that, put side by side, are the whole
# drawing; without COLUMNS (a pipe) it is printed whole.
"$HLOSCOPE" dot "$FUSION" --around fusion.261 --radius 1 --text >"$T/wide.txt" 2>"$T/err"
COLUMNS=80 "$HLOSCOPE" dot "$FUSION" --around fusion.261 --radius 1 --text >"$T/strips.txt" 2>"$T/err"
res=$("$PY" - "$T/wide.txt" "$T/strips.txt" <<'EOF'
import re, sys
wide = open(sys.argv[1], encoding="utf-8").read().split("\n")
strips = open(sys.argv[2], encoding="utf-8").read().split("\n")
if strips[0] != wide[0]:
    sys.exit(print("headers differ"))
m = re.match(r"the drawing is (\d+) columns wide, wider than the terminal's 80 \(COLUMNS\): "
             r"printed in (\d+) strips of 80 columns", strips[1])
if not m:
    sys.exit(print("no strip note: " + strips[1]))
width, n = int(m.group(1)), int(m.group(2))
body = [l.rstrip() for l in wide[1:]]
while body and not body[-1]:
    body.pop()
if not width - 4 <= max(len(l) for l in body) <= width:  # trailing blanks are not printed
    sys.exit(print("width %d, drawing %d" % (width, max(len(l) for l in body))))
over = [l for l in strips[2:] if len(l) > 80]
if over:
    sys.exit(print("a line of %d columns" % len(over[0])))
parts, cur = [], None
for l in strips[2:]:
    if l.startswith("\u2500\u2500 columns "):
        cur = []
        parts.append(cur)
    elif cur is not None:
        cur.append(l)
if len(parts) != n:
    sys.exit(print("%d strips, said %d" % (len(parts), n)))
rows = max(len(p) for p in parts)
joined = ["".join(p[r].ljust(80) if r < len(p) else " " * 80 for p in parts).rstrip() for r in range(rows)]
while joined and not joined[-1]:
    joined.pop()
print("ok %d %d" % (width, n) if joined == body else "strips differ from the drawing")
EOF
)
case $res in
ok*) ok "COLUMNS=80: $res (width, strips) put side by side are the drawing" ;;
*) bad "COLUMNS=80 strips" "$res" ;;
esac
golden render/hlo_strips.txt "$T/strips.txt"

# ---- an opcode the dataset never learned, as written ----------------------------
cat >"$T/unlearned.hlo" <<'HLO'
HloModule unlearned

ENTRY main {
  p = f32[8,4]{1,0} parameter(0)
  e = f32[8,4]{1,0} erf(p)
  s = (f32[8,4]{1,0}, f32[8,4]{1,0}) all-to-all-start(e), channel_id=1, replica_groups={{0,1}}, dimensions={0}
  d = f32[8,4]{1,0} all-to-all-done(s)
  ROOT t = (f32[8,4]{1,0}, s32[8,2]{1,0}) topk(d), k=2, largest=true
}
HLO
"$HLOSCOPE" dot "$T/unlearned.hlo" --around s --radius 2 -o "$T/u.dot" --text >"$T/u.txt" 2>"$T/err"
if grep -q 'label="e\\n1: erf' "$T/u.dot" && grep -q 'label="s\\n2: all-to-all-start' "$T/u.dot" &&
	grep -q 'label="t\\n4: topk' "$T/u.dot" && grep -q '│ erf f32\[8,4\]{1,0} │' "$T/u.txt"; then
	ok "unlearned opcodes are drawn as written"
else
	bad "unlearned opcodes are drawn as written" "$(grep -o 'label="[^"]*"' "$T/u.dot" | head -5 | tr '\n' ' ')"
fi
# all-to-all-start is filled as a collective (all-to-all's brown), erf as
# elementwise (yellow), like their learned kin.
grep -A1 '^	n2	' "$T/u.dot" | grep -q 'fillcolor="#bcaaa4"' && grep -A1 '^	n1	' "$T/u.dot" |
	grep -q 'fillcolor="#fff9c4"' && ok "unlearned opcodes take their kin's colors" ||
	bad "unlearned opcodes take their kin's colors" "$(grep -A2 '^	n[12]	' "$T/u.dot" | tr '\n' ' ')"
