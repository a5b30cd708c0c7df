# loader_corrupt: damaged and hostile files (tests/fixtures/make_corrupt.py):
# a small valid npz truncated (at every offset near its ends), every zip and
# npy header byte flipped, bad CRCs, huge size and shape claims, deflate bombs, refused dtypes
# (object/pickled), broken graph invariants.  `check` and `info` must exit 2
# with a message naming the file (and the array where there is one), never
# crash, never leave a sanitizer report; damage in fields a reader may ignore
# may pass, but then the values must be the undamaged file's.
#
# ~3,100 variants: `check` takes them in batches (one line per file), and a
# sample runs one by one, so the suite stays well under a minute under ASan.
#
# pass: sanitizer (what damaged input can break is memory, which only the
# sanitizer build sees; the messages and statuses are the same in both)
. tests/lib.sh
need numpy || exit 0
use_fixtures corrupt || exit 1
C=$FIX_CORRUPT
cd "$C" || exit 1
tab=$(printf '\t')

crashed() { # STATUS ERRFILE: a signal, a sanitizer exit (99) or report
	[ "$1" -ge 99 ] || ! no_sanitizer_report "$2"
}

# 1. Every variant through `check` in batches: one line per file, "OK FILE"
#    or "FILE: problem".  "fail" variants need a problem line that starts
#    with their path (and matches their pattern), "ok" ones an OK line;
#    "maybe" ones that pass are kept for step 3.
for g in trunc zipflip npyflip crc huge bomb dtype graph misc; do
	awk -F"$tab" -v g="$g" '$1 == g' manifest >"$T/$g.list"
	cut -f2 "$T/$g.list" | xargs -n 400 "$HLOSCOPE" check >"$T/$g.out" 2>"$T/$g.err"
	rc=$?
	# xargs: 0 all passed, 123 some check exited 1-125; else a crash
	if { [ "$rc" -ne 123 ] && [ "$rc" -ne 0 ]; } || crashed 0 "$T/$g.err"; then
		bad "check $g (batch)" "xargs status $rc (a crash?): $(grep -m2 -E 'ERROR|runtime error|Segmentation' "$T/$g.err")"
		continue
	fi
	: >"$T/$g.maybe_ok"
	awk -F"$tab" -v out="$T/$g.out" -v g="$g" -v keep="$T/$g.maybe_ok" '
		BEGIN {
			while ((getline line < out) > 0) {
				if (line ~ /^OK /) { okf[substr(line, 4)] = 1; continue }
				p = index(line, ": ")
				if (p == 0) { print "FAIL " g ": unexpected output line: " line; nbad++; continue }
				prob[substr(line, 1, p - 1)] = line
			}
		}
		{
			path = $2; want = $3; pat = $4
			if (!(path in okf) && !(path in prob)) {
				print "FAIL " path ": no line for it in check'"'"'s output"; nbad++
			} else if ((want == "fail" || want == "strict") && (path in okf)) {
				print "FAIL " path ": accepted, but it is " $5; nbad++
			} else if ((want == "fail" || want == "strict") && pat != "-" && prob[path] !~ pat) {
				print "FAIL " path " (" $5 "): message does not match /" pat "/: " prob[path]; nbad++
			} else if (want == "ok" && !(path in okf)) {
				print "FAIL " path " (" $5 "): a valid file refused: " prob[path]; nbad++
			} else if (want == "fail" || want == "strict") {
				nfail++
			} else if (path in okf) {
				if (want == "maybe") print path > keep
				nacc++
			} else nfail++
		}
		END {
			if (!nbad) print "PASS check " g ": " nfail + 0 " refused, " nacc + 0 " accepted (valid or harmless damage)"
		}' "$T/$g.list"
done

# 2. One by one: `info` on every variant of the small groups and `check` +
#    `info` on a sample of the big ones: status 2 for "fail" (0 for "ok"),
#    a message naming the file, no crash, no sanitizer report.
{
	awk -F"$tab" '$1 != "trunc" && $1 != "zipflip" && $1 != "npyflip" { print $2 "\t" $3 "\tinfo" }' manifest
	awk -F"$tab" '($1 == "trunc" || $1 == "zipflip" || $1 == "npyflip") && $3 == "fail" && NR % 300 == 7 {
		print $2 "\t" $3 "\tcheck"; print $2 "\t" $3 "\tinfo" }' manifest
} >"$T/one"
n=0 nbad=0
while IFS=$tab read -r p want cmd; do
	n=$((n + 1))
	"$HLOSCOPE" "$cmd" "$p" >"$T/out" 2>"$T/err"
	rc=$?
	if crashed "$rc" "$T/err"; then
		bad "$cmd $p" "crash or sanitizer report (exit $rc): $(grep -m2 -E 'ERROR|runtime error' "$T/err")"
	elif [ "$want" = fail ] && [ "$rc" -ne 2 ]; then
		bad "$cmd $p" "exit $rc, wanted 2: $(head -c 200 "$T/err")"
	elif [ "$want" = fail ] && ! grep -qF "$p" "$T/out" "$T/err"; then
		bad "$cmd $p" "message does not name the file: $(cat "$T/out" "$T/err" | head -c 200)"
	elif [ "$want" = ok ] && [ "$rc" -ne 0 ]; then
		bad "$cmd $p" "a valid file, exit $rc: $(head -c 200 "$T/err")"
	elif [ "$want" = strict ] && [ "$cmd" = info ] && [ "$rc" -ne 0 ]; then
		bad "$cmd $p" "damage a reader lives with (check alone refuses it), exit $rc: $(head -c 200 "$T/err")"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
		bad "$cmd $p" "exit $rc, wanted 0 or 2"
	else
		continue
	fi
	nbad=$((nbad + 1))
