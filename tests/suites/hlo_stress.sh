# hlo_stress: generated modules that combine every syntax form of real HLO
# (tests/hlo/gen_stress.py: module attributes before the instructions, long
# slices, deep tuples, tiled layouts with memory spaces, dynamic dimensions,
# escapes, stack-frame tables, '} // name' trailers, async pairs, ...), read
# by the C reader: the counts each module was written with (edges as the
# dataset counts them, opcodes), print -> parse -> print a fixed point, and
# `hloscope convert` equal to the python featurization of the same text.
# In the sanitizer pass every read is watched by ASan and UBSan.
. tests/lib.sh
H="$ROOT/$HLOSCOPE_BUILD/tests/hlo_tool"
"$PY" tests/hlo/gen_stress.py "$T/gen" 24 25 >"$T/gen.log" 2>&1 ||
	{ bad "generator" "$(tail -3 "$T/gen.log" | tr '\n' '|')"; exit 0; }
n=0
for f in "$T"/gen/*.hlo; do
	name=$(basename "$f" .hlo)
	if "$H" stats "$f" >"$T/got" 2>"$T/err" && no_sanitizer_report "$T/err" &&
	   cmp -s "$T/got" "$T/gen/$name.want"; then
		:
	else
		bad "$name: counts as generated" "$(head -c 200 "$T/err")$(diff "$T/gen/$name.want" "$T/got" | head -4 | tr '\n' '|')"
		continue
	fi
	if ! "$H" roundtrip "$f" >"$T/out" 2>"$T/err" || ! no_sanitizer_report "$T/err"; then
		bad "$name: round trip" "$(grep -m2 -E 'ERROR|runtime error|round' "$T/err" | tr '\n' '|')"
		continue
	fi
	"$H" dump "$f" >"$T/one" 2>&1
	if ! HLO_SPLIT_MIN=1 "$H" dump "$f" >"$T/two" 2>"$T/err" || ! no_sanitizer_report "$T/err" ||
	   ! cmp -s "$T/one" "$T/two"; then
		bad "$name: read in two halves" "$(diff "$T/one" "$T/two" | head -4 | tr '\n' '|')"
		continue
	fi
	n=$((n + 1))
done
[ "$n" -eq 24 ] && ok "24 generated modules: counts as generated, print -> parse -> print a fixed point, the same read in two halves by two threads"
if need numpy; then
	mkdir -p "$T/npz"
	"$PY" tests/hlo/check_convert.py "$HLOSCOPE" "$T/npz" "$T"/gen/*.hlo >"$T/conv" 2>&1 ||
		bad "convert against python" "check_convert.py exited $?"
	grep -v '^PASS' "$T/conv"
	k=$(grep -c '^PASS' "$T/conv")
	[ "$k" -eq 24 ] && ok "24 generated modules: hloscope convert equals the python featurization"
fi
exit 0
