# real_modules: every real module bundled in tests/data (HLO text, binary
# HloModuleProto / HloProto, the raw TpuGraphs protobufs) opens, queries and
# draws: `info`, a query script (opcode counts, the costliest nodes, the
# entry root in detail) and a terminal drawing around the last root, each
# exit 0 with no sanitizer report.  HLOSCOPE_REAL_HLO=DIR adds every *.hlo
# and *.pb under DIR (a larger local collection; nothing there is bundled).
#
# pass: sanitizer (what it looks for beyond exit 0 is crashes, leaks and
# undefined behaviour on real input, which only the sanitizer build reports)
. tests/lib.sh

run() { # NAME CMD...: exit 0 and no sanitizer report
	name=$1; shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 0 ] && no_sanitizer_report "$T/err"; then
		return 0
	fi
	bad "$name" "exit $rc: $(grep -m3 -E 'ERROR|runtime error|SUMMARY|hloscope:' "$T/err" | tr '\n' '|')"
	return 1
}

module() { # FILE (or FILE#N)
	mf=$1
	n=$(basename "$mf")
	run "real $n: info" "$HLOSCOPE" info "$mf" || return
	run "real $n: query" "$HLOSCOPE" query "$mf" --csv \
		'nodes where is_root = 1 sort by id desc limit 1 show name' \
		'count by opcode limit 5' 'nodes sort by cost desc limit 3 show name, opcode, cost' || return
	root=$(sed -n 2p "$T/out")
	[ -n "$root" ] && run "real $n: show the last root" "$HLOSCOPE" query "$mf" "show $root" || return
	run "real $n: draw around $root" env COLUMNS=120 "$HLOSCOPE" dot "$mf" --around "$root" \
		--radius 1 --text || return
	ok "real $n: opens, queries, draws around $root"
}

files=$(ls tests/data/hlo/*.hlo tests/data/hlo/*.pb 2>/dev/null)
if [ -n "${HLOSCOPE_REAL_HLO:-}" ]; then
	files="$files $(find "$HLOSCOPE_REAL_HLO" -type f \( -name '*.hlo' -o -name '*.pb' \) | sort)"
fi
count=0
for f in $files; do
	module "$f"
	count=$((count + 1))
done
# The raw TpuGraphs protobufs hold several modules: the first and the last.
for f in tests/data/raw/*.pb; do
	k=$("$HLOSCOPE" info --json "$f" 2>/dev/null | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["graphs"]))' 2>/dev/null)
	if [ -z "$k" ]; then
		bad "real $(basename "$f"): module count" "info --json gave no graphs list"
		continue
	fi
	module "$f#0"
	module "$f#$((k - 1))"
	count=$((count + 2))
done
[ "$count" -ge 30 ] && ok "real modules: $count tried" || bad "real modules" "only $count found"
exit 0
