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
# Any region over the budget is refused at once, with its size and what to
# do; the default budget on the entry of llama2.
expect_status 1 "a region over the work budget is refused" \
	"$HLOSCOPE" dot "$LLAMA" --computation entry --limit 5000 -o "$T/big.svg"
if grep -q 'whose edges cross [0-9,]* ranks more (layout work [0-9,]*); Graphviz would take long to lay that out (the budget is 20,000): draw less of it (--around ID --radius K) or use --force' "$T/err" &&
	[ ! -e "$T/big.svg" ]; then
	ok "the refusal gives the size and what to do"
else
	bad "the refusal gives the size and what to do" "$(head -c 400 "$T/err")"
fi

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
