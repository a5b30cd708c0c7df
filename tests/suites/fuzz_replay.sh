# fuzz_replay: every libFuzzer target tests/fuzz/fuzz_<target>.c, linked with
# tests/fuzz/replay.c into $HLOSCOPE_BUILD/tests/fuzz/replay_<target> (make
# units; no libFuzzer needed), runs its seed corpus tests/fuzz/corpus/<target>/:
# no crash, no leak, no sanitizer report.  A new target needs nothing here:
# its source and its corpus folder are enough.
#
# Each target also runs on its real seeds (tests/fuzz/seeds.sh: every real
# module, raw protobuf and .npz of tests/data), and the npz target on the
# whole corrupted-input corpus of tests/fixtures/make_corrupt.py.
#
# pass: sanitizer (a replay looks for crashes, leaks and undefined
# behaviour, which only the sanitizer build reports)
. tests/lib.sh
. tests/fuzz/seeds.sh
B="$ROOT/$HLOSCOPE_BUILD/tests/fuzz"

replay() { # NAME REPLAYER INPUT...: runs the replayer, wants status 0 and no report
	name=$1 r=$2; shift 2
	"$r" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! no_sanitizer_report "$T/err"; then
		bad "$name" "exit $rc: $(grep -m3 -E 'ERROR|runtime error|SUMMARY|replay' "$T/err" | tr '\n' '|')"
		return 1
	fi
	ok "$name: $(awk '{ n += $(NF - 1) } END { print n }' "$T/out") inputs"
}

targets=0
for src in tests/fuzz/fuzz_*.c; do
	[ -f "$src" ] || continue
	t=$(basename "$src" .c)
	t=${t#fuzz_}
	targets=$((targets + 1))
	if [ ! -x "$B/replay_$t" ]; then
		bad "fuzz $t" "no $B/replay_$t (make units builds it)"
		continue
	fi
	corpus="tests/fuzz/corpus/$t"
	n=$(find "$corpus" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | wc -l)
	if [ "$n" -lt 5 ]; then
		bad "fuzz $t: seed corpus" "$corpus holds $n files (5 or more wanted)"
		continue
	fi
	replay "fuzz $t: seed corpus" "$B/replay_$t" "$corpus"
	real=$(real_seeds "$t")
	# shellcheck disable=SC2086
	[ -z "$real" ] || replay "fuzz $t: real seeds" "$B/replay_$t" $real
done
[ "$targets" -ge 2 ] && ok "fuzz targets: $targets" || bad "fuzz targets" "only $targets in tests/fuzz"

# The replayer itself: a missing input is reported with status 1.
"$B/replay_npz" "$T/no-such-input" >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && grep -q "no-such-input" "$T/err" && ok "replay: missing input is an error" ||
	bad "replay: missing input" "$(head -c 200 "$T/err")"

need numpy || exit 0
use_fixtures corrupt || exit 1
for g in base trunc zipflip npyflip crc huge bomb dtype graph misc; do
	replay "fuzz npz: corrupt/$g" "$B/replay_npz" "$FIX_CORRUPT/$g"
done
exit 0
