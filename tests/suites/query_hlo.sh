#!/bin/sh
# The query language's HLO fields (names, computations, metadata) against the
# HLO text files themselves, read with regular expressions
# (tests/query/hlo_names_check.py).
. tests/lib.sh

files=$(find tests/data/hlo -name '*.hlo' | sort)
[ -n "$files" ] || { bad "query-hlo: data" "no .hlo under tests/data/hlo"; exit 0; }
# shellcheck disable=SC2086
"$PY" tests/query/hlo_names_check.py $files
# Operands in order, users, shapes, HLO lines, roles, attributes,
# computations, collectives, opcodes and parameters, the same way.
# shellcheck disable=SC2086
"$PY" tests/query/hlo_structure_check.py $files

# An opcode the dataset never learned (erf, topk: opcode_id 0) reads as
# written: in rows, in count by opcode and compared by name.
cat >"$T/unlearned.hlo" <<'HLO'
HloModule m

ENTRY e {
  p = f32[8]{0} parameter(0)
  e1 = f32[8]{0} erf(p)
  t = f32[8]{0} topk(e1), k=2
  ROOT a = f32[8]{0} add(e1, t)
}
HLO
out=$("$HLOSCOPE" query "$T/unlearned.hlo" --csv 'count by opcode' "nodes where opcode = erf show name" \
	"nodes where opcode in (topk, add) show name" 'nodes where opcode_id = 0 show opcode' 'opcodes' 2>&1)
want='opcode,count,share
add,1,0.25
erf,1,0.25
parameter,1,0.25
topk,1,0.25

name
e1

name
t
a

opcode
erf
topk

opcode_id,opcode,category,nodes,share
0,erf,other,1,0.25
0,topk,other,1,0.25
2,add,elementwise,1,0.25
63,parameter,parameter,1,0.25'
if [ "$out" = "$want" ]; then ok "query-hlo: unlearned opcodes as written"; else
	bad "query-hlo: unlearned opcodes as written" "$(echo "$out" | tr '\n' '|')"
fi

# Over a folder the same names work (the graphs are not known while the
# command is parsed): the HLO file's erf and topk nodes, none of the npz
# file's; a misspelled opcode still fails with the closest learned one.
mkdir -p "$T/folder"
cp "$T/unlearned.hlo" "$T/folder/"
cp "$DATA/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz" "$T/folder/tile.npz"
out=$("$HLOSCOPE" query "$T/folder" --csv "nodes where opcode = erf show name" \
	"nodes where opcode in (topk, add) show name" 'count by opcode where opcode_id = 0' 2>&1)
want='file,collection,split,name
unlearned.hlo,,,e1

file,collection,split,name
unlearned.hlo,,,t
unlearned.hlo,,,a

opcode,count,share
erf,1,0.5
topk,1,0.5'
if [ "$out" = "$want" ]; then ok "query-hlo: unlearned opcodes over a folder"; else
	bad "query-hlo: unlearned opcodes over a folder" "$(echo "$out" | tr '\n' '|')"
fi
err=$("$HLOSCOPE" query "$T/folder" 'nodes where opcode = convolutoin' 2>&1 >/dev/null)
rc=$?
case "$rc:$err" in
"1:hloscope query: unknown opcode 'convolutoin' at column 22 (did you mean 'convolution'?"*)
	ok "query-hlo: a misspelled opcode over a folder" ;;
*) bad "query-hlo: a misspelled opcode over a folder" "exit $rc: $err" ;;
esac

# A plain HLO module is kind "module": graphs says so, configs and fit say it
# has no configs (not a test split).
M=tests/data/hlo/i3d_tf_xla_cluster_1.hlo
out=$("$HLOSCOPE" query "$M" 'graphs show kind' 'configs' 2>&1)
case "$out" in
"kind"*"module"*"a module has no configs"*) ok "query-hlo: a plain module is a module without configs" ;;
*) bad "query-hlo: a plain module is a module without configs" "$(echo "$out" | tr '\n' '|')" ;;
esac
expect_status 1 "query-hlo: fit on a module is a usage error" "$HLOSCOPE" fit "$M" --train-fraction 0.5
if grep -q "a module has no configs: nothing to fit" "$T/err"; then ok "query-hlo: fit says a module has no configs"
else bad "query-hlo: fit says a module has no configs" "$(head -c 300 "$T/err")"; fi
