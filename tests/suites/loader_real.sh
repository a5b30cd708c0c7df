# loader_real: every real TpuGraphs file in $DATA loads.  `info --json` equals
# what numpy computes (tests/fixtures/check_info.py), `dump` of every array
# equals numpy's values (edge_index is Fortran order in layout files), and
# `check` says OK with status 0.
. tests/lib.sh
need numpy || exit 0
if [ ! -d "$DATA/npz" ]; then
	bad real_data "no real files: $DATA/npz is missing"
	exit 1
fi
find "$DATA/npz" -name '*.npz' | sort >"$T/files"
nfiles=$(wc -l <"$T/files")
[ "$nfiles" -ge 7 ] && ok "found $nfiles real files" || bad real_files "only $nfiles files under $DATA/npz"

i=0
while read -r f; do
	i=$((i + 1))
	base=$(basename "$f" .npz)
	short=$(printf '%s' "$base" | cut -c1-24)
	# info --json against numpy
	"$HLOSCOPE" info "$f" --json >"$T/info.json" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! no_sanitizer_report "$T/err"; then
		bad "info:$short" "exit $rc: $(head -c 300 "$T/err")"
	else
		"$PY" tests/fixtures/check_info.py "info:$short" "$f" "$T/info.json" --file="$f"
	fi
	# dump of every array against numpy
	mkdir -p "$T/np$i"
	if ! "$PY" tests/fixtures/make_fixtures.py dumpall "$f" "$T/np$i" >"$T/arrays" 2>"$T/err"; then
		bad "numpy:$short" "numpy could not read it: $(tail -2 "$T/err")"
		continue
	fi
	while read -r arr; do
		"$HLOSCOPE" dump "$f" "$arr" >"$T/got" 2>"$T/err"
		rc=$?
		if [ "$rc" -ne 0 ] || ! no_sanitizer_report "$T/err"; then
			bad "dump:$short:$arr" "exit $rc: $(head -c 300 "$T/err")"
		elif cmp -s "$T/np$i/$arr.txt" "$T/got"; then
			ok "dump:$short:$arr"
		else
			bad "dump:$short:$arr" "differs from numpy: $(diff "$T/np$i/$arr.txt" "$T/got" | head -3 | cut -c1-160 | tr '\n' '|')"
		fi
	done <"$T/arrays"
	# --limit on a real 2-d array
	"$HLOSCOPE" dump "$f" node_feat --limit 2 >"$T/got" 2>&1
	head -n 2 "$T/np$i/node_feat.txt" | cmp -s - "$T/got" && ok "dump --limit:$short" ||
		bad "dump --limit:$short" "$(head -c 200 "$T/got")"
	# check
	"$HLOSCOPE" check "$f" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q "^OK .*$base.npz" "$T/out" && no_sanitizer_report "$T/err"; then
		ok "check:$short"
	else
		bad "check:$short" "exit $rc: $(cat "$T/out" "$T/err" | head -c 300)"
	fi
	rm -rf "$T/np$i"
done <"$T/files"

# All at once, and the folder form (recursive).
# shellcheck disable=SC2046
expect_status 0 "check all real files" "$HLOSCOPE" check $(cat "$T/files")
[ "$(grep -c '^OK ' "$T/out")" -eq "$nfiles" ] && ok "check all: one OK per file" ||
	bad "check all: one OK per file" "$(head -c 300 "$T/out")"
expect_status 0 "check real folder" "$HLOSCOPE" check "$DATA/npz"
[ "$(grep -c '^OK ' "$T/out")" -eq "$nfiles" ] && ok "check folder: one OK per file" ||
	bad "check folder: one OK per file" "$(head -c 300 "$T/out")"
exit 0
