# loader_numpy: numpy writes every dtype, byte order, array order, 0-d, empty
# and large arrays, stored and deflated members, npy versions 1-3, zip64 and
# data-descriptor archives (tests/fixtures/make_fixtures.py); `hloscope dump`
# must print exactly what numpy's values give under the same rules.
. tests/lib.sh
need numpy || exit 0
use_fixtures numpy || exit 1
F=$FIX_NUMPY

# One `dump FILE ARRAY...` per file (its output split at the "== ARRAY"
# lines), each array compared on its own.
tab=$(printf '\t')
n=0
for file in $(cut -f1 "$F/manifest" | sort -u); do
	awk -F"$tab" -v f="$file" '$1 == f { print $2 }' "$F/manifest" >"$T/arrays"
	# shellcheck disable=SC2046
	"$HLOSCOPE" dump "$F/$file" $(cat "$T/arrays") >"$T/got" 2>"$T/err"
	rc=$?
	san=""
	no_sanitizer_report "$T/err" || san=$(grep -m1 -E 'ERROR|runtime error' "$T/err")
	rm -rf "$T/split" && mkdir "$T/split"
	awk -v d="$T/split" -v first="$(head -1 "$T/arrays")" '
		BEGIN { out = d "/" first; printf "" > out }
		/^== / { close(out); out = d "/" substr($0, 4); printf "" > out; next }
		{ print > out }' "$T/got"
	while IFS=$tab read -r f arr exp note; do
		[ "$f" = "$file" ] || continue
		n=$((n + 1))
		name="dump:$file:$arr"
		if [ -n "$san" ]; then
			bad "$name" "sanitizer report: $san"
		elif [ "$rc" -ne 0 ]; then
			bad "$name" "exit $rc: $(head -c 300 "$T/err")"
		elif cmp -s "$F/$exp" "$T/split/$arr"; then
			ok "$name"
		else
			bad "$name" "differs from numpy: $(diff "$F/$exp" "$T/split/$arr" | head -4 | cut -c1-160 | tr '\n' '|')"
		fi
	done <"$F/manifest"
done
[ "$n" -gt 250 ] && ok "manifest covers $n arrays" || bad manifest "only $n arrays"

# Several arrays: each one's lines after "== NAME", --limit applies to each.
"$HLOSCOPE" dump "$F/zero_d.npz" f8_pi f8_pi.npy --limit 1 >"$T/got" 2>"$T/err"
{ echo "== f8_pi"; head -1 "$F/expect/zero_d.npz__f8_pi.txt"; echo "== f8_pi"
	head -1 "$F/expect/zero_d.npz__f8_pi.txt"; } >"$T/want"
cmp -s "$T/want" "$T/got" && ok "dump two arrays with --limit" ||
	bad "dump two arrays with --limit" "$(diff "$T/want" "$T/got" | head -4 | tr '\n' '|')"

# --limit N prints the first N lines of the full dump.
for spec in "dtypes_deflate.npz f8_be_2d_f 2" "dtypes_stored.npz i8_le_3d_f 4" \
	"large_deflate.npz u1_big 7" "large_deflate.npz f8_big 3" \
	"zero_d.npz f8_pi 5" "versions.npz v30_d_i8 0"; do
	set -- $spec
	"$HLOSCOPE" dump "$F/$1" "$2" --limit "$3" >"$T/got" 2>"$T/err"
	rc=$?
	head -n "$3" "$F/expect/$1__$2.txt" >"$T/want"
	if [ "$rc" -eq 0 ] && cmp -s "$T/want" "$T/got"; then ok "dump --limit $3 $1 $2"; else
		bad "dump --limit $3 $1 $2" "exit $rc, $(diff "$T/want" "$T/got" | head -3 | tr '\n' '|')"
	fi
done

# A name given with its .npy suffix is the same array.
"$HLOSCOPE" dump "$F/zero_d.npz" f8_pi.npy >"$T/got" 2>&1
cmp -s "$T/got" "$F/expect/zero_d.npz__f8_pi.txt" && ok "dump NAME.npy" ||
	bad "dump NAME.npy" "$(head -c 200 "$T/got")"

# Errors: an array that is not there (a query error: 1, and the message lists
# what there is), a missing file (bad data: 2), bad usage (1).
expect_status 1 "dump missing array" "$HLOSCOPE" dump "$F/zero_d.npz" no_such_array
grep -q "no_such_array" "$T/err" && grep -q "f8_pi" "$T/err" &&
	ok "missing array message names it and lists the arrays" ||
	bad "missing array message" "$(head -c 300 "$T/err")"
expect_status 2 "dump missing file" "$HLOSCOPE" dump "$T/no/such/file.npz" x
grep -q "no/such/file.npz" "$T/err" && ok "missing file message names it" ||
	bad "missing file message" "$(head -c 300 "$T/err")"
expect_status 1 "dump without ARRAY" "$HLOSCOPE" dump "$F/zero_d.npz"
expect_status 1 "dump bad --limit" "$HLOSCOPE" dump "$F/zero_d.npz" f8_pi --limit -3
expect_status 1 "dump --limit without value" "$HLOSCOPE" dump "$F/zero_d.npz" f8_pi --limit
expect_status 1 "dump unknown option" "$HLOSCOPE" dump "$F/zero_d.npz" f8_pi --frobnicate
expect_status 1 "dump a good and a missing array" "$HLOSCOPE" dump "$F/zero_d.npz" f8_pi extra
[ -s "$T/out" ] && bad "dump a good and a missing array" "printed: $(head -c 100 "$T/out")" ||
	ok "dump a good and a missing array prints nothing"

# The fixtures are not graphs: check and info must say so with status 2,
# never crash.
for f in dtypes_deflate.npz zero_d.npz; do
	expect_status 2 "check non-graph $f" "$HLOSCOPE" check "$F/$f"
	grep -q "$f" "$T/out" "$T/err" && ok "check non-graph $f names the file" ||
		bad "check non-graph $f names the file" "$(cat "$T/out" "$T/err" | head -c 300)"
	expect_status 2 "info non-graph $f" "$HLOSCOPE" info "$F/$f"
done
exit 0
