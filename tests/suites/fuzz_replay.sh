# fuzz_replay: the libFuzzer target tests/fuzz/fuzz_npz.c, run by
# $HLOSCOPE_BUILD/tests/fuzz_replay (no libFuzzer needed) over the seed corpus
# tests/fuzz/corpus/npz and the whole corrupted-input corpus of
# tests/fixtures/make_corrupt.py: no crash, no leak, no sanitizer report.
. tests/lib.sh
R="$ROOT/$HLOSCOPE_BUILD/tests/fuzz_replay"
if [ ! -x "$R" ]; then
	bad fuzz_replay "no $R (make units builds it)"
	exit 1
fi

replay() { # NAME DIR...: runs the replayer, wants status 0 and no report
	name=$1; shift
	"$R" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! no_sanitizer_report "$T/err"; then
		bad "$name" "exit $rc: $(grep -m3 -E 'ERROR|runtime error|SUMMARY|fuzz_replay' "$T/err" | tr '\n' '|')"
		return 1
	fi
	ok "$name: $(awk '{ n += $(NF - 1) } END { print n }' "$T/out") inputs"
}

n=$(ls tests/fuzz/corpus/npz | wc -l)
[ "$n" -ge 5 ] && ok "seed corpus has $n files" || bad "seed corpus" "only $n files"
replay "replay seed corpus" tests/fuzz/corpus/npz

if ! "$PY" tests/fixtures/make_corrupt.py "$T/c" >"$T/gen.log" 2>&1; then
	bad corrupt_corpus "make_corrupt.py failed: $(tail -3 "$T/gen.log" | tr '\n' '|')"
	exit 1
fi
for g in base trunc zipflip npyflip crc huge bomb dtype graph misc; do
	replay "replay corrupt/$g" "$T/c/$g"
done

# The replayer itself: a missing input is reported with status 1.
"$R" "$T/no-such-input" >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && grep -q "no-such-input" "$T/err" && ok "replay: missing input is an error" ||
	bad "replay: missing input" "$(head -c 200 "$T/err")"
exit 0
