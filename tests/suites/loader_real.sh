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

short() { basename "$1" .npz | cut -c1-24; }
tab=$(printf '\t')

# info --json of every file against numpy (one python for all), and numpy's
# dump of every array of every file.
i=0 pairs=""
: >"$T/table"
while read -r f; do
	i=$((i + 1))
	"$HLOSCOPE" info "$f" --json >"$T/info$i.json" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! no_sanitizer_report "$T/err"; then
		bad "info:$(short "$f")" "exit $rc: $(head -c 300 "$T/err")"
	else
		printf 'info:%s\t%s\t%s\t%s\n' "$(short "$f")" "$f" "$T/info$i.json" "$f" >>"$T/table"
	fi
	pairs="$pairs $f $T/np$i"
done <"$T/files"
"$PY" tests/fixtures/check_info.py --table "$T/table"
# shellcheck disable=SC2086
if ! "$PY" tests/fixtures/make_fixtures.py dumpall $pairs >/dev/null 2>"$T/err"; then
	bad "numpy dumpall" "numpy could not read them: $(tail -2 "$T/err")"
	exit 1
fi

# dump of every array (one process per file, split at its "== NAME" lines),
# --limit, check.
i=0
while read -r f; do
	i=$((i + 1))
	base=$(basename "$f" .npz)
	s=$(short "$f")
	# shellcheck disable=SC2046
	"$HLOSCOPE" dump "$f" $(cat "$T/np$i/arrays") >"$T/got" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! no_sanitizer_report "$T/err"; then
		bad "dump:$s" "exit $rc: $(head -c 300 "$T/err")"
	else
		rm -rf "$T/split" && mkdir "$T/split"
		awk -v d="$T/split" '/^== / { close(out); out = d "/" substr($0, 4) ".txt"; printf "" > out; next }
			{ print > out }' "$T/got"
		while read -r arr; do
			if cmp -s "$T/np$i/$arr.txt" "$T/split/$arr.txt"; then
				ok "dump:$s:$arr"
			else
				bad "dump:$s:$arr" "differs from numpy: $(diff "$T/np$i/$arr.txt" "$T/split/$arr.txt" | head -3 | cut -c1-160 | tr '\n' '|')"
			fi
		done <"$T/np$i/arrays"
	fi
	# --limit on a real 2-d array
	"$HLOSCOPE" dump "$f" node_feat --limit 2 >"$T/got" 2>&1
	head -n 2 "$T/np$i/node_feat.txt" | cmp -s - "$T/got" && ok "dump --limit:$s" ||
		bad "dump --limit:$s" "$(head -c 200 "$T/got")"
	# check
	"$HLOSCOPE" check "$f" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q "^OK .*$base.npz" "$T/out" && no_sanitizer_report "$T/err"; then
		ok "check:$s"
	else
		bad "check:$s" "exit $rc: $(cat "$T/out" "$T/err" | head -c 300)"
	fi
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
