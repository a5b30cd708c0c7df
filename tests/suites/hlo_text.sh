# hlo_text: the HLO text reader (loader/hlo_text.c) through
# $HLOSCOPE_BUILD/tests/hlo_tool:
#   - the data-driven tests tests/hlo/*.test (runner.py; each %%DUMP test is
#     also printed, read back and printed again: same structure, same text);
#   - every real HLO file (tests/data/hlo): counts,
#     edges and opcode histogram against tests/hlo/hlo_counts.py, which reads
#     the text line by line without the C parser; print -> parse -> print is
#     a fixed point with the same structure;
#   - truncated and garbled copies of them and of the fuzz seeds: they parse
#     or are refused with a place, never crash (a sanitizer report fails,
#     under make check-asan);
#   - hloscope convert of the real files against tests/hlo/hlo_featurize.py,
#     a python featurization of the same text (when convert reads HLO text);
#   - hlo_text_sniff;
#   - the tests and the real files again with each module read in two halves
#     by two threads (HLO_SPLIT_MIN=1): the same modules, the same errors.
. tests/lib.sh
H="$ROOT/$HLOSCOPE_BUILD/tests/hlo_tool"
if [ ! -x "$H" ]; then
	bad hlo_tool "no $H (make units builds it)"
	exit 1
fi

"$PY" tests/hlo/runner.py "$H" tests/hlo/*.test
# The same tests with every module of two computations or more read in two
# halves by two threads (loader/hlo_text_split.c): the same structures, the
# same errors at the same places.
HLO_SPLIT_MIN=1 "$PY" tests/hlo/runner.py "$H" tests/hlo/*.test | sed 's/^\(PASS\|FAIL\) /\1 split read: /'

HLO_DATA=$ROOT/tests/data/hlo

if [ -z "$HLO_DATA" ]; then
	echo "SKIP real HLO files: neither tests/data/hlo nor ../shared/data/hlo has any"
else
	for f in "$HLO_DATA"/*.hlo; do
		n=$(basename "$f" .hlo)
		if ! "$H" stats "$f" >"$T/c.txt" 2>"$T/err"; then
			bad "real $n parses" "$(head -c 300 "$T/err")"
			continue
		fi
		ok "real $n parses"
		if "$PY" tests/hlo/hlo_counts.py "$f" >"$T/py.txt" 2>"$T/err" &&
		   cmp -s "$T/py.txt" "$T/c.txt"; then
			ok "real $n: $(head -1 "$T/c.txt" | sed 's/^module [^ ]* //') as counted in python"
		else
			bad "real $n counts" "$(diff "$T/py.txt" "$T/c.txt" | head -5 | tr '\n' '|')$(head -c 200 "$T/err")"
		fi
		"$H" dump "$f" >"$T/one" 2>&1
		if HLO_SPLIT_MIN=1 "$H" dump "$f" >"$T/two" 2>&1 && cmp -s "$T/one" "$T/two"; then
			ok "real $n: read in two halves, the same module"
		else
			bad "real $n read in two halves" "$(diff "$T/one" "$T/two" | head -5 | tr '\n' '|')"
		fi
		if "$H" roundtrip "$f" >"$T/out" 2>"$T/err"; then
			ok "real $n: $(sed 's/^round trip: //' "$T/out")"
		else
			bad "real $n round trip" "$(head -c 300 "$T/err")"
		fi
	done
fi

# hloscope convert of every real file against the python featurization
if [ -n "$HLO_DATA" ] && need numpy; then
	mkdir -p "$T/npz"
	"$PY" tests/hlo/check_convert.py "$HLOSCOPE" "$T/npz" "$HLO_DATA"/*.hlo ||
		bad "convert against python" "check_convert.py exited $?"
fi

# Corrupted copies: truncations at evenly spread points and random edits.
corrupt() { # NAME FILE VARIANTS
	if "$H" corrupt "$2" "$3" 7 >"$T/out" 2>"$T/err" && no_sanitizer_report "$T/err"; then
		ok "corrupt $1: $(sed 's/^corrupt [^:]*: //' "$T/out")"
	else
		bad "corrupt $1" "exit $?: $(grep -m3 -E 'ERROR|runtime error|SUMMARY|bad error' "$T/err" | tr '\n' '|')"
	fi
}
for f in tests/fuzz/corpus/hlo_text/real-*; do
	corrupt "seed $(basename "$f")" "$f" 60
done
if [ -n "$HLO_DATA" ]; then
	for f in "$HLO_DATA"/*.hlo; do
		size=$(wc -c <"$f")
		if [ "$size" -lt 100000 ]; then v=200; else v=15; fi
		corrupt "real $(basename "$f" .hlo)" "$f" "$v"
	done
fi

# Sniffing: HLO text after comments, not other files.
printf '// dumped\n/* by XLA */\n  HloModule m\n' >"$T/s1"
printf 'HloModuleX m\n' >"$T/s2"
printf '\x50\x4b\x03\x04' >"$T/s3"
[ "$("$H" sniff "$T/s1")$("$H" sniff "$T/s2")$("$H" sniff "$T/s3")" = 100 ] &&
	ok "sniff: HloModule after comments; not HloModuleX, not a zip" ||
	bad "sniff" "got $("$H" sniff "$T/s1")$("$H" sniff "$T/s2")$("$H" sniff "$T/s3")"

# Files that are not HLO text say what they are: an empty file (any name),
# StableHLO/MLIR text (and how to get HLO text), in a folder too.
: >"$T/empty.hlo"
: >"$T/empty.data"
for f in empty.hlo empty.data; do
	"$HLOSCOPE" info "$T/$f" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 2 ] && grep -qx "hloscope info: $T/$f: the file is empty (0 bytes)" "$T/err" &&
		ok "an empty $f says it is empty" || bad "empty $f" "exit $rc: $(cat "$T/err")"
done
mkdir -p "$T/mlir"
printf '#loc = loc(unknown)\nmodule @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main(%%arg0: tensor<8xf32>) -> (tensor<8xf32>) {\n    return %%arg0 : tensor<8xf32>\n  }\n}\n' >"$T/mlir/f.mlir"
sed 1d "$T/mlir/f.mlir" >"$T/f.hlo"
cp tests/data/hlo/jit_f_softmax_allreduce_gpu_before_fusion.hlo "$T/mlir/"
"$HLOSCOPE" info "$T/f.hlo" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] && grep -q "^hloscope info: $T/f.hlo:1:1: MLIR (StableHLO) text, not HLO text; get HLO text from JAX with jax.jit(f).lower(x).compile().as_text(), or .* XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_as_text'$" "$T/err" &&
	ok "MLIR text is named as such, with how to get HLO text" || bad "MLIR text" "exit $rc: $(cat "$T/err")"
"$HLOSCOPE" query "$T/mlir" 'count by opcode limit 1' >/dev/null 2>"$T/err"
grep -q "^hloscope query: left out f.mlir: MLIR (StableHLO) text, not HLO text; get HLO text" "$T/err" &&
	ok "a folder leaves MLIR text out, saying what it is" || bad "MLIR in a folder" "$(cat "$T/err")"

# A file that cannot be read is an error with its name, exit 2.
"$H" dump "$T/no-such.hlo" >/dev/null 2>"$T/err"
[ $? -ne 0 ] && ok "a missing file is refused" || bad "missing file" "exit 0"
exit 0