done <"$T/one"
[ "$nbad" -eq 0 ] && ok "$n single runs of info/check: status 2 naming the file, 0 for valid files"

# 3. Harmless damage that was accepted must read as the undamaged file:
#    `info --json` of a sample equals numpy's view of the base file.
for b in tile layout; do
	cat "$T"/*.maybe_ok | grep "/$b\." | awk 'NR % 40 == 1' >"$T/m.$b"
	k=0
	: >"$T/m.$b.jsons"
	while read -r p; do
		k=$((k + 1))
		"$HLOSCOPE" info "$p" --json >"$T/m.$b.$k.json" 2>"$T/err"
		rc=$?
		if [ "$rc" -ne 0 ] || crashed "$rc" "$T/err"; then
			bad "info $p" "check accepted it, info exits $rc: $(head -c 200 "$T/err")"
		else
			echo "$T/m.$b.$k.json" >>"$T/m.$b.jsons"
		fi
	done <"$T/m.$b"
	[ -s "$T/m.$b.jsons" ] || continue
	# shellcheck disable=SC2046
	"$PY" "$ROOT/tests/fixtures/check_info.py" --many "base/$b.npz" $(cat "$T/m.$b.jsons") |
		awk -v b="$b" '/^FAIL/ { print; f++ } /^PASS/ { p++ }
			END { if (!f) print "PASS " b ": " p " accepted damaged variants read as the undamaged file" }'
done

# 4. Valid but unusual files: info equals numpy's reading of them (one
#    python for all).
k=0
: >"$T/v.table"
for p in graph/layout_int32_arrays.npz graph/layout_ncf_width_17.npz \
	graph/tile_feat_70_wide.npz graph/tile_feat_be.npz graph/tile_no_edges.npz \
	crc/descriptor_ok.npz base/tile_stored.npz; do
	k=$((k + 1))
	if "$HLOSCOPE" info "$p" --json >"$T/v$k.json" 2>"$T/err"; then
		printf 'info --json %s equals numpy\t%s\t%s\t%s\n' "$p" "$p" "$T/v$k.json" "$p" >>"$T/v.table"
	else
		bad "info --json $p" "$(head -c 200 "$T/err")"
	fi
done
"$PY" "$ROOT/tests/fixtures/check_info.py" --table "$T/v.table" --quiet >"$T/v.out"
cat "$T/v.out"
while IFS=$tab read -r name rest; do
	grep -qF "FAIL $name." "$T/v.out" || ok "$name"
done <"$T/v.table"

# 4b. An unknown opcode id and a self-loop: check refuses them one by one
#     (exit 2, the array and the index named); the explorer's readers open
#     them, the unknown id named as the opcode list names it.
for p in graph/tile_opcode_200.npz graph/tile_self_loop.npz; do
	expect_status 2 "check $p exits 2" "$HLOSCOPE" check "$p"
done
"$HLOSCOPE" check graph/tile_opcode_200.npz >"$T/out" 2>&1
grep -qF "node_opcode.npy: node 2 has opcode 200, not a known opcode id (0..120)" "$T/out" &&
	ok "check opcode 200: names node_opcode and node 2" ||
	bad "check opcode 200 message" "$(head -c 300 "$T/out")"
"$HLOSCOPE" query graph/tile_opcode_200.npz 'count by opcode' >"$T/out" 2>"$T/err" &&
	grep -q "opcode-200" "$T/out" && ok "query opens opcode 200 and names it opcode-200" ||
	bad "query on opcode 200" "$(head -c 300 "$T/out" "$T/err")"
"$HLOSCOPE" query graph/tile_self_loop.npz 'neighbors 2' >"$T/out" 2>"$T/err" &&
	ok "query opens a self-loop" || bad "query on a self-loop" "$(head -c 300 "$T/err")"
"$HLOSCOPE" info graph/tile_self_loop.npz >"$T/out" 2>"$T/err" &&
	grep -qF "note: edge_index: edge 1 [2, 2] is a self-loop (hloscope check reports it as damage)" "$T/err" &&
	ok "info opens a self-loop and says check reports it" || bad "info on a self-loop" "$(head -c 300 "$T/err")"
. "$ROOT/tests/tui_lib.sh"
tui_run "explorer opens opcode 200" "$C" graph/tile_opcode_200.npz <<'TUIEOF'
has the status line says what check would refuse => note: node_opcode: node 2 has opcode 200
has the opcode table names it => opcode-200
Q
TUIEOF

# 5. dump refuses what it cannot read, with status 2 and the reason.
expect_status 2 "dump object array" "$HLOSCOPE" dump dtype/pickled_only.npz obj
grep -qE '[Oo]bject|[Pp]ickle' "$T/err" && ok "dump object array: says object/pickle" ||
	bad "dump object array message" "$(head -c 200 "$T/err")"
expect_status 0 "dump a numeric array next to a pickled one" "$HLOSCOPE" dump dtype/pickled_only.npz ints
for p in huge/shape_2p62_2d.npz huge/shape_2p63_overflow.npz huge/member_2p40_deflate.npz \
	bomb/declared_small.npz bomb/declared_8g.npz crc/central_stored.npz; do
	expect_status 2 "dump node_feat of $p" "$HLOSCOPE" dump "$p" node_feat
	crashed 0 "$T/err" && bad "dump $p" "sanitizer report"
	grep -qF "$p" "$T/err" || bad "dump $p" "message does not name the file"
done
exit 0
