#!/bin/sh
# `hloscope query` in batch: queries from arguments, scripts (-f) and stdin,
# their order, comments, format switches, quit, open, error positions with
# script line numbers, every exit status (0, 1 for usage and query errors,
# 2 for bad files, a node config array that fails to load, a full disk),
# --time.
. tests/lib.sh

F="$DATA/npz/layout/xla/default/train/unet3d.npz"
R="$DATA/npz/layout/xla/random/train/openai_v0_rnn_optimized.npz"

# same NAME FILE EXPECTED-TEXT
same() {
	printf '%s\n' "$3" >"$T/want"
	if cmp -s "$T/want" "$2"; then ok "$1"; else
		bad "$1" "$(diff "$T/want" "$2" | head -8 | tr '\n' '|')"
	fi
}

# Arguments run in order; tables are separated by one blank line.
"$HLOSCOPE" query "$F" 'count by split' 'nodes where id = 2 show id, opcode' >"$T/out" 2>"$T/err"
same "batch: queries run in argument order" "$T/out" "split  count     share
    0   2314  0.834174
    1    460  0.165826
(2 distinct values over 2774 nodes)

id  opcode
 2  add
(1 of 2774 nodes matches)"

# A script: comments, blank lines, format switches; stdin too.  (users of
# nodes 0..9 are 1 1 2 1 1 2 1 1 1 1, as numpy bincount gives.)
cat >"$T/script.hq" <<'EOF'
# opcodes of the configurable nodes
count by opcode where configurable

format csv
nodes where id < 2 show id, shape   # trailing comment
format json
stats users where id < 10
EOF
"$HLOSCOPE" query "$F" -f "$T/script.hq" >"$T/out" 2>"$T/err"
same "batch: a script with comments and format switches" "$T/out" "opcode       count      share
convolution     53   0.946429
reshape          3  0.0535714
(2 distinct values over 56 nodes)

id,shape
0,f32[]
1,f32[]
[
{\"field\": \"users\", \"count\": 10, \"min\": 1, \"max\": 2, \"mean\": 1.2, \"sum\": 12, \"p25\": 1, \"p50\": 1, \"p75\": 1, \"p90\": 2, \"p99\": 2}
]"
"$HLOSCOPE" query "$F" <"$T/script.hq" >"$T/out2" 2>"$T/err"
if cmp -s "$T/out" "$T/out2"; then ok "batch: stdin runs like -f"; else bad "batch: stdin runs like -f" "outputs differ"; fi
"$HLOSCOPE" query "$F" -f - <"$T/script.hq" >"$T/out2" 2>"$T/err"
if cmp -s "$T/out" "$T/out2"; then ok "batch: -f - reads stdin"; else bad "batch: -f - reads stdin" "outputs differ"; fi

# -f and arguments interleave in command-line order.
printf 'nodes where id = 0 show id\n' >"$T/one.hq"
"$HLOSCOPE" query "$F" --csv 'nodes where id = 1 show id' -f "$T/one.hq" 'nodes where id = 2 show id' >"$T/out"
same "batch: scripts and arguments in order" "$T/out" "id
1

id
0

id
2"

# quit stops; open switches graphs.
"$HLOSCOPE" query "$F" --csv 'nodes where id = 1 show id' quit 'nodes where id = 2 show id' >"$T/out"
same "batch: quit stops" "$T/out" "id
1"
"$HLOSCOPE" query "$F" --csv "open $R" 'count by split limit 1' >"$T/out"
same "batch: open switches the graph" "$T/out" "split,count,share
2,814,0.6374314800313234"

# Errors: message, line and caret on stderr; the script line number; stop
# at the first error with status 1; the output before it stays.
printf 'count by computation limit 1\n\n  nodes where shap > 3\nnodes\n' >"$T/bad.hq"
"$HLOSCOPE" query "$F" -f "$T/bad.hq" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok "batch: a query error exits 1" || bad "batch: a query error exits 1" "exit $rc"
same "batch: the error names script, line and column" "$T/err" "hloscope query: $T/bad.hq:3: unknown field 'shap' at column 15 (did you mean 'shape'?)
    nodes where shap > 3
                ^"
if [ "$(wc -l <"$T/out")" -eq 3 ]; then ok "batch: output before the error is kept, nothing after"; else
	bad "batch: output before the error is kept, nothing after" "$(wc -l <"$T/out") lines"
fi

expect_status 1 "batch: no FILE" "$HLOSCOPE" query
expect_status 1 "batch: unknown option" "$HLOSCOPE" query "$F" --xml
expect_status 1 "batch: -f without a value" "$HLOSCOPE" query "$F" -f
expect_status 1 "batch: --model without a value" "$HLOSCOPE" query "$F" --model
expect_status 2 "batch: a missing script" "$HLOSCOPE" query "$F" -f "$T/nope.hq"
expect_status 2 "batch: a missing graph" "$HLOSCOPE" query "$T/nope.npz" help
expect_status 2 "batch: a missing model" "$HLOSCOPE" query "$F" --model "$T/nope.model" help
expect_status 2 "batch: open of a missing file" "$HLOSCOPE" query "$F" "open $T/nope.npz"
expect_status 0 "batch: --help" "$HLOSCOPE" query --help
expect_status 0 "batch: help inside" "$HLOSCOPE" query "$F" help
printf 'not a zip' >"$T/junk.npz"
expect_status 2 "batch: a file that is not a graph" "$HLOSCOPE" query "$T/junk.npz" help

# A node config array that fails to load while a query runs is bad data (2).
"$PY" - "$R" "$T/broken.npz" <<'EOF'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
data = bytearray(open(src, "rb").read())
with zipfile.ZipFile(src) as z:
    info = z.getinfo("node_config_feat.npy")
name_len = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little")
extra_len = int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
start = info.header_offset + 30 + name_len + extra_len
for k in range(64):  # damage the middle of the compressed data
    data[start + info.compress_size // 2 + k] ^= 0x5a
open(dst, "wb").write(data)
EOF
"$HLOSCOPE" query "$T/broken.npz" 'count by split' 'config 3' >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'node_config_feat' "$T/err" && grep -q '^split' "$T/out"; then
	ok "batch: node configs that fail to load exit 2 and name the array"
else
	bad "batch: node configs that fail to load exit 2 and name the array" "exit $rc: $(head -c 300 "$T/err")"
fi

# Writing fails (a full disk): status 2 and a message.
if [ -w /dev/full ]; then
	"$HLOSCOPE" query "$F" 'nodes' >/dev/full 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'No space left' "$T/err"; then ok "batch: a full disk exits 2"; else
		bad "batch: a full disk exits 2" "exit $rc: $(head -c 200 "$T/err")"
	fi
fi

# --time: one line per command on stderr, output unchanged.
"$HLOSCOPE" query "$F" --time 'count by opcode limit 1' '# nothing' 'stats users' >"$T/out" 2>"$T/err"
if [ "$(grep -c '^time: [0-9.]* [mun]*s: ' "$T/err")" -eq 2 ] && grep -q '^get-tuple-element' "$T/out"; then
	ok "batch: --time prints one line per command"
else
	bad "batch: --time prints one line per command" "$(head -c 300 "$T/err")"
fi
for f in "$T"/err; do no_sanitizer_report "$f" || bad "batch: sanitizer" "$(head -c 300 "$f")"; done
